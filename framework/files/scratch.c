/* Private scratch folders. See scratch.h. */
#define _GNU_SOURCE 1
#include "files/scratch.h"

#include <errno.h>
#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>

const char *alloclab_scratch_root(void)
{
	const char *tmp = getenv("TMPDIR");
	return tmp == NULL || tmp[0] != '/' ? "/tmp" : tmp;
}

/* Folders left by an alloclab that was killed (SIGKILL leaves its
 * scratch behind): their names carry the maker's pid, so the next alloclab
 * removes those whose maker is gone (and that are this user's). */
static void sweep(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *e;
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char path[ALLOCLAB_SCRATCH_LEN + 256], stem[64];
		long pid;
		int end = 0;
		struct stat st;
		if (strncmp(e->d_name, "alloclab-", 9) != 0 ||
		    sscanf(e->d_name + 9, "%63[a-z]-%ld-%*6[A-Za-z0-9]%n", stem, &pid, &end) != 2 ||
		    e->d_name[9 + end] != '\0' || pid <= 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", root, e->d_name);
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
			continue;
		if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
			alloclab_scratch_remove(path);
	}
	closedir(d);
}

int alloclab_scratch_make(const char *stem, char *out, size_t len)
{
	static pid_t swept;
	const char *tmp = alloclab_scratch_root();
	int n;

	if (swept != getpid()) {
		swept = getpid();
		sweep(tmp);
	}
	n = snprintf(out, len, "%s/alloclab-%s-%ld-XXXXXX", tmp, stem, (long)getpid());
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkdtemp(out) ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	remove(path);
	return 0;
}

void alloclab_scratch_remove(const char *dir)
{
	nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}
