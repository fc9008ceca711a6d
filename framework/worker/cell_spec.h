/*
 * What a worker process is asked to measure: one cell (plugin x workload
 * x thread count), or a paired group of plugins in one process, and its
 * hand-off as JSON to a freshly executed worker. The runner fills it; the
 * worker (worker.h) measures it.
 */
#ifndef ALLOCLAB_CELL_SPEC_H
#define ALLOCLAB_CELL_SPEC_H

#include "workload/workload.h"

#include <jansson.h>
#include <stdint.h>

/* The ceiling on --threads; documented in `alloclab run --help`. */
#define ALLOCLAB_MAX_THREADS 1024
/* A timed value under this many nanoseconds an operation is refused where
 * it is made: a fraction of a cycle, no real operation. */
#define ALLOCLAB_MIN_NS_PER_OP 0.1

/* Paired mode: most plugins one worker measures side by side. */
#define ALLOCLAB_MAX_PAIR 16

/* A plugin of a paired worker. */
struct alloclab_pair_member {
	const char *plugin, *plugin_options;
	int gil;
	/* Load a private copy of the plugin's file, so that a second instance
	 * of one plugin has state of its own (an A/A comparison). */
	int private_copy;
	/* How the run labels it, for messages (two members may be one file);
	 * NULL: its plugin, as given. */
	const char *label;
};

/* How messages name a paired member: its label, else its plugin. */
static inline const char *alloclab_pair_member_name(const struct alloclab_pair_member *m)
{
	return m->label ? m->label : m->plugin;
}

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
	int gil;                     /* wrap the plugin: one global lock around every call */
	/* --measure instructions: the worker runs under callgrind with
	 * collection off; it is switched on around the timed region of every
	 * value, and each value's count is read back from the dump written to
	 * callgrind_dir (cg.PID.N). NULL: time. */
	const char *callgrind_dir;
	/* --measure cache: callgrind also simulates the caches (the machine's
	 * geometry), and values carry data misses per operation. */
	unsigned cache_sim;           /* 0; 1 the data caches; 2 the data TLBs */
	/* `alloclab record`: every call reaching the plugin is written to a
	 * new trace at this path (recorder.h); NULL: not recording. */
	const char *record_path;
	/* --latency: every `latency`-th call of each thread is timed
	 * (latency.h); 0: none. */
	unsigned latency;
	/* The runner's, not handed to the worker: the worker's memory is
	 * sampled from outside every sample_ms (memory_timeline.h); 0 not. */
	unsigned sample_ms;
	/* --settle-ms: after the last value (and the plugin's trim), the
	 * worker waits this long and reads its resident set again; 0 not. */
	unsigned settle_ms;
	/* alloclab explain: the callgrind dumps stay in callgrind_dir. */
	unsigned keep_dumps;
	/* alloclab heapmap: the live blocks are tracked and a frame of the
	 * plugin's regions is written to this file at the end of each value,
	 * and every heapmap_every calls when that is not 0 (heapmap.h); NULL:
	 * none. */
	const char *heapmap;
	unsigned heapmap_every;
	/* With simulated caches, a simulated cache or TLB maps addresses to
	 * sets, and where the worker's mappings fall moves its misses (by up
	 * to 2.7 times on a row of the python benchmarks between builds that
	 * differ only outside the measured loop): the worker maps this many
	 * pages before loading the plugin, so that its processes sample
	 * layouts as address-space randomisation does on real hardware
	 * (alloclab_layout_pad); 0: none. */
	unsigned layout_pad_pages;
	/* Paired mode (worker/paired.c): npair plugins measured in this one
	 * worker, pair[0] the cell's own plugin (the group's reference), each
	 * with its instance and its own workload state; the timed region
	 * alternates between them in slices of slice_ops timed operations
	 * (0, or a workload without ALLOCLAB_WORKLOAD_SLICES: whole values),
	 * each after slice_warm untimed ones, in an order drawn per value from
	 * pair_seed. npair 0: one plugin, as always. */
	unsigned npair;
	struct alloclab_pair_member pair[ALLOCLAB_MAX_PAIR];
	uint64_t slice_ops, slice_warm;
	uint64_t pair_seed;
};

/* The pages process `round` (0-based) of a cell maps first under simulated
 * caches: 0 for the first (the layout of a build as it always was), then
 * round * 37 mod 256, so the same plan pads alike and the first 16
 * processes fall on 16 different sets of a 16-set TLB. */
unsigned alloclab_layout_pad(unsigned round);

/* The metric the cell's values are in (results.h). */
const char *alloclab_cell_spec_metric(const struct alloclab_cell_spec *cell);

/*
 * The hand-off to a freshly executed worker: the spec as JSON, parameters
 * and flags as numbers (text parameters as strings), and back. from_json
 * checks every field (ranges, the workload's parameters) and finds the
 * workload with `find`; strings point into `obj`. 0, or -1 with err.
 */
json_t *alloclab_cell_spec_to_json(const struct alloclab_cell_spec *cell);
int alloclab_cell_spec_from_json(const json_t *obj, const struct alloclab_workload *(*find)(const char *name),
				 struct alloclab_cell_spec *cell, char *err, size_t err_len);

/* Per-thread seed for a workload run: a pure function of the workload's
 * seed parameter (0 if it has none) and the thread index, so every value
 * and every process repeats exactly the same operations. */
uint64_t alloclab_thread_seed(uint64_t seed, unsigned thread_index);

#endif
