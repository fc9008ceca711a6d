/*
 * The measuring side of a run: what one worker process does for one cell
 * (plugin x workload x thread count). It loads the plugin, creates an
 * instance, starts the threads, runs warm-ups and then values, each value
 * timed per thread between a barrier and the end of run(), and reports
 * everything as one JSON object. Only ever called in a child process.
 */
#ifndef ALLOCLAB_WORKER_H
#define ALLOCLAB_WORKER_H

#include "workload.h"

#include <jansson.h>

/* The ceiling on --threads; documented in `alloclab run --help`. */
#define ALLOCLAB_MAX_THREADS 1024

struct alloclab_cell_spec {
	const char *plugin;          /* name or path, as given */
	const char *plugin_options;  /* "" when none */
	const struct alloclab_workload *workload;
	struct alloclab_params params;
	unsigned threads;            /* 1 .. ALLOCLAB_MAX_THREADS */
	unsigned warmups;
	unsigned values;             /* >= 1 */
	int pin;                     /* pin thread i to the i-th allowed CPU */
	int cache_align;             /* wrap the plugin: every block on a cache line */
};

/*
 * Measures the cell. Returns a new JSON object:
 *   {"warmups": [V...], "values": [V...], "stats": {name: n},
 *    "stats_after_finish": {name: n}}
 * plus "peak_rss_kib" (the worker's own VmHWM),
 * where stats (if the plugin offers them) are taken at the end of the last
 * value with the working sets still live, and again after they are freed;
 * with V = {"wall_ns": n, "thread_ns": [n...], "thread_ops": [n...]},
 * or {"error": "one line"} when the plugin or workload failed.
 */
json_t *alloclab_worker_measure(const struct alloclab_cell_spec *cell);

/* The cell spec as JSON and back, to hand it to a freshly executed worker.
 * from_json: 0, or -1 with err set; strings point into `obj`. */
json_t *alloclab_cell_spec_to_json(const struct alloclab_cell_spec *cell);
int alloclab_cell_spec_from_json(json_t *obj, struct alloclab_cell_spec *cell, char *err, size_t err_len);

/* `alloclab __worker SPEC-JSON`: measures the cell and writes the result
 * object to file descriptor 3. Returns the exit status. */
int alloclab_worker_main(int argc, char **argv);

/* Peak resident set of this process image (VmHWM), in KiB; -1 if unknown. */
long alloclab_peak_rss_kib(void);

/* Loads and creates the plugin, reports what it is, destroys it:
 *   {"name", "version", "description", "options_help", "path", "caps": [..],
 *    "min_align"} or {"error": "..."} */
json_t *alloclab_worker_probe(const char *plugin, const char *options);

/* Per-thread seed for a workload run: a pure function of the workload's
 * "seed" parameter (0 if it has none) and the thread index, so every value
 * and every process repeats exactly the same operations. */
uint64_t alloclab_thread_seed(uint64_t seed, unsigned thread_index);

#endif
