/* See self_exe.h. */
#define _GNU_SOURCE 1
#include "files/self_exe.h"
#include "base/lengths.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char self[PATH_MAX] = "/proc/self/exe";

void alloclab_self_init(const char *argv0)
{
	const char *inherited = getenv("ALLOCLAB_SELF");
	char resolved[PATH_MAX];

	/* Inherited from the alloclab that started this one, and believed only
	 * when it names this very executable: a value from anywhere else
	 * would have every worker run some other program. */
	struct stat a, b;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	/* Under valgrind this process's executable is valgrind's tool, which
	 * runs the alloclab its parent named. */
	int in_valgrind = strstr(exe, "/valgrind/") != NULL;
	if (inherited && *inherited && access(inherited, X_OK) == 0 && stat(inherited, &a) == 0 &&
	    (in_valgrind || (stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino))) {
		snprintf(self, sizeof self, "%s", inherited);
		return;
	}
	/* A name with a slash is a path; a bare name was found on PATH, which
	 * /proc/self/exe resolves well enough outside valgrind. */
	if (argv0 && strchr(argv0, '/') && realpath(argv0, resolved) != NULL)
		snprintf(self, sizeof self, "%s", resolved);
	else if (realpath("/proc/self/exe", resolved) != NULL)
		snprintf(self, sizeof self, "%s", resolved);
	setenv("ALLOCLAB_SELF", self, 1);
}

const char *alloclab_self_path(void) { return self; }

int alloclab_running_from_build_tree(void)
{
	static int answer = -1;
	char exe[PATH_MAX], root[PATH_MAX];
	const char *where = self;
	Dl_info info;
	size_t n;

	if (answer >= 0)
		return answer;
	answer = 0;
	/* The file this code was loaded from: the alloclab executable, a test,
	 * or the preload library inside some other program (whose own
	 * executable says nothing about where alloclab lives). */
	if (dladdr(self, &info) != 0 && info.dli_fname && info.dli_fname[0] == '/')
		where = info.dli_fname;
	if (realpath(where, exe) != NULL && realpath(ALLOCLAB_BUILD_ROOT, root) != NULL) {
		n = strlen(root);
		answer = strncmp(exe, root, n) == 0 && exe[n] == '/';
	}
	return answer;
}

int alloclab_program_on_path(const char *program)
{
	/* As execvp searches: PATH unset is glibc's default, an empty entry
	 * the current folder. */
	const char *path = getenv("PATH");
	char *copy, *cursor, *dir;
	int found = 0;

	copy = cursor = strdup(path ? path : "/bin:/usr/bin");
	while (!found && (dir = strsep(&cursor, ":")) != NULL) {
		char candidate[ALLOCLAB_PATH_PLUS_LEN];
		snprintf(candidate, sizeof candidate, "%s/%s", *dir ? dir : ".", program);
		found = access(candidate, X_OK) == 0;
	}
	free(copy);
	return found;
}

const char *alloclab_sdk_include_dir(void)
{
	return alloclab_running_from_build_tree() ? ALLOCLAB_SDK_BUILD_INCLUDE : ALLOCLAB_SDK_INSTALL_INCLUDE;
}

const char *alloclab_sdk_pkgconfig_dir(void)
{
	return alloclab_running_from_build_tree() ? ALLOCLAB_SDK_BUILD_PC_DIR : ALLOCLAB_SDK_INSTALL_PC_DIR;
}
