/*
 * The memory section of a run's report and its pictures: from each
 * worker's timeline (sampled from outside it, memory_timeline.h) its
 * baseline before the workload ran, its peak, its huge-page share, its
 * resident set at the end of the last run; from the worker's own reads,
 * what the allocator gave back after the workload freed everything (at
 * once, after the plugin's trim, after --settle-ms); and the page faults
 * per value. Medians over a cell's processes. docs/guides/memory.md.
 */
#ifndef ALLOCLAB_MEMORY_REPORT_H
#define ALLOCLAB_MEMORY_REPORT_H

#include "results/results.h"

#include <stdio.h>

/* Prints nothing when no cell has memory figures. */
void alloclab_memory_report(const struct alloclab_results *r, FILE *out);

/* For every row with timelines, the resident set over time of one
 * process of each plugin ("memory-ROW"). */
struct alloclab_figure_list;
void alloclab_memory_figures(const struct alloclab_results *r, struct alloclab_figure_list *out);

#endif
