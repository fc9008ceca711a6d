/*
 * Output formats, as one table: each has a name, what it is for, and a
 * printer for a comparison (statistics/comparison.h) and for a run
 * (`alloclab show`). `alloclab compare`, `alloclab show` and their usage
 * texts all take the names from here. Every printer reads the typed
 * comparison; none computes a figure of its own.
 */
#include "formats.h"
#include "csv_field.h"
#include "base/shell_word.h"

#include "comparison_json.h"
#include "report.h"
#include "units.h"

#include <stdlib.h>
#include <string.h>

/* The number of an entry, in its unit. */
static void mean_text(const struct alloclab_comparison *cmp, double mean, char *out, size_t len)
{
	switch (cmp->quantity) {
	case ALLOCLAB_QUANTITY_COUNTS: snprintf(out, len, "%.1f instr", mean); break;
	case ALLOCLAB_QUANTITY_KIB: alloclab_format_kib(mean, out, len); break;
	case ALLOCLAB_QUANTITY_RATIO: snprintf(out, len, "%.2f", mean); break;
	case ALLOCLAB_QUANTITY_FAULTS: snprintf(out, len, "%.0f faults", mean); break;
	default: alloclab_format_ns(mean, out, len);
	}
}

static const char *status_text(enum alloclab_entry_status s)
{
	return s == ALLOCLAB_ENTRY_ERROR ? "error" : s == ALLOCLAB_ENTRY_NOT_APPLICABLE ? "not applicable" : "not measured";
}

/* The text of one table cell: base "18.9 ns"; others "19.3 ns: 1.02x
 * slower (+2%)" or "19.0 ns: not significant", a paired one with its
 * ratio's 95% interval. */
static void cell_text(const struct alloclab_comparison *cmp, const struct alloclab_comparison_entry *e, int base,
		      char *out, size_t len)
{
	char t[64], r[64], interval[64] = "";

	if (e->status == ALLOCLAB_ENTRY_ABSENT) {
		snprintf(out, len, "-");
		return;
	}
	if (e->status != ALLOCLAB_ENTRY_MEASURED) {
		/* Never measured: said as such, never as a number. */
		snprintf(out, len, "%s", status_text(e->status));
		return;
	}
	mean_text(cmp, e->mean, t, sizeof t);
	if (base) {
		snprintf(out, len, "%s", t);
		return;
	}
	if (e->verdict == ALLOCLAB_VERDICT_CANNOT_TELL) {
		if (e->processes_needed)
			snprintf(out, len, "%s: cannot tell (too few processes: needs %zu a side)", t, e->processes_needed);
		else
			snprintf(out, len, "%s: cannot tell (too few processes)", t);
		return;
	}
	/* Compare's tables give the paired intervals (what a paired run is
	 * for); the others are in the JSON and in ab's table. */
	if (e->has_interval && e->tested == ALLOCLAB_TESTED_PAIRED)
		snprintf(interval, sizeof interval, " [%.3f..%.3f]", e->lo, e->hi);
	if (e->verdict != ALLOCLAB_VERDICT_LESS && e->verdict != ALLOCLAB_VERDICT_MORE) {
		snprintf(out, len, "%s: %s%s", t, e->tested == ALLOCLAB_TESTED_PAIRED ? "not resolved" : "not significant",
			 interval);
		return;
	}
	if (cmp->quantity != ALLOCLAB_QUANTITY_TIME)
		snprintf(r, sizeof r, e->ratio >= 1 ? "%.2fx more (%+.0f%%)" : "%.2fx fewer (%+.0f%%)",
			 e->ratio >= 1 ? e->ratio : 1 / e->ratio, (e->ratio - 1) * 100);
	else
		alloclab_format_ratio(e->ratio, r, sizeof r);
	snprintf(out, len, "%s: %s%s", t, r, interval);
}

static int row_warned(const struct alloclab_comparison *cmp, const struct alloclab_comparison_row *row)
{
	for (size_t c = 0; c < cmp->ncols; c++)
		if (row->entries[c].nwarnings > 0)
			return 1;
	return 0;
}

/* The table as strings: header, shown rows, geometric mean. */
struct table {
	char **cells; /* rows x cols */
	size_t rows, cols;
};

static char *geomean_text(const struct alloclab_comparison *cmp, double g)
{
	char *s = malloc(48);
	int time = cmp->quantity == ALLOCLAB_QUANTITY_TIME;
	if (g >= 1)
		snprintf(s, 48, "%.2fx %s", g, time ? "slower" : "more");
	else
		snprintf(s, 48, "%.2fx %s", 1 / g, time ? "faster" : "fewer");
	return s;
}

/* The rows shown: the significant ones whose every column was measured. */
static void build_table(const struct alloclab_comparison *cmp, struct table *t)
{
	size_t ncols = cmp->ncols + 1;

	t->cols = ncols;
	t->cells = calloc((cmp->nrows + 2) * ncols, sizeof *t->cells);
	char shown[ALLOCLAB_PRINTED_LEN];
	t->cells[0] = strdup("Benchmark");
	/* A column is a file's name or a label from one: shown as
	 * alloclab_printable shows it (the rows' names are, cells.h). */
	for (size_t c = 0; c < cmp->ncols; c++)
		t->cells[c + 1] = strdup(alloclab_printable(cmp->columns[c], shown, sizeof shown));
	t->rows = 1;
	for (size_t i = 0; i < cmp->nrows; i++) {
		const struct alloclab_comparison_row *row = &cmp->rows[i];
		char text[256];
		if (!alloclab_row_significant(row, cmp->ncols) || alloclab_row_unmeasured(row, cmp->ncols))
			continue;
		snprintf(text, sizeof text, "%s%s", row->name, row_warned(cmp, row) ? " (!)" : "");
		t->cells[t->rows * ncols] = strdup(text);
		for (size_t c = 0; c < cmp->ncols; c++) {
			cell_text(cmp, &row->entries[c], c == 0, text, sizeof text);
			t->cells[t->rows * ncols + c + 1] = strdup(text);
		}
		t->rows++;
	}
	if (cmp->nrows >= 2) {
		t->cells[t->rows * ncols] = strdup("Geometric mean");
		t->cells[t->rows * ncols + 1] = strdup("(ref)");
		for (size_t c = 1; c < cmp->ncols; c++)
			t->cells[t->rows * ncols + c + 1] =
				cmp->has_geometric_mean[c] ? geomean_text(cmp, cmp->geometric_mean[c]) : strdup("-");
		t->rows++;
	}
}

static void free_table(struct table *t)
{
	for (size_t i = 0; i < t->rows * t->cols; i++)
		free(t->cells[i]);
	free(t->cells);
}

static int row_plain_not_significant(const struct alloclab_comparison_row *row, size_t ncols)
{
	return !alloclab_row_significant(row, ncols) && !alloclab_row_unreachable(row, ncols) &&
	       !alloclab_row_unmeasured(row, ncols);
}

static void print_row_list(const struct alloclab_comparison *cmp, FILE *out, const char *title,
			   int (*pick)(const struct alloclab_comparison_row *row, size_t ncols))
{
	size_t n = 0;

	for (size_t i = 0; i < cmp->nrows; i++)
		n += (size_t)pick(&cmp->rows[i], cmp->ncols);
	if (n == 0)
		return;
	fprintf(out, "%s (%zu): ", title, n);
	n = 0;
	for (size_t i = 0; i < cmp->nrows; i++)
		if (pick(&cmp->rows[i], cmp->ncols))
			fprintf(out, "%s%s", n++ ? "; " : "", cmp->rows[i].name);
	fputc('\n', out);
}

/* The most processes a side any row that cannot be resolved needs: 0
 * when every row could be. */
static size_t most_needed(const struct alloclab_comparison *cmp)
{
	size_t most = 0;
	for (size_t i = 0; i < cmp->nrows; i++)
		for (size_t c = 1; c < cmp->ncols; c++) {
			const struct alloclab_comparison_entry *e = &cmp->rows[i].entries[c];
			if (e->compared && !e->reachable && e->processes_needed > most)
				most = e->processes_needed;
		}
	return most;
}

/* Under the rows that cannot be resolved: why, and what would resolve
 * them, so that none reads as a difference inside the noise. */
static void print_needed(const struct alloclab_comparison *cmp, FILE *out)
{
	size_t needed = most_needed(cmp);
	if (needed)
		fprintf(out, "  (these cannot be resolved at the processes measured, whatever their times: the test "
			     "cannot reach p < %.2f with so few; measure at least %zu processes per side, -n %zu)\n",
			cmp->alpha, needed, needed);
}

static void print_not_significant(const struct alloclab_comparison *cmp, FILE *out)
{
	if (strncmp(cmp->metric, "latency_", 8) == 0)
		fprintf(out, "Compared: %s, each process's percentile of its timed calls (--latency)\n", cmp->metric);
	else if (cmp->quantity == ALLOCLAB_QUANTITY_KIB || cmp->quantity == ALLOCLAB_QUANTITY_RATIO ||
		 cmp->quantity == ALLOCLAB_QUANTITY_FAULTS)
		fprintf(out, "Compared: %s, one figure per process (docs/guides/memory.md)\n", cmp->metric);
	print_row_list(cmp, out, cmp->paired ? "Not resolved" : "Not significant", row_plain_not_significant);
	print_row_list(cmp, out, "Cannot be significant with the processes measured", alloclab_row_unreachable);
	print_needed(cmp, out);
	print_row_list(cmp, out, "Not measured in every column (error, not applicable, or no latency)",
		       alloclab_row_unmeasured);
}

static void print_warnings(const struct alloclab_comparison *cmp, FILE *out)
{
	int header = 0;

	for (size_t i = 0; i < cmp->nrows; i++)
		for (size_t c = 0; c < cmp->ncols; c++)
			for (size_t k = 0; k < cmp->rows[i].entries[c].nwarnings; k++) {
				if (!header) {
					fprintf(out, "\nWarnings (!):\n");
					header = 1;
				}
				char column[ALLOCLAB_PRINTED_LEN];
				fprintf(out, "- %s, %s: %s\n", cmp->rows[i].name,
					alloclab_printable(cmp->columns[c], column, sizeof column),
					cmp->rows[i].entries[c].warnings[k]);
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

/* What holds for the whole table is said above it: runs whose environments
 * set the allocators otherwise, and a paired comparison's rows being the
 * ratios of the same processes' times, with their 95% intervals. */
static void print_paired_header(const struct alloclab_comparison *cmp, FILE *out)
{
	char note[ALLOCLAB_PRINTED_LEN * 2];
	for (size_t i = 0; i < cmp->nnotes; i++)
		fprintf(out, "Note: %s.\n\n", alloclab_printable(cmp->notes[i], note, sizeof note));
	if (cmp->paired)
		fputs("Paired: each ratio is of times taken side by side in the same worker processes (the geometric\n"
		      "mean over processes), [its 95% interval]; a ratio whose interval holds 1 is not resolved.\n\n",
		      out);
}

static void print_rst(const struct alloclab_comparison *cmp, FILE *out)
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

static void print_markdown(const struct alloclab_comparison *cmp, FILE *out)
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

/* The unit of the CSV's mean columns: instructions, a memory figure's
 * name, or ns. */
static const char *csv_unit(const struct alloclab_comparison *cmp)
{
	if (cmp->quantity == ALLOCLAB_QUANTITY_COUNTS)
		return "instructions";
	if (strncmp(cmp->metric, "latency_", 8) != 0 && strcmp(cmp->metric, ALLOCLAB_METRIC_TIME) != 0)
		return cmp->metric;
	return "ns";
}

static void print_csv_header(const struct alloclab_comparison *cmp, FILE *out)
{
	char mean[80];
	snprintf(mean, sizeof mean, " mean %s", csv_unit(cmp));
	const char *const suffix[] = {mean, " ratio", " p", " significant", " ratio 95% low", " ratio 95% high"};
	fputs("benchmark", out);
	for (size_t c = 0; c < cmp->ncols; c++)
		for (size_t k = 0; k < (c > 0 ? (cmp->paired ? 6u : 4u) : 1u); k++) {
			char head[512];
			snprintf(head, sizeof head, "%s%s", cmp->columns[c], suffix[k]);
			fputc(',', out);
			alloclab_csv_field(out, head);
		}
	fputc('\n', out);
}

static void print_csv(const struct alloclab_comparison *cmp, FILE *out)
{
	/* A paired comparison's ratios carry their intervals. */
	const int paired = cmp->paired;

	print_csv_header(cmp, out);
	for (size_t i = 0; i < cmp->nrows; i++) {
		alloclab_csv_field(out, cmp->rows[i].name);
		for (size_t c = 0; c < cmp->ncols; c++) {
			const struct alloclab_comparison_entry *e = &cmp->rows[i].entries[c];
			if (e->status != ALLOCLAB_ENTRY_MEASURED) {
				/* No number where there was no measurement: the
				 * columns keep their places. */
				fputs(c > 0 ? (paired ? ",,,,,," : ",,,,") : ",", out);
				continue;
			}
			fprintf(out, ",%.6g", e->mean);
			if (c == 0)
				continue;
			fprintf(out, ",%.6f,", e->compared ? e->ratio : 0.0);
			if (e->compared && e->has_p)
				fprintf(out, "%.6g", e->p);
			/* Never a bare "no" where the test could not decide. */
			if (e->compared && !e->reachable && e->processes_needed)
				fprintf(out, ",cannot tell (needs %zu processes per side)", e->processes_needed);
			else
				fprintf(out, ",%s", e->significant ? "yes" : "no");
			if (paired && e->has_interval && e->tested == ALLOCLAB_TESTED_PAIRED)
				fprintf(out, ",%.6f,%.6f", e->lo, e->hi);
			else if (paired)
				fputs(",,", out);
		}
		fputc('\n', out);
	}
}

static void print_json(const struct alloclab_comparison *cmp, FILE *out)
{
	json_t *doc = alloclab_comparison_to_json(cmp);
	/* ASCII: a bidirectional control or a C1 in a file's text is written
	 * as its \u escape, the same JSON, harmless on a terminal. */
	json_dumpf(doc, out, JSON_INDENT(1) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII);
	fputc('\n', out);
	json_decref(doc);
}

static void show_text(const struct alloclab_results *r, FILE *out)
{
	alloclab_report_print(r, out, 1);
}

static void show_json(const struct alloclab_results *r, FILE *out)
{
	json_t *doc = alloclab_results_to_json(r);
	json_dumpf(doc, out, JSON_INDENT(1) | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII);
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
