/*
 * Two-sample significance tests for comparing measurements.
 *
 *   Student's t-test with pooled variance, two-tailed: pyperf's rule (what
 *   the radix-tree vs big-pool table was made with). It assumes independent, normal
 *   values; values from one worker process are neither independent of each
 *   other nor of the process's luck (address layout, neighbours on the
 *   machine), so on all values it reports run-to-run drift as significant.
 *
 *   Mann-Whitney U, two-sided: rank-based, no normality assumed. Exact
 *   distribution for samples of up to 10 each without ties; otherwise the
 *   normal approximation with tie correction and continuity correction.
 */
#ifndef ALLOCLAB_SIGNIFICANCE_H
#define ALLOCLAB_SIGNIFICANCE_H

#include <stddef.h>

struct alloclab_test_result {
	double statistic; /* t, or U of the first sample */
	double p;         /* two-sided p-value; 1 when the test cannot run (n < 2) */
	double df;        /* t-test only */
};

void alloclab_t_test(const double *a, size_t na, const double *b, size_t nb, struct alloclab_test_result *r);
void alloclab_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct alloclab_test_result *r);

/* The 95% interval of mean(b) / mean(a) for two independent samples
 * (per-process means, say): the delta method on the logarithm of the
 * ratio, var = s_a^2 / (n_a m_a^2) + s_b^2 / (n_b m_b^2), with Welch's
 * degrees of freedom (rounded down: the interval errs wide). 0 with
 * [*lo, *hi] and, where p is not NULL, the same test's two-sided p-value
 * that the ratio is 1 (below 0.05 where the interval leaves 1 out: the p
 * a series of such steps is corrected on); -1 when a side has fewer than
 * two values or a mean is not positive. */
int alloclab_ratio_interval(const double *a, size_t na, const double *b, size_t nb, double *lo, double *hi,
			    double *p);

/* The smallest two-sided p-value the rank test can give for samples of
 * na and nb values, whatever they are: 2 / C(na + nb, na). When it is not
 * below alpha, no difference can ever be called significant. */
double alloclab_mann_whitney_min_p(size_t na, size_t nb);

/* The fewest values per side (the same on both) for which the rank test's
 * smallest p is below alpha. */
size_t alloclab_mann_whitney_needed(double alpha);

/*
 * Change points (history show, bisect) in a series of builds, found from
 * the comparisons between neighbours (each build against the one before
 * it, measured side by side in the same processes) rather than from a
 * threshold on separate runs.
 *
 * Why: on a shared machine separate runs spread by several percent from
 * one to the next, so a threshold on them must sit above that spread and
 * still fires by chance as the series grows; a paired neighbour comparison
 * cancels the machine's drift, and each step then has a p-value of its
 * own. Over a series of n steps, testing each at 0.05 would call about
 * n/20 of the steps that changed nothing a change; the Benjamini-Hochberg
 * procedure keeps the expected share of false change points among those
 * called at q instead, however long the series (it holds for independent
 * tests, and for the positively dependent ones neighbour comparisons are:
 * each build takes part in two). A step is called a change when BH keeps
 * it and its own 95% interval leaves 1 out.
 */

/* The false discovery rate change points are called at. */
#define ALLOCLAB_CHANGE_FDR 0.05

/* Marks which of n tests Benjamini-Hochberg keeps at level q: changed[i]
 * 1 or 0 (a p-value < 0, a step not measured, is never kept and does not
 * count among the tests). */
void alloclab_bh_keep(const double *p, size_t n, double q, int *changed);

#endif
