/*
 * Where an A/B's instructions went: for each instructions row whose count
 * changed, the functions whose own instructions per operation changed
 * most, read from the callgrind dumps the instruction run kept (ab.h's
 * ALLOCLAB_AB_DUMPS), the last value of each side's cell. The two builds
 * are loaded from files of other names: their functions are named as of
 * one object, "plugin", so that a function is compared with itself.
 */
#ifndef ALLOCLAB_AB_FUNCTIONS_H
#define ALLOCLAB_AB_FUNCTIONS_H

#include "history/ab.h"

#include <stddef.h>

struct alloclab_ab_function {
	char *function;     /* "name [object]" */
	double base, head;  /* its own instructions per operation on each side */
};

/* One changed row's functions, or why none could be read. */
struct alloclab_ab_functions {
	size_t row;                        /* index into the result's rows */
	struct alloclab_ab_function *top;  /* the largest changes first */
	size_t ntop;
	char *why;                         /* NULL, or why the dumps could not be read */
};

/* For every instructions row of res whose verdict is a change, its `top`
 * functions, from the dumps under dir. 0 with *out (malloc'd, *n of
 * them; none when nothing changed), or -1 out of memory. */
int alloclab_ab_functions_of(const struct alloclab_ab_result *res, const char *dir, unsigned top,
			     struct alloclab_ab_functions **out, size_t *n);
void alloclab_ab_functions_free(struct alloclab_ab_functions *f, size_t n);

#endif
