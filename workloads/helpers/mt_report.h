/*
 * The multithreaded workloads' own reports: each prints its cells in the
 * terms its benchmark used (throughput, frees per second) and adds the
 * pictures that answer its question (memory against threads for the
 * server-like ones, lines shared between threads for the false-sharing
 * ones). Shared here so each workload's hook is a line or two.
 */
#ifndef ALLOCLAB_MT_REPORT_H
#define ALLOCLAB_MT_REPORT_H

#include "figures/figure.h"
#include "results/results.h"

#include <stdio.h>

/* "NAME PLUGIN t=N: X UNIT per second (all threads), peak RSS M MiB". */
void mt_print_rate(const struct alloclab_cell *c, FILE *out, const char *unit);

/* Peak RSS against threads, one line per plugin: NAME-memory. */
void mt_figure_memory(const struct alloclab_cell *const *cells, size_t n, struct alloclab_figure_list *out,
		      const char *workload);

/* Share of cache lines holding two threads' blocks, per plugin (cells of
 * two or more threads): NAME-shared-lines. */
void mt_figure_shared_lines(const struct alloclab_cell *const *cells, size_t n, struct alloclab_figure_list *out,
			    const char *workload);

#endif
