/*
 * A results cell (results.h) as numbers and a label: what the analysis and
 * the workloads' own reports say of a cell alike.
 */
#ifndef ALLOCLAB_CELL_VALUES_H
#define ALLOCLAB_CELL_VALUES_H

#include "results/results.h"

#include <stddef.h>

/* The cell's plugin label, with " +align" when measured through the
 * cache-line wrapper. */
void alloclab_cell_label(const struct alloclab_cell *cell, char *out, size_t len);

/* Measured: it has values to show. A cell whose status is error or not
 * applicable never is, whatever it holds; a pending cell (an interrupted
 * run) is, partially. */
int alloclab_cell_measured(const struct alloclab_cell *cell);

/* A cell that failed (crashed, hung) after some of its processes had
 * finished: those are what it has to show, never as a whole measurement. */
int alloclab_cell_crashed_part_way(const struct alloclab_cell *cell);
/* What such a cell is, in words: "crashed after 2 of 3 processes" (of
 * an older file that did not say how many were planned: "after 2
 * processes"). */
void alloclab_crashed_after(const struct alloclab_cell *cell, char *out, size_t len);

/* Every measured value of a cell (per op), malloc'd; *n its length. */
double *alloclab_cell_values(const struct alloclab_cell *cell, size_t *n);

/* The mean of each process's values, malloc'd; *n its length. */
double *alloclab_cell_process_means(const struct alloclab_cell *cell, size_t *n);

/* Throughput of all threads together, in millions of operations a
 * second, of a time per operation (ns). A value's per_op is one thread's
 * time per operation (results.h), so the threads' count multiplies it:
 * every report and picture of throughput takes it from here, so that none
 * forgets that. */
double alloclab_mops(double ns_per_op, unsigned threads);

/* What is taken of each value: its metric per op (quantile 0, the
 * default), or a quantile of its call times (--latency) of one op kind
 * (op: enum alloclab_lat_op) or of all (op -1), in ns. */
/* Memory figures a comparison can take instead (process_memory.h): the
 * peak resident set net of the harness's baseline (KiB), fragmentation at
 * the peak, what the allocator kept once everything was freed (KiB, net
 * of the baseline), minor page faults per value. */
enum alloclab_memory_metric {
	ALLOCLAB_MEMORY_NONE,
	ALLOCLAB_MEMORY_RSS,
	ALLOCLAB_MEMORY_FRAGMENTATION,
	ALLOCLAB_MEMORY_KEPT,
	ALLOCLAB_MEMORY_FAULTS,
	/* The kernel's high-water mark of the worker's resident set (exact,
	 * where the samples can miss a short peak; the harness's own peaks
	 * in it too, alike for two builds of one plugin) less the harness's
	 * baseline read before the plugin was loaded (KiB). */
	ALLOCLAB_MEMORY_HIGH_WATER,
	ALLOCLAB_MEMORY_NMETRICS
};
/* "rss", "fragmentation", "kept", "faults", "hwm" (index: the enum). */
extern const char *const alloclab_memory_metric_names[ALLOCLAB_MEMORY_NMETRICS];
/* The name a comparison's "metric" gives each: "rss_peak_kib", ... */
extern const char *const alloclab_memory_metric_keys[ALLOCLAB_MEMORY_NMETRICS];

struct alloclab_cell_measure {
	double quantile;
	int op;
	/* Only the processes that ran on this CPU model (a merge of shards
	 * from several machines: alloclab_process.host_cpu_model); NULL all. */
	const char *cpu_model;
	/* A memory figure (not NONE): one per process, tested as per-process
	 * means are; quantile and op are then unused. */
	enum alloclab_memory_metric memory;
};

/* The measure of every value (values without latency figures are left
 * out of a latency measure), malloc'd; *n its length. */
double *alloclab_cell_measure_values(const struct alloclab_cell *cell, const struct alloclab_cell_measure *m,
				     size_t *n);

/* One figure per process: the mean of its values' metric, or the
 * quantile of all its values' calls together. */
double *alloclab_cell_measure_processes(const struct alloclab_cell *cell, const struct alloclab_cell_measure *m,
					size_t *n);

/* The latency of a cell's values merged: of process p, or of all (-1);
 * NULL when none was measured. Free with alloclab_latency_free. */
struct alloclab_latency *alloclab_cell_latency(const struct alloclab_cell *cell, int process);

/* Whether process p counts under m (its CPU model). */
int alloclab_cell_measure_takes(const struct alloclab_cell_measure *m, const struct alloclab_process *p);

/* The largest peak RSS of the cell's processes, KiB (0 unknown). */
long alloclab_cell_peak_rss_kib(const struct alloclab_cell *cell);

#endif
