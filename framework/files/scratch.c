/* Private scratch folders. See scratch.h. */
#define _GNU_SOURCE 1
#include "files/scratch.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
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

/* Removes name in the folder at, and all below it, by descriptors: a
 * walk by paths stops where a path grows past PATH_MAX (a build can make
 * a tree that deep with relative paths), this one does not. Links are
 * removed, never followed; other file systems are not entered. One
 * descriptor a level: a tree deeper than the descriptors allowed is left
 * in part. */
static void remove_at(int at, const char *name, dev_t dev)
{
	struct stat st;
	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	if (S_ISDIR(st.st_mode) && st.st_dev == dev) {
		int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		if (d == NULL && fd >= 0)
			close(fd);
		for (struct dirent *e; d && (e = readdir(d)) != NULL;)
			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
				remove_at(dirfd(d), e->d_name, dev);
		if (d)
			closedir(d);
	}
	unlinkat(at, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
}

void alloclab_scratch_remove(const char *dir)
{
	struct stat st;
	if (lstat(dir, &st) == 0)
		remove_at(AT_FDCWD, dir, st.st_dev);
}
