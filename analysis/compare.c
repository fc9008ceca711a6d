/* Comparing runs and plugins. See compare.h. */
#include "compare.h"

#include "cells.h"
#include "significance.h"
#include "summary.h"

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

/* The identity of a row: plugin (when it is part of the row), workload,
 * parameters, threads. */
static char *row_key(const json_t *cell, int with_plugin)
{
	char label[512], *params = json_dumps(json_object_get(cell, "params"), JSON_SORT_KEYS | JSON_COMPACT), *key;
	size_t len;

	alloclab_cell_label(cell, label, sizeof label);
	len = strlen(label) + strlen(params) + 128;
	key = malloc(len);
	snprintf(key, len, "%s|%s|%s|%lld", with_plugin ? label : "", json_string_value(json_object_get(cell, "workload")),
		 params, (long long)json_integer_value(json_object_get(cell, "threads")));
	free(params);
	return key;
}

static const json_t *find_cell(const struct alloclab_column *col, const char *key, int with_plugin)
{
	json_t *cell;
	size_t i;

	json_array_foreach(json_object_get(col->doc, "cells"), i, cell)
	{
		char label[512], *k;
		int match;
		if (json_array_size(json_object_get(cell, "runs")) == 0)
			continue;
		alloclab_cell_label(cell, label, sizeof label);
		if (col->plugin && strcmp(label, col->plugin) != 0)
			continue;
		k = row_key(cell, with_plugin);
		match = strcmp(k, key) == 0;
		free(k);
		if (match)
			return cell;
	}
	return NULL;
}

/* All values of a cell, and the mean of each process's values. */
static void cell_samples(const json_t *cell, double **values, size_t *nv, double **procs, size_t *np)
{
	json_t *run, *v;
	size_t i, k, count = 0;

	json_array_foreach(json_object_get(cell, "runs"), i, run)
		count += json_array_size(json_object_get(run, "values"));
	*values = calloc(count + 1, sizeof **values);
	*procs = calloc(json_array_size(json_object_get(cell, "runs")) + 1, sizeof **procs);
	*nv = *np = 0;
	json_array_foreach(json_object_get(cell, "runs"), i, run)
	{
		double sum = 0;
		size_t n = 0;
		json_array_foreach(json_object_get(run, "values"), k, v)
		{
			double x = json_number_value(json_object_get(v, "ns_per_op"));
			(*values)[(*nv)++] = x;
			sum += x;
			n++;
		}
		if (n)
			(*procs)[(*np)++] = sum / (double)n;
	}
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

static void name_rows(json_t *rows, int with_plugin)
{
	json_t *varying = alloclab_varying_params(rows), *row;
	int threads_vary = 0, workloads_vary = 0;
	size_t i;

	json_array_foreach(rows, i, row)
	{
		threads_vary |= json_integer_value(json_object_get(row, "threads")) !=
				json_integer_value(json_object_get(json_array_get(rows, 0), "threads"));
		workloads_vary |= strcmp(json_string_value(json_object_get(row, "workload")),
					 json_string_value(json_object_get(json_array_get(rows, 0), "workload"))) != 0;
	}
	json_array_foreach(rows, i, row)
	{
		char name[1024];
		size_t used = 0;

		name[0] = '\0';
		if (with_plugin)
			used += (size_t)snprintf(name + used, sizeof name - used, "%s",
						 json_string_value(json_object_get(row, "plugin")));
		if (workloads_vary || !with_plugin || used == 0)
			used += (size_t)snprintf(name + used, sizeof name - used, "%s%s", used ? " " : "",
						 json_string_value(json_object_get(row, "workload")));
		alloclab_append_params(json_object_get(row, "params"), varying, name, sizeof name);
		used = strlen(name);
		if (threads_vary || json_integer_value(json_object_get(row, "threads")) != 1)
			snprintf(name + used, sizeof name - used, " t=%lld",
				 (long long)json_integer_value(json_object_get(row, "threads")));
		json_object_set_new(row, "name", json_string(name));
	}
	json_decref(varying);
}

json_t *alloclab_compare(const struct alloclab_column *cols, size_t ncols, const struct alloclab_compare_opts *o,
			 char *err, size_t err_len)
{
	/* Rows carry the plugin when whole runs are compared; with --plugins
	 * the plugin is the column. */
	int with_plugin = cols[0].plugin == NULL;
	json_t *rows = json_array(), *columns = json_array(), *cell;
	double log_sum[64] = {0};
	size_t i, nrows_ratio[64] = {0};

	for (size_t c = 0; c < ncols; c++)
		json_array_append_new(columns, json_string(cols[c].name));
	json_array_foreach(json_object_get(cols[0].doc, "cells"), i, cell)
	{
		char label[512], *key;
		json_t *row, *entries;
		double *base_v, *base_p;
		size_t base_nv, base_np;
		int any_other = 0;

		if (json_array_size(json_object_get(cell, "runs")) == 0)
			continue;
		alloclab_cell_label(cell, label, sizeof label);
		if (cols[0].plugin && strcmp(label, cols[0].plugin) != 0)
			continue;
		key = row_key(cell, with_plugin);
		cell_samples(cell, &base_v, &base_nv, &base_p, &base_np);
		entries = json_array();
		for (size_t c = 0; c < ncols; c++) {
			const json_t *other = c == 0 ? cell : find_cell(&cols[c], key, with_plugin);
			double *v, *p;
			size_t nv, np;
			struct alloclab_summary s;
			json_t *entry;

			if (other == NULL) {
				json_array_append_new(entries, json_null());
				continue;
			}
			cell_samples(other, &v, &nv, &p, &np);
			alloclab_summarize(v, nv, &s);
			entry = json_pack("{s:f,s:f,s:f,s:I,s:I,s:o}", "mean", s.mean, "median", s.median, "stdev", s.stdev,
					  "values", (json_int_t)nv, "processes", (json_int_t)np, "warnings",
					  cell_warnings(v, nv));
			if (c > 0) {
				struct alloclab_summary sb;
				struct alloclab_test_result t;
				const char *unit = "processes";
				alloclab_summarize(base_v, base_nv, &sb);
				double ratio = s.mean / sb.mean;
				if (o->test == ALLOCLAB_TEST_PYPERF) {
					alloclab_t_test(base_v, base_nv, v, nv, &t);
					unit = "values";
				} else if (base_np >= 2 && np >= 2) {
					alloclab_mann_whitney(base_p, base_np, p, np, &t);
				} else {
					/* One process: the values are all there is. */
					alloclab_mann_whitney(base_v, base_nv, v, nv, &t);
					unit = "values (one process: not independent)";
				}
				int significant = t.p < ALPHA && fabs(ratio - 1) * 100 >= o->min_speed;
				json_object_set_new(entry, "ratio", json_real(ratio));
				json_object_set_new(entry, "p", json_real(t.p));
				json_object_set_new(entry, "statistic", json_real(t.statistic));
				json_object_set_new(entry, "tested", json_string(unit));
				json_object_set_new(entry, "significant", json_boolean(significant));
				if (c < 64 && ratio > 0) {
					log_sum[c] += log(ratio);
					nrows_ratio[c]++;
				}
				any_other = 1;
			}
			json_array_append_new(entries, entry);
			free(v);
			free(p);
		}
		free(base_v);
		free(base_p);
		free(key);
		if (!any_other) {
			json_decref(entries);
			continue;
		}
		row = json_pack("{s:s,s:s,s:O,s:O,s:o}", "plugin", label, "workload",
				json_string_value(json_object_get(cell, "workload")), "params", json_object_get(cell, "params"),
				"threads", json_object_get(cell, "threads"), "columns", entries);
		json_array_append_new(rows, row);
	}
	if (json_array_size(rows) == 0) {
		snprintf(err, err_len,
			 "%s and %s have no cells in common (compare runs of the same plugins, workloads, parameters and thread counts)",
			 cols[0].name, cols[1].name);
		json_decref(rows);
		json_decref(columns);
		return NULL;
	}
	name_rows(rows, with_plugin);
	json_t *geomean = json_array();
	for (size_t c = 0; c < ncols; c++)
		json_array_append_new(geomean, c == 0 || nrows_ratio[c] == 0 ? json_null()
									  : json_real(exp(log_sum[c] / (double)nrows_ratio[c])));
	return json_pack("{s:o,s:s,s:f,s:f,s:o,s:o}", "columns", columns, "test",
			 o->test == ALLOCLAB_TEST_PYPERF ? "pyperf (Student's t-test, pooled, on every value)"
							 : "Mann-Whitney U on per-process means",
			 "alpha", ALPHA, "min_speed_percent", o->min_speed, "rows", rows, "geometric_mean", geomean);
}

/* ---- output ---- */

/* The text of one table cell: base "18.9 ns"; others "19.3 ns: 1.02x
 * slower (+2%)" or "19.0 ns: not significant". */
static void cell_text(const json_t *entry, int base, char *out, size_t len)
{
	char t[64], r[64];

	if (entry == NULL || json_is_null(entry)) {
		snprintf(out, len, "-");
		return;
	}
	alloclab_format_ns(json_number_value(json_object_get(entry, "mean")), t, sizeof t);
	if (base) {
		snprintf(out, len, "%s", t);
		return;
	}
	if (!json_is_true(json_object_get(entry, "significant"))) {
		snprintf(out, len, "%s: not significant", t);
		return;
	}
	alloclab_format_ratio(json_number_value(json_object_get(entry, "ratio")), r, sizeof r);
	snprintf(out, len, "%s: %s", t, r);
}

static int row_significant(const json_t *row)
{
	json_t *e;
	size_t c;
	json_array_foreach(json_object_get(row, "columns"), c, e)
		if (c > 0 && json_is_true(json_object_get(e, "significant")))
			return 1;
	return 0;
}

static int row_warned(const json_t *row)
{
	json_t *e;
	size_t c;
	json_array_foreach(json_object_get(row, "columns"), c, e)
		if (json_array_size(json_object_get(e, "warnings")) > 0)
			return 1;
	return 0;
}

/* The table as strings: header, shown rows, geometric mean. */
struct table {
	char **cells; /* rows x cols */
	size_t rows, cols;
};

static char *geomean_text(double g)
{
	char *s = malloc(48);
	if (g >= 1)
		snprintf(s, 48, "%.2fx slower", g);
	else
		snprintf(s, 48, "%.2fx faster", 1 / g);
	return s;
}

static void build_table(const json_t *cmp, struct table *t)
{
	json_t *rows = json_object_get(cmp, "rows"), *cols = json_object_get(cmp, "columns"), *row, *name;
	size_t ncols = json_array_size(cols) + 1, shown = 0, i, c;
	int geo = json_array_size(rows) >= 2;

	t->cols = ncols;
	t->cells = calloc((json_array_size(rows) + 2) * ncols, sizeof *t->cells);
	t->cells[0] = strdup("Benchmark");
	json_array_foreach(cols, c, name) t->cells[c + 1] = strdup(json_string_value(name));
	t->rows = 1;
	json_array_foreach(rows, i, row)
	{
		char text[256];
		if (!row_significant(row))
			continue;
		snprintf(text, sizeof text, "%s%s", json_string_value(json_object_get(row, "name")),
			 row_warned(row) ? " (!)" : "");
		t->cells[t->rows * ncols] = strdup(text);
		for (c = 0; c + 1 < ncols; c++) {
			cell_text(json_array_get(json_object_get(row, "columns"), c), c == 0, text, sizeof text);
			t->cells[t->rows * ncols + c + 1] = strdup(text);
		}
		t->rows++;
		shown++;
	}
	if (geo) {
		t->cells[t->rows * ncols] = strdup("Geometric mean");
		t->cells[t->rows * ncols + 1] = strdup("(ref)");
		for (c = 2; c < ncols; c++) {
			json_t *g = json_array_get(json_object_get(cmp, "geometric_mean"), c - 1);
			t->cells[t->rows * ncols + c] = json_is_number(g) ? geomean_text(json_number_value(g)) : strdup("-");
		}
		t->rows++;
	}
	(void)shown;
}

static void free_table(struct table *t)
{
	for (size_t i = 0; i < t->rows * t->cols; i++)
		free(t->cells[i]);
	free(t->cells);
}

static void print_not_significant(const json_t *cmp, FILE *out)
{
	json_t *row;
	size_t i, n = 0;

	json_array_foreach(json_object_get(cmp, "rows"), i, row) n += !row_significant(row);
	if (n == 0)
		return;
	fprintf(out, "Not significant (%zu): ", n);
	n = 0;
	json_array_foreach(json_object_get(cmp, "rows"), i, row)
		if (!row_significant(row))
			fprintf(out, "%s%s", n++ ? "; " : "", json_string_value(json_object_get(row, "name")));
	fputc('\n', out);
}

static void print_warnings(const json_t *cmp, FILE *out)
{
	json_t *row, *e, *w, *cols = json_object_get(cmp, "columns");
	size_t i, c, k;
	int header = 0;

	json_array_foreach(json_object_get(cmp, "rows"), i, row)
		json_array_foreach(json_object_get(row, "columns"), c, e)
			json_array_foreach(json_object_get(e, "warnings"), k, w)
	{
		if (!header) {
			fprintf(out, "\nWarnings (!):\n");
			header = 1;
		}
		fprintf(out, "- %s, %s: %s\n", json_string_value(json_object_get(row, "name")),
			json_string_value(json_array_get(cols, c)), json_string_value(w));
	}
}

static void rst_rule(FILE *out, const size_t *w, size_t cols, char ch)
{
	for (size_t c = 0; c < cols; c++) {
		fputc('+', out);
		for (size_t k = 0; k < w[c] + 2; k++)
			fputc(ch, out);
	}
	fputs("+\n", out);
}

static void print_rst(const json_t *cmp, FILE *out)
{
	struct table t;
	size_t w[64] = {0};

	build_table(cmp, &t);
	for (size_t r = 0; r < t.rows; r++)
		for (size_t c = 0; c < t.cols && c < 64; c++)
			if (strlen(t.cells[r * t.cols + c]) > w[c])
				w[c] = strlen(t.cells[r * t.cols + c]);
	if (t.rows > 1) {
		rst_rule(out, w, t.cols, '-');
		for (size_t r = 0; r < t.rows; r++) {
			for (size_t c = 0; c < t.cols; c++)
				fprintf(out, "| %-*s ", (int)w[c], t.cells[r * t.cols + c]);
			fputs("|\n", out);
			rst_rule(out, w, t.cols, r == 0 ? '=' : '-');
		}
	}
	print_not_significant(cmp, out);
	print_warnings(cmp, out);
	free_table(&t);
}

static void print_markdown(const json_t *cmp, FILE *out)
{
	struct table t;

	build_table(cmp, &t);
	if (t.rows > 1)
		for (size_t r = 0; r < t.rows; r++) {
			for (size_t c = 0; c < t.cols; c++)
				fprintf(out, "| %s ", t.cells[r * t.cols + c]);
			fputs("|\n", out);
			if (r == 0) {
				for (size_t c = 0; c < t.cols; c++)
					fputs(c == 0 ? "|---" : "|---:", out);
				fputs("|\n", out);
			}
		}
	fputc('\n', out);
	print_not_significant(cmp, out);
	print_warnings(cmp, out);
	free_table(&t);
}

static void csv_field(FILE *out, const char *s)
{
	if (strpbrk(s, ",\"\n")) {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
	} else {
		fputs(s, out);
	}
}

static void print_csv(const json_t *cmp, FILE *out)
{
	json_t *cols = json_object_get(cmp, "columns"), *row, *name, *e;
	size_t i, c;

	fputs("benchmark", out);
	json_array_foreach(cols, c, name)
	{
		static const char *const suffix[] = {" mean ns", " ratio", " p", " significant"};
		for (size_t k = 0; k < (c > 0 ? 4u : 1u); k++) {
			char head[512];
			snprintf(head, sizeof head, "%s%s", json_string_value(name), suffix[k]);
			fputc(',', out);
			csv_field(out, head);
		}
	}
	fputc('\n', out);
	json_array_foreach(json_object_get(cmp, "rows"), i, row)
	{
		csv_field(out, json_string_value(json_object_get(row, "name")));
		json_array_foreach(json_object_get(row, "columns"), c, e)
		{
			if (json_is_null(e)) {
				fputs(c > 0 ? ",,,," : ",", out);
				continue;
			}
			fprintf(out, ",%.6g", json_number_value(json_object_get(e, "mean")));
			if (c > 0)
				fprintf(out, ",%.6f,%.6g,%s", json_number_value(json_object_get(e, "ratio")),
					json_number_value(json_object_get(e, "p")),
					json_is_true(json_object_get(e, "significant")) ? "yes" : "no");
		}
		fputc('\n', out);
	}
}

void alloclab_compare_print(const json_t *cmp, enum alloclab_format format, FILE *out)
{
	switch (format) {
	case ALLOCLAB_FORMAT_MARKDOWN: print_markdown(cmp, out); break;
	case ALLOCLAB_FORMAT_CSV: print_csv(cmp, out); break;
	case ALLOCLAB_FORMAT_JSON:
		json_dumpf(cmp, out, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
		fputc('\n', out);
		break;
	default: print_rst(cmp, out); break;
	}
}
