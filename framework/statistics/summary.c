/* A sample's statistics. See summary.h. */
#include "statistics/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void alloclab_summarize(const double *values, size_t n, struct alloclab_summary *out)
{
	double *sorted;
	double sum = 0, sq = 0;

	memset(out, 0, sizeof *out);
	out->n = n;
	if (n == 0)
		return;
	sorted = malloc(n * sizeof *sorted);
	memcpy(sorted, values, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += sorted[i];
	out->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (sorted[i] - out->mean) * (sorted[i] - out->mean);
	out->stdev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	out->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	out->min = sorted[0];
	out->max = sorted[n - 1];
	free(sorted);
}

double alloclab_t95(unsigned df)
{
	static const double q[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
				   2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
				   2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
	return df == 0 ? INFINITY : df <= 30 ? q[df - 1] : 2.0;
}

double alloclab_ci_half_width_percent(const double *x, size_t n)
{
	double sum = 0, sq = 0, mean, var;

	if (n < 2)
		return 1e9;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (x[i] - mean) * (x[i] - mean);
	var = sq / (double)(n - 1);
	return mean > 0 ? 100 * alloclab_t95((unsigned)(n - 1)) * sqrt(var / (double)n) / mean : 1e9;
}
