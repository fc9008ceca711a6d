/*
 * One sample of values: its descriptive statistics, which the run table
 * and the comparisons summarise a cell with, and the 95% confidence
 * interval of its mean, which is `run -n auto`'s stopping rule and the
 * table's "±95%" column (one owner, so the two agree).
 */
#ifndef ALLOCLAB_SUMMARY_H
#define ALLOCLAB_SUMMARY_H

#include <stddef.h>

struct alloclab_summary {
	size_t n;
	double mean;
	double median;
	double stdev;  /* sample standard deviation (n - 1); 0 when n < 2 */
	double min, max;
};

/* Summarises values[0..n); sorts a copy, leaves values as they are. */
void alloclab_summarize(const double *values, size_t n, struct alloclab_summary *out);

/* The interval's half-width as a percentage of the mean of x[0..n) (the
 * per-process means of a cell), with Student's t; a huge value when n < 2
 * or the mean is not positive. */
double alloclab_ci_half_width_percent(const double *x, size_t n);

/* The two-sided 95% quantile of Student's t with df degrees of freedom
 * (tabled to 30; beyond, 2.0, within 2% of the truth and on the wide
 * side; infinite for 0). */
double alloclab_t95(unsigned df);

#endif
