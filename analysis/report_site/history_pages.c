/* A history store's pages. See history_pages.h. */
#define _GNU_SOURCE 1
#include "history_pages.h"
#include "history_charts.h"
#include "history_index.h"
#include "html.h"
#include "run_page.h"

#include "ab_report.h"
#include "cells.h"
#include "history_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What a page shows of a store's text that may be of any length (a
 * commit's subject, a broken commit's reason): a commit's every row and
 * page repeated it whole. */
#define SHOWN_IN_TABLE 300
#define SHOWN_ON_PAGE 4096

/* What a table shows of a series' row (workload, parameters, threads). */
#define ROW_IN_TABLE 160

/* The newest commits the index lists (all are on commits.html). */
#define INDEX_COMMITS 30

struct history_site {
	struct alloclab_site *s;
	struct alloclab_store *store;
	const char *db;
	const struct alloclab_report_options *o;
	struct alloclab_history_view v;
	struct alloclab_history_index x; /* its points by commit */
	char *with_runs;   /* per commit: its runs have pages */
};

/* A cell of text from the store that may be long (a row, a subject): its
 * first `shown` bytes, with the whole (up to SHOWN_ON_PAGE) as its
 * tooltip where it is cut; the stylesheet lets it wrap anywhere, for a
 * name without spaces widened the latest verdicts past a 1280 px page. */
static void long_cell(FILE *f, const char *cls, const char *text, size_t shown)
{
	fprintf(f, "<td class=\"%s\"", cls);
	if (text && strlen(text) > shown) {
		fputs(" title=\"", f);
		alloclab_html_text_max(f, text, SHOWN_ON_PAGE);
		fputc('"', f);
	}
	fputc('>', f);
	alloclab_html_text_max(f, text, shown);
	fputs("</td>", f);
}

static void commit_file(const struct alloclab_commit *c, char *out, size_t len)
{
	snprintf(out, len, "commit-%u.html", c->ordinal);
}

static void commit_link(FILE *f, const struct alloclab_commit *c)
{
	char file[64], text[32];
	commit_file(c, file, sizeof file);
	snprintf(text, sizeof text, "%.12s", c->commit);
	fputs("<span class=\"mono\">", f);
	alloclab_html_link(f, file, text);
	fputs("</span>", f);
}

/* A run's page is made when its file is written (the site finds a file
 * by its name in a hash table: a list searched for every run of every
 * commit cost the square of the runs). */
static void run_file(int64_t id, char *out, size_t len)
{
	snprintf(out, len, "run-%" PRId64 ".html", id);
}

static int run_made(const struct history_site *h, int64_t id)
{
	char file[64];
	run_file(id, file, sizeof file);
	return alloclab_site_has(h->s, file);
}

/* A point's verdict as ab says it (and its class, and its filter word). */
static void point_verdict(const struct history_site *h, size_t si, const struct alloclab_history_point *p, char *out,
			  size_t len, const char **kind)
{
	const struct alloclab_history_series *s = &h->v.series[si];
	struct alloclab_ab_row row = {.metric = s->metric, .base = alloclab_history_index_level(&h->x, si, p->base),
				      .head = p->level, .ratio = p->ratio, .has_interval = p->has_interval, .lo = p->lo,
				      .hi = p->hi, .verdict = p->verdict};
	alloclab_ab_verdict_text(&row, out, len);
	*kind = p->change ? "change"
		: p->verdict == ALLOCLAB_VERDICT_LESS ? "less"
		: p->verdict == ALLOCLAB_VERDICT_MORE ? "more"
		: p->verdict == ALLOCLAB_VERDICT_CANNOT_TELL ? "cannot"
							      : "unresolved";
}

/* The step cells of a point: over which commit, ratio, interval, verdict. */
static void step_cells(FILE *f, const struct history_site *h, size_t si, const struct alloclab_history_point *p)
{
	char text[128];
	const char *kind;
	if (!p->has_step) {
		fputs("<td>-</td><td class=\"num\" data-v=\"\">-</td><td class=\"num\" data-v=\"\">-</td>"
		      "<td data-f=\"no step\">the first measured: no step</td>",
		      f);
		return;
	}
	fputs("<td>", f);
	commit_link(f, &h->v.commits[p->base]);
	fputs("</td>", f);
	/* Time decided in slices says how much from whole values, under the
	 * slices' ratio: the two differ by the slices' measured bias. */
	if (p->has_size)
		fprintf(f, "<td class=\"num\" data-v=\"%.17g\">%.4f<span class=\"aside\">how much: %.4f [%.4f .. %.4f], whole "
			   "values</span></td>",
			p->ratio, p->ratio, p->size_ratio, p->size_lo, p->size_hi);
	else {
		snprintf(text, sizeof text, "%.4f", p->ratio);
		alloclab_html_number_cell(f, p->ratio, text);
	}
	if (p->same_code)
		snprintf(text, sizeof text, "same code");
	else if (p->has_interval)
		snprintf(text, sizeof text, p->lo == p->hi ? "exact" : "%.4f .. %.4f", p->lo, p->hi);
	alloclab_html_number_cell(f, p->has_interval ? p->lo : NAN, p->has_interval ? text : "-");
	point_verdict(h, si, p, text, sizeof text, &kind);
	if (p->same_code)
		snprintf(text, sizeof text, "not measured");
	fputs("<td data-f=\"", f);
	alloclab_html_text(f, p->change		? "change point"
			      : p->same_code	? "same code"
			      : kind[0] == 'u' ? "not resolved"
						: "resolved");
	fprintf(f, "\"><span class=\"verdict %s\">", kind);
	alloclab_html_text(f, p->change ? "change point: " : "");
	alloclab_html_text(f, text);
	fputs("</span></td>", f);
}

static void reference_cell(FILE *f, const struct alloclab_history_point *p)
{
	char text[96];
	snprintf(text, sizeof text, "%.3f [%.3f .. %.3f]", p->ref_ratio, p->ref_lo, p->ref_hi);
	alloclab_html_number_cell(f, p->has_reference ? p->ref_ratio : NAN, p->has_reference ? text : "-");
}

static void level_cell(FILE *f, const struct alloclab_history_series *s, const struct alloclab_history_point *p)
{
	char text[64];
	alloclab_history_level_text(s->metric, p->level, text, sizeof text);
	alloclab_html_number_cell(f, p->level >= 0 ? p->level : NAN, text);
}

/* The newest point of every series with its step: the latest verdict. */
static void latest_table(FILE *f, const struct history_site *h)
{
	fputs("<h2 id=\"latest\">Latest verdicts</h2>\n<p class=\"lead\">Each series' newest commit over the one before it, "
	      "measured side by side (alloclab ab), with its 95% interval. Time's verdict, ratio and interval are the "
	      "slices' (whether it changed); how much, under the ratio, is from whole values. A commit whose plugin "
	      "loads the same code as the one before it is not measured (same code: its step is 1).</p>\n<div "
	      "class=\"table-wrap\"><table "
	      "class=\"sortable filterable latest\"><thead><tr><th data-filter>metric</th><th>row</th><th>commit</th>"
	      "<th>level</th><th>over</th><th>ratio</th><th>95% interval</th><th data-filter>verdict</th>"
	      "<th>against the reference</th><th>drift</th></tr></thead><tbody>\n",
	      f);
	for (size_t i = 0; i < h->v.nseries; i++) {
		const struct alloclab_history_series *s = &h->v.series[i];
		const struct alloclab_history_point *p = NULL;
		for (size_t k = 0; k < s->npoints; k++)
			if (s->points[k].level >= 0)
				p = &s->points[k];
		if (p == NULL)
			continue;
		fputs("<tr>", f);
		alloclab_html_filter_cell(f, alloclab_ab_metric_names[s->metric]);
		long_cell(f, "row", s->row, ROW_IN_TABLE);
		fputs("<td>", f);
		commit_link(f, &h->v.commits[p->commit]);
		fputs("</td>", f);
		level_cell(f, s, p);
		step_cells(f, h, i, p);
		reference_cell(f, p);
		/* The drift's words under its figures: one line of both made the
		 * table wider than the page. */
		if (s->has_drift)
			fprintf(f, "<td class=\"num\" data-v=\"%.17g\">%.4f [%.4f .. %.4f]<span class=\"aside\">%s</span></td>",
				s->drift, s->drift, s->drift_lo, s->drift_hi,
				s->drift_resolved ? "a resolved drift" : "no drift resolved");
		else
			alloclab_html_number_cell(f, NAN, "-");
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

static void changes_table(FILE *f, const struct history_site *h)
{
	size_t n = 0;
	fputs("<h2 id=\"changes\">Change points</h2>\n<p class=\"lead\">Time and memory: steps their interval resolves, "
	      "kept by Benjamini-Hochberg at 5% false discoveries over each series; instructions: any difference "
	      "beyond the counts' own variation.</p>\n",
	      f);
	for (size_t i = 0; i < h->v.nseries; i++)
		for (size_t k = 0; k < h->v.series[i].npoints; k++)
			n += h->v.series[i].points[k].change;
	if (n == 0) {
		fputs("<p>None: no series moved by more than its noise from one commit to the next.</p>\n", f);
		return;
	}
	fputs("<div class=\"table-wrap\"><table class=\"sortable filterable changes\"><thead><tr><th>#</th><th>commit</th>"
	      "<th data-filter>metric</th><th>row</th><th>ratio</th><th>size</th><th>subject</th></tr></thead><tbody>\n",
	      f);
	for (size_t i = 0; i < h->v.nseries; i++)
		for (size_t k = 0; k < h->v.series[i].npoints; k++) {
			const struct alloclab_history_series *s = &h->v.series[i];
			const struct alloclab_history_point *p = &s->points[k];
			const struct alloclab_commit *c = &h->v.commits[p->commit];
			char text[96];
			if (!p->change)
				continue;
			fprintf(f, "<tr><td class=\"num\" data-v=\"%u\">%u</td><td>", c->ordinal, c->ordinal);
			commit_link(f, c);
			fputs("</td>", f);
			alloclab_html_filter_cell(f, alloclab_ab_metric_names[s->metric]);
			long_cell(f, "row", s->row, ROW_IN_TABLE);
			snprintf(text, sizeof text, "%.4f", p->ratio);
			alloclab_html_number_cell(f, p->ratio, text);
			alloclab_history_change_text(s->metric, p, alloclab_history_index_level(&h->x, i, p->base), text,
						     sizeof text);
			fputs("<td><span class=\"verdict change\">", f);
			alloclab_html_text(f, text);
			fputs("</span></td>", f);
			long_cell(f, "subject", c->subject, SHOWN_IN_TABLE);
			fputs("</tr>\n", f);
		}
	fputs("</tbody></table></div>\n", f);
}

/* What changed at a commit, in words ("" nothing): its own points
 * only, found through the index. */
static void commit_changes(const struct history_site *h, size_t commit, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t a = h->x.first[commit]; a < h->x.first[commit + 1] && used < len; a++) {
		const struct alloclab_history_series *s = &h->v.series[h->x.at[a].series];
		const struct alloclab_history_point *p = &s->points[h->x.at[a].point];
		char what[96];
		if (!p->change)
			continue;
		alloclab_history_change_text(s->metric, p, alloclab_history_index_level(&h->x, h->x.at[a].series, p->base),
					     what, sizeof what);
		used += (size_t)snprintf(out + used, len - used, "%s%s %.200s: %s", used ? "; " : "",
					 alloclab_ab_metric_names[s->metric], s->row, what);
	}
}

static const char *state_name(enum alloclab_commit_state st)
{
	return st == ALLOCLAB_COMMIT_MEASURED ? "measured" : st == ALLOCLAB_COMMIT_BROKEN ? "broken" : "not measured";
}

/* The commits, newest first, from commits[first] down. */
static void commits_table(FILE *f, const struct history_site *h, size_t shown)
{
	fputs("<div class=\"table-wrap\"><table class=\"sortable filterable commits\"><thead><tr><th>#</th><th>commit</th>"
	      "<th>date</th><th>subject</th><th data-filter>state</th><th data-filter>change</th><th>what changed</th></tr></thead>"
	      "<tbody>\n",
	      f);
	for (size_t n = 0; n < shown && n < h->v.ncommits; n++) {
		size_t i = h->v.ncommits - 1 - n;
		const struct alloclab_commit *c = &h->v.commits[i];
		char changes[1200];
		commit_changes(h, i, changes, sizeof changes);
		fprintf(f, "<tr><td class=\"num\" data-v=\"%u\">%u</td><td>", c->ordinal, c->ordinal);
		commit_link(f, c);
		fputs("</td><td class=\"date\">", f);
		if (c->date)
			alloclab_html_text_max(f, c->date, 40);
		fputs("</td>", f);
		long_cell(f, "subject", c->subject, SHOWN_IN_TABLE);
		fprintf(f, "<td data-f=\"%s\">%s", state_name(c->state), state_name(c->state));
		if (c->state == ALLOCLAB_COMMIT_BROKEN) {
			fputs(": ", f);
			alloclab_html_text_max(f, c->why, SHOWN_IN_TABLE);
		}
		fprintf(f, "</td><td data-f=\"%s\">%s</td><td>", changes[0] ? "change point" : "none",
			changes[0] ? "<span class=\"verdict change\">change point</span>" : "");
		alloclab_html_text(f, changes);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

static void history_head(FILE *f, const struct history_site *h)
{
	size_t measured = 0, broken = 0;
	for (size_t i = 0; i < h->v.ncommits; i++) {
		measured += h->v.commits[i].state == ALLOCLAB_COMMIT_MEASURED;
		broken += h->v.commits[i].state == ALLOCLAB_COMMIT_BROKEN;
	}
	fputs("<h1>", f);
	alloclab_html_printf(f, "History of %s", h->v.repo);
	fputs("</h1>\n<p class=\"lead\">", f);
	alloclab_html_printf(f, "%zu commits, %zu measured, %zu broken; measured on %s. ", h->v.ncommits, measured, broken,
			     h->v.machine ? h->v.machine : "(nothing measured yet)");
	if (h->v.reference)
		alloclab_html_printf(f, "Reference: %s, each commit's time against it in the same processes. ",
				     h->v.reference);
	alloclab_html_printf(f, "From the store %s.", h->db);
	fputs("</p>\n", f);
}

static int index_page(struct history_site *h, char *err, size_t err_len)
{
	FILE *f = alloclab_site_open(h->s, "index.html", err, err_len);
	char title[700];
	if (f == NULL)
		return -1;
	snprintf(title, sizeof title, "History of %.600s", h->v.repo);
	alloclab_html_begin(f, title, 1);
	history_head(f, h);
	fputs("<nav class=\"toc\">", f);
	alloclab_html_link(f, "#latest", "latest verdicts");
	alloclab_html_link(f, "#changes", "change points");
	alloclab_html_link(f, "#series", "series");
	alloclab_html_link(f, "#commits", "commits");
	alloclab_html_link(f, "data/history.json", "the history as JSON");
	fputs("</nav>\n", f);
	latest_table(f, h);
	changes_table(f, h);
	fputs("<h2 id=\"series\">Series</h2>\n", f);
	if (h->v.nseries == 0)
		fputs("<p>No series yet: no commit was measured against the one before it.</p>\n", f);
	fputs("<div class=\"figures\">\n", f);
	for (size_t i = 0; i < h->v.nseries; i++)
		alloclab_history_chart_write(f, &h->x, i);
	fputs("</div>\n", f);
	fputs("<h2 id=\"commits\">Commits</h2>\n<p class=\"lead\">", f);
	if (h->v.ncommits > INDEX_COMMITS)
		alloclab_html_printf(f, "The newest %d of %zu; ", INDEX_COMMITS, h->v.ncommits);
	alloclab_html_link(f, "commits.html", "every commit");
	fputs(" on a page of its own.</p>\n", f);
	commits_table(f, h, INDEX_COMMITS);
	alloclab_html_end(f);
	return alloclab_site_close(f, "index.html", err, err_len);
}

static int commits_page(struct history_site *h, char *err, size_t err_len)
{
	FILE *f = alloclab_site_open(h->s, "commits.html", err, err_len);
	if (f == NULL)
		return -1;
	alloclab_html_begin(f, "Every commit", 0);
	history_head(f, h);
	fputs("<h2>Every commit, newest first</h2>\n", f);
	commits_table(f, h, h->v.ncommits);
	alloclab_html_end(f);
	return alloclab_site_close(f, "commits.html", err, err_len);
}

/* Its step on every series. */
static void commit_steps(FILE *f, const struct history_site *h, size_t commit)
{
	int any = 0;
	for (size_t a = h->x.first[commit]; a < h->x.first[commit + 1]; a++) {
		size_t i = h->x.at[a].series;
		const struct alloclab_history_series *s = &h->v.series[i];
		const struct alloclab_history_point *p = &s->points[h->x.at[a].point];
		if (!any++)
			fputs("<div class=\"table-wrap\"><table class=\"sortable steps\"><thead><tr><th>metric</th><th>row</th>"
			      "<th>level</th><th>over</th><th>ratio</th><th>95% interval</th><th>verdict</th>"
			      "<th>against the reference</th></tr></thead><tbody>\n",
			      f);
		fputs("<tr>", f);
		alloclab_html_cell(f, alloclab_ab_metric_names[s->metric]);
		long_cell(f, "row", s->row, ROW_IN_TABLE);
		level_cell(f, s, p);
		step_cells(f, h, i, p);
		reference_cell(f, p);
		fputs("</tr>\n", f);
	}
	if (any)
		fputs("</tbody></table></div>\n", f);
	else
		fputs("<p>No figure of this commit: it was not measured.</p>\n", f);
}

/* Links to its runs' pages, by kind. */
static void commit_runs(FILE *f, const struct history_site *h, const struct alloclab_commit *c)
{
	fputs("<h2>Its runs</h2>\n<ul>\n", f);
	int any = 0;
	for (int m = 0; m < ALLOCLAB_AB_NMETRICS; m++) {
		int64_t *ids = NULL;
		char **bases = NULL, err[256];
		size_t n = 0;
		if (alloclab_store_commit_runs(h->store, h->v.repo, c->commit, alloclab_ab_metric_names[m], &ids, &bases, &n, err, sizeof err) != 0)
			n = 0;
		for (size_t k = 0; k < n; k++) {
			char file[64], text[300];
			run_file(ids[k], file, sizeof file);
			snprintf(text, sizeof text, "%s, against %.12s (run %" PRId64 " of the store)", alloclab_ab_metric_names[m],
				 bases[k] ? bases[k] : "?", ids[k]);
			fputs("<li>", f);
			if (run_made(h, ids[k]))
				alloclab_html_link(f, file, text);
			else
				alloclab_html_printf(f, "%s: its page was not made (this report made pages of the runs of "
							"the newest %u measured commits and every change point; "
							"--run-pages 0 makes every one)",
						     text, h->o->run_pages);
			fputs("</li>\n", f);
			any = 1;
			free(bases[k]);
		}
		free(bases);
		free(ids);
	}
	if (!any)
		fputs("<li>none</li>\n", f);
	fputs("</ul>\n", f);
}

static int commit_page(struct history_site *h, size_t i, char *err, size_t err_len)
{
	const struct alloclab_commit *c = &h->v.commits[i];
	char file[64], title[200];
	commit_file(c, file, sizeof file);
	FILE *f = alloclab_site_open(h->s, file, err, err_len);
	if (f == NULL)
		return -1;
	snprintf(title, sizeof title, "Commit %.12s", c->commit);
	alloclab_html_begin(f, title, 0);
	fputs("<p class=\"pager\">", f);
	if (i > 0) {
		fputs("older: ", f);
		commit_link(f, &h->v.commits[i - 1]);
	}
	if (i + 1 < h->v.ncommits) {
		fputs(" newer: ", f);
		commit_link(f, &h->v.commits[i + 1]);
	}
	alloclab_html_link(f, "commits.html", "every commit");
	fputs("</p>\n<h1>", f);
	alloclab_html_text(f, title);
	fputs("</h1>\n<p class=\"lead\">", f);
	alloclab_html_text_max(f, c->subject, SHOWN_ON_PAGE);
	fputs("</p>\n<div class=\"facts\"><div class=\"card\"><dl><dt>commit</dt><dd class=\"mono\">", f);
	alloclab_html_text(f, c->commit);
	fprintf(f, "</dd><dt>place</dt><dd>%u of %zu (oldest 0)</dd><dt>state</dt><dd>%s</dd>", c->ordinal, h->v.ncommits,
		state_name(c->state));
	if (c->why) {
		fputs("<dt>why</dt><dd>", f);
		alloclab_html_text_max(f, c->why, SHOWN_ON_PAGE);
		fputs("</dd>", f);
	}
	if (c->sha256) {
		fputs("<dt>plugin file</dt><dd class=\"mono\">SHA-256 ", f);
		alloclab_html_text(f, c->sha256);
		fputs("</dd>", f);
	}
	fputs("</dl></div></div>\n<h2>Each series at this commit</h2>\n", f);
	commit_steps(f, h, i);
	commit_runs(f, h, c);
	alloclab_html_end(f);
	return alloclab_site_close(f, file, err, err_len);
}

/* A run's page: the run read back from the store and checked again. */
static int run_page(struct history_site *h, int64_t id, const char *up, const char *up_text, char *err, size_t err_len)
{
	char file[64], stem[64], source[ALLOCLAB_PATH_LEN];
	if (run_made(h, id))
		return 0;
	struct alloclab_results *r = alloclab_store_load_run(h->store, id, h->o->check, err, err_len);
	if (r == NULL)
		return -1;
	run_file(id, file, sizeof file);
	snprintf(stem, sizeof stem, "run-%" PRId64, id);
	snprintf(source, sizeof source, "run %" PRId64 " of the store %.3000s", id, h->db);
	struct alloclab_run_page p = {.file = file, .stem = stem, .source = source, .baseline = h->o->baseline,
				      .up = up, .up_text = up_text};
	int rc = alloclab_run_page_write(h->s, r, &p, err, err_len);
	alloclab_results_free(r);
	return rc;
}

/* Which commits' runs get pages: the newest run_pages measured ones
 * and every change point (all: run_pages 0). */
static void choose_run_commits(struct history_site *h)
{
	size_t newest = 0;
	h->with_runs = calloc(h->v.ncommits + 1, 1);
	for (size_t n = 0; h->with_runs && n < h->v.ncommits; n++) {
		size_t i = h->v.ncommits - 1 - n;
		if (h->v.commits[i].state == ALLOCLAB_COMMIT_MEASURED && (h->o->run_pages == 0 || newest < h->o->run_pages)) {
			h->with_runs[i] = 1;
			newest++;
		}
	}
	for (size_t s = 0; h->with_runs && s < h->v.nseries; s++)
		for (size_t k = 0; k < h->v.series[s].npoints; k++)
			if (h->v.series[s].points[k].change)
				h->with_runs[h->v.series[s].points[k].commit] = 1;
}

static int commit_run_pages(struct history_site *h, size_t i, char *err, size_t err_len)
{
	const struct alloclab_commit *c = &h->v.commits[i];
	char file[64], text[64];
	commit_file(c, file, sizeof file);
	snprintf(text, sizeof text, "commit %.12s", c->commit);
	for (int m = 0; m < ALLOCLAB_AB_NMETRICS; m++) {
		int64_t *ids = NULL;
		char **bases = NULL;
		size_t n = 0;
		int rc = alloclab_store_commit_runs(h->store, h->v.repo, c->commit, alloclab_ab_metric_names[m], &ids, &bases, &n, err, err_len);
		for (size_t k = 0; k < n && rc == 0; k++)
			rc = run_page(h, ids[k], file, text, err, err_len);
		alloclab_store_commit_runs_free(ids, bases, n);
		if (rc != 0)
			return -1;
	}
	return 0;
}

static int repository_site(struct history_site *h, char *err, size_t err_len)
{
	int rc = 0;
	if (alloclab_history_index_build(&h->x, &h->v) != 0) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	choose_run_commits(h);
	for (size_t i = 0; rc == 0 && h->with_runs && i < h->v.ncommits; i++)
		if (h->with_runs[i])
			rc = commit_run_pages(h, i, err, err_len);
	for (size_t i = 0; rc == 0 && i < h->v.ncommits; i++)
		rc = commit_page(h, i, err, err_len);
	if (rc == 0)
		rc = index_page(h, err, err_len);
	if (rc == 0)
		rc = commits_page(h, err, err_len);
	if (rc == 0) {
		json_t *doc = alloclab_history_json(&h->v);
		rc = alloclab_site_json(h->s, "data/history.json", doc, err, err_len);
		json_decref(doc);
	}
	alloclab_history_index_free(&h->x);
	free(h->with_runs);
	return rc;
}

/* A store of runs alone: an index of them, newest first, and their pages. */
static int runs_site(struct history_site *h, char *err, size_t err_len)
{
	int64_t *ids = NULL;
	size_t n = 0;
	if (alloclab_store_runs(h->store, &ids, &n, err, err_len) != 0)
		return -1;
	int rc = 0;
	size_t pages = h->o->run_pages == 0 || h->o->run_pages > n ? n : h->o->run_pages;
	for (size_t k = 0; rc == 0 && k < pages; k++)
		rc = run_page(h, ids[n - 1 - k], "index.html", "every run of the store", err, err_len);
	FILE *f = rc == 0 ? alloclab_site_open(h->s, "index.html", err, err_len) : NULL;
	if (f == NULL) {
		free(ids);
		return -1;
	}
	alloclab_html_begin(f, "Runs of a store", 1);
	fputs("<h1>", f);
	alloclab_html_printf(f, "Runs of the store %s", h->db);
	fputs("</h1>\n<p class=\"lead\">", f);
	alloclab_html_printf(f, "%zu runs kept without a repository's history, newest first; pages of the newest %zu.", n,
			     pages);
	fputs("</p>\n<div class=\"table-wrap\"><table class=\"sortable filterable runs\"><thead><tr><th>run</th>"
	      "<th>date</th><th data-filter>machine</th><th>alloclab</th><th>cells</th><th>plugins</th></tr></thead><tbody>\n",
	      f);
	for (size_t k = 0; rc == 0 && k < n; k++) {
		int64_t id = ids[n - 1 - k];
		char machine[1200], file[64], text[32];
		struct alloclab_results *r = alloclab_store_load_run(h->store, id, h->o->check, err, err_len);
		if (r == NULL || alloclab_store_run_machine(h->store, id, machine, sizeof machine, err, err_len) != 0) {
			alloclab_results_free(r);
			rc = -1;
			break;
		}
		run_file(id, file, sizeof file);
		snprintf(text, sizeof text, "run %" PRId64, id);
		fprintf(f, "<tr><td data-v=\"%" PRId64 "\">", id);
		if (run_made(h, id))
			alloclab_html_link(f, file, text);
		else
			alloclab_html_text(f, text);
		fputs("</td><td>", f);
		alloclab_html_text(f, r->facts.date);
		fputs("</td><td>", f);
		alloclab_html_text(f, machine);
		fputs("</td><td>", f);
		alloclab_html_text(f, r->facts.alloclab_version);
		fprintf(f, "</td><td class=\"num\" data-v=\"%u\">%u</td><td>", r->ncells, r->ncells);
		for (unsigned p = 0; p < r->nplugins; p++) {
			fputs(p ? ", " : "", f);
			alloclab_html_text(f, r->plugins[p].label);
		}
		fputs("</td></tr>\n", f);
		alloclab_results_free(r);
	}
	fputs("</tbody></table></div>\n", f);
	alloclab_html_end(f);
	free(ids);
	int closed = alloclab_site_close(f, "index.html", err, err_len);
	return rc == 0 ? closed : -1;
}

int alloclab_history_site(struct alloclab_site *s, struct alloclab_store *store, const char *db,
			  const struct alloclab_report_options *o, char *err, size_t err_len)
{
	struct history_site h = {.s = s, .store = store, .db = db, .o = o};
	char **repos = NULL;
	size_t nrepos = 0;
	if (alloclab_store_repos(store, &repos, &nrepos, err, err_len) != 0)
		return -1;
	for (size_t i = 0; i < nrepos; i++)
		free(repos[i]);
	free(repos);
	int rc;
	if (o->repo == NULL && nrepos == 0) {
		rc = runs_site(&h, err, err_len);
	} else {
		h.v.name_rows = alloclab_row_names;
		h.v.check = o->check;
		rc = alloclab_history_view_load(store, o->repo, &h.v, err, err_len);
		if (rc == 0)
			rc = repository_site(&h, err, err_len);
		alloclab_history_view_clear(&h.v);
	}
	return rc;
}
