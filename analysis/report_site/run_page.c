/* A run's page. See run_page.h. */
#define _GNU_SOURCE 1
#include "run_page.h"
#include "html.h"
#include "page_figures.h"
#include "run_facts.h"
#include "run_tables.h"

#include "cells.h"
#include "comparison_json.h"
#include "latency_report.h"
#include "memory_report.h"
#include "plot.h"
#include "registry.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* Where each part's figures are in the page's list. */
struct part {
	const char *workload; /* NULL: memory or latency */
	size_t from, to;
	const size_t *cells; /* the workload's, as places in r->cells */
	size_t ncells;
};

struct page {
	const struct alloclab_results *r;
	const struct alloclab_run_page *p;
	struct alloclab_page_figures figures;
	struct part *workloads;
	size_t nworkloads;
	struct part memory, latency;
	struct alloclab_text_groups by_workload;
	struct alloclab_param_variation *pv;
	struct alloclab_comparison *cmp;
	int paired;
	char data[160]; /* data/STEM */
};

/* The run's workloads in order, each with its figures; then memory's and
 * latency's. */
static void collect_figures(struct page *pg)
{
	const struct alloclab_results *r = pg->r;
	struct alloclab_figure_list *list = &pg->figures.list;
	const struct alloclab_text_groups *g = &pg->by_workload;
	pg->workloads = calloc(g->n + 1, sizeof *pg->workloads);
	for (size_t k = 0; pg->workloads && k < g->n; k++) {
		struct part *w = &pg->workloads[pg->nworkloads++];
		w->cells = g->member + g->start[k];
		w->ncells = g->start[k + 1] - g->start[k];
		w->workload = r->cells[w->cells[0]].workload;
		w->from = list->n;
		alloclab_plot_workload_figures(r, w->cells, w->ncells, pg->p->baseline, list);
		w->to = list->n;
	}
	pg->memory.from = list->n;
	alloclab_memory_figures(r, list);
	pg->memory.to = pg->latency.from = list->n;
	alloclab_latency_figures(r, list);
	pg->latency.to = list->n;
}

/* The comparison the page leads with: the paired run's own, or each
 * plugin against the baseline as compare --plugins makes it. */
static void make_comparison(struct page *pg)
{
	char err[512];
	const struct alloclab_results *r = pg->r;
	if (r->facts.npair) {
		pg->cmp = alloclab_compare_paired_run(r, alloclab_row_names, err, sizeof err);
		pg->paired = pg->cmp != NULL;
		return;
	}
	char (*labels)[512] = calloc(r->ncells + 1, sizeof *labels);
	struct alloclab_column *cols = calloc(r->ncells + 1, sizeof *cols);
	struct alloclab_text_index *seen = alloclab_text_index_new();
	size_t n = 0;
	for (unsigned i = 0; labels && cols && seen && i < r->ncells; i++) {
		char label[512];
		alloclab_cell_label(&r->cells[i], label, sizeof label);
		if (alloclab_text_index_put(seen, label, (long)n) != (long)n)
			continue;
		snprintf(labels[n], sizeof labels[n], "%s", label);
		/* The baseline leads. */
		if (pg->p->baseline && strcmp(label, pg->p->baseline) == 0 && n > 0) {
			memmove(labels[1], labels[0], n * sizeof *labels);
			snprintf(labels[0], sizeof labels[0], "%s", label);
		}
		n++;
	}
	for (size_t k = 0; cols && k < n; k++)
		cols[k] = (struct alloclab_column){labels[k], r, labels[k]};
	struct alloclab_compare_opts o = {ALLOCLAB_TEST_RANK, 0, {0, -1, NULL, ALLOCLAB_MEMORY_NONE}, alloclab_row_names};
	if (n >= 2)
		pg->cmp = alloclab_compare(cols, n, &o, err, sizeof err);
	free(cols);
	free(labels);
	alloclab_text_index_free(seen);
}

/* The raw values: the whole document, each cell's part, the comparison. */
static int write_data(struct alloclab_site *s, const struct page *pg, char *err, size_t err_len)
{
	char name[256];
	json_t *doc = alloclab_results_to_json(pg->r);
	snprintf(name, sizeof name, "%s/run.json", pg->data);
	int rc = alloclab_site_json(s, name, doc, err, err_len);
	json_decref(doc);
	for (unsigned i = 0; rc == 0 && i < pg->r->ncells; i++) {
		json_t *cell = alloclab_cell_to_json(&pg->r->cells[i]);
		snprintf(name, sizeof name, "%s/cell-%u.json", pg->data, i);
		rc = alloclab_site_json(s, name, cell, err, err_len);
		json_decref(cell);
	}
	if (rc == 0 && pg->cmp) {
		json_t *cmp = alloclab_comparison_to_json(pg->cmp);
		snprintf(name, sizeof name, "%s/comparison.json", pg->data);
		rc = alloclab_site_json(s, name, cmp, err, err_len);
		json_decref(cmp);
	}
	return rc;
}

/* Text as alloclab prints it on a terminal, in a block of its own. */
static void text_block(FILE *f, const char *summary, const char *text, int open)
{
	if (text == NULL || text[0] == '\0' || (text[0] == '\n' && text[1] == '\0'))
		return;
	fputs(open ? "<details open><summary>" : "<details><summary>", f);
	alloclab_html_text(f, summary);
	fputs("</summary><pre>", f);
	alloclab_html_text(f, text[0] == '\n' ? text + 1 : text);
	fputs("</pre></details>\n", f);
}

/* What a workload's own hook prints of its cells. */
static char *workload_text(const struct alloclab_results *r, const struct part *part)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	const struct alloclab_workload *w = alloclab_workload_find(part->workload);
	for (size_t k = 0; m && w && w->print_cell && k < part->ncells; k++)
		if (alloclab_cell_measured(&r->cells[part->cells[k]]))
			w->print_cell(&r->cells[part->cells[k]], m);
	if (m)
		fclose(m);
	return text;
}

typedef void (*report_printer)(const struct alloclab_results *r, FILE *out);

static char *printed(const struct alloclab_results *r, report_printer print)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (m) {
		print(r, m);
		fclose(m);
	}
	return text;
}

static void show_all(const struct alloclab_results *r, FILE *out)
{
	alloclab_report_print(r, out, 1);
}

static void workload_section(FILE *f, const struct alloclab_site *s, const struct page *pg, const struct part *w)
{
	char common[2048], anchor[64];
	const struct alloclab_cell *first = &pg->r->cells[w->cells[0]];
	snprintf(anchor, sizeof anchor, "workload-%zu", (size_t)(w - pg->workloads));
	fprintf(f, "<section id=\"%s\"><h2>", anchor);
	alloclab_html_printf(f, "Workload %s", w->workload);
	fputs("</h2>\n<p class=\"lead\">", f);
	if (first->unit_op)
		alloclab_html_printf(f, "One operation: %s. ", first->unit_op);
	alloclab_cell_params_text(pg->pv, first, 0, common, sizeof common);
	if (common[0])
		alloclab_html_printf(f, "The same in every row: %s. ", common);
	fputs("The level is the median of every value; ±95% the half-width of the 95% interval of the level, over the "
	      "cell's processes.</p>\n",
	      f);
	alloclab_page_figures_write(f, s, &pg->figures, w->from, w->to);
	alloclab_run_cells_table(f, pg->r, pg->pv, w->cells, w->ncells, pg->data);
	char *own = workload_text(pg->r, w);
	text_block(f, "What the workload reports of its cells", own, 0);
	free(own);
	fputs("</section>\n", f);
}

/* Memory or latency: the text that says it and its pictures. */
static void part_section(FILE *f, const struct alloclab_site *s, const struct page *pg, const struct part *part,
			 const char *id, const char *title, report_printer print)
{
	char *text = printed(pg->r, print);
	if ((text == NULL || text[0] == '\0') && part->from == part->to) {
		free(text);
		return;
	}
	fprintf(f, "<section id=\"%s\"><h2>", id);
	alloclab_html_text(f, title);
	fputs("</h2>\n", f);
	text_block(f, "The figures, as alloclab show prints them", text, 1);
	alloclab_page_figures_write(f, s, &pg->figures, part->from, part->to);
	fputs("</section>\n", f);
	free(text);
}

static void contents(FILE *f, const struct page *pg)
{
	fputs("<nav class=\"toc\">", f);
	if (pg->cmp)
		alloclab_html_link(f, "#comparison", "comparison");
	for (size_t i = 0; i < pg->nworkloads; i++) {
		char anchor[64];
		snprintf(anchor, sizeof anchor, "#workload-%zu", i);
		alloclab_html_link(f, anchor, pg->workloads[i].workload);
	}
	alloclab_html_link(f, "#plugins", "plugins");
	alloclab_html_link(f, "#raw", "raw values");
	fputs("</nav>\n", f);
}

static void raw_section(FILE *f, const struct page *pg)
{
	char name[256];
	fputs("<section id=\"raw\"><h2>Raw values</h2><p>", f);
	snprintf(name, sizeof name, "%s/run.json", pg->data);
	alloclab_html_link(f, name, "The run's whole results file");
	fputs(" (alloclab show, compare and plot read it); each cell's own in its row's <em>values</em> link", f);
	if (pg->cmp) {
		fputs("; ", f);
		snprintf(name, sizeof name, "%s/comparison.json", pg->data);
		alloclab_html_link(f, name, "the comparison as JSON");
		fputs(" (as alloclab compare --format json writes it)", f);
	}
	fputs(".</p>\n", f);
	char *text = printed(pg->r, show_all);
	text_block(f, "The run as alloclab show prints it", text, 0);
	free(text);
	fputs("</section>\n", f);
}

static int write_page(struct alloclab_site *s, struct page *pg, char *err, size_t err_len)
{
	char title[600];
	FILE *f = alloclab_site_open(s, pg->p->file, err, err_len);
	if (f == NULL)
		return -1;
	snprintf(title, sizeof title, "Run of %s on %s", pg->r->facts.date ? pg->r->facts.date : "an unknown date",
		 pg->r->facts.host ? pg->r->facts.host : "an unknown host");
	alloclab_html_begin(f, title, strcmp(pg->p->file, "index.html") == 0);
	if (pg->p->up) {
		fputs("<p class=\"pager\">", f);
		alloclab_html_link(f, pg->p->up, pg->p->up_text);
		fputs("</p>\n", f);
	}
	alloclab_run_facts_write(f, pg->r, pg->p->source);
	contents(f, pg);
	if (pg->cmp) {
		fputs("<section id=\"comparison\"><h2>Comparison</h2>\n", f);
		alloclab_run_comparison_table(f, pg->r, pg->cmp, pg->paired);
		fputs("</section>\n", f);
	}
	for (size_t i = 0; i < pg->nworkloads; i++)
		workload_section(f, s, pg, &pg->workloads[i]);
	part_section(f, s, pg, &pg->memory, "memory", "Memory", alloclab_memory_report);
	part_section(f, s, pg, &pg->latency, "latency", "Latency of each call", alloclab_latency_report);
	alloclab_run_plugins_write(f, pg->r);
	raw_section(f, pg);
	alloclab_html_end(f);
	return alloclab_site_close(f, pg->p->file, err, err_len);
}

int alloclab_run_page_write(struct alloclab_site *s, const struct alloclab_results *r, const struct alloclab_run_page *p,
			    char *err, size_t err_len)
{
	struct page pg = {.r = r, .p = p};
	snprintf(pg.data, sizeof pg.data, "data/%.100s", p->stem);
	alloclab_page_figures_init(&pg.figures, p->stem);
	pg.pv = alloclab_param_variation_of(r);
	if (alloclab_workload_groups(r, &pg.by_workload) != 0) {
		alloclab_param_variation_free(pg.pv);
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	collect_figures(&pg);
	make_comparison(&pg);
	int rc = alloclab_page_figures_draw(s, &pg.figures, err, err_len);
	if (rc == 0)
		rc = write_data(s, &pg, err, err_len);
	if (rc == 0)
		rc = write_page(s, &pg, err, err_len);
	alloclab_page_figures_free(&pg.figures);
	alloclab_comparison_free(pg.cmp);
	free(pg.workloads);
	alloclab_text_groups_free(&pg.by_workload);
	alloclab_param_variation_free(pg.pv);
	return rc;
}
