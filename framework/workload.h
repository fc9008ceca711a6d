/*
 * The internal interface every workload implements. A workload is one file
 * in workloads/ defining a `const struct alloclab_workload` and listed in
 * workloads/meson.build; the registry (workload_registry.c) finds it.
 *
 * Lifecycle of one measured value, per thread, all on that thread:
 *   prepare (untimed) -> barrier -> run (timed) -> finish (untimed)
 * prepare builds the thread's working set (it may allocate through the
 * plugin, e.g. to pre-fill slots); run does the measured operations and sets
 * `ops`; finish frees whatever is still live. Between values nothing
 * survives except what the allocator itself keeps.
 */
#ifndef ALLOCLAB_WORKLOAD_H
#define ALLOCLAB_WORKLOAD_H

#include "allocator.h"

#include <stdint.h>

#define ALLOCLAB_MAX_PARAMS 16

struct alloclab_param {
	const char *name;
	const char *help;
	uint64_t def, min, max; /* invariant: min <= def <= max */
};

enum alloclab_workload_flags {
	/* Blocks are freed by threads other than their allocator: needs a
	 * plugin with ALLOCLAB_CAP_CROSS_THREAD_FREE. */
	ALLOCLAB_WORKLOAD_CROSS_THREAD_FREE = 1u << 0,
	/* Calls realloc: needs ALLOCLAB_CAP_REALLOC. */
	ALLOCLAB_WORKLOAD_NEEDS_REALLOC = 1u << 1,
};

struct alloclab_workload_thread {
	const struct alloclab_allocator *alloc;
	const uint64_t *params;  /* one value per entry of workload->params */
	unsigned index;          /* 0 .. nthreads-1 */
	unsigned nthreads;
	uint64_t seed;           /* distinct per thread and per value */
	void *state;             /* the workload's, from prepare to finish */
	uint64_t ops;            /* operations done by run(), set by run() */
	const char *error;       /* set by run() when it had to stop early */
};

struct alloclab_workload {
	const char *name;
	const char *description;
	const char *unit_op;     /* what one "op" is, for the report */
	const struct alloclab_param *params;
	unsigned nparams;
	unsigned flags;
	/* Optional: checks relations between parameters (min <= max...) that
	 * the per-parameter ranges cannot. 0, or -1 with a reason in err. */
	int (*check_params)(const uint64_t *params, char *err, size_t err_len);
	/* 0, or -1 with a one-line reason in err (e.g. out of memory). */
	int (*prepare)(struct alloclab_workload_thread *t, char *err, size_t err_len);
	void (*run)(struct alloclab_workload_thread *t);
	void (*finish)(struct alloclab_workload_thread *t);
};

/* The built-in workloads, NULL-terminated. */
extern const struct alloclab_workload *const alloclab_workloads[];

const struct alloclab_workload *alloclab_workload_find(const char *name);

/*
 * Parses "name[:key=value,...]" into the workload and its full parameter
 * vector (defaults filled in). Returns 0, or -1 with one line in err naming
 * the unknown workload or parameter, the malformed number or the value out
 * of range.
 */
int alloclab_workload_parse(const char *text, const struct alloclab_workload **out,
			    uint64_t params[ALLOCLAB_MAX_PARAMS], char *err, size_t err_len);

/* Index of a parameter by name, or -1. */
int alloclab_workload_param_index(const struct alloclab_workload *w, const char *name);

#endif
