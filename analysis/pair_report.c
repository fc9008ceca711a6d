/* The paired comparison's table. See pair_report.h. */
#include "pair_report.h"
#include "cells.h"
#include "statistics/pairs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	if (n == 0)
		return -1;
	qsort(v, n, sizeof *v, by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* How a ratio reads: "1.95x faster", "1.21x slower", or "not resolved"
 * when its interval holds 1 (or the test cannot tell). */
void alloclab_pair_verdict(const struct alloclab_pair_stat *st, int counts, char *out, size_t len)
{
	const char *less = counts ? "fewer" : "faster", *more = counts ? "more" : "slower";
	if (st->n < 2)
		snprintf(out, len, "one process: no interval");
	else if (!st->resolved)
		snprintf(out, len, "not resolved");
	else if (st->ratio < 1)
		snprintf(out, len, "%.3gx %s", 1 / st->ratio, less);
	else
		snprintf(out, len, "%.3gx %s", st->ratio, more);
}

/* The machine's noise in this run, measured on it: how much one cell's
 * process means spread (the median over the run's cells of their
 * coefficient of variation), beside how much its paired ratios spread. */
static void print_noise(const struct alloclab_results *r, FILE *out)
{
	double *unpaired = calloc(r->ncells + 1, sizeof *unpaired), *paired = calloc(r->ncells + 1, sizeof *paired);
	size_t nu = 0, np = 0;

	for (unsigned i = 0; i < r->ncells; i++) {
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
	if (nu && np)
		fprintf(out,
			"\nnoise in this run: a cell's process means varied by %.1f%% (median over %zu cells); the same\n"
			"processes' paired ratios by %.2f%% (median over %zu paired cells)\n",
			median(unpaired, nu), nu, median(paired, np), np);
	free(unpaired);
	free(paired);
}

void alloclab_pair_report(const struct alloclab_results *r, FILE *out)
{
	const struct alloclab_cell **cells = calloc(r->ncells + 1, sizeof *cells);
	char **names = calloc(r->ncells + 1, sizeof *names);
	size_t n = 0;

	if (r->facts.npair == 0) {
		free(cells);
		free(names);
		return;
	}
	for (unsigned i = 0; i < r->ncells; i++)
		if (r->cells[i].pair_design && strcmp(r->cells[i].plugin, r->facts.pair_plugins[0]) != 0)
			cells[n++] = &r->cells[i];
	alloclab_row_names(cells, n, 0, names);
	int lw = 6, rw = 8;
	for (size_t i = 0; i < n; i++) {
		lw = (int)strlen(cells[i]->plugin) > lw ? (int)strlen(cells[i]->plugin) : lw;
		rw = (int)strlen(names[i]) > rw ? (int)strlen(names[i]) : rw;
	}
	lw = lw > 40 ? 40 : lw;
	rw = rw > 40 ? 40 : rw;
	/* The run's design is said once; a row measured otherwise says how. */
	const char *usual = r->facts.slice_ops ? ALLOCLAB_PAIR_SLICES : ALLOCLAB_PAIR_VALUES;
	fprintf(out, "each plugin's time over %s's, measured side by side in the same processes", r->facts.pair_plugins[0]);
	if (r->facts.slice_ops)
		fprintf(out, " in slices\nof %llu operations", (unsigned long long)r->facts.slice_ops);
	else
		fprintf(out, ",\nvalue by value");
	fprintf(out, " (the geometric mean of the processes' ratios, and its 95%% interval):\n\n");
	fprintf(out, "%-*s  %-*s %9s  %-19s %4s  %s\n", rw, "row", lw, "plugin", "ratio", "95% interval", "n", "verdict");
	for (size_t i = 0; i < n; i++) {
		const struct alloclab_cell *c = cells[i];
		struct alloclab_pair_stat st;
		char verdict[64], interval[48];
		fprintf(out, "%-*.*s  %-*.*s ", rw, rw, names[i], lw, lw, c->plugin);
		if (c->status == ALLOCLAB_CELL_ERROR || c->status == ALLOCLAB_CELL_NOT_APPLICABLE) {
			fprintf(out, "%9s  %-19s %4s  %s: %s\n", "-", "-", "-",
				c->status == ALLOCLAB_CELL_ERROR ? "error" : "not applicable", c->message);
			continue;
		}
		if (alloclab_pair_stat(c, &st) != 0) {
			fprintf(out, "%9s  %-19s %4s  not measured (interrupted)\n", "-", "-", "-");
			continue;
		}
		alloclab_pair_verdict(&st, 0, verdict, sizeof verdict);
		if (st.n >= 2)
			snprintf(interval, sizeof interval, "%.3f .. %.3f", st.lo, st.hi);
		else
			snprintf(interval, sizeof interval, "-");
		const char *how = strcmp(c->pair_design, usual) == 0 ? NULL
				  : strcmp(c->pair_design, ALLOCLAB_PAIR_SLICES) == 0 ? "slices"
				  : strcmp(c->pair_design, ALLOCLAB_PAIR_VALUES) == 0 ? "whole values alternated"
										       : "processes of their own, back to back";
		fprintf(out, "%9.3f  %-19s %4u  %s%s%s%s\n", st.ratio, interval, st.n, verdict, how ? "  (" : "",
			how ? how : "", how ? ")" : "");
	}
	print_noise(r, out);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(cells);
}
