/*
 * The runner: `alloclab run`'s engine. It measures a matrix of plugins x
 * workloads x thread counts. Like pyperf, every cell is measured by several
 * worker processes, each doing warm-ups then values, so one cell's heap never
 * carries into the next; a worker that crashes, aborts or outlives the
 * timeout becomes that cell's error and the run goes on. Processes are
 * interleaved across cells (round r runs process r of every cell) so that
 * drift of a shared machine spreads over all cells instead of biasing the
 * ones measured last. The results file is rewritten atomically after every
 * worker, so an interrupted run keeps everything finished.
 */
#ifndef ALLOCLAB_RUNNER_H
#define ALLOCLAB_RUNNER_H

#include "worker.h"
#include "workload.h"

#include <jansson.h>

#define ALLOCLAB_MAX_MATRIX 64

enum alloclab_exit {
	ALLOCLAB_EXIT_OK = 0,
	ALLOCLAB_EXIT_CELL_FAILED = 1, /* the run finished, some cells have errors */
	ALLOCLAB_EXIT_USAGE = 2,       /* bad input; nothing was measured */
	ALLOCLAB_EXIT_INTERRUPTED = 130,
};

struct alloclab_plugin_arg {
	char *spec;     /* name or path */
	char *options;  /* "" when none */
};

struct alloclab_run_config {
	struct alloclab_plugin_arg plugins[ALLOCLAB_MAX_MATRIX];
	unsigned nplugins;
	struct alloclab_workload_spec workloads[ALLOCLAB_MAX_MATRIX];
	unsigned nworkloads;
	unsigned threads[ALLOCLAB_MAX_MATRIX];
	unsigned nthreads;
	unsigned processes, values, warmups;
	/* Whether the user gave them; otherwise a workload's own defaults
	 * (alloclab_workload.default_*) take precedence. */
	int processes_set, values_set, warmups_set;
	double timeout_s;
	int pin;
	/* Bit 0: measure unwrapped; bit 1: measure through the cache-line
	 * alignment wrapper (alloclab_allocator_cache_align). Both: every plugin
	 * twice, for the aligned-against-unaligned comparison. */
	unsigned cache_align;
	/* The default suite: the table only; workloads' own reports are left
	 * for `alloclab show FILE`. */
	int brief;
	const char *output;
	int quiet;          /* no table on stdout */
	int argc;
	char **argv;
};

/* Splits "name[:options]" (options start after the first ':' that follows
 * the last '/', so paths work). Strings are malloc'd. */
void alloclab_plugin_arg_parse(const char *text, struct alloclab_plugin_arg *out);

/*
 * Measures one cell in one freshly executed worker process with a deadline.
 * Returns the worker's object (see worker.h) plus elapsed_s, or
 * {"error": "..."} saying how the worker failed (crash, timeout, the
 * plugin's own message). *interrupted is set when SIGINT/SIGTERM arrived.
 */
json_t *alloclab_measure_isolated(const struct alloclab_cell_spec *spec, double timeout_s, int *interrupted);

/* A workload's parameters as a JSON object: numbers, choice names, strings. */
json_t *alloclab_params_json(const struct alloclab_workload *w, const struct alloclab_params *params);

/* Runs the matrix, writes the results file, prints the table. Returns an
 * enum alloclab_exit value; bad input gets one line on stderr. */
int alloclab_run(const struct alloclab_run_config *cfg);

#endif
