/*
 * The statistics of a paired comparison (run --paired): each process of a
 * paired cell gives one ratio, its time over the reference's in the same
 * process (results.h, alloclab_process.pair_ratio). The processes are the
 * unit: what varies from one to the next on a shared machine is what the
 * pairing cancels, and they are independent. The comparison is the
 * geometric mean of their ratios with the 95% interval of Student's t on
 * the logarithms (the ratios of two plugins in one process spread evenly
 * on a log scale), and Wilcoxon's signed-rank test on the logarithms as a
 * second opinion (exact below 30 processes without ties, the normal
 * approximation with the tie correction otherwise). One owner for `run -n auto`'s stopping
 * rule, the run table, `compare` and `plot`, so that they agree.
 */
#ifndef ALLOCLAB_PAIRS_H
#define ALLOCLAB_PAIRS_H

#include "results/results.h"
#include "statistics/verdict.h"

#include <stddef.h>

struct alloclab_pair_stat {
	unsigned n;           /* processes paired */
	double ratio;         /* the geometric mean of their ratios */
	double lo, hi;        /* its 95% interval; 0 and infinity below two processes */
	double half_percent;  /* the interval's half-width in percent: (hi / lo)^(1/2) - 1 */
	double spread_percent; /* the standard deviation of the ratios' logarithms, in percent */
	/* The signed-rank test's two-sided p (1 when it cannot tell): a second
	 * opinion that assumes nothing of the ratios' distribution, which
	 * needs 6 processes or more to go below 0.05. */
	double p;
	/* The t test's two-sided p on the logarithms (the interval's own
	 * test: below 0.05 when the interval leaves 1 out, up to the tabled
	 * quantile (summary.h, alloclab_t95); 1 below two
	 * processes). What a series of comparisons is corrected on
	 * (significance.h, alloclab_bh_keep). */
	double p_t;
	/* The interval leaves 1 out: the row may rank the two. Otherwise the
	 * difference is inside the noise: "not resolved". */
	int resolved;
};

/* The statistics of ratios r[0 .. n), each > 0. */
void alloclab_pair_stat_of(const double *r, size_t n, struct alloclab_pair_stat *out);

/* What the statistics say of them: LESS or MORE where the interval
 * resolves the ratio, NOT_RESOLVED where it holds 1, CANNOT_TELL below two
 * processes (comparison.h's verdicts). */
enum alloclab_verdict alloclab_pair_verdict_of(const struct alloclab_pair_stat *st);

/* A paired cell's against its reference (its processes' pair_ratio; the
 * reference's own: n processes, ratio 1). -1 when c is not paired or has
 * no paired process. */
int alloclab_pair_stat(const struct alloclab_cell *c, struct alloclab_pair_stat *out);

/* Two paired cells of one run with one reference (alloclab_pair_reference
 * gives both the same cell): other's time over base's, process by process
 * (alloclab_pair_ratio of their processes of the same round). -1 when not. */
int alloclab_pair_stat_between(const struct alloclab_cell *base, const struct alloclab_cell *other,
			       struct alloclab_pair_stat *out);

/* The machine's noise in a run, measured on it: how much one cell's
 * process means spread (the median over the run's cells of their
 * coefficient of variation, in percent), beside how much its paired
 * ratios spread (the median of the paired cells' spread_percent). A count
 * of 0: no cell to tell. */
struct alloclab_run_noise {
	double unpaired_percent, paired_percent;
	size_t unpaired_cells, paired_cells;
};
void alloclab_run_noise(const struct alloclab_results *r, struct alloclab_run_noise *out);

/* Wilcoxon's signed-rank test of d[0 .. n) against 0, two-sided p. */
double alloclab_signed_rank_p(const double *d, size_t n);

#endif
