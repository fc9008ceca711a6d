/*
 * ALLOC and FREE: one allocator's own entry points, chosen when a
 * standalone loop is built (benchmarks/standalone/meson.build builds each
 * loop once per allocator), so the loops call the allocator directly with
 * no framework between.
 */
#ifndef ALLOCLAB_STANDALONE_ENTRY_H
#define ALLOCLAB_STANDALONE_ENTRY_H

#include <stdlib.h>

#if defined(USE_MIMALLOC)
#include <mimalloc.h>
#define ALLOC(n) mi_malloc(n)
#define FREE(p) mi_free(p)
#elif defined(USE_CPYTHON)
void *PyObject_Malloc(size_t size);
void PyObject_Free(void *ptr);
#define ALLOC(n) PyObject_Malloc(n)
#define FREE(p) PyObject_Free(p)
#elif defined(USE_TBBMALLOC)
void *scalable_malloc(size_t size);
void scalable_free(void *ptr);
#define ALLOC(n) scalable_malloc(n)
#define FREE(p) scalable_free(p)
#else
/* glibc's, or with -ljemalloc/-ltcmalloc_minimal linked first, theirs. */
#define ALLOC(n) malloc(n)
#define FREE(p) free(p)
#endif

#endif
