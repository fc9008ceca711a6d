/*
 * calloc's and realloc's edges where the ABI (and C) allow more than one
 * answer, asked of the plugin and of glibc in the same process: zero
 * sizes, a NULL block, a block reallocated to 0 bytes, shrunk, grown
 * within its size. A plugin may answer otherwise than glibc there, and
 * then a program moved onto it from glibc's malloc behaves otherwise (a
 * realloc(p, 0) that returns a block where glibc's freed p and returned
 * NULL leaks it in a program written for glibc). Not a failure, and not
 * to be passed over in silence: check says each difference on a line.
 */
#define _GNU_SOURCE 1
#include "check/glibc_edges.h"
#include "process/child.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One side's calls: the plugin's ops (realloc to 0 through its program
 * API, the only calls of it a size 0 may reach), or glibc's. */
struct side {
	const struct alloclab_allocator *a; /* NULL: glibc */
};

static void *s_malloc(const struct side *s, size_t n)
{
	if (s->a == NULL)
		return malloc(n);
	alloclab_phase("case: malloc beside glibc's");
	return alloclab_malloc(s->a, n);
}

static void *s_calloc(const struct side *s, size_t n, size_t size)
{
	if (s->a == NULL)
		return calloc(n, size);
	alloclab_phase("case: calloc beside glibc's");
	return alloclab_calloc(s->a, n, size);
}

static void *s_realloc(const struct side *s, void *p, size_t n)
{
	if (s->a == NULL)
		return realloc(p, n);
	alloclab_phase("case: realloc beside glibc's");
	return n == 0 ? s->a->program.realloc(p, 0) : s->a->ops.realloc(s->a->instance, p, n);
}

static void s_free(const struct side *s, void *p)
{
	if (s->a == NULL)
		free(p);
	else
		alloclab_free(s->a, p);
}

enum edge {
	CALLOC_ZERO_COUNT,
	CALLOC_ZERO_SIZE,
	REALLOC_NULL,
	REALLOC_NULL_ZERO, /* program API */
	REALLOC_ZERO,      /* program API */
	REALLOC_SHRINK,
	REALLOC_GROW_WITHIN,
	NEDGES
};

static const char *const edge_names[NEDGES] = {
	"calloc(0, 16)",
	"calloc(16, 0)",
	"realloc(NULL, 40)",
	"realloc(NULL, 0)",
	"realloc(p, 0) of a 40-byte block",
	"realloc(p, 16) of a 4096-byte block (shrinking)",
	"realloc(p, 104) of a 100-byte block (growing within glibc's 104 usable bytes)",
};

/* Two calls for nothing: NULL, one block twice, or two blocks. */
static const char *zero_blocks(const struct side *s, size_t n, size_t size)
{
	void *x = s_calloc(s, n, size), *y = s_calloc(s, n, size);
	const char *said = x == NULL || y == NULL ? "NULL" : x == y ? "the same block twice" : "a unique block";
	s_free(s, x);
	if (y != x)
		s_free(s, y);
	return said;
}

/* A block of `from` bytes reallocated to `to`: in place, moved, NULL. */
static const char *moved(const struct side *s, size_t from, size_t to)
{
	unsigned char *p = s_malloc(s, from);
	if (p == NULL)
		return NULL;
	memset(p, 0x5a, from);
	unsigned char *q = s_realloc(s, p, to);
	const char *said = q == NULL ? (to == 0 ? "NULL (the block freed)" : "NULL")
			   : q == p ? (to == 0 ? "the same block, kept" : "the same block, in place")
				    : (to == 0 ? "another block (the old one freed)" : "another block (moved)");
	if (q != NULL || to != 0)
		s_free(s, q ? q : p);
	return said;
}

/* What side s answers at edge e, or NULL where it was not asked. */
static const char *answer(const struct side *s, enum edge e)
{
	int program = s->a == NULL || s->a->program.realloc != NULL;
	int realloc_op = s->a == NULL || s->a->ops.realloc != NULL;
	void *p;

	switch (e) {
	case CALLOC_ZERO_COUNT: return zero_blocks(s, 0, 16);
	case CALLOC_ZERO_SIZE: return zero_blocks(s, 16, 0);
	case REALLOC_NULL:
		if (!realloc_op)
			return NULL;
		p = s_realloc(s, NULL, 40);
		s_free(s, p);
		return p ? "a new block" : "NULL";
	case REALLOC_NULL_ZERO:
		if (!program)
			return NULL;
		p = s_realloc(s, NULL, 0);
		s_free(s, p);
		return p ? "a new block" : "NULL";
	case REALLOC_ZERO: return program ? moved(s, 40, 0) : NULL;
	case REALLOC_SHRINK: return realloc_op ? moved(s, 4096, 16) : NULL;
	case REALLOC_GROW_WITHIN: return realloc_op ? moved(s, 100, 104) : NULL;
	case NEDGES: break;
	}
	return NULL;
}

unsigned alloclab_check_glibc_edges(const struct alloclab_allocator *a,
				    char differs[ALLOCLAB_CHECK_DIFFERS][ALLOCLAB_CHECK_DIFFER_LEN])
{
	const struct side plugin = {a}, glibc = {NULL};
	unsigned n = 0;

	for (unsigned e = 0; e < NEDGES && n < ALLOCLAB_CHECK_DIFFERS; e++) {
		const char *ours = answer(&plugin, (enum edge)e), *theirs = answer(&glibc, (enum edge)e);
		if (ours && theirs && strcmp(ours, theirs) != 0)
			snprintf(differs[n++], ALLOCLAB_CHECK_DIFFER_LEN, "%s returns %s, where glibc's returns %s",
				 edge_names[e], ours, theirs);
	}
	alloclab_phase("case");
	return n;
}
