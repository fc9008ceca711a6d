/*
 * The fixed lengths of the buffers the framework formats text into, named
 * once. Every buffer that holds a path holds one the kernel would take;
 * a buffer that appends something of ours to a path (a suffix, a file
 * name, an option's name) has room for both, so a long path is refused
 * by the kernel, never cut short by us.
 */
#ifndef ALLOCLAB_LENGTHS_H
#define ALLOCLAB_LENGTHS_H

#include <limits.h>

/* A path, as the kernel takes it (PATH_MAX: 4096 on Linux). */
#define ALLOCLAB_PATH_LEN PATH_MAX
/* What the framework appends to a path: ".journal", "/cg.PID.N",
 * "--callgrind-out-file=", a plugin's options after its path. */
#define ALLOCLAB_PATH_EXTRA 256
/* A path with something of ours appended; a plugin's label (a path and
 * its options); one line naming a path. */
#define ALLOCLAB_PATH_PLUS_LEN (ALLOCLAB_PATH_LEN + ALLOCLAB_PATH_EXTRA)
/* Such a line with a second appendix (a temporary file beside a path
 * that already carries a suffix). */
#define ALLOCLAB_PATH_PLUS2_LEN (ALLOCLAB_PATH_PLUS_LEN + ALLOCLAB_PATH_EXTRA)

/* One line of error: what went wrong and where, for a person. */
#define ALLOCLAB_ERR_LEN 512

#endif
