/* The statistics of paired comparisons. See pairs.h. */
#include "statistics/pairs.h"
#include "statistics/significance.h"
#include "statistics/summary.h"
#include "figures/cell_values.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_abs(const void *a, const void *b)
{
	double x = fabs(*(const double *)a), y = fabs(*(const double *)b);
	return (x > y) - (x < y);
}

/* P(W+ <= w) when W+ sums a random subset of the ranks 1..n: the exact
 * distribution, counted by dynamic programming over the ranks. */
static double exact_lower_tail(unsigned n, double w)
{
	unsigned max = n * (n + 1) / 2;
	double *count = calloc(max + 1, sizeof *count), total = ldexp(1.0, (int)n), below = 0;

	if (count == NULL)
		return 1;
	count[0] = 1;
	for (unsigned k = 1; k <= n; k++)
		for (unsigned s = max; s >= k; s--)
			count[s] += count[s - k];
	for (unsigned s = 0; s <= max && s <= w + 1e-9; s++)
		below += count[s];
	free(count);
	return below / total;
}

double alloclab_signed_rank_p(const double *d, size_t n)
{
	double *x = malloc((n ? n : 1) * sizeof *x), wplus = 0, tie_term = 0;
	size_t m = 0;
	int ties = 0;

	if (x == NULL)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (d[i] != 0)
			x[m++] = d[i]; /* zero differences say nothing either way (Wilcoxon's rule) */
	if (m == 0) {
		free(x);
		return 1;
	}
	qsort(x, m, sizeof *x, by_abs);
	/* Average ranks over runs of equal magnitudes. */
	for (size_t i = 0; i < m;) {
		size_t j = i;
		while (j + 1 < m && fabs(x[j + 1]) == fabs(x[i]))
			j++;
		double rank = (double)(i + j + 2) / 2, t = (double)(j - i + 1);
		for (size_t k = i; k <= j; k++)
			if (x[k] > 0)
				wplus += rank;
		if (t > 1) {
			ties = 1;
			tie_term += t * t * t - t;
		}
		i = j + 1;
	}
	free(x);
	double mean = (double)m * (double)(m + 1) / 4, p;
	if (!ties && m <= 30) {
		double lower = exact_lower_tail((unsigned)m, wplus), upper = 1 - exact_lower_tail((unsigned)m, wplus - 1);
		p = 2 * fmin(lower, upper);
	} else {
		double var = (double)m * (double)(m + 1) * (double)(2 * m + 1) / 24 - tie_term / 48;
		double z = var > 0 ? (fabs(wplus - mean) - 0.5) / sqrt(var) : 0;
		p = z > 0 ? erfc(z / sqrt(2)) : 1;
	}
	return p > 1 ? 1 : p;
}

void alloclab_pair_stat_of(const double *r, size_t n, struct alloclab_pair_stat *out)
{
	double *l = malloc((n ? n : 1) * sizeof *l), sum = 0, sq = 0;

	memset(out, 0, sizeof *out);
	out->n = (unsigned)n;
	out->p = 1;
	out->p_t = 1;
	out->hi = INFINITY;
	if (l == NULL || n == 0) {
		free(l);
		return;
	}
	for (size_t i = 0; i < n; i++)
		sum += (l[i] = log(r[i]));
	double mean = sum / (double)n;
	out->ratio = exp(mean);
	if (n >= 2) {
		for (size_t i = 0; i < n; i++)
			sq += (l[i] - mean) * (l[i] - mean);
		double sd = sqrt(sq / (double)(n - 1));
		/* The t interval of the mean logarithm, as summary.c takes a
		 * mean's: its half-width over the mean of exp(l) is close to
		 * t * sd / sqrt(n) for spreads of a few percent. */
		double half = alloclab_t95((unsigned)(n - 1)) * sd / sqrt((double)n);
		out->lo = exp(mean - half);
		out->hi = exp(mean + half);
		out->half_percent = 100 * (exp(half) - 1);
		out->spread_percent = 100 * (exp(sd) - 1);
		out->p = alloclab_signed_rank_p(l, n);
		double se = sd / sqrt((double)n), t = se > 0 ? mean / se : (mean != 0 ? INFINITY : 0), df = (double)(n - 1);
		out->p_t = se > 0 ? alloclab_incomplete_beta(df / 2, 0.5, df / (df + t * t)) : (mean != 0 ? 0 : 1);
	} else {
		out->half_percent = 1e9;
	}
	out->resolved = n >= 2 && (out->lo > 1 || out->hi < 1);
	free(l);
}

enum alloclab_verdict alloclab_pair_verdict_of(const struct alloclab_pair_stat *st)
{
	return st->n < 2	   ? ALLOCLAB_VERDICT_CANNOT_TELL
	       : !st->resolved	   ? ALLOCLAB_VERDICT_NOT_RESOLVED
	       : st->ratio < 1	   ? ALLOCLAB_VERDICT_LESS
				   : ALLOCLAB_VERDICT_MORE;
}

int alloclab_pair_stat(const struct alloclab_cell *c, struct alloclab_pair_stat *out)
{
	double *r;
	size_t n = 0;

	if (c->pair_design == NULL || c->nprocs == 0)
		return -1;
	r = malloc(c->nprocs * sizeof *r);
	if (r == NULL)
		return -1;
	for (unsigned i = 0; i < c->nprocs; i++)
		if (c->procs[i].pair_ratio > 0)
			r[n++] = c->procs[i].pair_ratio;
	alloclab_pair_stat_of(r, n, out);
	free(r);
	return n ? 0 : -1;
}

int alloclab_pair_stat_between(const struct alloclab_cell *base, const struct alloclab_cell *other,
			       struct alloclab_pair_stat *out)
{
	if (base->pair_design == NULL || other->pair_design == NULL || other->nprocs == 0)
		return -1;
	double *r = malloc(other->nprocs * sizeof *r);
	size_t n = 0;
	if (r == NULL)
		return -1;
	for (unsigned p = 0; p < other->nprocs; p++) {
		const struct alloclab_process *b = alloclab_pair_partner(base, &other->procs[p]);
		double ratio = b ? alloclab_pair_ratio(&other->procs[p], b) : 0;
		if (ratio > 0)
			r[n++] = ratio;
	}
	alloclab_pair_stat_of(r, n, out);
	free(r);
	return n ? 0 : -1;
}

/* The median of v[0 .. n), which it sorts; -1 for none. */
static double median_of(double *v, size_t n)
{
	struct alloclab_summary s;
	if (n == 0)
		return -1;
	alloclab_summarize(v, n, &s);
	return s.median;
}

void alloclab_run_noise(const struct alloclab_results *r, struct alloclab_run_noise *out)
{
	double *unpaired = calloc(r->ncells + 1, sizeof *unpaired), *paired = calloc(r->ncells + 1, sizeof *paired);
	size_t nu = 0, np = 0;

	for (unsigned i = 0; unpaired && paired && i < r->ncells; i++) {
		const struct alloclab_cell *c = &r->cells[i];
		size_t n;
		double *m = alloclab_cell_process_means(c, &n), sum = 0, sq = 0;
		if (alloclab_cell_measured(c) && n >= 2) {
			for (size_t k = 0; k < n; k++)
				sum += m[k];
			for (size_t k = 0; k < n; k++)
				sq += (m[k] - sum / n) * (m[k] - sum / n);
			unpaired[nu++] = 100 * sqrt(sq / (double)(n - 1)) / (sum / n);
		}
		free(m);
		struct alloclab_pair_stat st;
		const struct alloclab_cell *ref = alloclab_pair_reference(r, c);
		if (ref && ref != c && alloclab_cell_measured(c) && alloclab_pair_stat(c, &st) == 0 && st.n >= 2)
			paired[np++] = st.spread_percent;
	}
	*out = (struct alloclab_run_noise){median_of(unpaired, nu), median_of(paired, np), nu, np};
	free(unpaired);
	free(paired);
}
