/*
 * A worker process's memory as figures: what `show` prints, `compare
 * --metric` tests and `plot` draws, computed in one place from what the
 * results file holds (its timeline, the resident sets the worker read
 * itself, and what the workload said it held). docs/guides/memory.md gives the
 * method.
 */
#ifndef ALLOCLAB_PROCESS_MEMORY_H
#define ALLOCLAB_PROCESS_MEMORY_H

#include "results/results.h"

/* Every figure is < 0 where it is not known. Doubles only (the reader
 * sets them all to -1 in one loop). */
struct alloclab_process_memory {
	double baseline_kib;     /* the harness alone: before the plugin was loaded */
	double peak_kib;         /* the largest resident sample of the measured values (no warm-up, no start) */
	double huge_share;       /* AnonHugePages / resident, at the largest sample that read it */
	double end_of_run_kib;   /* the last sample of the last value's run */
	double after_finish_kib; /* once the workload freed everything, after the last value */
	double after_trim_kib, after_settle_kib;
	double live_end_kib;     /* what the workload held when the last value's run ended */
	double live_peak_kib;    /* the most it held: its exact count, or the samples' largest */
	double own_kib;          /* its own tables outside the plugin (taken off with the baseline) */
	/* (resident - baseline - own) / held: at the end of the last run, and
	 * the peak resident over the most held. */
	double frag_end, frag_peak;
	double peak_net_kib;     /* peak - baseline (at least 0) */
	double kept_kib;         /* after_finish - baseline (at least 0): what the allocator kept of a freed heap */
	double faults_per_value; /* minor faults in run(), per value */
	/* The program's own peak resident set (a program under exec, by
	 * wait4), the largest over the measured values; where known it is the
	 * peak (peak_kib, peak_net_kib), the harness's memory having no part
	 * in it. */
	double program_peak_kib;
};

void alloclab_process_memory(const struct alloclab_process *p, struct alloclab_process_memory *m);

#endif
