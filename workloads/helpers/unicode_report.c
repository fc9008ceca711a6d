/*
 * The unicode workload's report: the lines of the 2008 Unicode/Bytes
 * allocation benchmark posted to python-dev, byte for byte in its format,
 * then the cache-line placement of every line, its picture, and the check
 * of what a results file says of them (results files are untrusted: after
 * alloclab_unicode_check_report the printers rely on every field).
 * Best values are taken over all values and processes of the cell; with
 * several threads each thread's best and the aggregate follow the
 * benchmark's two lines.
 */
#include "unicode_report.h"
#include "figures/figure.h"
#include "measure/placement.h"
#include "results/results.h"
#include "workload/workload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void alloclab_unicode_seed_line(FILE *out, const char *variant, unsigned words, int bytes, double seconds,
				unsigned reps, unsigned rounds)
{
	fprintf(out, "Variant %s, %u words, %s: %.6f seconds = %.3f us per object\n", variant, words,
		bytes ? "Bytes " : "Unicode", seconds, seconds * 1e6 / ((double)words * reps));
	fprintf(out, "(best of %u rounds)\n", rounds);
}

/* "=== 1024 words ===...": 75 columns, as the benchmark printed. */
static void words_rule(FILE *out, unsigned words)
{
	int n = fprintf(out, "=== %u words ", words);
	for (; n < 75; n++)
		fputc('=', out);
	fputc('\n', out);
}

/* ---- checking ---- */

#define MAX_LINES 64

static int check_line_head(const json_t *line, size_t i, char *err, size_t err_len)
{
	json_t *variant = json_object_get(line, "variant"), *words = json_object_get(line, "words");
	const char *kind = json_string_value(json_object_get(line, "kind"));

	if (!json_is_object(line) || !json_is_string(variant) || json_string_length(variant) > 32 ||
	    !json_is_integer(words) || json_integer_value(words) < 1 || json_integer_value(words) > (1 << 20) ||
	    kind == NULL || (strcmp(kind, "unicode") != 0 && strcmp(kind, "bytes") != 0)) {
		snprintf(err, err_len, "unicode line %zu lacks a variant, a word count (1..2^20) or a kind (unicode, bytes)", i);
		return -1;
	}
	return 0;
}

int alloclab_unicode_check_report(int per_process, const json_t *report, char *err, size_t err_len)
{
	json_t *lines = json_object_get(report, "lines"), *line, *reps = json_object_get(report, "reps");
	size_t i, k;

	if (!json_is_array(lines) || json_array_size(lines) > MAX_LINES) {
		snprintf(err, err_len, "unicode report has no lines array of at most %d lines", MAX_LINES);
		return -1;
	}
	if (!per_process && (!json_is_integer(reps) || json_integer_value(reps) < 1 || json_integer_value(reps) > 100000)) {
		snprintf(err, err_len, "unicode report's reps is not a whole number in 1..100000");
		return -1;
	}
	json_array_foreach(lines, i, line)
	{
		if (check_line_head(line, i, err, err_len) != 0)
			return -1;
		if (per_process) {
			char why[200];
			if (alloclab_placement_check(json_object_get(line, "placement"), why, sizeof why) != 0) {
				snprintf(err, err_len, "unicode line %zu: %s", i, why);
				return -1;
			}
			continue;
		}
		json_t *best = json_object_get(line, "best_ns"), *rounds = json_object_get(line, "rounds_ns"), *r;
		if (!json_is_integer(best) || json_integer_value(best) < 1 || !json_is_array(rounds) ||
		    json_array_size(rounds) < 1 || json_array_size(rounds) > 100000) {
			snprintf(err, err_len, "unicode line %zu lacks a positive best_ns or its rounds_ns", i);
			return -1;
		}
		json_array_foreach(rounds, k, r)
			if (!json_is_integer(r) || json_integer_value(r) < 0) {
				snprintf(err, err_len, "unicode line %zu: rounds_ns[%zu] is not a non-negative whole number", i, k);
				return -1;
			}
	}
	return 0;
}

struct best {
	const char *variant, *kind;
	unsigned words;
	uint64_t best[64]; /* per thread: the first 64 threads are reported */
	const json_t *placement;   /* thread 0's, from the first value */
	unsigned rounds;
};

/* "43x1024" or, for the text variant's many sizes, the commonest four and
 * how many more. */
static void sizes_text(const json_t *sizes, long long distinct, char *out, size_t len)
{
	const char *key;
	json_t *count;
	const char *keys[512];
	long long counts[512];
	size_t n = 0, used = 0;

	json_object_foreach((json_t *)sizes, key, count)
		if (n < 512) {
			keys[n] = key;
			counts[n++] = (long long)json_integer_value(count);
		}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && counts[j] > counts[j - 1]; j--) {
			long long c = counts[j];
			const char *k = keys[j];
			counts[j] = counts[j - 1], keys[j] = keys[j - 1];
			counts[j - 1] = c, keys[j - 1] = k;
		}
	out[0] = '\0';
	for (size_t i = 0; i < n && i < 4 && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%sx%lld", i ? " " : "", keys[i], counts[i]);
	if (distinct < (long long)n)
		distinct = (long long)n;
	if (distinct > 4 && used < len)
		snprintf(out + used, len - used, " +%lld sizes", distinct - 4);
}

/* Thread 0's placement of line l in the cell's first process. */
static const json_t *line_placement(const struct alloclab_cell *cell, size_t l)
{
	for (struct alloclab_report_iter it = alloclab_reports(cell, ALLOCLAB_REPORTS_PER_PROCESS);
	     alloclab_reports_next(&it);) {
		json_t *line = json_array_get(json_object_get(it.report, "lines"), l);
		if (it.thread == 0 && line)
			return json_object_get(line, "placement");
	}
	return NULL;
}

/* Each line's best time per thread over the cell's values (of the first
 * 64 threads); the number of lines, and the benchmark's reps in *reps. */
static unsigned best_lines(const struct alloclab_cell *cell, struct best *lines, unsigned *reps)
{
	unsigned nlines = 0;
	json_t *line;
	size_t l;

	memset(lines, 0, MAX_LINES * sizeof *lines);
	for (struct alloclab_report_iter it = alloclab_reports(cell, ALLOCLAB_REPORTS_PER_VALUE); alloclab_reports_next(&it);) {
		unsigned t = it.thread;
		if (t >= 64)
			continue;
		*reps = (unsigned)json_integer_value(json_object_get(it.report, "reps"));
		json_array_foreach(json_object_get(it.report, "lines"), l, line)
		{
			struct best *b = &lines[l];
			uint64_t ns = (uint64_t)json_integer_value(json_object_get(line, "best_ns"));
			if (b->variant == NULL) {
				b->variant = json_string_value(json_object_get(line, "variant"));
				b->kind = json_string_value(json_object_get(line, "kind"));
				b->words = (unsigned)json_integer_value(json_object_get(line, "words"));
				b->rounds = (unsigned)json_array_size(json_object_get(line, "rounds_ns"));
				b->placement = line_placement(cell, l);
				nlines = l + 1 > nlines ? (unsigned)l + 1 : nlines;
			}
			if (b->best[t] == 0 || ns < b->best[t])
				b->best[t] = ns;
		}
	}
	return nlines;
}

/* A line's best time over its first `shown` threads; UINT64_MAX none. */
static uint64_t best_of(const struct best *b, unsigned shown)
{
	uint64_t best = UINT64_MAX;
	for (unsigned th = 0; th < shown; th++)
		if (b->best[th] && b->best[th] < best)
			best = b->best[th];
	return best;
}

/* The benchmark's own lines, as the 2008 program printed them, with each
 * thread's time where there are several. */
static void print_benchmark_lines(const struct alloclab_cell *cell, const struct best *lines, unsigned nlines,
				  unsigned reps, FILE *out)
{
	const char *layout = json_string_value(json_object_get(cell->params, "layout"));
	const char *charset = json_string_value(json_object_get(cell->params, "charset"));
	unsigned threads = cell->threads, shown = threads < 64 ? threads : 64;

	fprintf(out, "\nTesting Unicode/Bytes Allocation Speed with %s%s, layout %s (%s), %u thread%s\n", cell->plugin,
		cell->cache_aligned ? " (cache-aligned)" : "", layout ? layout : "?", charset ? charset : "?", threads,
		threads > 1 ? "s" : "");
	fprintf(out, "------------------------------------------------------------------------\n");
	for (unsigned n = 0; n < nlines; n++) {
		const struct best *b = &lines[n];
		if (b->variant == NULL)
			continue;
		if (n == 0 || lines[n - 1].words != b->words)
			words_rule(out, b->words);
		uint64_t best = best_of(b, shown);
		if (best == UINT64_MAX)
			continue;
		alloclab_unicode_seed_line(out, b->variant, b->words, strcmp(b->kind, "bytes") == 0, (double)best * 1e-9,
					   reps, b->rounds);
		if (threads > 1) {
			double aggregate = 0;
			fprintf(out, "(per thread:");
			for (unsigned th = 0; th < shown; th++) {
				if (b->best[th] == 0)
					continue;
				fprintf(out, " %.3f", (double)b->best[th] * 1e-3 / ((double)b->words * reps));
				aggregate += (double)b->words * reps / ((double)b->best[th] * 1e-9);
			}
			fprintf(out, " us per object; aggregate %.1f M objects/s)\n", aggregate * 1e-6);
		}
	}
}

/* Unicode against Bytes, line by line: the benchmark's question, with the
 * times to more digits than its format's three decimals of a microsecond,
 * which hide the differences between allocators. */
static void print_unicode_against_bytes(const struct best *lines, unsigned nlines, unsigned reps, unsigned shown,
					FILE *out)
{
	fprintf(out, "\nUnicode against Bytes, best ns per object:\n  %5s  %-8s %9s %9s %14s\n", "words", "variant",
		"Unicode", "Bytes", "Unicode/Bytes");
	for (unsigned n = 0; n + 1 < nlines; n++) {
		const struct best *u = &lines[n], *b = &lines[n + 1];
		if (u->variant == NULL || b->variant == NULL || strcmp(u->kind, "unicode") != 0 ||
		    strcmp(b->kind, "bytes") != 0 || u->words != b->words)
			continue;
		uint64_t bu = best_of(u, shown), bb = best_of(b, shown);
		fprintf(out, "  %5u  %-8s %9.2f %9.2f %14.3f\n", u->words, u->variant, (double)bu / ((double)u->words * reps),
			(double)bb / ((double)b->words * reps), (double)bu / (double)bb);
	}
}

/* Where each line's blocks fell on cache lines, from the pass after the
 * rounds. */
static void print_line_placement(const struct best *lines, unsigned nlines, unsigned threads, FILE *out)
{
	fprintf(out, "\nCache-line placement (%lld-byte lines), one pass after the rounds:\n",
		(long long)json_integer_value(json_object_get(lines[0].placement, "line_size")));
	fprintf(out, "%-8s %6s %-8s %-44s %10s  %s\n", "variant", "words", "kind", "block sizes (bytes x count)",
		"straddling", threads > 1 ? "lines shared by 2+ threads" : "");
	for (unsigned n = 0; n < nlines; n++) {
		const json_t *p = lines[n].placement;
		char sizes[256];
		if (p == NULL || lines[n].variant == NULL)
			continue;
		long long blocks = (long long)json_integer_value(json_object_get(p, "blocks"));
		long long strad = (long long)json_integer_value(json_object_get(p, "straddling"));
		sizes_text(json_object_get(p, "sizes"), (long long)json_integer_value(json_object_get(p, "distinct_sizes")),
			   sizes, sizeof sizes);
		fprintf(out, "%-8s %6u %-8s %-44s %9.1f%%", lines[n].variant, lines[n].words,
			strcmp(lines[n].kind, "bytes") == 0 ? "Bytes" : "Unicode", sizes,
			blocks ? 100.0 * (double)strad / (double)blocks : 0.0);
		if (json_object_get(p, "lines_total")) {
			long long total = (long long)json_integer_value(json_object_get(p, "lines_total"));
			long long shared = (long long)json_integer_value(json_object_get(p, "lines_shared"));
			fprintf(out, "  %.2f%% of %lld", total ? 100.0 * (double)shared / (double)total : 0.0, total);
		}
		fputc('\n', out);
	}
}

void alloclab_unicode_print_cell(const struct alloclab_cell *cell, FILE *out)
{
	struct best lines[MAX_LINES];
	unsigned reps = 1, shown = cell->threads < 64 ? cell->threads : 64;
	unsigned nlines = best_lines(cell, lines, &reps);

	if (nlines == 0)
		return;
	print_benchmark_lines(cell, lines, nlines, reps, out);
	print_unicode_against_bytes(lines, nlines, reps, shown, out);
	if (lines[0].placement != NULL)
		print_line_placement(lines, nlines, cell->threads, out);
}

/* Where blocks start within a cache line, summed over every line of the
 * placement passes of a plugin's cells (every thread count; one bar group
 * per layout when several were run): a bar per plugin at each offset that
 * holds any block, so the few offsets an allocator uses are what is seen. */
void alloclab_unicode_figures(const struct alloclab_cell *const *cells, size_t n, struct alloclab_figure_list *out)
{
	struct alloclab_placement_sum *sums = calloc(n + 1, sizeof *sums);
	char **names = calloc(n + 1, sizeof *names);
	size_t nseries = 0;
	uint64_t line_size = 0;
	int layouts_vary = 0;

	for (size_t i = 0; i < n; i++)
		layouts_vary |= !json_equal(json_object_get(cells[i]->params, "layout"),
					    json_object_get(cells[0]->params, "layout"));
	for (size_t i = 0; i < n; i++) {
		const struct alloclab_cell *c = cells[i];
		const json_t *layout = json_object_get(c->params, "layout");
		char name[600];
		size_t k;
		snprintf(name, sizeof name, "%s%s%s%s", c->plugin, c->cache_aligned ? " +align" : "", layouts_vary ? ", " : "",
			 layouts_vary && json_is_string(layout) ? json_string_value(layout) : "");
		for (k = 0; k < nseries && strcmp(names[k], name) != 0; k++)
			;
		if (k == nseries)
			names[nseries++] = strdup(name);
		for (struct alloclab_report_iter it = alloclab_reports(c, ALLOCLAB_REPORTS_PER_PROCESS);
		     alloclab_reports_next(&it);) {
			json_t *line;
			size_t l;
			json_array_foreach(json_object_get(it.report, "lines"), l, line)
				alloclab_placement_add(&sums[k], json_object_get(line, "placement"));
		}
		if (sums[k].line_size)
			line_size = sums[k].line_size;
	}
	if (line_size > 256)
		line_size = 256;
	if (line_size) {
		int used[256] = {0};
		double *total = calloc(nseries + 1, sizeof *total);
		for (size_t k = 0; k < nseries; k++) {
			total[k] = 0;
			for (size_t b = 0; b < line_size; b++) {
				total[k] += (double)sums[k].offsets[b];
				used[b] |= sums[k].offsets[b] > 0;
			}
		}
		struct alloclab_figure *f = alloclab_figure_add(
			out, "unicode-offsets", "unicode: where blocks start within a cache line (the offsets any block starts at)",
			"offset of the block's start within its cache line", "share of the plugin's blocks (%)",
			ALLOCLAB_FIGURE_BARS);
		size_t ncat = 0;
		f->ymin_zero = 1;
		for (size_t b = 0; b < line_size; b++)
			if (used[b]) {
				char cat[32];
				snprintf(cat, sizeof cat, "%zu B", b);
				alloclab_figure_category(f, cat);
				ncat++;
			}
		for (size_t k = 0; k < nseries; k++) {
			if (total[k] == 0)
				continue;
			struct alloclab_series *se = alloclab_figure_series(f, names[k], ncat);
			for (size_t b = 0, x = 0; b < line_size; b++)
				if (used[b]) {
					se->y[x] = 100.0 * (double)sums[k].offsets[b] / total[k];
					se->err[x++] = 0;
				}
		}
		free(total);
	}
	for (size_t k = 0; k < nseries; k++)
		free(names[k]);
	free(names);
	free(sums);
}
