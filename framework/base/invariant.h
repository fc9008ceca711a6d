/*
 * Invariants checked: what a header states in prose of its data ("not
 * decreasing", "min <= def <= max", "counts sum to the total") is checked
 * where the data is made or changed, by ALLOCLAB_CHECK_INVARIANT, in debug
 * builds (NDEBUG not defined: meson's buildtype=debug) and in builds
 * configured with -Dinvariants=true (the test suite's clang build). In a
 * release build the macro is nothing at all: not one instruction, so the
 * measured figures are those of a build without checks
 * (benchmarks/same-figures.sh compares them).
 *
 * A broken invariant is a bug of alloclab's, never bad input: input from
 * outside is refused by its reader with a message, before any invariant
 * can see it. So a broken one says where and aborts.
 */
#ifndef ALLOCLAB_INVARIANT_H
#define ALLOCLAB_INVARIANT_H

#if !defined(NDEBUG) || defined(ALLOCLAB_INVARIANTS)
#define ALLOCLAB_INVARIANTS_CHECKED 1
#include <stdio.h>
#include <stdlib.h>
/* Evaluates cond (which must have no side effect the program relies on)
 * and aborts with the condition and its place when it is false. */
#define ALLOCLAB_CHECK_INVARIANT(cond)                                                                             \
	((cond) ? (void)0                                                                                          \
		: (fprintf(stderr, "alloclab: invariant broken: %s (%s:%d, %s)\n", #cond, __FILE__, __LINE__,      \
			   __func__),                                                                              \
		   abort()))
#else
#define ALLOCLAB_INVARIANTS_CHECKED 0
#define ALLOCLAB_CHECK_INVARIANT(cond) ((void)0)
#endif

#endif
