/*
 * The latency section of a run's report (`alloclab show`, and `run` with
 * --latency): per cell and op kind, the calls timed, their percentiles
 * (p50 to p99.99 and the maximum, from every value's calls together), the
 * calls of 1 us and 100 us or more, and the slowest calls with their op,
 * size, thread, process and value (and a replay's event index).
 */
#ifndef ALLOCLAB_LATENCY_REPORT_H
#define ALLOCLAB_LATENCY_REPORT_H

#include "results/results.h"

#include <stdio.h>

/* One latency's table: a row per op kind (calls, percentiles, calls of
 * 1 us and 100 us or more), each line starting with `indent` spaces. */
void alloclab_latency_table(const struct alloclab_latency *l, int indent, FILE *out);

/* Prints nothing when no cell has latency figures. */
void alloclab_latency_report(const struct alloclab_results *r, FILE *out);

/* The pictures of it (`alloclab plot`), for every row (workload,
 * parameters, threads) with latency figures: the distribution of all
 * calls' times per plugin (the fraction of calls at or under a time, on a
 * logarithmic time axis), and each plugin's percentiles as bars (a
 * logarithmic axis, so the median and the maximum fit in one picture). */
struct alloclab_figure_list;
void alloclab_latency_figures(const struct alloclab_results *r, struct alloclab_figure_list *out);

#endif
