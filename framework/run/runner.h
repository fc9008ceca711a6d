/*
 * The runner: `alloclab run`'s engine. It measures a matrix of plugins x
 * workloads x thread counts. Like pyperf, every cell is measured by several
 * worker processes, each doing warm-ups then values, so one cell's heap never
 * carries into the next; a worker that crashes, aborts or outlives the
 * timeout becomes that cell's error and the run goes on. Processes are
 * interleaved across cells (round r runs process r of every cell) so that
 * drift of a shared machine spreads over all cells instead of biasing the
 * ones measured last. Every finished worker is appended to the results
 * file's journal (results.h), so an interrupted or killed run keeps
 * everything finished at a constant cost per worker.
 */
#ifndef ALLOCLAB_RUNNER_H
#define ALLOCLAB_RUNNER_H

#include "check/vet.h"
#include "check/probe.h"
#include "plugin/plugin_arg.h"
#include "worker/worker.h"
#include "results/results.h"
#include "workload/workload.h"
#include "measure/measure.h"

#include <jansson.h>
#include <stdio.h>

#define ALLOCLAB_MAX_MATRIX 256

struct alloclab_process;

enum alloclab_exit {
	ALLOCLAB_EXIT_OK = 0,
	ALLOCLAB_EXIT_CELL_FAILED = 1, /* the run finished, some cells have errors */
	ALLOCLAB_EXIT_USAGE = 2,       /* bad input; nothing was measured */
	ALLOCLAB_EXIT_INTERRUPTED = 130,
};

/* --cache-align: which forms of each plugin a run measures. */
enum alloclab_cache_align { ALLOCLAB_ALIGN_OFF, ALLOCLAB_ALIGN_ON, ALLOCLAB_ALIGN_BOTH };
#define ALLOCLAB_CACHE_ALIGN_NAMES {"off", "on", "both"}

/* Whether a run in mode m measures the plugin unwrapped (aligned 0) or
 * through the alignment wrapper (aligned 1). */
static inline int alloclab_cache_align_measures(enum alloclab_cache_align m, int aligned)
{
	return m == ALLOCLAB_ALIGN_BOTH || (m == ALLOCLAB_ALIGN_ON) == (aligned != 0);
}


struct alloclab_run_config {
	struct alloclab_plugin_arg plugins[ALLOCLAB_MAX_MATRIX];
	unsigned nplugins;
	struct alloclab_workload_spec workloads[ALLOCLAB_MAX_MATRIX];
	unsigned nworkloads;
	/* 0: workload i is measured at every thread count of the run; else
	 * only at those up to this (the default suite measures its Python
	 * benchmarks at one thread: more interleave under the GIL, they do not
	 * run in parallel). No cell is planned above it. */
	unsigned workload_max_threads[ALLOCLAB_MAX_MATRIX];
	unsigned threads[ALLOCLAB_MAX_MATRIX];
	unsigned nthreads;
	unsigned processes, values, warmups;
	/* -n auto: each cell gets processes until the 95% confidence interval
	 * of its mean (over per-process means) is within ci_percent of the
	 * mean, at least `processes` and at most max_processes of them. */
	int processes_auto;
	double ci_percent;
	unsigned max_processes;
	/* Whether the user gave them; otherwise a workload's own defaults
	 * (alloclab_workload.default_*) take precedence. */
	int processes_set, values_set, warmups_set;
	double timeout_s;
	/* `alloclab check` before measuring: ALLOCLAB_CHECK_PATHS (plugins
	 * given by path, the default), _ALL, or _NONE. Results are cached by
	 * the plugin file's contents (alloclab_check_cache_dir). */
	enum alloclab_check_mode check; /* vet.h */
	int pin;
	/* The order cells are visited in within each round of processes:
	 * shuffled per round (the default), from order_seed, so that no cell
	 * always follows the same neighbour; or the order of the plan. */
	int order_fixed;
	uint64_t order_seed;       /* < 2^63; 0: one is drawn (and recorded) */
	/* What a value is (measure.h): time, or instructions counted by
	 * callgrind in the timed region only, with or without its cache
	 * simulation. */
	enum alloclab_measure measure;
	/* --latency: every `latency`-th call of each thread timed; 0 off. */
	unsigned latency;
	/* --shard K/N: only the process rounds r with r % N == K - 1 (K from
	 * 1), so that every shard measures every cell; 0 of 0: the whole plan.
	 * The results carry the plan's identity (runner.c's plan_hash) and K. */
	unsigned shard_index, shard_count;
	/* --sample-ms: each worker's memory sampled from outside it every
	 * this many ms (memory_timeline.h); 0 not. */
	unsigned sample_ms;
	unsigned settle_ms; /* --settle-ms (worker.h) */
	/* --dry-run: plan (plugins probed, parameters and shards checked),
	 * print what would be measured, measure and write nothing. */
	int dry_run;
	/* Whether plugins are measured unwrapped (off, the default), through
	 * the cache-line alignment wrapper (on: alloclab_allocator_cache_align)
	 * or both ways, every plugin twice, for the aligned-against-unaligned
	 * comparison. */
	enum alloclab_cache_align cache_align;
	/* The default suite: the table only; workloads' own reports are left
	 * for `alloclab show FILE`. */
	int brief;
	/* --paired / --pair A,B,...: a comparison group measured side by side
	 * (worker/paired.c): every plugin of the run (paired, npair 0), or
	 * those labelled pair[0 .. npair), pair[0] the reference each ratio is
	 * taken against. slice_ops: the slice's timed operations (0: whole
	 * values); slice_warm: the untimed ones before them. */
	int paired;
	/* Paired, each plugin in processes of its own, back to back, the
	 * ratio taken within each round (as for a workload whose process has
	 * one allocator): slower to resolve, but no plugin's code ever runs
	 * in a process that measures another's, so none can bend another's
	 * time (grading: a submission beside the reference). */
	int pair_apart;
	const char *pair[ALLOCLAB_MAX_PAIR];
	unsigned npair;
	uint64_t slice_ops, slice_warm;
	/* Prints the run's table and workload reports (analysis/report.h);
	 * NULL: none. The runner itself does not present. */
	void (*print)(const struct alloclab_results *results, FILE *out, int workload_reports);
	const char *output;
	/* --measure instructions: each cell's callgrind dumps (one a value,
	 * cg.PID.N, the last value's the highest N) kept in DIR/cell-INDEX,
	 * INDEX the cell's in the results; NULL: read and removed. DIR must
	 * exist. */
	const char *dumps_dir;
	int quiet;          /* no table on stdout */
	int argc;
	char **argv;
};


/*
 * A run as a call (ab, history, bisect and grade fill a configuration
 * and hand it here; `alloclab run` fills it from its command line):
 *   init          every field at `alloclab run`'s default (5 processes of
 *                 1 warm-up and 3 values, a worker's deadline 120 s,
 *                 memory sampled every 10 ms, whole values when paired)
 *   add_plugin    a plugin by its name or path whole (a path may hold
 *                 ':'), its options as a -p's part after ':' (gil=1 and the
 *                 plugin's own), the label tables name it by and the source
 *                 it was built from (NULL: none)
 *   add_workload  a workload already parsed (the workloads' registry is a
 *                 layer above the framework: its caller parses), measured
 *                 at every thread count (max_threads 0) or those up to it
 *   threads       the thread counts, each in 1..ALLOCLAB_MAX_THREADS, none
 *                 twice
 *   clear         frees what add_plugin and a --pair list made
 * The adders give 0, or -1 with err.
 */
void alloclab_run_config_init(struct alloclab_run_config *cfg);
int alloclab_run_config_add_plugin(struct alloclab_run_config *cfg, const char *plugin, const char *options,
				   const char *label, const char *source, char *err, size_t err_len);
int alloclab_run_config_add_workload(struct alloclab_run_config *cfg, const struct alloclab_workload_spec *spec,
				     unsigned max_threads, char *err, size_t err_len);
int alloclab_run_config_threads(struct alloclab_run_config *cfg, const unsigned *threads, unsigned n, char *err,
				size_t err_len);
void alloclab_run_config_clear(struct alloclab_run_config *cfg);

/* The order cells are visited in, in round `round` of processes: the
 * plan's (fixed), or a shuffle (Fisher-Yates) drawn from the run's seed and
 * the round, so that a run can be repeated in the same order. */
void alloclab_run_order(uint64_t seed, int fixed, unsigned round, unsigned *order, unsigned n);




/*
 * `alloclab run` in three steps:
 *   plan     probes every plugin (in a child), checks the output can be
 *            written and locked, lays out the cells and which are not
 *            applicable, writes the document (every cell pending)
 *   measure  runs the worker processes round by round, each finished one
 *            appended to the journal
 *   finish   writes the final document, removes the journal, prints
 * alloclab_run does all three. Each returns an enum alloclab_exit value;
 * bad input gets one line on stderr.
 */
struct alloclab_run;
int alloclab_run_plan(const struct alloclab_run_config *cfg, struct alloclab_run **out);
int alloclab_run_measure(struct alloclab_run *run);
int alloclab_run_finish(struct alloclab_run *run, int status);
int alloclab_run(const struct alloclab_run_config *cfg);

/* alloclab_run(cfg) in a supervised child (process/child.h): killed with
 * everything it started at deadline_s or when this process is
 * interrupted, its output captured, never printed. The run's exit status
 * (enum alloclab_exit; why is then its last line for 1, 2 and 130), or
 * -1 with why ("the run timed out after 600 s", "... killed by signal 9")
 * when it ended otherwise. Where the results go is cfg->output's. */
int alloclab_run_in_child(const struct alloclab_run_config *cfg, double deadline_s, char *why, size_t why_len);

#endif
