/*
 * A submission is the file or folder its argument names, never anything
 * else: an argument is a path (`system` is the file ./system, not the
 * bundled plugin of that name). What it is decides how it is built:
 *   meson    a folder with a meson.build (the course's own build)
 *   sources  a folder with .c files and no meson.build (built as one plugin)
 *   c-file   a .c file
 *   plugin   a built plugin (an ELF file)
 *   built    a folder with no sources but a built plugin (build/ *.so, else *.so)
 *   none     nothing to grade (the row says why)
 * Each row is named by the end of its path that tells it from every other
 * (a/mine and b/mine, not mine twice), and a file reached from two
 * submissions (the same device and inode) is noted: where one reaches it
 * through a symbolic link inside it, on that one's row alone, naming the
 * link and where it leads (the other student did nothing); else (a hard
 * link, one file given twice) on both rows.
 */
#ifndef ALLOCLAB_SUBMISSION_H
#define ALLOCLAB_SUBMISSION_H

#include "base/lengths.h"

#include <stddef.h>
#include <sys/types.h>

#define ALLOCLAB_SUBMISSION_MAX_FILES 256

struct alloclab_submission_file {
	dev_t dev;
	ino_t ino;
	char name[64]; /* its name within the submission ("" the submission itself) */
	/* Where a symbolic link inside the submission leads (the file's real
	 * path, malloc'd), or NULL: reached without one. link_itself: the
	 * file is the link, not a folder above it. */
	char *target;
	int link_itself;
};

struct alloclab_submission {
	const char *arg;                  /* as given */
	char path[ALLOCLAB_PATH_LEN];     /* absolute, links resolved; "" when it does not exist */
	char name[256];                   /* the row's name */
	char kind[16];
	char plugin[256];                 /* plugin, built: the plugin's path within it ("build/x.so"; a file: its name) */
	char problem[300];                /* none: why */
	char note[600];                   /* shared files; "" none */
	struct alloclab_submission_file *files;
	size_t nfiles;
};

/* Resolves n arguments into out[0..n): kinds, names, notes. -1 only out
 * of memory. */
int alloclab_submissions_resolve(char *const *args, size_t n, struct alloclab_submission *out);
void alloclab_submissions_free(struct alloclab_submission *s, size_t n);

/* The same argument given twice (as the same words after "./" and
 * repeated or trailing slashes are taken away): the index of the first of
 * a pair into *first and *second, 1; else 0. */
int alloclab_submissions_repeated(char *const *args, size_t n, size_t *first, size_t *second);

#endif
