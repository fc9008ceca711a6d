/* Significance tests. See significance.h. */
#include "statistics/significance.h"

#include "statistics/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void alloclab_t_test(const double *a, size_t na, const double *b, size_t nb, struct alloclab_test_result *r)
{
	struct alloclab_summary sa, sb;
	double df, pooled, se;

	memset(r, 0, sizeof *r);
	r->p = 1;
	if (na < 2 || nb < 2)
		return;
	alloclab_summarize(a, na, &sa);
	alloclab_summarize(b, nb, &sb);
	df = (double)(na + nb - 2);
	pooled = ((double)(na - 1) * sa.stdev * sa.stdev + (double)(nb - 1) * sb.stdev * sb.stdev) / df;
	se = sqrt(pooled * (1.0 / (double)na + 1.0 / (double)nb));
	r->df = df;
	if (se == 0) {
		r->statistic = sa.mean == sb.mean ? 0 : (sa.mean < sb.mean ? -INFINITY : INFINITY);
		r->p = sa.mean == sb.mean ? 1 : 0;
		return;
	}
	r->statistic = (sa.mean - sb.mean) / se;
	/* Two-tailed: P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2). */
	r->p = alloclab_incomplete_beta(df / 2, 0.5, df / (df + r->statistic * r->statistic));
}

struct ranked {
	double value;
	int sample; /* 0: a, 1: b */
};

static int by_value(const void *x, const void *y)
{
	double a = ((const struct ranked *)x)->value, b = ((const struct ranked *)y)->value;
	return (a > b) - (a < b);
}

/* Two-sided exact p-value of U for samples of n1 and n2 distinct values:
 * the share of the C(n1+n2, n1) equally likely arrangements whose U is at
 * least as far from n1*n2/2 as u. */
static double exact_p(size_t n1, size_t n2, double u)
{
	/* f[i][j][k]: arrangements of i a-values and j b-values with U = k,
	 * built by the recurrence on which sample holds the largest value. */
	size_t umax = n1 * n2;
	double *prev = calloc((n2 + 1) * (umax + 1), sizeof *prev);
	double *cur = calloc((n2 + 1) * (umax + 1), sizeof *cur);
	double total = 0, tail = 0, umin = u < (double)umax - u ? u : (double)umax - u;

#define F(arr, j, k) (arr)[(j) * (umax + 1) + (k)]
	for (size_t j = 0; j <= n2; j++)
		F(prev, j, 0) = 1; /* i = 0: U = 0 whatever j */
	for (size_t i = 1; i <= n1; i++) {
		memset(cur, 0, (n2 + 1) * (umax + 1) * sizeof *cur);
		F(cur, 0, 0) = 1;
		for (size_t j = 1; j <= n2; j++)
			for (size_t k = 0; k <= i * j; k++) {
				/* Largest value from a: it exceeds all j b-values. */
				double v = k >= j ? F(prev, j, k - j) : 0;
				/* Largest value from b: adds nothing. */
				v += F(cur, j - 1, k);
				F(cur, j, k) = v;
			}
		double *t = prev;
		prev = cur;
		cur = t;
	}
	for (size_t k = 0; k <= umax; k++) {
		total += F(prev, n2, k);
		if ((double)k <= umin + 1e-9)
			tail += F(prev, n2, k);
	}
#undef F
	free(prev);
	free(cur);
	return tail * 2 / total > 1 ? 1 : tail * 2 / total;
}

void alloclab_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct alloclab_test_result *r)
{
	size_t n = na + nb;
	struct ranked *v;
	double rank_sum_a = 0, tie_term = 0, mean_u, sd_u, z;
	int ties = 0;

	memset(r, 0, sizeof *r);
	r->p = 1;
	if (na < 1 || nb < 1 || n < 3)
		return;
	v = malloc(n * sizeof *v);
	for (size_t i = 0; i < na; i++)
		v[i] = (struct ranked){a[i], 0};
	for (size_t i = 0; i < nb; i++)
		v[na + i] = (struct ranked){b[i], 1};
	qsort(v, n, sizeof *v, by_value);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && v[j].value == v[i].value)
			j++;
		double avg_rank = (double)(i + j + 1) / 2; /* ranks i+1 .. j */
		for (size_t k = i; k < j; k++)
			if (v[k].sample == 0)
				rank_sum_a += avg_rank;
		if (j - i > 1) {
			double t = (double)(j - i);
			tie_term += t * t * t - t;
			ties = 1;
		}
		i = j;
	}
	free(v);
	r->statistic = rank_sum_a - (double)na * (double)(na + 1) / 2;
	if (!ties && na <= 10 && nb <= 10) {
		r->p = exact_p(na, nb, r->statistic);
		return;
	}
	mean_u = (double)na * (double)nb / 2;
	sd_u = sqrt((double)na * (double)nb / 12 * ((double)(n + 1) - tie_term / ((double)n * (double)(n - 1))));
	if (sd_u == 0)
		return;
	z = (fabs(r->statistic - mean_u) - 0.5) / sd_u;
	if (z < 0)
		z = 0;
	r->p = erfc(z / sqrt(2));
}

double alloclab_mann_whitney_min_p(size_t na, size_t nb)
{
	/* C(na + nb, na) as a double: exact enough for the sizes here. */
	double c = 1;
	if (na == 0 || nb == 0)
		return 1;
	for (size_t i = 1; i <= na; i++)
		c = c * (double)(nb + i) / (double)i;
	double p = 2 / c;
	return p < 1 ? p : 1;
}

size_t alloclab_mann_whitney_needed(double alpha)
{
	size_t n = 2;
	while (alloclab_mann_whitney_min_p(n, n) >= alpha && n < 1000)
		n++;
	return n;
}

int alloclab_ratio_interval(const double *a, size_t na, const double *b, size_t nb, double *lo, double *hi,
			    double *p)
{
	struct alloclab_summary sa, sb;

	if (na < 2 || nb < 2)
		return -1;
	alloclab_summarize(a, na, &sa);
	alloclab_summarize(b, nb, &sb);
	if (sa.mean <= 0 || sb.mean <= 0)
		return -1;
	double va = sa.stdev * sa.stdev / ((double)na * sa.mean * sa.mean);
	double vb = sb.stdev * sb.stdev / ((double)nb * sb.mean * sb.mean);
	double ratio = sb.mean / sa.mean, se = sqrt(va + vb);
	if (se == 0) {
		*lo = *hi = ratio;
		if (p)
			*p = ratio == 1 ? 1 : 0;
		return 0;
	}
	/* Welch-Satterthwaite, on the two relative variances. */
	double df = (va + vb) * (va + vb) / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	unsigned dfs = df < 1 ? 1u : (unsigned)df;
	double t = alloclab_t95(dfs);
	*lo = ratio * exp(-t * se);
	*hi = ratio * exp(t * se);
	if (p) {
		double tl = log(ratio) / se;
		*p = alloclab_incomplete_beta((double)dfs / 2, 0.5, (double)dfs / ((double)dfs + tl * tl));
	}
	return 0;
}

/* ---- change points: a series of tests corrected (Benjamini-Hochberg) ---- */

struct step_p {
	double p;
	size_t at;
};

static int by_p(const void *a, const void *b)
{
	double x = ((const struct step_p *)a)->p, y = ((const struct step_p *)b)->p;
	return (x > y) - (x < y);
}

void alloclab_bh_keep(const double *p, size_t n, double q, int *changed)
{
	struct step_p *r = malloc((n ? n : 1) * sizeof *r);
	size_t m = 0, keep = 0;

	for (size_t i = 0; i < n; i++)
		changed[i] = 0;
	if (r == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		if (p[i] >= 0)
			r[m++] = (struct step_p){p[i], i};
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
