/* Page faults beside time. See faults.h. */
#include "statistics/faults.h"
#include "statistics/summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* One process's faults per 1,000 operations over its measured values, and
 * its system time over its timed time; -1 when not counted. */
static double process_faults(const struct alloclab_cell *c, const struct alloclab_process *p, double *sys_share)
{
	uint64_t faults = 0, ops = 0, sys = 0, ns = 0;
	for (unsigned v = 0; v < p->nvalues; v++) {
		const struct alloclab_value *x = &p->values[v];
		if (!x->faults_counted)
			return -1;
		faults += x->minor_faults + x->major_faults;
		sys += x->sys_ns;
		for (unsigned t = 0; t < c->threads && x->thread_ops; t++) {
			ops += x->thread_ops[t];
			ns += x->thread_ns ? x->thread_ns[t] : 0;
		}
	}
	if (ops == 0)
		return -1;
	if (sys_share)
		*sys_share = ns ? (double)sys / (double)ns : 0;
	return 1000.0 * (double)faults / (double)ops;
}

/* Every counted process's figure, in out[0 .. returned); rounds[] their
 * rounds, where not NULL. */
static size_t cell_figures(const struct alloclab_cell *c, double *out, double *share, unsigned *rounds)
{
	size_t n = 0;
	for (unsigned p = 0; p < c->nprocs; p++) {
		double s = 0, f = process_faults(c, &c->procs[p], &s);
		if (f < 0)
			continue;
		if (share)
			share[n] = s;
		if (rounds)
			rounds[n] = c->procs[p].index;
		out[n++] = f;
	}
	return n;
}

static double median_of(const double *x, size_t n)
{
	struct alloclab_summary s;
	alloclab_summarize(x, n, &s);
	return s.median;
}

const char *alloclab_format_count(double v, char *out, size_t len)
{
	snprintf(out, len, fabs(v) >= 1000 ? "%.0f" : "%.3g", v);
	return out;
}

double alloclab_cell_faults_per_kop(const struct alloclab_cell *c, double *sys_share)
{
	double *f = calloc(c->nprocs + 1, sizeof *f), *share = calloc(c->nprocs + 1, sizeof *share), m = -1;
	size_t n = f && share ? cell_figures(c, f, share, NULL) : 0;
	if (n > 0) {
		m = median_of(f, n);
		if (sys_share)
			*sys_share = median_of(share, n);
	}
	free(f);
	free(share);
	return m;
}

/* The mean of x[0 .. n) and the half-width of its 95% interval. */
static void mean_interval(const double *x, size_t n, double *mean, double *half)
{
	struct alloclab_summary s;
	alloclab_summarize(x, n, &s);
	*mean = s.mean;
	*half = alloclab_t95((unsigned)n - 1) * s.stdev / sqrt((double)n);
}

/* Paired: the differences of the processes of the same round. */
static size_t paired_differences(const double *b, const unsigned *rb, size_t nb, const double *o, const unsigned *ro,
				  size_t no, double *d)
{
	size_t n = 0;
	for (size_t i = 0; i < no; i++)
		for (size_t j = 0; j < nb; j++)
			if (ro[i] == rb[j]) {
				d[n++] = o[i] - b[j];
				break;
			}
	return n;
}

int alloclab_fault_difference(const struct alloclab_cell *base, const struct alloclab_cell *other, int paired,
			      struct alloclab_fault_difference *d)
{
	size_t cap = (size_t)base->nprocs + other->nprocs + 1;
	double *b = calloc(cap, sizeof *b), *o = calloc(cap, sizeof *o), *x = calloc(cap, sizeof *x);
	unsigned *rb = calloc(cap, sizeof *rb), *ro = calloc(cap, sizeof *ro);
	int rc = -1;

	if (!b || !o || !x || !rb || !ro)
		goto out;
	size_t nb = cell_figures(base, b, NULL, rb), no = cell_figures(other, o, NULL, ro);
	if (nb < 2 || no < 2)
		goto out;
	d->base = median_of(b, nb);
	d->other = median_of(o, no);
	double half;
	if (paired && (d->n = paired_differences(b, rb, nb, o, ro, no, x)) >= 2) {
		mean_interval(x, d->n, &d->diff, &half);
	} else {
		/* Welch: the two samples' own spreads, Satterthwaite's degrees
		 * of freedom (rounded down: the wider side). */
		struct alloclab_summary sb, so;
		alloclab_summarize(b, nb, &sb);
		alloclab_summarize(o, no, &so);
		double vb = sb.stdev * sb.stdev / (double)nb, vo = so.stdev * so.stdev / (double)no, se = sqrt(vb + vo);
		double df = vb + vo > 0 ? (vb + vo) * (vb + vo) / (vb * vb / (double)(nb - 1) + vo * vo / (double)(no - 1))
					: (double)(nb + no - 2);
		d->diff = so.mean - sb.mean;
		d->n = nb < no ? nb : no;
		half = alloclab_t95(df >= 1 ? (unsigned)df : 1) * se;
	}
	d->lo = d->diff - half;
	d->hi = d->diff + half;
	d->resolved = (d->lo > 0 || d->hi < 0) && fabs(d->diff) >= 0.005;
	rc = 0;
out:
	free(b);
	free(o);
	free(x);
	free(rb);
	free(ro);
	return rc;
}
