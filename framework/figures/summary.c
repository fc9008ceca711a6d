/* Descriptive statistics. See summary.h. */
#include "figures/summary.h"

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
