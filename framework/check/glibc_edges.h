/*
 * calloc's and realloc's edges where the ABI allows more than glibc's
 * answer (zero sizes, a NULL block, realloc to 0 through the program API,
 * shrinking, growing within the block), asked of a plugin and of glibc in
 * one process: what `alloclab check`'s edge-sizes case says of each
 * answer that differs (not a failure).
 */
#ifndef ALLOCLAB_CHECK_GLIBC_EDGES_H
#define ALLOCLAB_CHECK_GLIBC_EDGES_H

#include "plugin/allocator.h"

/* At most this many differences are said, each at most
 * ALLOCLAB_CHECK_DIFFER_LEN bytes. */
#define ALLOCLAB_CHECK_DIFFERS 8
#define ALLOCLAB_CHECK_DIFFER_LEN 240

/* Each edge where a's answer is not glibc's, into differs ("realloc(p, 0)
 * of a 40-byte block returns another block ..., where glibc's returns
 * NULL ..."); how many. */
unsigned alloclab_check_glibc_edges(const struct alloclab_allocator *a,
				    char differs[ALLOCLAB_CHECK_DIFFERS][ALLOCLAB_CHECK_DIFFER_LEN]);

#endif
