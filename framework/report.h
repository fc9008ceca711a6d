/*
 * The table `alloclab run` prints from a results document: one row per
 * cell with the median ns per operation, its spread, the aggregate
 * throughput and the workers' peak RSS; and, when the run includes the noop
 * plugin, the harness's share of each other plugin's cost.
 */
#ifndef ALLOCLAB_REPORT_H
#define ALLOCLAB_REPORT_H

#include <jansson.h>
#include <stdio.h>

/* workload_reports: also print each workload's own report of its cells. */
void alloclab_report_print(const json_t *doc, FILE *out, int workload_reports);

#endif
