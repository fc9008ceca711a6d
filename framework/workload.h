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

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#define ALLOCLAB_MAX_PARAMS 16
/* Most values one spec's '+' lists may expand to (the product). */
#define ALLOCLAB_MAX_EXPANSION 64

enum alloclab_param_type {
	ALLOCLAB_PARAM_NUMBER, /* a whole number in [min, max], K/M/G suffixes */
	ALLOCLAB_PARAM_CHOICE, /* one of `choices`; the value is its index */
	ALLOCLAB_PARAM_TEXT,   /* a string (a file name...), in text[] */
};

struct alloclab_param {
	const char *name;
	const char *help;
	uint64_t def, min, max; /* invariant: min <= def <= max (NUMBER; CHOICE: def is an index) */
	enum alloclab_param_type type;
	const char *const *choices; /* CHOICE: NULL-terminated */
	const char *def_text;       /* TEXT: the default */
};

/* One value per entry of a workload's params: numbers and choice indices
 * in v[], strings in text[] (NULL for non-TEXT parameters). */
struct alloclab_params {
	uint64_t v[ALLOCLAB_MAX_PARAMS];
	const char *text[ALLOCLAB_MAX_PARAMS];
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
	const struct alloclab_params *params; /* one value per entry of workload->params */
	unsigned index;          /* 0 .. nthreads-1 */
	unsigned nthreads;
	uint64_t seed;           /* distinct per thread and per value */
	void *state;             /* the workload's, from prepare to finish */
	uint64_t ops;            /* operations done by run(), set by run() */
	const char *error;       /* set by run() when it had to stop early */
	/* workload->shared_size bytes common to all threads of the cell (zeroed
	 * once per worker), or NULL. */
	void *shared;
	/* Waits until every thread of the cell has called it: for workloads
	 * whose finish() measures something across threads. Call it the same
	 * number of times in every thread, and never from run(). */
	void (*sync)(struct alloclab_workload_thread *t);
	void *sync_arg;
	/* Set by the workload (run or finish, a new reference): recorded with
	 * the value as thread_reports[index]. */
	json_t *report;
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
	int (*check_params)(const struct alloclab_params *params, char *err, size_t err_len);
	/* 0, or -1 with a one-line reason in err (e.g. out of memory). */
	int (*prepare)(struct alloclab_workload_thread *t, char *err, size_t err_len);
	void (*run)(struct alloclab_workload_thread *t);
	void (*finish)(struct alloclab_workload_thread *t);
	/* Optional: repetitions to use when the user gave none (0: the
	 * runner's). A workload that repeats rounds itself asks for fewer. */
	unsigned default_processes, default_values, default_warmups;
	/* Optional: size of the memory shared by the threads (t->shared). */
	size_t shared_size;
	/* Optional: prints the workload's own report of a measured cell after
	 * the run's table (the unicode workload prints the seed's lines). */
	void (*print_cell)(const json_t *cell, FILE *out);
};

/* The built-in workloads, NULL-terminated. */
extern const struct alloclab_workload *const alloclab_workloads[];

const struct alloclab_workload *alloclab_workload_find(const char *name);

struct alloclab_workload_spec {
	const struct alloclab_workload *workload;
	struct alloclab_params params;
};

/*
 * Parses "name[:key=value,...]" into the workload and its full parameter
 * vector (defaults filled in). A value may be a list "a+b+c": the spec then
 * expands to one entry per combination, up to `max` (*n of them written).
 * Returns 0, or -1 with one line in err naming the unknown workload or
 * parameter, the malformed number, the value out of range or the unknown
 * choice.
 */
int alloclab_workload_parse_list(const char *text, struct alloclab_workload_spec *out, unsigned max, unsigned *n,
				 char *err, size_t err_len);

/* The same for a spec that must not expand (exactly one entry). */
int alloclab_workload_parse(const char *text, struct alloclab_workload_spec *out, char *err, size_t err_len);

/* A parameter's value as text: the number, the choice name, or the string. */
void alloclab_param_format(const struct alloclab_workload *w, const struct alloclab_params *p, unsigned i,
			   char *out, size_t len);

/* Index of a parameter by name, or -1. */
int alloclab_workload_param_index(const struct alloclab_workload *w, const char *name);

#endif
