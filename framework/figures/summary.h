/*
 * Descriptive statistics of one sample of values: what the run table and the
 * comparison tables summarise a cell with.
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

#endif
