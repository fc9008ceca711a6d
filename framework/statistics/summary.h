/*
 * One sample of values: its descriptive statistics, which the run table
 * and the comparisons summarise a cell with, and the 95% confidence
 * interval of its mean, which is `run -n auto`'s stopping rule and the
 * table's "±95%" column (one owner, so the two agree); and Student's t
 * that interval rests on, exactly: its two-sided tail through the
 * regularized incomplete beta function, its quantile by bisection on that
 * tail. The significance tests take their p-values from it and every
 * interval its quantile, so that a p below 0.05 and an interval that
 * leaves the null out say the same thing at every number of processes (a
 * table that stopped at 30 degrees of freedom and said 2.0 beyond gave
 * intervals 2% too narrow at 31).
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

/* The regularized incomplete beta function I_x(a, b), a and b > 0. */
double alloclab_incomplete_beta(double a, double b, double x);

/* The two-sided tail of Student's t with df degrees of freedom: P(|T| >=
 * t), for t >= 0 and df > 0. */
double alloclab_t_two_sided_p(double t, double df);

/* The two-sided 95% quantile of Student's t with df degrees of freedom
 * (the t whose two-sided tail is 0.05), to 1e-9; infinite for 0. */
double alloclab_t95(unsigned df);

#endif
