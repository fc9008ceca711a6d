/*
 * A paired run's table (run --paired): every plugin of the comparison
 * group against the reference, row by row, as the ratio of their times in
 * the same processes with its 95% interval and a verdict that says "not
 * resolved" where the interval holds 1; and a line with the run's noise,
 * unpaired beside paired (statistics/pairs.h has the statistics).
 */
#ifndef ALLOCLAB_PAIR_REPORT_H
#define ALLOCLAB_PAIR_REPORT_H

#include "statistics/pairs.h"
#include "results/results.h"

#include <stdio.h>

/* Prints nothing for a run that is not paired. */
void alloclab_pair_report(const struct alloclab_results *r, FILE *out);

/* "1.95x faster", "1.21x slower" (counts: "fewer", "more"), "not resolved". */
void alloclab_pair_verdict(const struct alloclab_pair_stat *st, int counts, char *out, size_t len);

#endif
