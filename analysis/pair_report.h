/*
 * A paired run's table (run --paired): every plugin of the comparison
 * group against the reference, row by row, as the ratio of their times in
 * the same processes with its 95% interval and a verdict that says "not
 * resolved" where the interval holds 1; and a line with the run's noise,
 * unpaired beside paired. The figures are the paired run's comparison
 * (statistics/comparison.h, alloclab_compare_paired_run).
 */
#ifndef ALLOCLAB_PAIR_REPORT_H
#define ALLOCLAB_PAIR_REPORT_H

#include "results/results.h"
#include "statistics/comparison.h"

#include <stdio.h>

/* Prints nothing for a run that is not paired. */
void alloclab_pair_report(const struct alloclab_results *r, FILE *out);

/* An entry's verdict as the run table says it: "1.95x faster", "1.21x
 * slower" (counts: "fewer", "more"), "not resolved", "one process: no
 * interval". */
void alloclab_verdict_text(const struct alloclab_comparison_entry *e, int counts, char *out, size_t len);

/* The same words for a verdict and its ratio (paired: a verdict below two
 * processes reads "one process: no interval"). */
void alloclab_verdict_words(enum alloclab_verdict v, double ratio, int counts, int paired, char *out, size_t len);

/* How a cell was paired, where that is not the run's own design: "slices",
 * "whole values alternated", "processes of their own, back to back"; NULL
 * when it is the run's. */
const char *alloclab_pair_design_note(const struct alloclab_results *r, const struct alloclab_cell *c);

#endif
