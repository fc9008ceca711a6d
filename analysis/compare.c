/* Comparing runs and plugins. See compare.h. */
#include "compare.h"
#include "statistics/pairs.h"

#include "cells.h"
#include "statistics/significance.h"
#include "statistics/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ALPHA 0.05

void alloclab_format_ns(double ns, char *out, size_t len)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = {{1, "ns"}, {1e3, "us"}, {1e6, "ms"}, {1e9, "sec"}};
	size_t u = 0;
	double v;

	while (u + 1 < sizeof units / sizeof units[0] && ns >= units[u + 1].scale)
		u++;
	v = ns / units[u].scale;
	snprintf(out, len, v >= 99.95 ? "%.0f %s" : v >= 9.995 ? "%.1f %s" : "%.2f %s", v, units[u].unit);
}

void alloclab_format_ratio(double ratio, char *out, size_t len)
{
	double pct = (ratio - 1) * 100;
	if (ratio >= 1)
		snprintf(out, len, "%.2fx slower (%+.0f%%)", ratio, pct);
	else
		snprintf(out, len, "%.2fx faster (%+.0f%%)", 1 / ratio, pct);
}

/* ---- cells ---- */

static int same_row(const struct alloclab_cell *a, const struct alloclab_cell *b, int with_plugin)
{
	return a->threads == b->threads && strcmp(a->workload, b->workload) == 0 && json_equal(a->params, b->params) &&
	       (!with_plugin || (strcmp(a->plugin, b->plugin) == 0 && a->cache_aligned == b->cache_aligned));
}

static int column_has(const struct alloclab_column *col, const struct alloclab_cell *c)
{
	char label[512];
	alloclab_cell_label(c, label, sizeof label);
	return col->plugin == NULL || strcmp(label, col->plugin) == 0;
}

/* The column's cell for a row: a measured one first, else any (an error or
 * not-applicable cell stands for the row, as such). */
static const struct alloclab_cell *find_cell(const struct alloclab_column *col, const struct alloclab_cell *row,
					     int with_plugin)
{
	const struct alloclab_cell *any = NULL;

	for (unsigned i = 0; i < col->results->ncells; i++) {
		const struct alloclab_cell *c = &col->results->cells[i];
		if (!column_has(col, c) || !same_row(c, row, with_plugin))
			continue;
		if (alloclab_cell_measured(c))
			return c;
		if (any == NULL)
			any = c;
	}
	return any;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* pyperf check's kind of warnings, for one cell's values. */
static json_t *cell_warnings(const double *v, size_t n)
{
	json_t *w = json_array();
	struct alloclab_summary s;
	char text[160];

	alloclab_summarize(v, n, &s);
	if (n < 6) {
		snprintf(text, sizeof text, "only %zu values: too few to judge (run more processes)", n);
		json_array_append_new(w, json_string(text));
	}
	if (n >= 2 && s.mean > 0 && s.stdev > 0.10 * s.mean) {
		snprintf(text, sizeof text, "unstable: standard deviation is %.1f%% of the mean (over 10%%)",
			 100 * s.stdev / s.mean);
		json_array_append_new(w, json_string(text));
	}
	if (n >= 4) {
		double *sorted = malloc(n * sizeof *sorted);
		memcpy(sorted, v, n * sizeof *sorted);
		qsort(sorted, n, sizeof *sorted, cmp_double);
		double q1 = sorted[n / 4], q3 = sorted[(3 * n) / 4], iqr = q3 - q1;
		size_t out = 0;
		for (size_t i = 0; i < n; i++)
			out += sorted[i] < q1 - 3 * iqr || sorted[i] > q3 + 3 * iqr;
		if (out) {
			snprintf(text, sizeof text, "%zu outlier%s beyond 3 interquartile ranges", out, out > 1 ? "s" : "");
			json_array_append_new(w, json_string(text));
		}
		free(sorted);
	}
	return w;
}

/* Where two cells' processes ran on more than one CPU model (merged
 * shards): the model with the most processes on both sides, at least two
 * each, with a note saying what was left out; or NULL, with a note when
 * the processes are pooled across models. NULL and no note: one model. */
static const char *common_cpu_model(const struct alloclab_cell *a, const struct alloclab_cell *b, char *note, size_t len)
{
	const char *models[64];
	unsigned nmodels = 0, best = 0, best_a = 0, best_b = 0;
	const struct alloclab_cell *both[2] = {a, b};

	for (int s = 0; s < 2; s++)
		for (unsigned i = 0; i < both[s]->nprocs; i++) {
			const char *m = both[s]->procs[i].host_cpu_model ? both[s]->procs[i].host_cpu_model : "";
			unsigned k = 0;
			while (k < nmodels && strcmp(models[k], m) != 0)
				k++;
			if (k == nmodels && nmodels < 64)
				models[nmodels++] = m;
		}
	if (nmodels <= 1)
		return NULL;
	const char *pick = NULL;
	for (unsigned k = 0; k < nmodels; k++) {
		unsigned na = 0, nb = 0;
		for (unsigned i = 0; i < a->nprocs; i++)
			na += strcmp(a->procs[i].host_cpu_model ? a->procs[i].host_cpu_model : "", models[k]) == 0;
		for (unsigned i = 0; i < b->nprocs; i++)
			nb += strcmp(b->procs[i].host_cpu_model ? b->procs[i].host_cpu_model : "", models[k]) == 0;
		if (na >= 2 && nb >= 2 && (na < nb ? na : nb) > best) {
			best = na < nb ? na : nb;
			best_a = na, best_b = nb;
			pick = models[k];
		}
	}
	if (pick)
		snprintf(note, len, "compared within one CPU model (%.120s: %u and %u processes); the processes of %u other "
			 "model%s left out", pick[0] ? pick : "unknown", best_a, best_b, nmodels - 1, nmodels > 2 ? "s" : "");
	else
		snprintf(note, len, "pooled processes of %u CPU models (no model has two processes of each cell): a "
			 "difference may be the machines'", nmodels);
	return pick;
}

static json_t *unmeasured_entry(const struct alloclab_cell *c)
{
	const char *s = c->status == ALLOCLAB_CELL_ERROR ? "error"
			: c->status == ALLOCLAB_CELL_NOT_APPLICABLE ? "not applicable" : "not measured";
	return json_pack("{s:s,s:s?}", "status", s, "message", c->message);
}

/* What one comparison holds across its rows. */
struct comparison {
	const struct alloclab_column *cols;
	size_t ncols;
	const struct alloclab_compare_opts *o;
	int with_plugin;  /* rows carry the plugin (whole runs compared) */
	int other_metric; /* a latency percentile or a memory figure, not the cells' own metric */
	double *log_sum;  /* per column: the sum of the logs of its ratios, for the geometric mean */
	size_t *nrows_ratio;
};

/* A cell's values of what is compared, and its per-process ones. */
struct cell_values {
	double *v, *p;
	size_t nv, np;
};

/* The name of what is compared: the cells' own metric (time, or a count
 * under --measure), a latency percentile, or a memory figure. */
static const char *compared_metric(const struct alloclab_compare_opts *o, char *latency_metric, size_t len)
{
	if (o->measure.quantile > 0) {
		/* "latency_p99_ns" (every op) or "latency_p99_malloc_ns". */
		const char *q = "p?";
		for (unsigned k = 0; k < ALLOCLAB_LAT_NQUANTILES; k++)
			if (alloclab_lat_quantiles[k] == o->measure.quantile)
				q = alloclab_lat_quantile_names[k];
		snprintf(latency_metric, len, "latency_%s%s%s_ns", q, o->measure.op >= 0 ? "_" : "",
			 o->measure.op >= 0 ? alloclab_lat_op_names[o->measure.op] : "");
		return latency_metric;
	}
	if (o->measure.memory)
		return alloclab_memory_metric_keys[o->measure.memory];
	return ALLOCLAB_METRIC_TIME;
}

/* Both cells of one paired run (run --paired): the ratios of their times
 * in the same processes, each process's pair_ratio over the base's of the
 * same round (statistics/pairs.h). 0 with *st filled, or -1 when they were not
 * measured side by side. */
static int paired_stat(const struct comparison *k, size_t c, const struct alloclab_cell *cell,
		       const struct alloclab_cell *other, struct alloclab_pair_stat *st)
{
	if (k->other_metric || cell->pair_design == NULL || other->pair_design == NULL ||
	    k->cols[c].results != k->cols[0].results || alloclab_pair_reference(k->cols[0].results, cell) !=
								  alloclab_pair_reference(k->cols[0].results, other))
		return -1;
	return alloclab_pair_stat_between(cell, other, st);
}

/* The paired comparison of column c's cell with the base's, in its entry. */
static void paired_entry(struct comparison *k, size_t c, json_t *entry, const struct alloclab_pair_stat *st)
{
	int reachable = st->n >= 2;
	int significant = st->resolved && fabs(st->ratio - 1) * 100 >= k->o->min_speed;
	json_object_set_new(entry, "ratio", json_real(st->ratio));
	json_object_set_new(entry, "interval", st->n >= 2 ? json_pack("[f,f]", st->lo, st->hi) : json_null());
	json_object_set_new(entry, "p", json_real(st->p));
	json_object_set_new(entry, "statistic", json_real(0));
	json_object_set_new(entry, "tested",
			    json_string("paired processes: the geometric mean of their ratios, a 95% t interval on the "
					"logarithms (significant: it leaves 1 out), and the signed-rank test's p"));
	json_object_set_new(entry, "significant", json_boolean(significant));
	json_object_set_new(entry, "reachable", json_boolean(reachable));
	if (!reachable)
		json_array_append_new(json_object_get(entry, "warnings"),
				      json_string("one paired process has no interval: measure at least 2 (-n)"));
	if (st->ratio > 0) {
		k->log_sum[c] += log(st->ratio);
		k->nrows_ratio[c]++;
	}
}

/* The ratio of column c's cell to the base cell of its row, and the test
 * of whether they differ, added to its entry (and to the column's
 * geometric mean). s summarises the other cell's values. */
static void test_against_base(struct comparison *k, size_t c, json_t *entry, const struct alloclab_cell *cell,
			      const struct alloclab_cell *other, const struct cell_values *b,
			      const struct cell_values *x, const struct alloclab_summary *s)
{
	const struct alloclab_compare_opts *o = k->o;
	struct alloclab_summary sb;
	struct alloclab_test_result t;
	const char *unit = "processes";
	double min_p;
	alloclab_summarize(b->v, b->nv, &sb);
	double ratio = s->mean / sb.mean;
	if (!k->other_metric &&
	    (alloclab_metric_deterministic(cell->metric) || alloclab_metric_deterministic(other->metric))) {
		/* Counts, not times: the same every time, so a test
		 * would be meaningless; the ratio is the answer. */
		t.p = 0;
		t.statistic = 0;
		t.df = 0;
		unit = "nothing (a deterministic count: compared by its ratio)";
		min_p = 0;
	} else if (o->test == ALLOCLAB_TEST_PYPERF) {
		alloclab_t_test(b->v, b->nv, x->v, x->nv, &t);
		unit = "values";
		min_p = b->nv >= 2 && x->nv >= 2 ? 0 : 1;
	} else if (b->np >= 2 && x->np >= 2) {
		alloclab_mann_whitney(b->p, b->np, x->p, x->np, &t);
		min_p = alloclab_mann_whitney_min_p(b->np, x->np);
	} else {
		/* One process: the values are all there is. */
		alloclab_mann_whitney(b->v, b->nv, x->v, x->nv, &t);
		unit = "values (one process: not independent)";
		min_p = alloclab_mann_whitney_min_p(b->nv, x->nv);
	}
	int reachable = min_p < ALPHA;
	int significant = reachable && t.p < ALPHA && fabs(ratio - 1) * 100 >= o->min_speed;
	json_object_set_new(entry, "ratio", json_real(ratio));
	int base_counts = !k->other_metric && alloclab_metric_deterministic(cell->metric);
	json_object_set_new(entry, "p", base_counts ? json_null() : json_real(t.p));
	json_object_set_new(entry, "statistic", json_real(t.statistic));
	json_object_set_new(entry, "tested", json_string(unit));
	json_object_set_new(entry, "significant", json_boolean(significant));
	json_object_set_new(entry, "reachable", json_boolean(reachable));
	if (!reachable) {
		char text[200];
		snprintf(text, sizeof text,
			 "the rank test cannot reach p < %.2f with %zu and %zu %s (smallest p %.3f): "
			 "measure at least %zu processes per side (-n)",
			 ALPHA, unit[0] == 'p' ? b->np : b->nv, unit[0] == 'p' ? x->np : x->nv,
			 unit[0] == 'p' ? "processes" : "values", min_p, alloclab_mann_whitney_needed(ALPHA));
		json_array_append_new(json_object_get(entry, "warnings"), json_string(text));
	}
	if (ratio > 0) {
		k->log_sum[c] += log(ratio);
		k->nrows_ratio[c]++;
	}
}

/* Column c's entry for the row of `cell`, where its cell `other` is
 * measured: a summary of its values, with (past the first column, when the
 * base has values) the comparison with the base. */
static json_t *measured_entry(struct comparison *k, size_t c, const struct alloclab_cell *cell,
			      const struct alloclab_cell *other, const struct cell_values *base)
{
	const struct alloclab_compare_opts *o = k->o;
	struct cell_values x;
	struct alloclab_summary s;
	json_t *entry;

	/* Shards merged from machines of several CPU models: compare
	 * within one model where both cells have processes enough. */
	struct alloclab_cell_measure within = o->measure;
	char hosts_note[400] = "";
	struct cell_values b = *base;
	if (c > 0 && base->v)
		within.cpu_model = common_cpu_model(cell, other, hosts_note, sizeof hosts_note);
	if (within.cpu_model) {
		b.v = alloclab_cell_measure_values(cell, &within, &b.nv);
		b.p = alloclab_cell_measure_processes(cell, &within, &b.np);
	}
	x.v = alloclab_cell_measure_values(other, &within, &x.nv);
	x.p = alloclab_cell_measure_processes(other, &within, &x.np);
	if (x.nv == 0) {
		const char *why = "no latency measured (run with --latency)";
		if (o->measure.memory == ALLOCLAB_MEMORY_FRAGMENTATION)
			why = "the workload did not say what it held";
		else if (o->measure.memory)
			why = "no memory figures (a timeline and the worker's own readings: not under valgrind)";
		entry = json_pack("{s:s,s:s}", "status", "not measured", "message", why);
	} else {
		int counts = !k->other_metric && alloclab_metric_deterministic(other->metric);
		alloclab_summarize(x.v, x.nv, &s);
		entry = json_pack("{s:f,s:f,s:f,s:I,s:I,s:o}", "mean", s.mean, "median", s.median, "stdev", s.stdev,
				  "values", (json_int_t)x.nv, "processes", (json_int_t)x.np, "warnings",
				  counts ? json_array() : cell_warnings(x.v, x.nv));
		if (c > 0 && base->v) {
			struct alloclab_pair_stat st;
			if (hosts_note[0])
				json_array_append_new(json_object_get(entry, "warnings"), json_string(hosts_note));
			if (paired_stat(k, c, cell, other, &st) == 0)
				paired_entry(k, c, entry, &st);
			else
				test_against_base(k, c, entry, cell, other, &b, &x, &s);
		}
	}
	free(x.v);
	free(x.p);
	if (b.v != base->v)
		free(b.v), free(b.p);
	return entry;
}

/* The entries of the row of `cell` (a cell of the first column), one per
 * column; NULL when no other column has anything to say of it. */
static json_t *row_entries(struct comparison *k, const struct alloclab_cell *cell)
{
	const struct alloclab_compare_opts *o = k->o;
	struct cell_values base = {NULL, NULL, 0, 0};
	json_t *entries;
	int any_other = 0;

	if (alloclab_cell_measured(cell)) {
		base.v = alloclab_cell_measure_values(cell, &o->measure, &base.nv);
		base.p = alloclab_cell_measure_processes(cell, &o->measure, &base.np);
		if (base.nv == 0) { /* measured, but not what is compared */
			free(base.v);
			free(base.p);
			base.v = base.p = NULL;
		}
	}
	entries = json_array();
	for (size_t c = 0; c < k->ncols; c++) {
		const struct alloclab_cell *other = c == 0 ? cell : find_cell(&k->cols[c], cell, k->with_plugin);

		if (other == NULL) {
			json_array_append_new(entries, json_null());
			continue;
		}
		json_array_append_new(entries, alloclab_cell_measured(other) ? measured_entry(k, c, cell, other, &base)
									      : unmeasured_entry(other));
		any_other |= c > 0;
	}
	free(base.v);
	free(base.p);
	if (!any_other) {
		json_decref(entries);
		return NULL;
	}
	return entries;
}

/* Each row's name: what tells its cell apart from the others'. */
static void name_rows(json_t *rows, const struct alloclab_cell **row_cells, size_t nrow_cells, int with_plugin)
{
	char **names = calloc(nrow_cells, sizeof *names);
	json_t *row;
	size_t i;
	alloclab_row_names(row_cells, nrow_cells, with_plugin, names);
	json_array_foreach(rows, i, row)
	{
		json_object_set_new(row, "name", json_string(names[i]));
		free(names[i]);
	}
	free(names);
}

static int any_paired(const json_t *rows)
{
	const json_t *row, *e;
	size_t i, c;
	json_array_foreach(rows, i, row)
		json_array_foreach(json_object_get(row, "columns"), c, e)
			if (json_object_get(e, "interval"))
				return 1;
	return 0;
}

json_t *alloclab_compare(const struct alloclab_column *cols, size_t ncols, const struct alloclab_compare_opts *o,
			 char *err, size_t err_len)
{
	/* Rows carry the plugin when whole runs are compared; with --plugins
	 * the plugin is the column. */
	struct comparison k = {.cols = cols, .ncols = ncols, .o = o, .with_plugin = cols[0].plugin == NULL};
	json_t *rows = json_array(), *columns = json_array();
	char latency_metric[64];
	const char *metric = compared_metric(o, latency_metric, sizeof latency_metric);
	k.other_metric = o->measure.quantile > 0 || o->measure.memory;
	k.log_sum = calloc(ncols, sizeof *k.log_sum);
	k.nrows_ratio = calloc(ncols, sizeof *k.nrows_ratio);
	const struct alloclab_cell **row_cells = calloc(cols[0].results->ncells + 1, sizeof *row_cells);
	size_t nrow_cells = 0;

	for (size_t c = 0; c < ncols; c++)
		json_array_append_new(columns, json_string(cols[c].name));
	for (unsigned i = 0; i < cols[0].results->ncells; i++) {
		const struct alloclab_cell *cell = &cols[0].results->cells[i];
		json_t *entries;
		int dup = 0;

		if (!column_has(&cols[0], cell))
			continue;
		/* One row per identity (a run with a cell twice keeps the first). */
		for (size_t r = 0; r < nrow_cells && !dup; r++)
			dup = same_row(row_cells[r], cell, k.with_plugin);
		if (dup || cell->status == ALLOCLAB_CELL_NOT_APPLICABLE)
			continue;
		if ((entries = row_entries(&k, cell)) == NULL)
			continue;
		row_cells[nrow_cells++] = cell;
		metric = k.other_metric ? metric : cell->metric;
		json_array_append_new(rows, json_pack("{s:s,s:s,s:O,s:i,s:o}", "plugin", cell->plugin, "workload",
						      cell->workload, "params", cell->params, "threads", (int)cell->threads,
						      "columns", entries));
	}
	if (json_array_size(rows) == 0) {
		snprintf(err, err_len,
			 "%s and %s have no cells in common (compare runs of the same plugins, workloads, parameters and thread counts)",
			 cols[0].name, cols[1].name);
		json_decref(rows);
		json_decref(columns);
		free(k.log_sum);
		free(k.nrows_ratio);
		free(row_cells);
		return NULL;
	}
	name_rows(rows, row_cells, nrow_cells, k.with_plugin);
	json_t *geomean = json_array();
	for (size_t c = 0; c < ncols; c++)
		json_array_append_new(geomean, c == 0 || k.nrows_ratio[c] == 0
						       ? json_null()
						       : json_real(exp(k.log_sum[c] / (double)k.nrows_ratio[c])));
	free(k.log_sum);
	free(k.nrows_ratio);
	free(row_cells);
	json_t *out = json_pack("{s:o,s:s,s:s,s:f,s:f,s:o,s:o}", "columns", columns, "metric", metric, "test",
				alloclab_metric_deterministic(metric) ? "none: deterministic counts, compared by their ratio"
				: o->test == ALLOCLAB_TEST_PYPERF ? "pyperf (Student's t-test, pooled, on every value)"
								: "Mann-Whitney U on per-process means",
				"alpha", ALPHA, "min_speed_percent", o->min_speed, "rows", rows, "geometric_mean", geomean);
	/* Said once, above the table: paired rows are tested otherwise. */
	json_object_set_new(out, "paired", json_boolean(any_paired(rows)));
	return out;
}
