/* Change points. See changes.h. */
#include "statistics/changes.h"

#include <stdlib.h>

struct ranked {
	double p;
	size_t at;
};

static int by_p(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->p, y = ((const struct ranked *)b)->p;
	return (x > y) - (x < y);
}

void alloclab_bh_keep(const double *p, size_t n, double q, int *changed)
{
	struct ranked *r = malloc((n ? n : 1) * sizeof *r);
	size_t m = 0, keep = 0;

	for (size_t i = 0; i < n; i++)
		changed[i] = 0;
	if (r == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		if (p[i] >= 0)
			r[m++] = (struct ranked){p[i], i};
	qsort(r, m, sizeof *r, by_p);
	/* The largest k with p_(k) <= k q / m; every test up to it is kept. */
	for (size_t k = m; k >= 1; k--)
		if (r[k - 1].p <= (double)k * q / (double)m) {
			keep = k;
			break;
		}
	for (size_t k = 0; k < keep; k++)
		changed[r[k].at] = 1;
	free(r);
}
