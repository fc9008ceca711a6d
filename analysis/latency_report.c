/* The latency section. See latency_report.h. */
#include "latency_report.h"

#include "cells.h"
#include "units.h"
#include "figures/figure.h"

#include <math.h>

#include <stdlib.h>
#include <string.h>

#define SHOWN_SLOW 3

struct located {
	struct alloclab_lat_slow s;
	unsigned process, value;
};

static void time_text(double ns, char *out, size_t len)
{
	if (ns < 0)
		snprintf(out, len, "-");
	else
		alloclab_format_ns(ns, out, len);
}

static void print_hist(FILE *out, int indent, const char *name, const struct alloclab_lat_hist *h)
{
	char q[ALLOCLAB_LAT_NQUANTILES][24];
	for (unsigned k = 0; k < ALLOCLAB_LAT_NQUANTILES; k++)
		time_text(alloclab_lat_quantile(h, alloclab_lat_quantiles[k]), q[k], sizeof q[k]);
	fprintf(out, "%*s%-13s %12llu %9s %9s %9s %9s %9s %9s %9llu %9llu\n", indent, "", name, (unsigned long long)h->count,
		q[0], q[1], q[2], q[3], q[4], q[5], (unsigned long long)h->over_1us, (unsigned long long)h->over_100us);
}

void alloclab_latency_table(const struct alloclab_latency *l, int indent, FILE *out)
{
	uint64_t timed = 0;
	for (unsigned op = 0; op < ALLOCLAB_LAT_OPS; op++)
		timed += l->op[op].count;
	if (timed == 0) {
		/* An empty table would read as calls that cost nothing. */
		fprintf(out, "%*sno call was timed: the run made fewer calls per thread than --latency-every "
			     "(time fewer, or run longer)\n",
			indent, "");
		return;
	}
	fprintf(out, "%*s%-13s %12s %9s %9s %9s %9s %9s %9s %9s %9s\n", indent, "", "op", "calls", "p50", "p90", "p99",
		"p99.9", "p99.99", "max", ">=1us", ">=100us");
	for (unsigned op = 0; op < ALLOCLAB_LAT_OPS; op++)
		if (l->op[op].count)
			print_hist(out, indent, alloclab_lat_op_names[op], &l->op[op]);
}

/* The cell's slowest calls over all its values, with where they were. */
static unsigned slowest(const struct alloclab_cell *c, struct located *top)
{
	unsigned n = 0;
	for (unsigned p = 0; p < c->nprocs; p++)
		for (unsigned v = 0; v < c->procs[p].nvalues; v++) {
			const struct alloclab_latency *l = c->procs[p].values[v].latency;
			for (unsigned i = 0; l && i < l->nslow; i++) {
				unsigned at = n;
				while (at > 0 && top[at - 1].s.units < l->slow[i].units)
					at--;
				if (at >= SHOWN_SLOW)
					continue;
				memmove(&top[at + 1], &top[at], ((n < SHOWN_SLOW ? n : SHOWN_SLOW - 1) - at) * sizeof *top);
				top[at] = (struct located){l->slow[i], p, v};
				if (n < SHOWN_SLOW)
					n++;
			}
		}
	return n;
}

void alloclab_latency_report(const struct alloclab_results *r, FILE *out)
{
	const struct alloclab_cell **cells = calloc(r->ncells + 1, sizeof *cells);
	char **names = calloc(r->ncells + 1, sizeof *names);
	int header = 0;

	for (unsigned i = 0; i < r->ncells; i++)
		cells[i] = &r->cells[i];
	alloclab_row_names(cells, r->ncells, 1, names);
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *c = &r->cells[i];
		struct alloclab_latency *l = alloclab_cell_latency(c, -1);
		struct located top[SHOWN_SLOW];
		unsigned nslow;

		if (l == NULL)
			continue;
		if (!header++) {
			char every[48] = "every call";
			if (l->every > 1)
				snprintf(every, sizeof every, "1 call in %u", l->every);
			fprintf(out, "\nlatency of the calls timed (--latency: %s of each thread; an empty measurement's %.1f ns "
				"subtracted from each;\nthe reads of the clock cost the run %.1f ns a timed call, so its ns/op "
				"is not an unmeasured run's):\n", every, l->overhead_ns, l->empty_mean_ns);
		}
		fprintf(out, "  %s\n", names[i]);
		alloclab_latency_table(l, 4, out);
		nslow = slowest(c, top);
		for (unsigned k = 0; k < nslow; k++) {
			char t[24], where[96];
			const struct alloclab_lat_slow *s = &top[k].s;
			int n = snprintf(where, sizeof where, "process %u value %u", top[k].process + 1, top[k].value + 1);
			if (s->thread >= 0)
				n += snprintf(where + n, sizeof where - (size_t)n, " thread %d", s->thread);
			if (s->event >= 0)
				snprintf(where + n, sizeof where - (size_t)n, " event %lld", (long long)s->event);
			alloclab_format_ns((double)s->units / ALLOCLAB_LAT_UNITS_PER_NS, t, sizeof t);
			fprintf(out, "    %s %s %s", k ? "        " : "slowest:", t, alloclab_lat_op_names[s->op]);
			if (s->op != ALLOCLAB_LAT_FREE || s->size)
				fprintf(out, "(%llu)", (unsigned long long)s->size);
			fprintf(out, " at %s\n", where);
		}
		alloclab_latency_free(l);
	}
	for (unsigned i = 0; i < r->ncells; i++)
		free(names[i]);
	free(names);
	free(cells);
}

/* ---- pictures ---- */

static void row_figures(const struct alloclab_cell *const *cells, size_t n, const char *row,
			struct alloclab_figure_list *out)
{
	char name[300], title[400];
	struct alloclab_figure *cdf, *tail, *bars;

	/* Added first, pointed at after: adding one may move the others. */
	size_t first = out->n;
	snprintf(name, sizeof name, "latency-cdf-%s", row);
	snprintf(title, sizeof title, "%s: allocator calls timed (--latency), all ops", row);
	alloclab_figure_add(out, name, title, "time of one call (ns, logarithmic)", "fraction of calls at or under it",
			    ALLOCLAB_FIGURE_LINES);
	/* The same calls from the other end, where the tail shows. */
	snprintf(name, sizeof name, "latency-tail-%s", row);
	alloclab_figure_add(out, name, title, "time of one call (ns, logarithmic)", "fraction of calls slower (logarithmic)",
			    ALLOCLAB_FIGURE_LINES);
	snprintf(name, sizeof name, "latency-percentiles-%s", row);
	alloclab_figure_add(out, name, title, "percentile of the calls", "ns (logarithmic)", ALLOCLAB_FIGURE_BARS);
	cdf = &out->items[first];
	tail = &out->items[first + 1];
	bars = &out->items[first + 2];
	cdf->xlog = 1;
	tail->xlog = tail->ylog = 1;
	bars->ylog = 1;
	for (unsigned k = 0; k < ALLOCLAB_LAT_NQUANTILES; k++)
		alloclab_figure_category(bars, alloclab_lat_quantile_names[k]);
	for (size_t i = 0; i < n; i++) {
		struct alloclab_latency *l = alloclab_cell_latency(cells[i], -1);
		struct alloclab_lat_hist all;
		char label[512];
		uint64_t seen = 0;

		alloclab_cell_label(cells[i], label, sizeof label);
		alloclab_latency_all_ops(l, &all);
		struct alloclab_series *s = alloclab_figure_series(cdf, label, all.n),
				       *t = alloclab_figure_series(tail, label, all.n);
		for (unsigned b = 0; b < all.n; b++) {
			unsigned k = all.index[b];
			seen += all.counts[b];
			/* A bucket's calls are at or under its upper edge. */
			s->x[b] = t->x[b] = (double)(alloclab_lat_bucket_low(k) + alloclab_lat_bucket_width(k)) / ALLOCLAB_LAT_UNITS_PER_NS;
			s->y[b] = (double)seen / (double)all.count;
			/* The slowest call leaves none slower: no point on a
			 * logarithmic axis. */
			t->y[b] = seen < all.count ? (double)(all.count - seen) / (double)all.count : NAN;
		}
		s = alloclab_figure_series(bars, label, ALLOCLAB_LAT_NQUANTILES);
		for (unsigned k = 0; k < ALLOCLAB_LAT_NQUANTILES; k++) {
			double q = alloclab_lat_quantile(&all, alloclab_lat_quantiles[k]);
			/* A logarithmic axis has no 0: a call faster than the
			 * measurement's resolution is drawn at it. */
			s->y[k] = q > 0 ? q : 1.0 / ALLOCLAB_LAT_UNITS_PER_NS;
			s->err[k] = NAN;
		}
		alloclab_lat_hist_clear(&all);
		alloclab_latency_free(l);
	}
}

void alloclab_latency_figures(const struct alloclab_results *r, struct alloclab_figure_list *out)
{
	const struct alloclab_cell **cells = calloc(r->ncells + 1, sizeof *cells), **group;
	char **names;
	size_t n = 0;

	for (unsigned i = 0; i < r->ncells; i++) {
		struct alloclab_latency *l = alloclab_cell_measured(&r->cells[i]) ? alloclab_cell_latency(&r->cells[i], -1) : NULL;
		if (l)
			cells[n++] = &r->cells[i];
		alloclab_latency_free(l);
	}
	names = calloc(n + 1, sizeof *names);
	group = calloc(n + 1, sizeof *group);
	alloclab_row_names(cells, n, 0, names);
	/* A row's cells found once, not by looking through every cell for
	 * each row's. */
	struct alloclab_text_groups rows;
	if (group && alloclab_text_groups_make((const char *const *)names, n, &rows) == 0) {
		for (size_t g = 0; g < rows.n; g++) {
			size_t k = 0;
			for (size_t m = rows.start[g]; m < rows.start[g + 1]; m++)
				group[k++] = cells[rows.member[m]];
			row_figures(group, k, names[rows.member[rows.start[g]]], out);
		}
		alloclab_text_groups_free(&rows);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(group);
	free(cells);
}
