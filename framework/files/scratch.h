/*
 * Private scratch folders (callgrind's dumps, gnuplot's data): made with
 * mkdtemp (mode 0700) under $TMPDIR when it is an absolute path, else
 * /tmp, and removed with everything in them, no link followed. One owner,
 * so every temporary file alloclab writes lands where the user said.
 * Every supervised child runs inside one (child.h), removed when it ends,
 * so what a killed worker left there goes with it; a folder's name carries
 * its maker's pid, and the first folder an alloclab makes sweeps away
 * those whose maker was killed before it could remove them.
 */
#ifndef ALLOCLAB_SCRATCH_H
#define ALLOCLAB_SCRATCH_H

#include "base/lengths.h"

#include <stddef.h>

/* Room for a scratch folder's path. */
#define ALLOCLAB_SCRATCH_LEN ALLOCLAB_PATH_LEN

/* The folder scratch folders are made in: $TMPDIR when absolute, else /tmp. */
const char *alloclab_scratch_root(void);

/* Makes "$TMPDIR/alloclab-STEM-PID-XXXXXX" into out[0..len) (STEM of
 * lower-case letters). Returns 0, or -1
 * with errno set (ENAMETOOLONG when it does not fit). */
int alloclab_scratch_make(const char *stem, char *out, size_t len);

/* Removes the folder and what is in it; a link in it removes only itself. */
void alloclab_scratch_remove(const char *dir);

#endif
