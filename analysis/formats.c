/*
 * Output formats, as one table: each has a name, what it is for, and a
 * printer for a comparison (analysis/compare.h) and for a run (`alloclab
 * show`). `alloclab compare`, `alloclab show` and their usage texts all take
 * the names from here.
 */
#include "formats.h"

#include "compare.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

static int row_unmeasured(const json_t *row);


/* The text of one table cell: base "18.9 ns"; others "19.3 ns: 1.02x
 * slower (+2%)" or "19.0 ns: not significant". */
/* What the comparison's numbers are: times (the default), instruction
 * counts, or one of the memory figures (compare --metric rss, ...). */
static enum { KIND_TIME, KIND_COUNTS, KIND_KIB, KIND_RATIO, KIND_FAULTS } kind;

static void kib_text(double kib, char *out, size_t len)
{
	if (kib >= 1024 * 1024)
		snprintf(out, len, "%.2f GiB", kib / (1024 * 1024));
	else if (kib >= 1024)
		snprintf(out, len, "%.1f MiB", kib / 1024);
	else
		snprintf(out, len, "%.0f KiB", kib);
}

static void cell_text(const json_t *entry, int base, char *out, size_t len)
{
	char t[64], r[64];

	if (entry == NULL || json_is_null(entry)) {
		snprintf(out, len, "-");
		return;
	}
	if (json_object_get(entry, "status")) {
		/* Never measured: said as such, never as a number. */
		snprintf(out, len, "%s", json_string_value(json_object_get(entry, "status")));
		return;
	}
	double mean = json_number_value(json_object_get(entry, "mean"));
	switch (kind) {
	case KIND_COUNTS: snprintf(t, sizeof t, "%.1f instr", mean); break;
	case KIND_KIB: kib_text(mean, t, sizeof t); break;
	case KIND_RATIO: snprintf(t, sizeof t, "%.2f", mean); break;
	case KIND_FAULTS: snprintf(t, sizeof t, "%.0f faults", mean); break;
	default: alloclab_format_ns(mean, t, sizeof t);
	}
	if (base) {
		snprintf(out, len, "%s", t);
		return;
	}
	if (json_is_false(json_object_get(entry, "reachable"))) {
		snprintf(out, len, "%s: cannot tell (too few processes)", t);
		return;
	}
	/* Paired: the ratio's 95% interval, always said. */
	const json_t *iv = json_object_get(entry, "interval");
	char interval[64] = "";
	if (json_is_array(iv))
		snprintf(interval, sizeof interval, " [%.3f..%.3f]", json_number_value(json_array_get(iv, 0)),
			 json_number_value(json_array_get(iv, 1)));
	if (!json_is_true(json_object_get(entry, "significant"))) {
		snprintf(out, len, "%s: %s%s", t, iv ? "not resolved" : "not significant", interval);
		return;
	}
	if (kind != KIND_TIME) {
		double ratio = json_number_value(json_object_get(entry, "ratio"));
		snprintf(r, sizeof r, ratio >= 1 ? "%.2fx more (%+.0f%%)" : "%.2fx fewer (%+.0f%%)",
			 ratio >= 1 ? ratio : 1 / ratio, (ratio - 1) * 100);
	} else {
		alloclab_format_ratio(json_number_value(json_object_get(entry, "ratio")), r, sizeof r);
	}
	snprintf(out, len, "%s: %s%s", t, r, interval);
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
		snprintf(s, 48, "%.2fx %s", g, kind == KIND_TIME ? "slower" : "more");
	else
		snprintf(s, 48, "%.2fx %s", 1 / g, kind == KIND_TIME ? "faster" : "fewer");
	return s;
}

static void build_table(const json_t *cmp, struct table *t)
{
	const char *metric = json_string_value(json_object_get(cmp, "metric"));
	kind = metric == NULL ? KIND_TIME
	       : strcmp(metric, ALLOCLAB_METRIC_INSTRUCTIONS) == 0 ? KIND_COUNTS
	       : strcmp(metric, "fragmentation_at_peak") == 0 ? KIND_RATIO
	       : strcmp(metric, "minor_faults_per_value") == 0 ? KIND_FAULTS
	       : strcmp(metric, "rss_peak_kib") == 0 || strcmp(metric, "kept_after_free_kib") == 0 ? KIND_KIB
	       : KIND_TIME;
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
		if (!row_significant(row) || row_unmeasured(row))
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

/* A row none of whose columns could reach significance, whatever the
 * values: the test had too few samples. */
static int row_unreachable(const json_t *row)
{
	json_t *e;
	size_t c;
	int any = 0;
	json_array_foreach(json_object_get(row, "columns"), c, e)
	{
		if (c == 0 || !json_is_object(e) || json_object_get(e, "status"))
			continue;
		if (!json_is_false(json_object_get(e, "reachable")))
			return 0;
		any = 1;
	}
	return any;
}

/* A row with a column that was never measured (error, not applicable). */
static int row_unmeasured(const json_t *row)
{
	json_t *e;
	size_t c;
	json_array_foreach(json_object_get(row, "columns"), c, e)
		if (json_is_object(e) && json_object_get(e, "status"))
			return 1;
	return 0;
}

static void print_row_list(const json_t *cmp, FILE *out, const char *title, int (*pick)(const json_t *row))
{
	json_t *row;
	size_t i, n = 0;

	json_array_foreach(json_object_get(cmp, "rows"), i, row) n += (size_t)pick(row);
	if (n == 0)
		return;
	fprintf(out, "%s (%zu): ", title, n);
	n = 0;
	json_array_foreach(json_object_get(cmp, "rows"), i, row)
		if (pick(row))
			fprintf(out, "%s%s", n++ ? "; " : "", json_string_value(json_object_get(row, "name")));
	fputc('\n', out);
}

static int row_plain_not_significant(const json_t *row)
{
	return !row_significant(row) && !row_unreachable(row) && !row_unmeasured(row);
}

static void print_not_significant(const json_t *cmp, FILE *out)
{
	const char *metric = json_string_value(json_object_get(cmp, "metric"));
	if (metric && strncmp(metric, "latency_", 8) == 0)
		fprintf(out, "Compared: %s, each process's percentile of its timed calls (--latency)\n", metric);
	else if (metric && (strcmp(metric, "rss_peak_kib") == 0 || strcmp(metric, "kept_after_free_kib") == 0 ||
			    strcmp(metric, "fragmentation_at_peak") == 0 || strcmp(metric, "minor_faults_per_value") == 0))
		fprintf(out, "Compared: %s, one figure per process (docs/guides/memory.md)\n", metric);
	print_row_list(cmp, out, json_is_true(json_object_get(cmp, "paired")) ? "Not resolved" : "Not significant",
		       row_plain_not_significant);
	print_row_list(cmp, out, "Cannot be significant with the processes measured", row_unreachable);
	print_row_list(cmp, out, "Not measured in every column (error, not applicable, or no latency)", row_unmeasured);
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

/* A paired comparison says so above its table: its rows are the ratios of
 * the same processes' times, with their 95% intervals. */
static void print_paired_header(const json_t *cmp, FILE *out)
{
	if (json_is_true(json_object_get(cmp, "paired")))
		fputs("Paired: each ratio is of times taken side by side in the same worker processes (the geometric\n"
		      "mean over processes), [its 95% interval]; a ratio whose interval holds 1 is not resolved.\n\n",
		      out);
}

static void print_rst(const json_t *cmp, FILE *out)
{
	struct table t;
	size_t *w;

	print_paired_header(cmp, out);
	build_table(cmp, &t);
	w = calloc(t.cols, sizeof *w);
	for (size_t r = 0; r < t.rows; r++)
		for (size_t c = 0; c < t.cols; c++)
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
	free(w);
}

static void print_markdown(const json_t *cmp, FILE *out)
{
	struct table t;

	print_paired_header(cmp, out);
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
	/* A paired comparison's ratios carry their intervals. */
	const int paired = json_is_true(json_object_get(cmp, "paired"));

	fputs("benchmark", out);
	json_array_foreach(cols, c, name)
	{
		const char *metric = json_string_value(json_object_get(cmp, "metric"));
		/* The unit: instructions, a memory figure's name, or ns. */
		char mean[80];
		snprintf(mean, sizeof mean, " mean %s",
			 metric && strcmp(metric, ALLOCLAB_METRIC_INSTRUCTIONS) == 0 ? "instructions"
			 : metric && strncmp(metric, "latency_", 8) != 0 && strcmp(metric, ALLOCLAB_METRIC_TIME) != 0
				 ? metric
				 : "ns");
		const char *const suffix[] = {mean, " ratio", " p", " significant", " ratio 95% low", " ratio 95% high"};
		for (size_t k = 0; k < (c > 0 ? (paired ? 6u : 4u) : 1u); k++) {
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
			if (json_is_null(e) || json_object_get(e, "status")) {
				/* No number where there was no measurement: the
				 * columns keep their places. */
				fputs(c > 0 ? (paired ? ",,,,,," : ",,,,") : ",", out);
				continue;
			}
			fprintf(out, ",%.6g", json_number_value(json_object_get(e, "mean")));
			if (c > 0) {
				fprintf(out, ",%.6f,", json_number_value(json_object_get(e, "ratio")));
				if (json_is_number(json_object_get(e, "p")))
					fprintf(out, "%.6g", json_number_value(json_object_get(e, "p")));
				fprintf(out, ",%s", json_is_true(json_object_get(e, "significant")) ? "yes" : "no");
				const json_t *iv = json_object_get(e, "interval");
				if (paired && json_is_array(iv))
					fprintf(out, ",%.6f,%.6f", json_number_value(json_array_get(iv, 0)),
						json_number_value(json_array_get(iv, 1)));
				else if (paired)
					fputs(",,", out);
			}
		}
		fputc('\n', out);
	}
}


static void print_json(const json_t *cmp, FILE *out)
{
	json_dumpf(cmp, out, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	fputc('\n', out);
}

static void show_text(const struct alloclab_results *r, FILE *out)
{
	alloclab_report_print(r, out, 1);
}

static void show_json(const struct alloclab_results *r, FILE *out)
{
	json_t *doc = alloclab_results_to_json(r);
	json_dumpf(doc, out, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	fputc('\n', out);
	json_decref(doc);
}

const struct alloclab_output_format alloclab_output_formats[] = {
	{"rst", "reStructuredText grid, as pyperf compare_to --table", print_rst, NULL},
	{"markdown", "Markdown table", print_markdown, NULL},
	{"csv", "comma-separated values, every row", print_csv, NULL},
	{"json", "everything, as JSON", print_json, show_json},
	{"text", "the run table and the workloads' reports", NULL, show_text},
	{NULL, NULL, NULL, NULL},
};

const struct alloclab_output_format *alloclab_output_format_find(const char *name, int for_show)
{
	for (const struct alloclab_output_format *f = alloclab_output_formats; f->name; f++)
		if (strcmp(f->name, name) == 0 && (for_show ? f->show != NULL : f->compare != NULL))
			return f;
	if (!for_show && strcmp(name, "md") == 0)
		return alloclab_output_format_find("markdown", 0);
	return NULL;
}

void alloclab_output_format_names(int for_show, char *out, size_t len)
{
	size_t used = 0, n = 0, total = 0;

	for (const struct alloclab_output_format *f = alloclab_output_formats; f->name; f++)
		total += (size_t)(for_show ? f->show != NULL : f->compare != NULL);
	out[0] = '\0';
	for (const struct alloclab_output_format *f = alloclab_output_formats; f->name && used < len; f++) {
		if (for_show ? f->show == NULL : f->compare == NULL)
			continue;
		n++;
		used += (size_t)snprintf(out + used, len - used, "%s%s", n == 1 ? "" : n == total ? " or " : ", ", f->name);
	}
}
