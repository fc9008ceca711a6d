/*
 * Results in the formats other tools read (`alloclab export`):
 *
 *   pyperf  pyperf's JSON format, version "1.0": one benchmark per measured
 *           cell (a Python benchmark's row is its benchmark), one run per
 *           worker process (its date: when the worker started) with its
 *           warm-ups as [loops, value] and its values: seconds per
 *           operation (a Python benchmark's iteration), with loops and
 *           inner_loops as pyperf counts them; instruction counts as whole
 *           numbers per 1000 operations (unit "integer"), so that pyperf's
 *           compare_to, stats, hist and check read alloclab's results. Names are the rows' names, prefixed by the
 *           plugin's label when the export holds more than one plugin.
 *   csv     one row per measured value, with its cell's labels, for pandas
 *           and R (RFC 4180 quoting).
 *
 * Cells that failed or were not applicable have no values and are left
 * out (counted in *skipped).
 */
#ifndef ALLOCLAB_EXPORT_H
#define ALLOCLAB_EXPORT_H

#include "results/results.h"

#include <jansson.h>
#include <stdio.h>

/* plugin: only that label's cells (names then without it), or NULL. NULL
 * with one line in err when no measured cell is left. */
json_t *alloclab_export_pyperf(const struct alloclab_results *r, const char *plugin, unsigned *skipped, char *err,
			       size_t err_len);

/* 0, or -1 with err when no measured cell is left. */
int alloclab_export_csv(const struct alloclab_results *r, const char *plugin, FILE *out, unsigned *skipped, char *err,
			size_t err_len);

#endif
