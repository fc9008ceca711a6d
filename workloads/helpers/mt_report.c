/* The multithreaded workloads' reports. See mt_report.h. */
#include "mt_report.h"

#include "figures/cell_values.h"
#include "measure/placement.h"
#include "statistics/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double median_per_op(const struct alloclab_cell *c)
{
	size_t n;
	double *v = alloclab_cell_values(c, &n);
	struct alloclab_summary sum = {.median = NAN};

	if (n)
		alloclab_summarize(v, n, &sum);
	free(v);
	return sum.median;
}

void mt_print_rate(const struct alloclab_cell *c, FILE *out, const char *unit)
{
	double m = median_per_op(c);
	char label[600];

	if (!isfinite(m) || m <= 0 || alloclab_metric_deterministic(c->metric))
		return;
	alloclab_cell_label(c, label, sizeof label);
	fprintf(out, "%s %s t=%u: %.0f %s per second (all threads), peak RSS %.1f MiB\n", c->workload, label,
		c->threads, alloclab_mops(m, c->threads) * 1e6, unit, (double)alloclab_cell_peak_rss_kib(c) / 1024.0);
}

/* The distinct labels of cells, in order. */
static size_t labels_of(const struct alloclab_cell *const *cells, size_t n, char **labels)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		char label[600];
		size_t j;
		alloclab_cell_label(cells[i], label, sizeof label);
		for (j = 0; j < k && strcmp(labels[j], label) != 0; j++)
			;
		if (j == k)
			labels[k++] = strdup(label);
	}
	return k;
}

static int is_label(const struct alloclab_cell *c, const char *label)
{
	char mine[600];
	alloclab_cell_label(c, mine, sizeof mine);
	return strcmp(mine, label) == 0;
}

/* A figure NAME-SUFFIX with a y axis from 0, and the plugin labels of the
 * cells (freed by the caller). */
static struct alloclab_figure *start_figure(const struct alloclab_cell *const *cells, size_t n,
					    struct alloclab_figure_list *out, const char *workload,
					    const char *suffix, const char *what, const char *xlabel,
					    const char *ylabel, enum alloclab_figure_kind kind, char ***labels,
					    size_t *nl)
{
	char name[200], title[300];
	struct alloclab_figure *f;

	*labels = calloc(n + 1, sizeof **labels);
	*nl = labels_of(cells, n, *labels);
	snprintf(name, sizeof name, "%s-%s", workload, suffix);
	snprintf(title, sizeof title, "%s: %s", workload, what);
	f = alloclab_figure_add(out, name, title, xlabel, ylabel, kind);
	f->ymin_zero = 1;
	return f;
}

void mt_figure_memory(const struct alloclab_cell *const *cells, size_t n, struct alloclab_figure_list *out,
		      const char *workload)
{
	char **labels;
	size_t nl;
	struct alloclab_figure *f = start_figure(cells, n, out, workload, "memory",
						 "peak resident memory of a worker, by threads", "threads",
						 "peak RSS (MiB)", ALLOCLAB_FIGURE_LINES, &labels, &nl);

	for (size_t l = 0; l < nl; l++) {
		struct alloclab_series *s = alloclab_figure_series(f, labels[l], n);
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (is_label(cells[i], labels[l])) {
				s->x[k] = cells[i]->threads;
				s->y[k++] = (double)alloclab_cell_peak_rss_kib(cells[i]) / 1024.0;
			}
		/* Cells come in run order; a line is drawn through points in x order. */
		for (size_t a = 1; a < k; a++)
			for (size_t b = a; b > 0 && s->x[b] < s->x[b - 1]; b--) {
				double tx = s->x[b], ty = s->y[b];
				s->x[b] = s->x[b - 1], s->y[b] = s->y[b - 1];
				s->x[b - 1] = tx, s->y[b - 1] = ty;
			}
		free(labels[l]);
	}
	free(labels);
}

void mt_figure_shared_lines(const struct alloclab_cell *const *cells, size_t n, struct alloclab_figure_list *out,
			    const char *workload)
{
	char **labels;
	size_t nl;
	struct alloclab_figure *f = start_figure(cells, n, out, workload, "shared-lines",
						 "cache lines holding live blocks of two or more threads", "plugin",
						 "lines shared (%)", ALLOCLAB_FIGURE_BARS, &labels, &nl);

	for (size_t l = 0; l < nl; l++)
		alloclab_figure_category(f, labels[l]);
	/* One series per thread count of two or more. */
	for (unsigned t = 2; t <= ALLOCLAB_RESULTS_MAX_THREADS; t++) {
		struct alloclab_series *s = NULL;
		for (size_t i = 0; i < n; i++) {
			struct alloclab_placement_sum sum;
			if (cells[i]->threads != t)
				continue;
			memset(&sum, 0, sizeof sum);
			for (struct alloclab_report_iter it = alloclab_reports(cells[i], ALLOCLAB_REPORTS_PER_PROCESS);
			     alloclab_reports_next(&it);)
				if (json_object_get(it.report, "placement"))
					alloclab_placement_add(&sum, json_object_get(it.report, "placement"));
			if (!sum.threads_counted || sum.lines_total == 0)
				continue;
			if (s == NULL) {
				char st[64];
				snprintf(st, sizeof st, "%u threads", t);
				s = alloclab_figure_series(f, st, nl);
			}
			for (size_t l = 0; l < nl; l++)
				if (is_label(cells[i], labels[l]))
					s->y[l] = 100.0 * (double)sum.lines_shared / (double)sum.lines_total;
		}
	}
	for (size_t l = 0; l < nl; l++)
		free(labels[l]);
	free(labels);
}
