/*
 * The table `alloclab run` and `alloclab show` print from a results file:
 * one row per cell with the median ns per operation, its spread, the
 * aggregate throughput and the workers' peak RSS; the harness's share when
 * the run includes the noop plugin; the cache-line alignment effect with
 * --cache-align both; the cache-line placement any workload recorded; a
 * warning when the machine was busy; then each workload's own report.
 */
#ifndef ALLOCLAB_REPORT_H
#define ALLOCLAB_REPORT_H

#include "results/results.h"

#include <stdio.h>

/* workload_reports: also print each workload's own report of its cells. */
void alloclab_report_print(const struct alloclab_results *r, FILE *out, int workload_reports);

#endif
