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

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double beta_continued_fraction(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 500; m++) {
		double m2 = 2.0 * m;
		double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = fabs(c) < tiny ? tiny : c;
		double delta = d * c;
		h *= delta;
		if (fabs(delta - 1) < eps)
			break;
	}
	return h;
}

double alloclab_incomplete_beta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	/* The fraction converges fast only below the mean; use the symmetry
	 * I_x(a,b) = 1 - I_{1-x}(b,a) above it. */
	if (x < (a + 1) / (a + b + 2))
		return front * beta_continued_fraction(a, b, x) / a;
	return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

double alloclab_t_two_sided_p(double t, double df)
{
	return alloclab_incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

/* The tail falls as t grows: bisect on it. Quantiles asked for again and
 * again (every row of every table asks for a few) are kept. */
double alloclab_t95(unsigned df)
{
	static double kept[256];
	if (df == 0)
		return INFINITY;
	if (df < 256 && kept[df] > 0)
		return kept[df];
	double lo = 1.9, hi = 13;
	while (alloclab_t_two_sided_p(hi, df) > 0.05)
		hi *= 2;
	for (int i = 0; i < 100 && hi - lo > 1e-10; i++) {
		double mid = (lo + hi) / 2;
		if (alloclab_t_two_sided_p(mid, df) > 0.05)
			lo = mid;
		else
			hi = mid;
	}
	double t = (lo + hi) / 2;
	if (df < 256)
		kept[df] = t;
	return t;
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
