/*
 * The unicode workload's report: the seed's lines, byte for byte in its
 * format, then the cache-line placement of every line. Best values are
 * taken over all values and processes of the cell; with several threads
 * each thread's best and the aggregate follow the seed's two lines.
 */
#include "workload.h"

#include <stdlib.h>
#include <string.h>

/* One line of the seed: "Variant 2chars, 1024 words, Unicode: 0.005503
 * seconds = 0.054 us per object" and "(best of 50 rounds)". `seconds` is
 * one round; a round allocates words x reps objects. */
void alloclab_unicode_seed_line(FILE *out, const char *variant, unsigned words, int bytes, double seconds,
				unsigned reps, unsigned rounds);
void alloclab_unicode_seed_line(FILE *out, const char *variant, unsigned words, int bytes, double seconds,
				unsigned reps, unsigned rounds)
{
	fprintf(out, "Variant %s, %u words, %s: %.6f seconds = %.3f us per object\n", variant, words,
		bytes ? "Bytes " : "Unicode", seconds, seconds * 1e6 / ((double)words * reps));
	fprintf(out, "(best of %u rounds)\n", rounds);
}

/* "=== 1024 words ===...": 75 columns, as the seed. */
static void words_rule(FILE *out, unsigned words)
{
	int n = fprintf(out, "=== %u words ", words);
	for (; n < 75; n++)
		fputc('=', out);
	fputc('\n', out);
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
static void sizes_text(const json_t *sizes, char *out, size_t len)
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
	if (n > 4 && used < len)
		snprintf(out + used, len - used, " +%zu sizes", n - 4);
}

void alloclab_unicode_print_cell(const json_t *cell, FILE *out);
void alloclab_unicode_print_cell(const json_t *cell, FILE *out)
{
	const json_t *params = json_object_get(cell, "params");
	unsigned threads = (unsigned)json_integer_value(json_object_get(cell, "threads")), nlines = 0, reps = 1;
	unsigned shown = threads < 64 ? threads : 64;
	struct best lines[64];
	json_t *run, *value, *rep, *line;
	size_t i, k, t, l;
	const char *options = json_string_value(json_object_get(cell, "plugin_options"));

	memset(lines, 0, sizeof lines);
	json_array_foreach(json_object_get(cell, "runs"), i, run)
		json_array_foreach(json_object_get(run, "values"), k, value)
			json_array_foreach(json_object_get(value, "thread_reports"), t, rep)
	{
		if (t >= 64 || !json_is_object(rep))
			continue;
		reps = (unsigned)json_integer_value(json_object_get(rep, "reps"));
		json_array_foreach(json_object_get(rep, "lines"), l, line)
		{
			if (l >= 64)
				break;
			struct best *b = &lines[l];
			uint64_t ns = (uint64_t)json_integer_value(json_object_get(line, "best_ns"));
			if (b->variant == NULL) {
				b->variant = json_string_value(json_object_get(line, "variant"));
				b->kind = json_string_value(json_object_get(line, "kind"));
				b->words = (unsigned)json_integer_value(json_object_get(line, "words"));
				b->rounds = (unsigned)json_array_size(json_object_get(line, "rounds_ns"));
				nlines = l + 1 > nlines ? (unsigned)l + 1 : nlines;
			}
			if (b->best[t] == 0 || ns < b->best[t])
				b->best[t] = ns;
			if (t == 0 && b->placement == NULL)
				b->placement = json_object_get(line, "placement");
		}
	}
	if (nlines == 0)
		return;

	fprintf(out, "\nTesting Unicode/Bytes Allocation Speed with %s%s%s%s, layout %s (%s), %u thread%s\n",
		json_string_value(json_object_get(cell, "plugin")), options && *options ? ":" : "",
		options ? options : "", json_is_true(json_object_get(cell, "cache_aligned")) ? " (cache-aligned)" : "",
		json_string_value(json_object_get(params, "layout")), json_string_value(json_object_get(params, "charset")),
		threads, threads > 1 ? "s" : "");
	fprintf(out, "------------------------------------------------------------------------\n");
	for (unsigned n = 0; n < nlines; n++) {
		struct best *b = &lines[n];
		uint64_t best = UINT64_MAX;
		if (n == 0 || lines[n - 1].words != b->words)
			words_rule(out, b->words);
		for (unsigned th = 0; th < shown; th++)
			if (b->best[th] && b->best[th] < best)
				best = b->best[th];
		alloclab_unicode_seed_line(out, b->variant, b->words, strcmp(b->kind, "bytes") == 0, (double)best * 1e-9,
					   reps, b->rounds);
		if (threads > 1) {
			double aggregate = 0;
			fprintf(out, "(per thread:");
			for (unsigned th = 0; th < shown; th++) {
				fprintf(out, " %.3f", (double)b->best[th] * 1e-3 / ((double)b->words * reps));
				aggregate += (double)b->words * reps / ((double)b->best[th] * 1e-9);
			}
			fprintf(out, " us per object; aggregate %.1f M objects/s)\n", aggregate * 1e-6);
		}
	}

	/* Unicode against Bytes, line by line: the seed's question. */
	fprintf(out, "\nUnicode / Bytes (best us per object):");
	for (unsigned n = 0; n + 1 < nlines; n++) {
		struct best *u = &lines[n], *b = &lines[n + 1];
		uint64_t bu = UINT64_MAX, bb = UINT64_MAX;
		if (strcmp(u->kind, "unicode") != 0 || strcmp(b->kind, "bytes") != 0 || u->words != b->words)
			continue;
		for (unsigned th = 0; th < shown; th++) {
			if (u->best[th] && u->best[th] < bu)
				bu = u->best[th];
			if (b->best[th] && b->best[th] < bb)
				bb = b->best[th];
		}
		if (n == 0 || lines[n - 1].words != u->words)
			fprintf(out, "\n  %5u words:", u->words);
		fprintf(out, " %s %.2f", u->variant, (double)bu / (double)bb);
	}
	fputc('\n', out);

	fprintf(out, "\nCache-line placement (%lld-byte lines), one pass after the rounds:\n",
		lines[0].placement ? (long long)json_integer_value(json_object_get(lines[0].placement, "line_size")) : 64LL);
	fprintf(out, "%-8s %6s %-8s %-44s %10s  %s\n", "variant", "words", "kind", "block sizes (bytes x count)",
		"straddling", threads > 1 ? "lines shared by 2+ threads" : "");
	for (unsigned n = 0; n < nlines; n++) {
		const json_t *p = lines[n].placement;
		char sizes[256];
		if (p == NULL)
			continue;
		long long blocks = (long long)json_integer_value(json_object_get(p, "blocks"));
		long long strad = (long long)json_integer_value(json_object_get(p, "straddling"));
		sizes_text(json_object_get(p, "sizes"), sizes, sizeof sizes);
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
