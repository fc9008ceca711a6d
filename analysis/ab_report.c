/* The A/B table. See ab_report.h. */
#include "ab_report.h"
#include "base/shell_word.h"

#include "units.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

/* A level in its metric's unit. */
static void level_text(enum alloclab_ab_metric m, double v, char *out, size_t len)
{
	if (m == ALLOCLAB_AB_INSTRUCTIONS)
		snprintf(out, len, "%.3f", v);
	else if (m == ALLOCLAB_AB_TIME)
		alloclab_format_ns(v, out, len);
	else
		alloclab_format_kib(v, out, len);
}

void alloclab_ab_verdict_text(const struct alloclab_ab_row *r, char *out, size_t len)
{
	int more = r->verdict == ALLOCLAB_VERDICT_MORE;
	if (r->status) {
		snprintf(out, len, "%s", r->status);
	} else if (r->verdict == ALLOCLAB_VERDICT_CANNOT_TELL) {
		snprintf(out, len, "cannot tell (too few processes)");
	} else if (r->has_size) {
		/* Whether is the slices' answer, with their figures; how much
		 * is the row's ratio (whole values). */
		snprintf(out, len, "%s: slices %.4f [%.4f .. %.4f]",
			 more ? "slower" : r->verdict == ALLOCLAB_VERDICT_LESS ? "faster" : "not resolved", r->ratio, r->lo,
			 r->hi);
	} else if (r->verdict != ALLOCLAB_VERDICT_LESS && !more) {
		snprintf(out, len, r->metric == ALLOCLAB_AB_INSTRUCTIONS ? "the same" : "not resolved");
	} else if (r->metric == ALLOCLAB_AB_INSTRUCTIONS) {
		snprintf(out, len, "%+.3f instr/op (%.2f%% %s)", r->head - r->base, fabs(r->ratio - 1) * 100,
			 more ? "more" : "fewer");
	} else if (r->metric == ALLOCLAB_AB_TIME) {
		snprintf(out, len, "%.3gx %s (%+.1f%%)", more ? r->ratio : 1 / r->ratio, more ? "slower" : "faster",
			 (r->ratio - 1) * 100);
	} else {
		snprintf(out, len, "%.3gx %s (%+.1f%%)", more ? r->ratio : 1 / r->ratio, more ? "larger" : "smaller",
			 (r->ratio - 1) * 100);
	}
}

static void interval_text(const struct alloclab_ab_row *r, char *out, size_t len)
{
	if (r->has_size)
		snprintf(out, len, "%.4f .. %.4f", r->size_lo, r->size_hi);
	else if (!r->has_interval)
		snprintf(out, len, "-");
	else if (r->metric == ALLOCLAB_AB_INSTRUCTIONS && r->lo == r->hi)
		snprintf(out, len, "exact");
	else
		snprintf(out, len, "%.4f .. %.4f", r->lo, r->hi);
}

/* A row's texts: levels, ratio (16 bytes), interval (48) and verdict
 * (80); "-" where a row was not measured. */
static void row_texts(const struct alloclab_ab_row *r, char *b, char *h, char *ratio, char *iv, char *v)
{
	alloclab_ab_verdict_text(r, v, 80);
	if (r->status) {
		snprintf(b, 32, "-");
		snprintf(h, 32, "-");
		snprintf(iv, 48, "-");
		return;
	}
	level_text(r->metric, r->base, b, 32);
	level_text(r->metric, r->head, h, 32);
	interval_text(r, iv, 48);
	snprintf(ratio, 16, "%.4f", r->has_size ? r->size_ratio : r->ratio);
}

static const char *metric_label(enum alloclab_ab_metric m)
{
	return m == ALLOCLAB_AB_INSTRUCTIONS ? "instructions" : m == ALLOCLAB_AB_TIME ? "time" : "peak memory";
}

/* The gate's outcome of a row, in words: NULL when it passes (always,
 * between builds that load the same code: ab.h's same_code). */
static const char *gate_text(const struct alloclab_ab_report *rep, const struct alloclab_ab_row *r)
{
	return rep->thresholds && !rep->result->same_code && alloclab_ab_row_fails(r, rep->thresholds) ? "FAIL" : NULL;
}

/* A line under the table when the two builds load the same code. */
static void print_same_code(const struct alloclab_ab_report *rep, const char *bullet, FILE *out)
{
	if (rep->result->same_code)
		fprintf(out,
			"%sBASE and HEAD load the same code (their plugins' loaded bytes are one; debugging information "
			"aside): a difference in time or memory between them is chance and where they lie in memory, not "
			"what they do%s\n",
			bullet, rep->thresholds ? ", and the gate fails no row" : "");
}

/* Each measured metric's design, a line each under the table. */
static void print_designs(const struct alloclab_ab_result *res, const char *bullet, FILE *out)
{
	for (int m = 0; m < ALLOCLAB_AB_NMETRICS; m++)
		for (size_t i = 0; i < res->nrows; i++)
			if (res->rows[i].metric == (enum alloclab_ab_metric)m) {
				const struct alloclab_ab_row *r = &res->rows[i];
				if (r->has_size)
					fprintf(out,
						"%stime: whether from %s (the verdict, with its figures); how much from "
						"paired whole values (the ratio and its interval, what a user of either "
						"build sees; the gate's size)\n",
						bullet, r->design);
				else
					fprintf(out, "%s%s: %s\n", bullet, metric_label(r->metric), r->design);
				break;
			}
}

/* The time rows' page faults, a line each, under the table: BASE's and
 * HEAD's per 1,000 operations, and what a difference beyond their noise
 * means for the time. Nothing where no row counted them. */
static void print_faults(const struct alloclab_ab_result *res, const char *bullet, FILE *out)
{
	int header = 0;
	for (size_t i = 0; i < res->nrows; i++) {
		const struct alloclab_ab_row *r = &res->rows[i];
		if (!r->has_faults || r->status)
			continue;
		if (!header)
			fprintf(out, "%spage faults per 1,000 operations in the timed region, BASE / HEAD:\n", bullet[0] ? "\n" : "");
		header = 1;
		fprintf(out, "%s%s: %.3f / %.3f%s%s\n", bullet[0] ? "  - " : "  ", r->name, r->base_faults, r->head_faults,
			r->fault_note ? ": " : "", r->fault_note ? r->fault_note : "");
	}
}

/* Where each changed instructions row's instructions went: its functions
 * whose own count per op moved most. */
static void print_functions(const struct alloclab_ab_report *rep, int markdown, FILE *out)
{
	if (rep->nfunctions == 0)
		return;
	fprintf(out, "%swhere the instructions went (each function's own instructions per op, BASE -> HEAD; "
		     "callgrind, the last value of each side):%s\n",
		markdown ? "**" : "", markdown ? "**" : "");
	for (size_t i = 0; i < rep->nfunctions; i++) {
		const struct alloclab_ab_functions *f = &rep->functions[i];
		const char *row = rep->result->rows[f->row].name;
		char text[ALLOCLAB_PRINTED_LEN];
		if (f->why) {
			fprintf(out, "%s%s: not read (%s)\n", markdown ? "- " : "  ", row,
				alloclab_printable(f->why, text, sizeof text));
			continue;
		}
		if (markdown) {
			fputs("\n| ", out);
			for (const char *c = row; *c; c++)
				fprintf(out, *c == '|' ? "\\|" : "%c", *c);
			fputs(": function | BASE | HEAD | change |\n|---|---:|---:|---:|\n", out);
		} else {
			fprintf(out, "  %s:\n", row);
		}
		for (size_t k = 0; k < f->ntop; k++) {
			const struct alloclab_ab_function *fn = &f->top[k];
			/* A function's name is the plugin's symbol, as callgrind's
			 * dump of someone's build says it. */
			alloclab_printable(fn->function, text, sizeof text);
			if (markdown) {
				fputs("| `", out);
				for (const char *c = text; *c; c++)
					fprintf(out, *c == '|' ? "\\|" : *c == '`' ? "'" : "%c", *c);
				fprintf(out, "` | %.3f | %.3f | %+.3f |\n", fn->base, fn->head, fn->head - fn->base);
			} else {
				fprintf(out, "    %+10.3f  %-56.56s %10.3f -> %.3f\n", fn->head - fn->base, text, fn->base,
					fn->head);
			}
		}
	}
	fputc('\n', out);
}

static void print_text(const struct alloclab_ab_report *rep, FILE *out)
{
	const struct alloclab_ab_result *res = rep->result;
	int rw = 8;
	for (size_t i = 0; i < res->nrows; i++)
		rw = (int)strlen(res->rows[i].name) > rw ? (int)strlen(res->rows[i].name) : rw;
	rw = rw > 40 ? 40 : rw;
	char head[ALLOCLAB_PRINTED_LEN], base[ALLOCLAB_PRINTED_LEN];
	fprintf(out, "HEAD (%s) over BASE (%s):\n\n", alloclab_printable(rep->head_name, head, sizeof head),
		alloclab_printable(rep->base_name, base, sizeof base));
	fprintf(out, "%-12s  %-*s %12s %12s %8s  %-18s %4s  %s\n", "metric", rw, "row", "BASE", "HEAD", "ratio",
		"95% interval", "n", "verdict");
	for (size_t i = 0; i < res->nrows; i++) {
		const struct alloclab_ab_row *r = &res->rows[i];
		char b[32], h[32], iv[48], v[80];
		char ratio[16] = "-";
		row_texts(r, b, h, ratio, iv, v);
		const char *gate = gate_text(rep, r);
		fprintf(out, "%-12s  %-*.*s %12s %12s %8s  %-18s %4u  %s%s%s\n", metric_label(r->metric), rw, rw, r->name, b,
			h, ratio, iv, r->n, v, gate ? "  <- " : "", gate ? gate : "");
	}
	fputc('\n', out);
	print_same_code(rep, "", out);
	print_functions(rep, 0, out);
	print_designs(res, "", out);
	print_faults(res, "", out);
}

static void print_markdown(const struct alloclab_ab_report *rep, FILE *out)
{
	const struct alloclab_ab_result *res = rep->result;
	int failing = 0;
	for (size_t i = 0; i < res->nrows; i++)
		failing += gate_text(rep, &res->rows[i]) != NULL;
	char head[ALLOCLAB_PRINTED_LEN], base[ALLOCLAB_PRINTED_LEN];
	fprintf(out, "### alloclab ab: %s over %s\n\n", alloclab_printable(rep->head_name, head, sizeof head),
		alloclab_printable(rep->base_name, base, sizeof base));
	if (rep->thresholds)
		fprintf(out, "**%s**%s\n\n", failing ? "Regression above the threshold" : "No regression above the threshold",
			failing ? ": the rows marked FAIL" : "");
	fputs("| metric | row | BASE | HEAD | ratio | 95% interval | verdict |\n|---|---|---:|---:|---:|---|---|\n", out);
	for (size_t i = 0; i < res->nrows; i++) {
		const struct alloclab_ab_row *r = &res->rows[i];
		char b[32], h[32], iv[48], v[80];
		char ratio[16] = "-";
		row_texts(r, b, h, ratio, iv, v);
		const char *gate = gate_text(rep, r);
		/* A label from outside goes into the table as text: a '|' would
		 * open a column. */
		fprintf(out, "| %s | ", metric_label(r->metric));
		for (const char *c = r->name; *c; c++)
			fprintf(out, *c == '|' ? "\\|" : "%c", *c);
		fprintf(out, " | %s | %s | %s | %s | %s%s |\n", b, h, ratio, iv, v, gate ? " **FAIL**" : "");
	}
	fputc('\n', out);
	print_same_code(rep, "- ", out);
	print_functions(rep, 1, out);
	print_designs(res, "- ", out);
	print_faults(res, "- ", out);
}

static void print_json(const struct alloclab_ab_report *rep, FILE *out)
{
	const struct alloclab_ab_result *res = rep->result;
	json_t *rows = json_array(), *files = json_object();
	static const char *const verdicts[] = {"none", "less", "more", "not resolved", "cannot tell"};
	for (size_t i = 0; i < res->nrows; i++) {
		const struct alloclab_ab_row *r = &res->rows[i];
		if (r->status) {
			json_array_append_new(rows, json_pack("{s:s,s:s,s:s}", "metric", alloclab_ab_metric_names[r->metric],
							      "row", r->name, "status", r->status));
			continue;
		}
		json_t *row = json_pack("{s:s,s:s,s:f,s:f,s:f,s:o,s:s,s:i,s:s,s:b}", "metric", alloclab_ab_metric_names[r->metric],
					"row", r->name, "base", r->base, "head", r->head, "ratio", r->ratio, "interval",
					r->has_interval ? json_pack("[f,f]", r->lo, r->hi) : json_null(), "verdict",
					verdicts[r->verdict], "n", (int)r->n, "design", r->design, "fails",
					gate_text(rep, r) != NULL);
		if (r->has_size)
			json_object_set_new(row, "how_much",
					    json_pack("{s:f,s:[f,f],s:s}", "ratio", r->size_ratio, "interval", r->size_lo,
						      r->size_hi, "design", "paired, whole values"));
		double threshold = rep->thresholds ? alloclab_ab_gate_threshold(rep->thresholds, r) : -1;
		json_object_set_new(row, "threshold_percent", threshold >= 0 ? json_real(threshold) : json_null());
		if (r->has_faults)
			json_object_set_new(row, "faults_per_1000_ops",
					    json_pack("{s:f,s:f,s:s?}", "base", r->base_faults, "head", r->head_faults, "note",
						      r->fault_note));
		json_array_append_new(rows, row);
	}
	for (int m = 0; m < ALLOCLAB_AB_NMETRICS; m++)
		if (res->files[m][0])
			json_object_set_new(files, alloclab_ab_metric_names[m], json_string(res->files[m]));
	if (res->size_file[0])
		json_object_set_new(files, ALLOCLAB_AB_TIME_SIZE, json_string(res->size_file));
	json_t *doc = json_pack("{s:s,s:s,s:o,s:o,s:b}", "base", rep->base_name, "head", rep->head_name, "rows", rows,
				"results", files, "same_code", res->same_code);
	/* ASCII: a program that reads it sees every character of a name
	 * escaped, none that a terminal would act on. */
	json_dumpf(doc, out, JSON_INDENT(1) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII);
	fputc('\n', out);
	json_decref(doc);
}

const struct alloclab_ab_format alloclab_ab_formats[] = {
	{"text", print_text},
	{"md", print_markdown},
	{"markdown", print_markdown},
	{"json", print_json},
	{NULL, NULL},
};

const struct alloclab_ab_format *alloclab_ab_format_find(const char *name)
{
	for (const struct alloclab_ab_format *f = alloclab_ab_formats; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}
