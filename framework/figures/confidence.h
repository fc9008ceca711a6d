/*
 * The 95% confidence interval of a mean: `run -n auto`'s stopping rule, and
 * what the table reports of it. One owner, so the two agree.
 */
#ifndef ALLOCLAB_CONFIDENCE_H
#define ALLOCLAB_CONFIDENCE_H

#include <stddef.h>

/* The interval's half-width as a percentage of the mean of x[0..n) (the
 * per-process means of a cell), with Student's t; a huge value when n < 2
 * or the mean is not positive. */
double alloclab_ci_half_width_percent(const double *x, size_t n);

/* The two-sided 95% quantile of Student's t with df degrees of freedom
 * (tabled to 30; beyond, 2.0, within 2% of the truth and on the wide
 * side; infinite for 0). */
double alloclab_t95(unsigned df);

#endif
