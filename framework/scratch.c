/* Private scratch folders. See scratch.h. */
#define _GNU_SOURCE 1
#include "scratch.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

const char *alloclab_scratch_root(void)
{
	const char *tmp = getenv("TMPDIR");
	return tmp == NULL || tmp[0] != '/' ? "/tmp" : tmp;
}

int alloclab_scratch_make(const char *stem, char *out, size_t len)
{
	const char *tmp = alloclab_scratch_root();
	int n;

	n = snprintf(out, len, "%s/alloclab-%s-XXXXXX", tmp, stem);
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
