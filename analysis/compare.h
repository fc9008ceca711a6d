/*
 * Comparing measurements: two or more runs cell by cell, or plugins within
 * one run. For every row (a workload, its parameters and thread count) and
 * every compared column it gives the mean, the ratio to the base column, the
 * p-value of the chosen test, and whether the difference is significant:
 * p < 0.05 and at least `min_speed` percent. Tables come in a reST
 * grid (pyperf's compare_to --table, the layout of the radix-tree vs big-pool
 * comparison table), Markdown, CSV and JSON.
 *
 * What is tested. With the rank test (the default) the samples are the
 * per-process means: values within one worker process share its luck
 * (address layout, neighbours on a shared machine) and are not independent,
 * so counting each as a sample manufactures significance out of run-to-run
 * drift. --test pyperf reproduces pyperf's rule exactly: Student's t-test on
 * every value.
 */
#ifndef ALLOCLAB_COMPARE_H
#define ALLOCLAB_COMPARE_H

#include "figures/cell_values.h"
#include "results/results.h"

#include <jansson.h>
#include <stdio.h>

enum alloclab_test { ALLOCLAB_TEST_RANK, ALLOCLAB_TEST_PYPERF };

struct alloclab_column {
	const char *name;      /* the header: file name, or plugin label */
	const struct alloclab_results *results; /* the run */
	const char *plugin;    /* NULL: every plugin of the run; else only cells of this label */
};

struct alloclab_compare_opts {
	enum alloclab_test test;
	double min_speed;      /* percent */
	/* What is compared: the cells' metric (the default, quantile 0), or a
	 * latency quantile (--metric p50|p90|p99|p999|p9999|max, --op): each
	 * value's and each process's, tested as times are. Cells measured
	 * without --latency then have no samples ("no latency measured"). */
	struct alloclab_cell_measure measure;
};

/* Builds the comparison; NULL with err set when the columns have no row in
 * common. The result is a JSON object (also the JSON format's output), its
 * printers are in formats.h. A cell whose status is error or not
 * applicable is never compared: its entry says so ("status"). A comparison
 * the test cannot decide with the samples it has ("reachable": false) is
 * never called "not significant". */
json_t *alloclab_compare(const struct alloclab_column *cols, size_t ncols, const struct alloclab_compare_opts *o,
			 char *err, size_t err_len);

/* "290 ms", "24.4 us", "8.19 us", "182 ns": three significant digits, as
 * pyperf prints times. */
void alloclab_format_ns(double ns, char *out, size_t len);

/* "1.02x slower (+2%)", "1.03x faster (-3%)" for ratio = other / base. */
void alloclab_format_ratio(double ratio, char *out, size_t len);

#endif
