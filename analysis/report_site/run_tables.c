/* A run page's tables. See run_tables.h. */
#include "run_tables.h"
#include "statistics/faults.h"
#include "html.h"

#include "cells.h"
#include "pair_report.h"
#include "statistics/summary.h"
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A table of more rows than this scrolls in a frame of its own, its
 * header kept, so that the page around it stays in reach. */
#define TALL 30

/* What a verdict is in one word, for its colour and its filter. */
static const char *verdict_kind(const struct alloclab_comparison_entry *e)
{
	switch (e->verdict) {
	case ALLOCLAB_VERDICT_LESS: return "less";
	case ALLOCLAB_VERDICT_MORE: return "more";
	case ALLOCLAB_VERDICT_CANNOT_TELL: return "cannot";
	default: return "unresolved";
	}
}

static const char *verdict_filter(const struct alloclab_comparison_entry *e, int counts)
{
	switch (e->verdict) {
	case ALLOCLAB_VERDICT_LESS: return counts ? "fewer" : "faster";
	case ALLOCLAB_VERDICT_MORE: return counts ? "more" : "slower";
	case ALLOCLAB_VERDICT_CANNOT_TELL: return "cannot tell";
	default: return "not resolved";
	}
}

/* An entry with no figures against the base: what it is, in words (a
 * measured one whose base was not is "not compared"). */
static void entry_unmeasured(FILE *f, const struct alloclab_comparison_entry *e, const char *base)
{
	const char *what = e->status == ALLOCLAB_ENTRY_ERROR		? "error"
			   : e->status == ALLOCLAB_ENTRY_NOT_APPLICABLE ? "not applicable"
			   : e->status == ALLOCLAB_ENTRY_MEASURED	? "not compared"
									: "not measured";
	char why[600];
	if (e->status == ALLOCLAB_ENTRY_MEASURED)
		snprintf(why, sizeof why, "(%.500s has no figure on this row)", base);
	else
		snprintf(why, sizeof why, "%.590s",
			 e->message ? e->message : "(interrupted)");
	fputs("<td class=\"num\" data-v=\"\">-</td><td class=\"num\" data-v=\"\">-</td><td class=\"num\" data-v=\"\">-</td>"
	      "<td data-f=\"",
	      f);
	alloclab_html_text(f, what);
	fputs("\"><span class=\"verdict failed\">", f);
	alloclab_html_text(f, what);
	fputs("</span> ", f);
	alloclab_html_text(f, why);
	fputs("</td><td></td>", f);
}

static void comparison_row(FILE *f, const struct alloclab_results *r, const struct alloclab_comparison *cmp, size_t i,
			   size_t c)
{
	const struct alloclab_comparison_row *row = &cmp->rows[i];
	const struct alloclab_comparison_entry *e = &row->entries[c];
	char text[160];
	fputs("<tr>", f);
	alloclab_html_filter_cell(f, row->cell->workload);
	alloclab_html_cell(f, row->name);
	fprintf(f, "<td class=\"num\" data-v=\"%u\">%u</td><td class=\"label\">", row->cell->threads,
		row->cell->threads);
	alloclab_html_text(f, cmp->columns[c]);
	fputs("</td>", f);
	if (e->status != ALLOCLAB_ENTRY_MEASURED || !e->compared) {
		entry_unmeasured(f, e, cmp->columns[0]);
		fputs("</tr>\n", f);
		return;
	}
	snprintf(text, sizeof text, "%.3f", e->ratio);
	alloclab_html_number_cell(f, e->ratio, text);
	if (e->has_interval) {
		snprintf(text, sizeof text, e->lo == e->hi ? "exact" : "%.3f .. %.3f", e->lo, e->hi);
		alloclab_html_number_cell(f, e->lo, text);
	} else {
		alloclab_html_number_cell(f, NAN, "-");
	}
	unsigned n = e->tested == ALLOCLAB_TESTED_PAIRED ? e->npairs : (unsigned)e->nprocesses;
	snprintf(text, sizeof text, "%u", n);
	alloclab_html_number_cell(f, n, text);
	alloclab_verdict_text(e, cmp->deterministic, text, sizeof text);
	fputs("<td data-f=\"", f);
	alloclab_html_text(f, verdict_filter(e, cmp->deterministic));
	fprintf(f, "\"><span class=\"verdict %s\">", verdict_kind(e));
	alloclab_html_text(f, text);
	fputs("</span></td><td>", f);
	const char *how = alloclab_pair_design_note(r, e->cell);
	alloclab_html_text(f, how ? how : "");
	/* What pyperf's check would say of the samples: beside, quieter. */
	for (size_t w = 0; w < e->nwarnings; w++) {
		fputs(w ? "; " : how ? "<br><span class=\"warning\">" : "<span class=\"warning\">", f);
		alloclab_html_text(f, e->warnings[w]);
	}
	fputs(e->nwarnings ? "</span></td></tr>\n" : "</td></tr>\n", f);
}

void alloclab_run_comparison_table(FILE *f, const struct alloclab_results *r, const struct alloclab_comparison *cmp,
				   int paired)
{
	fputs("<p class=\"lead\">", f);
	if (paired) {
		alloclab_html_printf(f, "Each plugin's time over %s's, measured side by side in the same processes",
				     cmp->columns[0]);
		if (r->facts.slice_ops)
			alloclab_html_printf(f, " in slices of %llu operations", (unsigned long long)r->facts.slice_ops);
		else
			fputs(", value by value", f);
		fputs(": the geometric mean of the processes' ratios and its 95% interval. A row whose interval holds 1 "
		      "says <em>not resolved</em>.",
		      f);
	} else {
		alloclab_html_printf(f, "Each plugin's %s over %s's, as alloclab compare makes it: the ratio of their "
					"means, its 95%% interval, and the test's verdict (%s, at alpha %g). A difference "
					"inside the noise says not resolved.",
				     cmp->deterministic ? "instructions per operation" : "time per operation",
				     cmp->columns[0], alloclab_comparison_test_text(cmp), cmp->alpha);
	}
	fprintf(f, "</p>\n<div class=\"table-wrap%s\">", cmp->nrows * (cmp->ncols - 1) > TALL ? " tall" : "");
	fputs("<table class=\"sortable filterable comparison\"><thead><tr>"
	      "<th data-filter>workload</th><th>row</th><th data-filter>threads</th><th data-filter>plugin</th>"
	      "<th>ratio</th><th>95% interval</th><th>n</th><th data-filter>verdict</th><th>how</th></tr></thead><tbody>\n",
	      f);
	for (size_t c = 1; c < cmp->ncols; c++)
		for (size_t i = 0; i < cmp->nrows; i++) {
			const struct alloclab_comparison_entry *e = &cmp->rows[i].entries[c];
			if (e->status == ALLOCLAB_ENTRY_ABSENT || (paired && (e->cell == NULL || e->cell->pair_design == NULL)))
				continue;
			comparison_row(f, r, cmp, i, c);
		}
	fputs("</tbody></table></div>\n", f);
}

/* A cell's status in words, and the word it is filtered by. */
static const char *cell_status(const struct alloclab_cell *c, size_t nvalues, const char **message)
{
	*message = c->message;
	switch (c->status) {
	case ALLOCLAB_CELL_ERROR: return "error";
	case ALLOCLAB_CELL_NOT_APPLICABLE: return "not applicable";
	case ALLOCLAB_CELL_PENDING: *message = nvalues ? "fewer processes than planned (interrupted)" : "(interrupted)";
		return nvalues ? "partial" : "not measured";
	default: return "ok";
	}
}

/* The figures of one measured cell: level, ±95%, throughput, peak RSS,
 * page faults per 1,000 operations. */
static void cell_figures(FILE *f, const struct alloclab_cell *c, const struct alloclab_summary *s)
{
	char text[64];
	int counts = alloclab_metric_deterministic(c->metric);
	if (counts)
		snprintf(text, sizeof text, "%.2f", s->median);
	else
		alloclab_format_ns(s->median, text, sizeof text);
	alloclab_html_number_cell(f, s->median, text);
	size_t n;
	double *m = alloclab_cell_process_means(c, &n);
	double half = n >= 2 ? alloclab_ci_half_width_percent(m, n) : NAN;
	free(m);
	snprintf(text, sizeof text, "%.1f%%", half);
	alloclab_html_number_cell(f, half, text);
	double mops = counts ? NAN : alloclab_mops(s->median, c->threads);
	snprintf(text, sizeof text, mops < 0.1 ? "%.3g/s" : "%.1f", mops < 0.1 ? mops * 1e6 : mops);
	alloclab_html_number_cell(f, mops, text);
	long rss = alloclab_cell_peak_rss_kib(c);
	alloclab_format_kib((double)rss, text, sizeof text);
	alloclab_html_number_cell(f, rss > 0 ? (double)rss : NAN, text);
	double faults = alloclab_cell_faults_per_kop(c, NULL);
	snprintf(text, sizeof text, faults >= 0 ? "%.3f" : "-", faults);
	alloclab_html_number_cell(f, faults >= 0 ? faults : NAN, text);
}

static void cell_row(FILE *f, const struct alloclab_results *r, const struct alloclab_param_variation *pv, size_t i,
		     const char *data, int with_params)
{
	const struct alloclab_cell *c = &r->cells[i];
	char label[512], params[2048], raw[300];
	size_t n;
	double *values = alloclab_cell_values(c, &n);
	struct alloclab_summary s;
	const char *message, *status = cell_status(c, n, &message);
	alloclab_summarize(values, n, &s);
	free(values);
	alloclab_cell_label(c, label, sizeof label);
	alloclab_cell_params_text(pv, c, 1, params, sizeof params);
	fputs("<tr><td class=\"label\" data-f=\"", f);
	alloclab_html_text(f, label);
	fputs("\">", f);
	alloclab_html_text(f, label);
	fputs("</td>", f);
	if (with_params)
		alloclab_html_filter_cell(f, params);
	fprintf(f, "<td class=\"num\" data-v=\"%u\">%u</td>", c->threads, c->threads);
	if (n && alloclab_cell_measured(c))
		cell_figures(f, c, &s);
	else
		fputs("<td class=\"num\" data-v=\"\">-</td><td class=\"num\" data-v=\"\">-</td><td class=\"num\" data-v=\"\">-</td>"
		      "<td class=\"num\" data-v=\"\">-</td><td class=\"num\" data-v=\"\">-</td>",
		      f);
	fputs("<td data-f=\"", f);
	alloclab_html_text(f, status);
	fprintf(f, "\"><span class=\"verdict %s\">", strcmp(status, "ok") == 0 ? "less" : strcmp(status, "partial") == 0 ? "cannot" : "failed");
	alloclab_html_text(f, status);
	fputs("</span>", f);
	if (message) {
		fputs(" ", f);
		alloclab_html_text(f, message);
	}
	const json_t *check = r->plugins[c->plugin_index].check;
	if (json_array_size(check))
		alloclab_html_printf(f, " (its plugin fails %zu alloclab check case%s)", json_array_size(check),
				     json_array_size(check) == 1 ? "" : "s");
	fputs("</td><td class=\"raw\">", f);
	snprintf(raw, sizeof raw, "%s/cell-%zu.json", data, i);
	alloclab_html_link(f, raw, "values");
	fputs("</td></tr>\n", f);
}

void alloclab_run_cells_table(FILE *f, const struct alloclab_results *r, const struct alloclab_param_variation *pv,
			      const size_t *cells, size_t n, const char *data)
{
	int counts = 0, with_params = 0;
	size_t rows = n;
	for (size_t k = 0; k < n; k++) {
		char params[2048];
		counts = alloclab_metric_deterministic(r->cells[cells[k]].metric);
		alloclab_cell_params_text(pv, &r->cells[cells[k]], 1, params, sizeof params);
		with_params |= params[0] != '\0';
	}
	fprintf(f, "<div class=\"table-wrap%s\"><table class=\"sortable filterable cells\"><thead><tr>"
		   "<th data-filter>plugin</th>%s<th data-filter>threads</th><th>%s</th><th>±95%%</th><th>%s</th>"
		   "<th>peak RSS</th><th title=\"page faults per 1,000 operations in the timed region\">faults/kop</th>"
		   "<th data-filter>status</th><th>raw</th></tr></thead><tbody>\n",
		rows > TALL ? " tall" : "", with_params ? "<th data-filter>parameters</th>" : "", counts ? "instr/op" : "time/op",
		counts ? "-" : "Mops/s");
	for (size_t k = 0; k < n; k++)
		cell_row(f, r, pv, cells[k], data, with_params);
	fputs("</tbody></table></div>\n", f);
}
