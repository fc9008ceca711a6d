/* The paired comparison's table. See pair_report.h. */
#include "pair_report.h"
#include "cells.h"
#include "base/shell_word.h"
#include "statistics/pairs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void alloclab_verdict_words(enum alloclab_verdict v, double ratio, int counts, int paired, char *out, size_t len)
{
	const char *less = counts ? "fewer" : "faster", *more = counts ? "more" : "slower";
	switch (v) {
	case ALLOCLAB_VERDICT_LESS: snprintf(out, len, "%.3gx %s", 1 / ratio, less); break;
	case ALLOCLAB_VERDICT_MORE: snprintf(out, len, "%.3gx %s", ratio, more); break;
	case ALLOCLAB_VERDICT_CANNOT_TELL: snprintf(out, len, paired ? "one process: no interval" : "cannot tell"); break;
	default: snprintf(out, len, "not resolved");
	}
}

void alloclab_verdict_text(const struct alloclab_comparison_entry *e, int counts, char *out, size_t len)
{
	alloclab_verdict_words(e->verdict, e->ratio, counts, e->tested == ALLOCLAB_TESTED_PAIRED, out, len);
}

const char *alloclab_pair_design_note(const struct alloclab_results *r, const struct alloclab_cell *c)
{
	/* The run's design is said once; a row measured otherwise says how. */
	const char *usual = r->facts.slice_ops ? ALLOCLAB_PAIR_SLICES : ALLOCLAB_PAIR_VALUES;
	if (c->pair_design == NULL || strcmp(c->pair_design, usual) == 0)
		return NULL;
	return strcmp(c->pair_design, ALLOCLAB_PAIR_SLICES) == 0   ? "slices"
	       : strcmp(c->pair_design, ALLOCLAB_PAIR_VALUES) == 0 ? "whole values alternated"
								   : "processes of their own, back to back";
}

static void print_noise(const struct alloclab_results *r, FILE *out)
{
	struct alloclab_run_noise noise;
	alloclab_run_noise(r, &noise);
	if (noise.unpaired_cells && noise.paired_cells)
		fprintf(out,
			"\nnoise in this run: a cell's process means varied by %.1f%% (median over %zu cells); the same\n"
			"processes' paired ratios by %.2f%% (median over %zu paired cells)\n",
			noise.unpaired_percent, noise.unpaired_cells, noise.paired_percent, noise.paired_cells);
}

/* One member's entry on one row. */
static void print_entry(const struct alloclab_results *r, const struct alloclab_comparison_entry *e, FILE *out)
{
	char verdict[64], interval[48];

	if (e->status == ALLOCLAB_ENTRY_ERROR || e->status == ALLOCLAB_ENTRY_NOT_APPLICABLE) {
		char message[ALLOCLAB_PRINTED_LEN];
		fprintf(out, "%9s  %-19s %4s %10s  %s: %s\n", "-", "-", "-", "-",
			e->status == ALLOCLAB_ENTRY_ERROR ? "error" : "not applicable",
			alloclab_printable(e->message, message, sizeof message));
		return;
	}
	if (e->status != ALLOCLAB_ENTRY_MEASURED || e->tested != ALLOCLAB_TESTED_PAIRED) {
		fprintf(out, "%9s  %-19s %4s %10s  not measured (interrupted)\n", "-", "-", "-", "-");
		return;
	}
	alloclab_verdict_text(e, 0, verdict, sizeof verdict);
	if (e->has_interval)
		snprintf(interval, sizeof interval, "%.3f .. %.3f", e->lo, e->hi);
	else
		snprintf(interval, sizeof interval, "-");
	const char *how = alloclab_pair_design_note(r, e->cell);
	char faults[32] = "-";
	if (e->has_faults)
		snprintf(faults, sizeof faults, "%.3f", e->faults_per_kop);
	fprintf(out, "%9.3f  %-19s %4u %10s  %s%s%s%s\n", e->ratio, interval, e->npairs, faults, verdict,
		how ? "  (" : "", how ? how : "", how ? ")" : "");
}

/* Under the table, the rows whose page faults differ from the
 * reference's beyond their noise (comparison.c's warnings of that kind),
 * and the reference's own faults where any row has them. */
static void print_fault_notes(const struct alloclab_comparison *cmp, char **columns, FILE *out)
{
	int header = 0;
	for (size_t i = 0; i < cmp->nrows; i++)
		for (size_t c = 1; c < cmp->ncols; c++) {
			const struct alloclab_comparison_entry *e = &cmp->rows[i].entries[c];
			for (size_t w = 0; w < e->nwarnings; w++) {
				if (strncmp(e->warnings[w], "time includes ", 14) != 0)
					continue;
				if (!header)
					fprintf(out, "\npage faults beyond their noise (faults/kop: per 1,000 operations, in the "
						     "timed region):\n");
				header = 1;
				fprintf(out, "  %s, %s: %s\n", cmp->rows[i].name, columns[c], e->warnings[w]);
			}
		}
}

void alloclab_pair_report(const struct alloclab_results *r, FILE *out)
{
	char err[256];
	struct alloclab_comparison *cmp = alloclab_compare_paired_run(r, alloclab_row_names, err, sizeof err);

	if (cmp == NULL)
		return;
	/* The columns are the file's labels: shown as alloclab_printable shows
	 * them (the rows' names are, cells.h). */
	char **columns = calloc(cmp->ncols, sizeof *columns), shown[ALLOCLAB_PRINTED_LEN];
	for (size_t c = 0; columns && c < cmp->ncols; c++)
		columns[c] = strdup(alloclab_printable(cmp->columns[c], shown, sizeof shown));
	int lw = 6, rw = 8;
	for (size_t c = 1; columns && c < cmp->ncols; c++)
		lw = (int)strlen(columns[c]) > lw ? (int)strlen(columns[c]) : lw;
	for (size_t i = 0; i < cmp->nrows; i++)
		rw = (int)strlen(cmp->rows[i].name) > rw ? (int)strlen(cmp->rows[i].name) : rw;
	lw = lw > 40 ? 40 : lw;
	rw = rw > 40 ? 40 : rw;
	fprintf(out, "each plugin's time over %s's, measured side by side in the same processes", columns ? columns[0] : "");
	if (r->facts.slice_ops)
		fprintf(out, " in slices\nof %llu operations", (unsigned long long)r->facts.slice_ops);
	else
		fprintf(out, ",\nvalue by value");
	fprintf(out, " (the geometric mean of the processes' ratios, and its 95%% interval):\n\n");
	fprintf(out, "%-*s  %-*s %9s  %-19s %4s %10s  %s\n", rw, "row", lw, "plugin", "ratio", "95% interval", "n",
		"faults/kop", "verdict");
	for (size_t c = 1; c < cmp->ncols; c++)
		for (size_t i = 0; i < cmp->nrows; i++) {
			const struct alloclab_comparison_entry *e = &cmp->rows[i].entries[c];
			if (e->cell == NULL || e->cell->pair_design == NULL)
				continue;
			fprintf(out, "%-*.*s  %-*.*s ", rw, rw, cmp->rows[i].name, lw, lw, columns ? columns[c] : "");
			print_entry(r, e, out);
		}
	if (columns)
		print_fault_notes(cmp, columns, out);
	print_noise(r, out);
	for (size_t c = 0; columns && c < cmp->ncols; c++)
		free(columns[c]);
	free(columns);
	alloclab_comparison_free(cmp);
}
