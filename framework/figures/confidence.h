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

#endif
