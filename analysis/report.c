/* The run table. See report.h. */
#define _GNU_SOURCE 1
#include "report.h"

#include "cells.h"
#include "base/shell_word.h"
#include "statistics/summary.h"
#include "latency_report.h"
#include "memory_report.h"
#include "pair_report.h"
#include "statistics/faults.h"
#include "measure/placement.h"
#include "registry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Prints text from column `col` on, broken after one of the characters in
 * `breaks` so that no line runs past `width`; continuation lines start at
 * column `indent`. */
static void print_wrapped(FILE *out, int col, int indent, int width, const char *breaks, const char *text)
{
	while (*text) {
		size_t room = width > col ? (size_t)(width - col) : 20, n = strlen(text);
		if (n > room) {
			size_t cut = 0;
			for (size_t k = 0; k < room; k++)
				if (strchr(breaks, text[k]))
					cut = k + 1;
			n = cut ? cut : room;
		}
		size_t shown = n;
		while (shown > 0 && text[shown - 1] == ' ')
			shown--;
		fprintf(out, "%.*s", (int)shown, text);
		text += n;
		while (*text == ' ')
			text++;
		if (*text) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		}
	}
	fputc('\n', out);
}

/* A cell's label as the table shows it. A file's labels, workloads,
 * messages and whatever else it says are printed through
 * alloclab_printable: its reader turns control characters into '?', but a
 * bidirectional control passes, and would turn the rest of a row around. */
static const char *shown_label(const struct alloclab_cell *c, char *out, size_t len)
{
	char label[512];
	alloclab_cell_label(c, label, sizeof label);
	return alloclab_printable(label, out, len);
}

static double cell_median(const struct alloclab_cell *cell)
{
	size_t n;
	double *values = alloclab_cell_values(cell, &n);
	struct alloclab_summary s;

	alloclab_summarize(values, n, &s);
	free(values);
	return s.median;
}

/* Aggregate throughput at the median; a count of instructions has none. */
static const char *mops_text(const struct alloclab_cell *c, double median, char *out, size_t len)
{
	double mops = alloclab_mops(median, c->threads);

	if (alloclab_metric_deterministic(c->metric))
		return "-";
	/* Operations of milliseconds (a Python benchmark's iteration): as
	 * operations per second, not 0.0 millions. */
	if (mops < 0.1)
		snprintf(out, len, mops * 1e6 >= 100 ? "%.0f/s" : "%.3g/s", mops * 1e6);
	else
		snprintf(out, len, "%.1f", mops);
	return out;
}

/* A value in the column: as it is up to a million; above, with a unit
 * (ms, s; M, G instructions), so that a Python benchmark's 12415914.50 ns
 * reads 12.42 ms and the column keeps its width. */
static const char *value_text(const struct alloclab_cell *c, double v, char *out, size_t len)
{
	int counts = alloclab_metric_deterministic(c->metric);

	if (v < 1e6)
		snprintf(out, len, "%.2f", v);
	else if (v < 1e9)
		snprintf(out, len, counts ? "%.2fM" : "%.2f ms", v / 1e6);
	else
		snprintf(out, len, counts ? "%.2fG" : "%.2f s", v / 1e9);
	return out;
}

static int aligned_of(const struct alloclab_cell *c)
{
	return c->cache_aligned;
}

static int plugin_of(const struct alloclab_cell *c)
{
	return (int)c->plugin_index;
}

/* The run's cells grouped by their row (workload, parameters, threads)
 * and what `also` says of each: a cell's twins are looked for among its
 * group's cells, not among all. 0, or -1 out of memory. */
static int group_rows(const struct alloclab_results *r, int (*also)(const struct alloclab_cell *),
		      struct alloclab_text_groups *g)
{
	char **keys = calloc(r->ncells + 1, sizeof *keys);
	int rc = keys ? 0 : -1;
	for (unsigned i = 0; rc == 0 && i < r->ncells; i++) {
		char *row = alloclab_cell_row_key(&r->cells[i], 0);
		if (row == NULL || asprintf(&keys[i], "%d:%s", also(&r->cells[i]), row) < 0) {
			keys[i] = NULL;
			rc = -1;
		}
		free(row);
	}
	if (rc == 0)
		rc = alloclab_text_groups_make((const char *const *)keys, r->ncells, g);
	for (unsigned i = 0; keys && i < r->ncells; i++)
		free(keys[i]);
	free(keys);
	return rc;
}

static void print_harness_share(const struct alloclab_results *r, FILE *out)
{
	int header = 0;
	struct alloclab_text_groups g;

	if (group_rows(r, aligned_of, &g) != 0)
		return;
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *noop = &r->cells[i];
		if (strcmp(r->plugins[noop->plugin_index].name, "noop") != 0 || !alloclab_cell_measured(noop))
			continue;
		for (size_t m = g.start[g.group[i]]; m < g.start[g.group[i] + 1]; m++) {
			size_t k = g.member[m];
			const struct alloclab_cell *other = &r->cells[k];
			char label[512], workload[ALLOCLAB_PRINTED_LEN];
			if (k == i || strcmp(r->plugins[other->plugin_index].name, "noop") == 0 ||
			    !alloclab_cell_measured(other))
				continue;
			/* A cell's values are in its metric's unit. */
			const char *unit = strcmp(noop->metric, ALLOCLAB_METRIC_INSTRUCTIONS) == 0 ? "instr/op" : "ns/op";
			if (!header) {
				fprintf(out, "\nharness cost (noop plugin's %s as a share of each plugin's, same run):\n", unit);
				header = 1;
			}
			double h = cell_median(noop), p = cell_median(other);
			fprintf(out, "  %s threads=%u: noop %.2f %s = %.1f%% of %s (%.2f %s)\n",
				alloclab_printable(other->workload, workload, sizeof workload), other->threads, h, unit,
				100.0 * h / p, shown_label(other, label, sizeof label), p, unit);
		}
	}
	alloclab_text_groups_free(&g);
}

/* Every cell's row name (plugin, workload, the parameters that vary,
 * threads), as compare names rows: names[i] for r->cells[i]. */
static char **cell_names(const struct alloclab_results *r)
{
	const struct alloclab_cell **cells = calloc(r->ncells + 1, sizeof *cells);
	char **names = calloc(r->ncells + 1, sizeof *names);

	for (unsigned i = 0; i < r->ncells; i++)
		cells[i] = &r->cells[i];
	alloclab_row_names(cells, r->ncells, 1, names);
	free(cells);
	return names;
}

static void free_names(char **names, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Median simulated data misses per operation of a cell (--measure cache). */
static void cache_medians(const struct alloclab_cell *c, double *d1, double *ll)
{
	size_t n = 0;
	double *a, *b;
	struct alloclab_summary s;

	for (unsigned p = 0; p < c->nprocs; p++)
		n += c->procs[p].nvalues;
	a = calloc(n + 1, sizeof *a);
	b = calloc(n + 1, sizeof *b);
	n = 0;
	for (unsigned p = 0; p < c->nprocs; p++)
		for (unsigned v = 0; v < c->procs[p].nvalues; v++)
			if (c->procs[p].values[v].cache_simulated) {
				a[n] = c->procs[p].values[v].d1_misses_per_op;
				b[n++] = c->procs[p].values[v].ll_misses_per_op;
			}
	alloclab_summarize(a, n, &s);
	*d1 = s.median;
	alloclab_summarize(b, n, &s);
	*ll = s.median;
	free(a);
	free(b);
}

/* --measure cache: every cell's simulated misses. */
static void print_cache(const struct alloclab_results *r, FILE *out)
{
	int header = 0;
	char **names = cell_names(r);

	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *c = &r->cells[i];
		double d1, ll;
		if (!alloclab_cell_measured(c) || !c->procs[0].nvalues || !c->procs[0].values[0].cache_simulated)
			continue;
		if (!header) {
			char tool[600];
			const char *g = r->facts.cache_simulated ? alloclab_printable(r->facts.cache_simulated, tool, sizeof tool)
								 : NULL;
			int tlb = r->facts.tlb_simulated;
			char head[1200];
			snprintf(head, sizeof head, "simulated %s misses per operation (callgrind%s%s; %s):",
				 tlb ? "data-TLB" : "data-cache", g ? ", " : "", g ? g : "",
				 tlb ? "LRU, no page walk caches, 4 KiB pages only"
				     : "no prefetchers, no coherence traffic between cores");
			fputc('\n', out);
			print_wrapped(out, 0, 2, 100, " ", head);
			fprintf(out, "  %-60s %12s %12s\n", "cell", tlb ? "L1 dTLB" : "D1 misses", tlb ? "STLB" : "LL misses");
			header = 1;
		}
		cache_medians(c, &d1, &ll);
		fprintf(out, "  %-60s %12.3f %12.4f\n", names[i], d1, ll);
	}
	free_names(names, r->ncells);
}

/* With --cache-align both: each plugin's aligned cell against its unaligned
 * twin (same workload, parameters, threads). */
static void print_alignment_effect(const struct alloclab_results *r, FILE *out)
{
	int header = 0;
	struct alloclab_text_groups g;
	int any = 0;

	for (unsigned i = 0; i < r->ncells && !any; i++)
		any = r->cells[i].cache_aligned;
	if (!any || group_rows(r, plugin_of, &g) != 0)
		return;
	char **names = cell_names(r);
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *a = &r->cells[i];
		if (!a->cache_aligned || !alloclab_cell_measured(a))
			continue;
		for (size_t m = g.start[g.group[i]]; m < g.start[g.group[i] + 1]; m++) {
			size_t k = g.member[m];
			const struct alloclab_cell *u = &r->cells[k];
			if (u->cache_aligned || !alloclab_cell_measured(u))
				continue;
			int counts = alloclab_metric_deterministic(a->metric);
			if (!header) {
				fprintf(out, "\ncache-line alignment (aligned %s / unaligned, same run; < 1: aligned %s):\n",
					counts ? "instructions per op" : "ns/op", counts ? "does less" : "is faster");
				header = 1;
			}
			double ra = cell_median(a), ru = cell_median(u);
			fprintf(out, "  %-50s %.2f / %.2f = %.3f", names[k], ra, ru, ra / ru);
			if (a->nprocs && u->nprocs && a->procs[0].nvalues && u->procs[0].nvalues &&
			    a->procs[0].values[0].cache_simulated && u->procs[0].values[0].cache_simulated) {
				double da, du, la, lu;
				cache_medians(a, &da, &la);
				cache_medians(u, &du, &lu);
				fprintf(out, "; D1 misses per op %.3f / %.3f, LL %.4f / %.4f", da, du, la, lu);
			}
			fputc('\n', out);
		}
	}
	free_names(names, r->ncells);
	alloclab_text_groups_free(&g);
}

/* The width of the plugin column: the longest cell label, 6 to 60. */
static int label_width(const struct alloclab_results *r)
{
	int pw = 6;
	for (unsigned i = 0; i < r->ncells; i++) {
		char label[ALLOCLAB_PRINTED_LEN];
		shown_label(&r->cells[i], label, sizeof label);
		if ((int)strlen(label) > pw)
			pw = (int)strlen(label) > 60 ? 60 : (int)strlen(label);
	}
	return pw;
}

/* Placement recorded through the framework's service at the top level of
 * a process report ({"placement": {...}}), for any workload. */
static void print_placement(const struct alloclab_results *r, FILE *out)
{
	int header = 0, pw = label_width(r);

	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *c = &r->cells[i];
		struct alloclab_placement_sum sum;
		char label[ALLOCLAB_PRINTED_LEN], workload[ALLOCLAB_PRINTED_LEN];
		int any = 0;

		memset(&sum, 0, sizeof sum);
		if (!alloclab_cell_measured(c) || alloclab_workload_find(c->workload) == NULL)
			continue;
		for (struct alloclab_report_iter it = alloclab_reports(c, ALLOCLAB_REPORTS_PER_PROCESS); alloclab_reports_next(&it);) {
			json_t *pl = json_object_get(it.report, "placement");
			if (pl) {
				alloclab_placement_add(&sum, pl);
				any = 1;
			}
		}
		if (!any)
			continue;
		if (!header) {
			fprintf(out, "\ncache-line and page placement of the blocks live at the end of each process\n"
				     "(blocks and pages summed over the cell's processes):\n");
			fprintf(out, "  %-*s %-10s %7s %12s %11s %10s %s\n", pw, "plugin", "workload", "threads", "blocks",
				"straddling", "4K pages", "lines shared by 2+ threads");
			header = 1;
		}
		fprintf(out, "  %-*s %-10s %7u %12llu %10.1f%% %10llu", pw, shown_label(c, label, sizeof label),
			alloclab_printable(c->workload, workload, sizeof workload), c->threads,
			(unsigned long long)sum.blocks,
			sum.blocks ? 100.0 * (double)sum.straddling / (double)sum.blocks : 0.0,
			(unsigned long long)sum.pages);
		if (sum.threads_counted)
			fprintf(out, " %.2f%% of %llu", sum.lines_total ? 100.0 * (double)sum.lines_shared / (double)sum.lines_total : 0.0,
				(unsigned long long)sum.lines_total);
		fputc('\n', out);
	}
}

/* -n auto: where each cell's confidence interval ended up. */
static void print_auto(const struct alloclab_results *r, FILE *out)
{
	double target = r->facts.ci_percent;
	char **names;

	if (!r->facts.processes_auto)
		return;
	names = cell_names(r);
	fprintf(out, "\n-n auto: processes until the 95%% confidence interval of the mean is within %.3g%%:\n",
		target);
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *c = &r->cells[i];
		size_t n;
		double *m = alloclab_cell_process_means(c, &n);
		if (!alloclab_cell_measured(c) || n < 2) {
			free(m);
			continue;
		}
		double half = alloclab_ci_half_width_percent(m, n);
		fprintf(out, "  %-50s %3zu processes: ±%.2f%%%s\n", names[i], n, half,
			half > target ? " (not reached: the maximum, --max-processes, was)" : "");
		free(m);
	}
	free_names(names, r->ncells);
}

/* A scaling curve needs the cores to run on: say so when the machine was
 * busier than the run's thread counts allow. */
static void print_machine_note(const struct alloclab_results *r, FILE *out)
{
	char env[2048];
	unsigned maxt = 0;

	/* What the environment set in the allocators measured (the workers
	 * inherit it): figures of an allocator other than its defaults. */
	if (alloclab_results_env_text(r, env, sizeof env)) {
		char note[2200], shown[2100];
		snprintf(note, sizeof note, "note: the run's environment set the allocators it measured (its workers "
			 "inherit it): %s", alloclab_printable(env, shown, sizeof shown));
		fputc('\n', out);
		print_wrapped(out, 0, 6, 100, " ", note);
	}
	for (unsigned i = 0; i < r->ncells; i++)
		if (r->cells[i].threads > maxt)
			maxt = r->cells[i].threads;
	/* What other processes took (and the host stole) of the CPUs the run
	 * could use, measured while it ran, never the load average: that
	 * counts the run's own workers (and the minute before it), and read
	 * 1.83 on an idle 2-core machine. A file without it says nothing. */
	double taken = r->facts.other_cpus_peak;
	if (r->facts.cpus_allowed == 0 || maxt < 2 || taken < 0)
		return;
	double free_cpus = (double)r->facts.cpus_allowed - taken;
	if (free_cpus < (double)maxt - 0.5) {
		char note[600];
		snprintf(note, sizeof note,
			 "note: other processes%s kept up to %.1f of the %d CPUs this run could use busy (%.1f on average "
			 "over the run): about %.1f CPUs were free for up to %u threads, so the multi-thread rows do not "
			 "show scaling the machine could give",
			 r->facts.stolen_cpus_mean > 0.05 ? " and the host" : "", taken, r->facts.cpus_allowed,
			 r->facts.other_cpus_mean + r->facts.stolen_cpus_mean, free_cpus > 0 ? free_cpus : 0.0, maxt);
		fputc('\n', out);
		print_wrapped(out, 0, 6, 100, " ", note);
	}
}

/* The 95% interval's half-width of a cell's level, in percent of it: over
 * its processes' means (a process is the unit that varies on a shared
 * machine; values within one vary far less). "-" below two processes. */
static const char *precision_text(const struct alloclab_cell *c, char *out, size_t len)
{
	size_t n;
	double *m = alloclab_cell_process_means(c, &n);
	if (n >= 2)
		snprintf(out, len, "%.1f%%", alloclab_ci_half_width_percent(m, n));
	else
		snprintf(out, len, "-");
	free(m);
	return out;
}

/* Parameters every row of a workload shares are said once, above the
 * table; a row shows only what tells it from the others. */
static void print_common_params(const struct alloclab_results *r, const struct alloclab_param_variation *pv, int ww,
				FILE *out)
{
	struct alloclab_text_index *seen = alloclab_text_index_new();
	for (unsigned i = 0, header = 0; seen && i < r->ncells; i++) {
		char common[2048];
		/* the workload's first cell: its parameters are its rows' */
		if (alloclab_text_index_put(seen, r->cells[i].workload, (long)i) != (long)i)
			continue;
		alloclab_cell_params_text(pv, &r->cells[i], 0, common, sizeof common);
		if (common[0] == '\0')
			continue;
		char workload[ALLOCLAB_PRINTED_LEN];
		if (!header++)
			fprintf(out, "parameters (the same in every row of the workload):\n");
		fprintf(out, "  %-*s ", ww, alloclab_printable(r->cells[i].workload, workload, sizeof workload));
		print_wrapped(out, ww + 3, ww + 3, 100, ",", common);
	}
	alloclab_text_index_free(seen);
}

/* A row's parameters that tell it apart, and the check cases its plugin
 * failed: a plugin that failed `alloclab check` is marked on every row,
 * since its numbers may not mean what they seem. */
static void row_params(const struct alloclab_results *r, const struct alloclab_param_variation *pv,
		       const struct alloclab_cell *c, char *params, size_t len)
{
	const json_t *check = r->plugins[c->plugin_index].check;
	json_t *f;
	size_t k, used;
	char text[512];

	alloclab_cell_params_text(pv, c, 1, params, len);
	used = strlen(params);
	json_array_foreach(check, k, f)
		if (used < len)
			used += (size_t)snprintf(params + used, len - used, "%s%s", k ? ", " : " [fails check: ",
						 alloclab_printable(json_string_value(json_object_get(f, "case")), text,
								    sizeof text));
	if (json_array_size(check) && used < len)
		snprintf(params + used, len - used, "]");
}

/* One cell's row of the table. */
static void print_row(const struct alloclab_results *r, const struct alloclab_param_variation *pv,
		      const struct alloclab_cell *c, int pw, int ww, FILE *out)
{
	char params[512], label[ALLOCLAB_PRINTED_LEN], workload[ALLOCLAB_PRINTED_LEN], message[ALLOCLAB_PRINTED_LEN];
	size_t n;
	double *values = alloclab_cell_values(c, &n);
	struct alloclab_summary s;
	char mops[32], value[32];

	row_params(r, pv, c, params, sizeof params);
	alloclab_printable(c->message, message, sizeof message);
	alloclab_summarize(values, n, &s);
	free(values);
	fprintf(out, "%-*s  %-*s %7u ", pw, shown_label(c, label, sizeof label), ww,
		alloclab_printable(c->workload, workload, sizeof workload), c->threads);
	/* A row that did not measure still says which it is (a benchmark of
	 * a folder, by its parameters). */
	if (c->status == ALLOCLAB_CELL_ERROR)
		fprintf(out, "%10s %7s %9s %10s %10s  %s%serror: %s\n", "-", "-", "-", "-", "-", params,
			params[0] ? ": " : "", message);
	else if (c->status == ALLOCLAB_CELL_NOT_APPLICABLE)
		fprintf(out, "%10s %7s %9s %10s %10s  %s%snot applicable: %s\n", "-", "-", "-", "-", "-", params,
			params[0] ? ": " : "", message);
	else if (n == 0)
		fprintf(out, "%10s %7s %9s %10s %10s  not measured (interrupted)\n", "-", "-", "-", "-", "-");
	else {
		const char *partial = c->status == ALLOCLAB_CELL_OK ? "" : " (partial: interrupted)";
		char spread[16], faults[32] = "-";
		double f = alloclab_cell_faults_per_kop(c, NULL);
		if (f >= 0)
			snprintf(faults, sizeof faults, "%.3f", f);
		precision_text(c, spread, sizeof spread);
		fprintf(out, "%10s %7s %9s %6.1f MiB %10s%s%s%s\n", value_text(c, s.median, value, sizeof value), spread,
			mops_text(c, s.median, mops, sizeof mops), (double)alloclab_cell_peak_rss_kib(c) / 1024.0, faults,
			params[0] || partial[0] ? "  " : "", params, partial);
	}
}

/* What plugins printed while measured, and the check cases they failed. */
static void print_plugin_notes(const struct alloclab_results *r, FILE *out)
{
	for (unsigned i = 0; i < r->ncells; i++)
		for (unsigned p = 0; p < r->cells[i].nprocs; p++)
			if (r->cells[i].procs[p].plugin_output) {
				char label[ALLOCLAB_PRINTED_LEN], workload[ALLOCLAB_PRINTED_LEN], said[301];
				fprintf(out, "\nnote: plugin %s printed while measured (%s, threads=%u): %s\n",
					shown_label(&r->cells[i], label, sizeof label),
					alloclab_printable(r->cells[i].workload, workload, sizeof workload), r->cells[i].threads,
					alloclab_printable(r->cells[i].procs[p].plugin_output, said, sizeof said));
				p = r->cells[i].nprocs;
			}
	for (unsigned i = 0; i < r->nplugins; i++) {
		json_t *f;
		size_t k;
		char label[ALLOCLAB_PRINTED_LEN], what[512], why[ALLOCLAB_PRINTED_LEN];
		json_array_foreach(r->plugins[i].check, k, f)
			fprintf(out, "%s  %s fails check case %s: %s\n", k ? "" : "\nplugins that failed alloclab check (measured all the same):\n",
				alloclab_printable(r->plugins[i].label, label, sizeof label),
				alloclab_printable(json_string_value(json_object_get(f, "case")), what, sizeof what),
				alloclab_printable(json_string_value(json_object_get(f, "why")), why, sizeof why));
	}
}

/* A workload's own report of a cell, line by line through
 * alloclab_printable: it prints what the file's reports say (a program's
 * output hash, a benchmark's name from its parameters, a version). */
static void print_workload_report(const struct alloclab_workload *w, const struct alloclab_cell *c, FILE *out)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (m == NULL)
		return;
	w->print_cell(c, m);
	fclose(m);
	/* An escape's text is at most twice the bytes it stands for. */
	char *shown = malloc(2 * len + 8);
	for (char *line = text, *end; shown && line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		fputs(alloclab_printable(line, shown, 2 * len + 8), out);
		if (end)
			fputc('\n', out);
	}
	free(shown);
	free(text);
}

void alloclab_report_print(const struct alloclab_results *r, FILE *out, int workload_reports)
{
	int pw = label_width(r), ww = 8;

	if (r->facts.npair) {
		alloclab_pair_report(r, out);
		if (!workload_reports) {
			/* The default suite: the ratios lead; the raw times are
			 * show's. */
			print_machine_note(r, out);
			return;
		}
		fputc('\n', out);
	}

	for (unsigned i = 0; i < r->ncells; i++) {
		if ((int)strlen(r->cells[i].workload) > ww)
			ww = (int)strlen(r->cells[i].workload) > 30 ? 30 : (int)strlen(r->cells[i].workload);
	}
	int instructions = r->ncells && alloclab_metric_deterministic(r->cells[0].metric);
	struct alloclab_param_variation *pv = alloclab_param_variation_of(r);
	print_common_params(r, pv, ww, out);
	fprintf(out, "%s%-*s  %-*s %7s %10s %7s %9s %10s %10s  %s\n", r->ncells ? "\n" : "", pw, "plugin", ww, "workload",
		"threads", instructions ? "instr/op" : "ns/op", "±95%", instructions ? "-" : "Mops/s", "peak RSS",
		"faults/kop", "parameters / status");
	for (unsigned i = 0; i < r->ncells; i++)
		print_row(r, pv, &r->cells[i], pw, ww, out);
	alloclab_param_variation_free(pv);
	print_plugin_notes(r, out);
	print_machine_note(r, out);
	print_auto(r, out);
	print_harness_share(r, out);
	print_alignment_effect(r, out);
	print_cache(r, out);
	print_placement(r, out);
	alloclab_memory_report(r, out);
	alloclab_latency_report(r, out);
	/* Workloads with a report of their own (unicode: the Unicode/Bytes lines). */
	for (unsigned i = 0; i < r->ncells && workload_reports; i++) {
		const struct alloclab_workload *w = alloclab_workload_find(r->cells[i].workload);
		if (w && w->print_cell && alloclab_cell_measured(&r->cells[i]))
			print_workload_report(w, &r->cells[i], out);
	}
}
