/* The memory section. See memory_report.h. */
#include "memory_report.h"

#include "cells.h"
#include "figures/figure.h"
#include "process/memory_timeline.h"
#include "figures/process_memory.h"
#include "statistics/summary.h"
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A cell with memory figures: measured, and not under valgrind (whose
 * process's resident set is valgrind's: --measure instructions, cache,
 * tlb). */
static int has_memory(const struct alloclab_cell *c)
{
	return alloclab_cell_measured(c) && !alloclab_metric_deterministic(c->metric);
}

static double median_of(double *v, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] >= 0)
			v[k++] = v[i];
	if (k == 0)
		return -1;
	struct alloclab_summary s;
	alloclab_summarize(v, k, &s);
	return s.median;
}

/* A figure that may be unknown (< 0) or under a KiB. */
static void kib_text(double kib, char *out, size_t len)
{
	if (kib < 0)
		snprintf(out, len, "-");
	else if (kib < 1 && kib != 0)
		snprintf(out, len, "%.0f B", kib * 1024);
	else
		alloclab_format_kib(kib, out, len);
}

/* Resident over requested-live, the harness's baseline and the workload's
 * own tables taken off, where the workload said what it held: at the end
 * of the last run and at the peak; beside it the allocator's own account
 * (its standard statistics after the last run: in use, held free). */
static void print_fragmentation(const struct alloclab_results *r, char **names, FILE *out)
{
	int header = 0;
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *c = &r->cells[i];
		if (!has_memory(c))
			continue;
		unsigned n = c->nprocs;
		double *col[6];
		for (int k = 0; k < 6; k++)
			col[k] = calloc(n + 1, sizeof **col);
		int have = 0;
		for (unsigned p = 0; p < n; p++) {
			const struct alloclab_process *proc = &c->procs[p];
			struct alloclab_process_memory m;
			for (int k = 0; k < 6; k++)
				col[k][p] = -1;
			if (proc->nvalues == 0)
				continue;
			alloclab_process_memory(proc, &m);
			/* The allocator's own account of the last value (std.*). */
			const json_t *st = proc->values[proc->nvalues - 1].stats;
			if (json_object_get(st, "std.in_use_bytes"))
				col[4][p] = (double)alloclab_stat_value(json_object_get(st, "std.in_use_bytes")) / 1024;
			if (json_object_get(st, "std.free_bytes"))
				col[5][p] = (double)alloclab_stat_value(json_object_get(st, "std.free_bytes")) / 1024;
			if (m.live_end_kib <= 0 && m.live_peak_kib <= 0)
				continue; /* the workload says nothing of what it holds */
			col[0][p] = m.live_end_kib;
			col[1][p] = m.live_peak_kib;
			col[2][p] = m.frag_end;
			col[3][p] = m.frag_peak;
			have = 1;
		}
		if (have) {
			if (!header++)
				fprintf(out, "\nfragmentation: resident over requested-live (the harness's baseline and the workload's "
					     "own tables taken off; medians; end of run only where the run ended holding a tenth of its "
					     "most or more: below, it is what the allocator kept, see 'freed all')\n"
					     "  %-40s %12s %12s %10s %8s %12s %12s\n",
					"cell", "live at end", "most live", "end of run", "at peak", "its in use", "its free");
			char t[6][32];
			for (int k = 0; k < 6; k++) {
				double med = median_of(col[k], n);
				if (k == 2 || k == 3)
					snprintf(t[k], sizeof t[k], med < 0 ? "-" : "%.2f", med);
				else
					kib_text(med, t[k], sizeof t[k]);
			}
			fprintf(out, "  %-40.40s %12s %12s %10s %8s %12s %12s\n", names[i], t[0], t[1], t[2], t[3], t[4], t[5]);
		}
		for (int k = 0; k < 6; k++)
			free(col[k]);
	}
}

void alloclab_memory_report(const struct alloclab_results *r, FILE *out)
{
	const struct alloclab_cell **cells = calloc(r->ncells + 1, sizeof *cells);
	char **names = calloc(r->ncells + 1, sizeof *names);
	int header = 0;

	for (unsigned i = 0; i < r->ncells; i++)
		cells[i] = &r->cells[i];
	alloclab_row_names(cells, r->ncells, 1, names);
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *c = &r->cells[i];
		unsigned n = c->nprocs, have = 0;
		if (!has_memory(c))
			continue;
		double *col[8];
		for (int k = 0; k < 8; k++)
			col[k] = calloc(n + 1, sizeof **col);
		for (unsigned p = 0; p < n; p++) {
			const struct alloclab_process *proc = &c->procs[p];
			struct alloclab_process_memory m;
			alloclab_process_memory(proc, &m);
			if (proc->memory || proc->rss_after_finish_kib > 0)
				have = 1;
			col[0][p] = m.baseline_kib;
			col[1][p] = m.peak_kib;
			col[2][p] = m.huge_share;
			col[3][p] = m.end_of_run_kib;
			col[4][p] = m.after_finish_kib;
			col[5][p] = m.after_trim_kib;
			col[6][p] = m.after_settle_kib;
			col[7][p] = m.faults_per_value;
		}
		if (have) {
			if (!header++)
				fprintf(out, "\nmemory: the worker's resident set (sampled every %lld ms from outside it; medians over "
					     "processes)\n  %-40s %9s %9s %6s %10s %10s %10s %10s %10s\n",
					(long long)json_integer_value(json_object_get(r->config, "sample_ms")), "cell", "baseline",
					"peak", "huge", "end of run", "freed all", "trimmed", "settled", "faults/v");
			char t[8][32];
			for (int k = 0; k < 8; k++) {
				double m = median_of(col[k], n);
				if (k == 2)
					snprintf(t[k], sizeof t[k], m < 0 ? "-" : "%.0f%%", m * 100);
				else if (k == 7)
					snprintf(t[k], sizeof t[k], m < 0 ? "-" : "%.0f", m);
				else
					kib_text(m, t[k], sizeof t[k]);
			}
			fprintf(out, "  %-40.40s %9s %9s %6s %10s %10s %10s %10s %10s\n", names[i], t[0], t[1], t[2], t[3], t[4],
				t[5], t[6], t[7]);
		}
		for (int k = 0; k < 8; k++)
			free(col[k]);
	}
	if (header)
		fprintf(out, "  (baseline: the worker before the plugin was loaded; peak: the measured values' largest,\n"
			     "  a program's own by wait4 under exec; end of run: once the last\n"
			     "  value's run ended; freed all: after the workload freed everything; trimmed: after\n"
			     "  the plugin's trim op; settled: after --settle-ms; faults/v: minor page faults per\n"
			     "  value, in run())\n");
	print_fragmentation(r, names, out);
	/* A worker that failed keeps its samples up to its end. */
	int failed_header = 0;
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_memory_timeline *tl = r->cells[i].failed_memory;
		if (tl == NULL)
			continue;
		long peak = -1;
		for (unsigned k = 0; k < tl->nsamples; k++)
			if (tl->samples[k].rss_kib > peak)
				peak = tl->samples[k].rss_kib;
		const struct alloclab_memory_sample *last = &tl->samples[tl->nsamples - 1];
		char p[32], l[32];
		kib_text((double)peak, p, sizeof p);
		kib_text((double)last->rss_kib, l, sizeof l);
		if (!failed_header++)
			fprintf(out, "\nworkers that failed, to their last sample:\n");
		fprintf(out, "  %-40.40s peak %s, last %s at %.0f ms in '%s' (%u samples)\n", names[i], p, l, last->t_ms,
			alloclab_memory_sample_phase(tl, tl->nsamples - 1), tl->nsamples);
	}
	for (unsigned i = 0; i < r->ncells; i++)
		free(names[i]);
	free(names);
	free(cells);
}

/* The stretches of a timeline in the measured runs ("run N"), in seconds. */
static void shade_runs(struct alloclab_figure *f, const struct alloclab_memory_timeline *timeline, const char *whose)
{
	double from = NAN, to = NAN;
	char title[600];

	snprintf(title, sizeof title, "measured runs (%s's process)", whose);
	for (unsigned i = 0; i < timeline->nsamples; i++) {
		const char *phase = alloclab_memory_sample_phase(timeline, i);
		double t = timeline->samples[i].t_ms / 1000;
		int in_run = strncmp(phase, "run ", 4) == 0;
		if (in_run && isnan(from))
			from = t;
		if (in_run)
			to = t;
		if (!in_run && !isnan(from)) {
			alloclab_figure_band(f, from, t, title);
			from = to = NAN;
		}
	}
	if (!isnan(from))
		alloclab_figure_band(f, from, to, title);
}

static double median_or_nan(double *v, size_t n)
{
	double m = median_of(v, n);
	return m < 0 ? NAN : m;
}

/* The memory figures' cells (those with a timeline) and their rows'
 * names. */
struct memory_cells {
	const struct alloclab_cell **cells;
	char **names;
	size_t n;
};

/* One plugin's cell in a row's "memory-kept" figure: the medians over its
 * processes of what it held at each stage, net of the harness, in MiB (NaN
 * where no process reached the stage), at stage_mib[stage][at]. */
static void kept_medians(const struct alloclab_cell *cell, double *stage_mib[4], size_t at)
{
	double *col[4];
	for (int st = 0; st < 4; st++)
		col[st] = calloc(cell->nprocs + 1, sizeof **col);
	for (unsigned p = 0; p < cell->nprocs; p++) {
		struct alloclab_process_memory m;
		alloclab_process_memory(&cell->procs[p], &m);
		double base = m.baseline_kib;
		col[0][p] = m.peak_net_kib;
		col[1][p] = m.kept_kib;
		col[2][p] = base >= 0 && m.after_trim_kib >= 0 ? fmax(0, m.after_trim_kib - base) : -1;
		col[3][p] = base >= 0 && m.after_settle_kib >= 0 ? fmax(0, m.after_settle_kib - base) : -1;
	}
	for (int st = 0; st < 4; st++) {
		stage_mib[st][at] = median_or_nan(col[st], cell->nprocs) / 1024;
		free(col[st]);
	}
}

/* The two figures of a row, its cells mc->cells[member[0..n)] (named
 * alike): its plugins' resident sets over time, and what each keeps at
 * the peak and after freeing, trimming and settling. */
static void row_figures(const struct memory_cells *mc, const size_t *member, size_t n, struct alloclab_figure_list *out)
{
	static const char *const stages[] = {"at the peak", "freed all", "after trim", "after settling"};
	const struct alloclab_cell **cells = mc->cells;
	char **names = mc->names;
	size_t i = member[0];
	char name[300], title[400], label[512];

	snprintf(name, sizeof name, "memory-%s", names[i]);
	snprintf(title, sizeof title, "%s: resident set over time (process 1 of each plugin)", names[i]);
	/* By index: adding a figure moves the list. */
	const size_t fi = out->n;
	alloclab_figure_add(out, name, title, "seconds since the worker started", "MiB resident", ALLOCLAB_FIGURE_LINES);
	out->items[fi].ymin_zero = 1;
	/* What each keeps once the workload has freed everything, beside
	 * its peak: which allocator gives memory back, at a glance. */
	snprintf(name, sizeof name, "memory-kept-%s", names[i]);
	snprintf(title, sizeof title,
		 "%s: resident at the peak and once the workload freed everything (net of the harness; medians)",
		 names[i]);
	const size_t ki = out->n;
	alloclab_figure_add(out, name, title, "plugin", "MiB resident", ALLOCLAB_FIGURE_BARS);
	double *stage_mib[4];
	for (int st = 0; st < 4; st++)
		stage_mib[st] = calloc(n + 1, sizeof **stage_mib);
	size_t at = 0;
	for (size_t m = 0; m < n; m++) {
		size_t k = member[m];
		const struct alloclab_memory_timeline *tl = cells[k]->procs[0].memory;
		alloclab_cell_label(cells[k], label, sizeof label);
		struct alloclab_figure *f = &out->items[fi];
		if (f->nseries == 0)
			shade_runs(f, tl, label);
		struct alloclab_series *se = alloclab_figure_series(f, label, tl->nsamples);
		for (unsigned j = 0; j < tl->nsamples; j++) {
			se->x[j] = tl->samples[j].t_ms / 1000;
			se->y[j] = (double)tl->samples[j].rss_kib / 1024;
		}
		alloclab_figure_category(&out->items[ki], label);
		kept_medians(cells[k], stage_mib, at);
		at++;
	}
	/* A stage no plugin reached (no trim op, no --settle-ms) has no bars. */
	for (int st = 0; st < 4; st++) {
		int any = 0;
		for (size_t k = 0; k < at; k++)
			any |= isfinite(stage_mib[st][k]);
		if (any) {
			struct alloclab_series *se = alloclab_figure_series(&out->items[ki], stages[st], at);
			for (size_t k = 0; k < at; k++)
				se->y[k] = stage_mib[st][k], se->err[k] = 0;
		}
		free(stage_mib[st]);
	}
}

/* Fragmentation at the peak, every row where the workload said what it
 * held: one cluster a row, one bar a plugin. */
static void fragmentation_figure(const struct memory_cells *mc, struct alloclab_figure_list *out)
{
	const struct alloclab_cell **cells = mc->cells;
	char **names = mc->names;
	size_t n = mc->n;
	/* Each cell's plugin and row as numbers, in the order each comes. */
	char **labels = calloc(n + 1, sizeof *labels);
	struct alloclab_text_groups byp = {0}, byr = {0};
	for (size_t i = 0; labels && i < n; i++) {
		char label[512];
		alloclab_cell_label(cells[i], label, sizeof label);
		labels[i] = strdup(label);
	}
	if (labels == NULL || alloclab_text_groups_make((const char *const *)labels, n, &byp) != 0 ||
	    alloclab_text_groups_make((const char *const *)names, n, &byr) != 0) {
		alloclab_text_groups_free(&byp);
		for (size_t i = 0; labels && i < n; i++)
			free(labels[i]);
		free(labels);
		return;
	}
	size_t np = byp.n, nr = byr.n;
	struct alloclab_figure *fr = NULL;
	for (size_t pl = 0; pl < np; pl++) {
		struct alloclab_series *se = NULL;
		for (size_t at = byp.start[pl]; at < byp.start[pl + 1]; at++) {
			size_t i = byp.member[at];
			double *v = calloc(cells[i]->nprocs + 1, sizeof *v);
			for (unsigned p = 0; p < cells[i]->nprocs; p++) {
				struct alloclab_process_memory m;
				alloclab_process_memory(&cells[i]->procs[p], &m);
				v[p] = m.frag_peak;
			}
			double med = median_or_nan(v, cells[i]->nprocs);
			free(v);
			if (isnan(med))
				continue;
			if (fr == NULL) {
				fr = alloclab_figure_add(out, "fragmentation",
							 "fragmentation at the peak: resident over the most the program held "
							 "(the harness and the workload's own tables taken off; medians; 1 is none)",
							 "workload", "resident / requested-live", ALLOCLAB_FIGURE_BARS);
				fr->hline = 1;
				for (size_t c = 0; c < nr; c++)
					alloclab_figure_category(fr, names[byr.member[byr.start[c]]]);
			}
			if (se == NULL)
				se = alloclab_figure_series(fr, labels[i], nr);
			se->y[byr.group[i]] = med;
			se->err[byr.group[i]] = 0;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	alloclab_text_groups_free(&byp);
	alloclab_text_groups_free(&byr);
}

void alloclab_memory_figures(const struct alloclab_results *r, struct alloclab_figure_list *out)
{
	struct memory_cells mc = {.cells = calloc(r->ncells + 1, sizeof *mc.cells), .n = 0};

	for (unsigned i = 0; i < r->ncells; i++)
		if (has_memory(&r->cells[i]) && r->cells[i].procs[0].memory)
			mc.cells[mc.n++] = &r->cells[i];
	mc.names = calloc(mc.n + 1, sizeof *mc.names);
	alloclab_row_names(mc.cells, mc.n, 0, mc.names);
	/* A row's cells found once, not by looking through every cell for
	 * each row's. */
	struct alloclab_text_groups rows;
	if (alloclab_text_groups_make((const char *const *)mc.names, mc.n, &rows) == 0) {
		for (size_t g = 0; g < rows.n; g++)
			row_figures(&mc, rows.member + rows.start[g], rows.start[g + 1] - rows.start[g], out);
		alloclab_text_groups_free(&rows);
	}
	fragmentation_figure(&mc, out);
	for (size_t i = 0; i < mc.n; i++)
		free(mc.names[i]);
	free(mc.names);
	free(mc.cells);
}
