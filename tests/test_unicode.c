/*
 * The unicode workload: string sizes per layout against docs/background/string-layouts.md,
 * the benchmark's line format byte for byte, the cache-line arithmetic on
 * synthetic addresses, deterministic word lists, bad text files, and a run
 * through the command that prints the benchmark's lines and keeps every round.
 */
#include "measure/placement.h"
#include "helpers.h"
#include "registry.h"
#include "results/results.h"
#include "helpers/string_layouts.h"
#include "helpers/words.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include "helpers/unicode_report.h"
#include <stdlib.h>
#include <string.h>


Test(unicode, layout_sizes_follow_the_documented_layouts)
{
	/* 'abc': 3.12 requests 44 (40 + 3 + 1), 3.11 52 (48 + 3 + 1). */
	cr_expect_eq(str_unicode_blocks(STR_PY312, STR_ASCII, 3).object, 44);
	cr_expect_eq(str_unicode_blocks(STR_PY33, STR_ASCII, 3).object, 52);
	cr_expect_eq(str_unicode_blocks(STR_PY33, STR_ASCII, 3).buffer, 0);
	/* Compact non-ASCII: 72 + (n+1)k on 3.3-3.11, 56 + (n+1)k on 3.12. */
	cr_expect_eq(str_unicode_blocks(STR_PY33, STR_LATIN1, 10).object, 72 + 11);
	cr_expect_eq(str_unicode_blocks(STR_PY33, STR_BMP, 10).object, 72 + 22);
	cr_expect_eq(str_unicode_blocks(STR_PY312, STR_ASTRAL, 10).object, 56 + 44);
	/* 2.6: 48-byte object + (n+1)*2|4 buffer; 3.1: 56-byte object. */
	struct str_blocks b = str_unicode_blocks(STR_PY26_UCS2, STR_ASCII, 9);
	cr_expect(b.object == 48 && b.buffer == 20 && b.width == 2);
	b = str_unicode_blocks(STR_PY26_UCS4, STR_ASCII, 9);
	cr_expect(b.object == 48 && b.buffer == 40 && b.width == 4);
	b = str_unicode_blocks(STR_PY31_UCS2, STR_BMP, 2);
	cr_expect(b.object == 56 && b.buffer == 6);
	/* Bytes: 40 + n on 2.6, 33 + n from 3.0. */
	cr_expect_eq(str_bytes_blocks(STR_PY26_UCS2, 4).object, 44);
	cr_expect_eq(str_bytes_blocks(STR_PY31_UCS2, 4).object, 37);
	cr_expect_eq(str_bytes_blocks(STR_PY312, 9).object, 42);
	/* The benchmark's scaling: 2chars -> 4 bytes on a UCS2 build. */
	cr_expect_eq(2 * str_char_width(STR_PY31_UCS2, STR_ASCII), 4);
	cr_expect_eq(str_char_width(STR_PY312, STR_ASCII), 1);
	cr_expect(str_layout_has_freelist(STR_PY26_UCS4) && !str_layout_has_freelist(STR_PY33));
}

static char *capture(void (*fn)(FILE *, const void *), const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	fn(f, arg);
	fclose(f);
	return text;
}

static void seed_lines(FILE *f, const void *arg)
{
	(void)arg;
	alloclab_unicode_seed_line(f, "2chars", 1024, 0, 0.005503, 100, 50);
	alloclab_unicode_seed_line(f, "2chars", 1024, 1, 0.006838, 100, 50);
	alloclab_unicode_seed_line(f, "pep100", 4096, 0, 0.049630, 100, 50);
}

Test(unicode, seed_line_format_byte_for_byte)
{
	char *text = capture(seed_lines, NULL);
	cr_expect_str_eq(text, "Variant 2chars, 1024 words, Unicode: 0.005503 seconds = 0.054 us per object\n"
			       "(best of 50 rounds)\n"
			       "Variant 2chars, 1024 words, Bytes : 0.006838 seconds = 0.067 us per object\n"
			       "(best of 50 rounds)\n"
			       "Variant pep100, 4096 words, Unicode: 0.049630 seconds = 0.121 us per object\n"
			       "(best of 50 rounds)\n");
	free(text);
}

static void print_fixture_cell(FILE *f, const void *cell) { alloclab_unicode_print_cell(cell, f); }

/* A cell as the reader makes it, from a document built by the writer. */
static struct alloclab_results *one_cell_run(json_t *thread_reports_a, json_t *thread_reports_b)
{
	char *argv[] = {"test"};
	struct alloclab_results *r = alloclab_results_new(1, argv, NULL);
	struct alloclab_cell c = {.plugin = "system", .workload = "unicode", .threads = 1,
				  .params = json_pack("{s:s,s:s}", "layout", "py31-ucs2", "charset", "ascii"),
				  .status = ALLOCLAB_CELL_OK, .planned = 1};
	struct alloclab_plugin_info info = {.label = "system", .spec = "system", .name = "system"};
	struct alloclab_process p = {0};
	uint64_t ns = 1000, ops = 10;

	alloclab_results_add_plugin(r, &info);
	struct alloclab_cell *cell = alloclab_results_add_cell(r, &c);
	p.values = calloc(2, sizeof *p.values);
	p.nvalues = 2;
	for (int i = 0; i < 2; i++) {
		p.values[i].wall_ns = ns;
		p.values[i].thread_ns = malloc(sizeof ns);
		p.values[i].thread_ops = malloc(sizeof ops);
		p.values[i].thread_ns[0] = ns;
		p.values[i].thread_ops[0] = ops;
		p.values[i].per_op = 100;
		p.values[i].thread_reports = json_pack("[o]", i ? thread_reports_b : thread_reports_a);
	}
	alloclab_cell_add_process(cell, &p);
	/* Through the writer and the checking reader, as `show` would. */
	json_t *doc = alloclab_results_to_json(r);
	char err[512];
	alloclab_results_free(r);
	r = alloclab_results_from_json(doc, "fixture", alloclab_workload_check_report, err, sizeof err);
	cr_assert_not_null(r, "%s", err);
	json_decref(doc);
	return r;
}

Test(unicode, report_prints_the_seed_block)
{
	/* Two values of one thread: the best round of each line wins. */
	json_t *a = json_pack("{s:i,s:[{s:s,s:i,s:s,s:I,s:[I]},{s:s,s:i,s:s,s:I,s:[I]}]}", "reps", 100, "lines", "variant",
			      "2chars", "words", 1024, "kind", "unicode", "best_ns", (json_int_t)5503000, "rounds_ns",
			      (json_int_t)5503000, "variant", "2chars", "words", 1024, "kind", "bytes", "best_ns",
			      (json_int_t)7000000, "rounds_ns", (json_int_t)7000000);
	json_t *b = json_pack("{s:i,s:[{s:s,s:i,s:s,s:I,s:[I]},{s:s,s:i,s:s,s:I,s:[I]}]}", "reps", 100, "lines", "variant",
			      "2chars", "words", 1024, "kind", "unicode", "best_ns", (json_int_t)6000000, "rounds_ns",
			      (json_int_t)6000000, "variant", "2chars", "words", 1024, "kind", "bytes", "best_ns",
			      (json_int_t)6838000, "rounds_ns", (json_int_t)6838000);
	struct alloclab_results *run = one_cell_run(a, b);
	const struct alloclab_cell *cell = &run->cells[0];
	char *text = capture(print_fixture_cell, cell);
	cr_expect(strstr(text, "\n------------------------------------------------------------------------\n"
			       "=== 1024 words ============================================================\n"
			       "Variant 2chars, 1024 words, Unicode: 0.005503 seconds = 0.054 us per object\n"
			       "(best of 1 rounds)\n"
			       "Variant 2chars, 1024 words, Bytes : 0.006838 seconds = 0.067 us per object\n"
			       "(best of 1 rounds)\n") != NULL,
		  "%s", text);
	free(text);
	alloclab_results_free(run);
}

Test(unicode, reports_missing_fields_are_refused_on_load)
{
	/* A line without best_ns, a line that is not an object, lines that
	 * are not an array: the reader refuses each, naming the field, before
	 * anything prints them. */
	static const char *const bad[] = {
		"{\"reps\": 1, \"lines\": [{\"variant\": \"2chars\", \"words\": 8, \"kind\": \"unicode\"}]}",
		"{\"reps\": 1, \"lines\": [7]}",
		"{\"reps\": 1, \"lines\": {}}",
		"{\"lines\": []}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *argv[] = {"test"}, err[512] = "";
		struct alloclab_results *r = alloclab_results_new(1, argv, NULL);
		struct alloclab_cell c = {.plugin = "system", .workload = "unicode", .threads = 1,
					  .status = ALLOCLAB_CELL_OK};
		struct alloclab_plugin_info info = {.label = "system", .spec = "system", .name = "system"};
		struct alloclab_process p = {0};
		alloclab_results_add_plugin(r, &info);
		struct alloclab_cell *cell = alloclab_results_add_cell(r, &c);
		p.values = calloc(1, sizeof *p.values);
		p.nvalues = 1;
		p.values[0].wall_ns = 1;
		p.values[0].thread_ns = calloc(1, sizeof(uint64_t));
		p.values[0].thread_ops = calloc(1, sizeof(uint64_t));
		p.values[0].per_op = 1;
		p.values[0].thread_reports = json_pack("[o]", json_loads(bad[i], 0, NULL));
		alloclab_cell_add_process(cell, &p);
		json_t *doc = alloclab_results_to_json(r);
		alloclab_results_free(r);
		cr_expect_null(alloclab_results_from_json(doc, "f.json", alloclab_workload_check_report, err, sizeof err),
			       "accepted: %s", bad[i]);
		cr_expect(strstr(err, "f.json: cells[0].runs[0].values[0].thread_reports: entry 0: unicode") != NULL,
			  "%s: %s", bad[i], err);
		json_decref(doc);
	}
}

Test(unicode, straddling_on_synthetic_addresses)
{
	cr_expect_not(alloclab_straddles(0x1000, 64, 64), "a whole line");
	cr_expect(alloclab_straddles(0x1001, 64, 64));
	cr_expect(alloclab_straddles(0x1030, 17, 64), "48 + 17 > 64");
	cr_expect_not(alloclab_straddles(0x1030, 16, 64), "ends on the last byte");
	cr_expect_not(alloclab_straddles(0x103f, 1, 64));
	cr_expect(alloclab_straddles(0x103f, 2, 64));
	cr_expect_not(alloclab_straddles(0x1000, 0, 64), "an empty block covers nothing");
	/* obmalloc's arithmetic: block i of 48 bytes at pool + 48 + 48i; every
	 * fourth block straddles. */
	int n = 0;
	for (int i = 0; i < 64; i++)
		n += alloclab_straddles(0x10000 + 48 + 48 * (uintptr_t)i, 48, 64);
	cr_expect_eq(n, 32);
}

Test(unicode, shared_lines_on_synthetic_addresses)
{
	/* Thread 0: [0x1000,0x1030) and [0x1100,0x1140); thread 1:
	 * [0x1030,0x1050) (shares line 0x1000, runs into 0x1040) and
	 * [0x2000,0x2010). Lines: 0x1000 (both), 0x1040 (1), 0x1100 (0),
	 * 0x2000 (1): 4 lines, 1 shared. */
	uintptr_t a0[] = {0x1000, 0x1100}, a1[] = {0x1030, 0x2000};
	size_t s0[] = {0x30, 0x40}, s1[] = {0x20, 0x10};
	struct alloclab_block_list lists[] = {{a0, s0, 2}, {a1, s1, 2}};
	uint64_t total, shared;
	cr_assert_eq(alloclab_shared_lines(lists, 2, 64, &total, &shared), 0);
	cr_expect_eq(total, 4);
	cr_expect_eq(shared, 1);
	/* One thread never shares with itself. */
	cr_assert_eq(alloclab_shared_lines(lists, 1, 64, &total, &shared), 0);
	cr_expect_eq(total, 2);
	cr_expect_eq(shared, 0);
}

Test(unicode, words_are_deterministic_for_a_seed)
{
	static char store[3][100][33];
	char *w[3][100];
	size_t len[3][100];
	struct word_list text;
	char err[256];

	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 100; i++)
			w[k][i] = store[k][i];
	unicode_make_words(9, 100, 7, NULL, w[0], len[0]);
	unicode_make_words(9, 100, 7, NULL, w[1], len[1]);
	unicode_make_words(9, 100, 8, NULL, w[2], len[2]);
	int same = 1, differs = 0;
	for (int i = 0; i < 100; i++) {
		cr_expect_eq(len[0][i], 9);
		cr_expect_eq(strlen(w[0][i]), 9);
		same &= strcmp(w[0][i], w[1][i]) == 0;
		differs |= strcmp(w[0][i], w[2][i]) != 0;
	}
	cr_expect(same, "same seed, different words");
	cr_expect(differs, "another seed, same words");
	/* The text variant: consecutive words of the text. */
	cr_assert_eq(unicode_read_text("/usr/share/common-licenses/GPL-3", &text, err, sizeof err), 0, "%s", err);
	cr_expect_gt(text.n, 5000);
	unicode_make_words(0, 100, 7, &text, w[0], len[0]);
	unicode_make_words(0, 100, 7, &text, w[1], len[1]);
	size_t start = 0;
	while (text.words[start] != w[0][0])
		start++;
	for (int i = 0; i < 100; i++) {
		cr_expect_eq(w[0][i], w[1][i]);
		cr_expect_eq(w[0][i], text.words[(start + (size_t)i) % text.n]);
		cr_expect_eq(len[0][i], strlen(w[0][i]));
	}
	unicode_free_words(&text);
}

static void expect_text_refused(const char *path, const char *needle)
{
	struct word_list text;
	char err[512] = "";
	cr_expect_eq(unicode_read_text(path, &text, err, sizeof err), -1, "%s accepted", path);
	cr_expect(strstr(err, needle) != NULL, "'%s' not in: %s", needle, err);
	char spec[600];
	snprintf(spec, sizeof spec, "unicode:variant=text,text=%s", path);
	struct cmd_result r = run_alloclab(NULL, (const char *const[]){"run", "-p", "system", "-w", spec, NULL});
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect(strstr(r.err, needle) != NULL, "%s", r.err);
	cmd_result_free(&r);
}

Test(unicode, bad_text_files_are_refused)
{
	char *dir = scratch_dir(), path[4200];
	expect_text_refused("/nonexistent/words.txt", "No such file or directory");
	snprintf(path, sizeof path, "%s/empty.txt", dir);
	fclose(fopen(path, "w"));
	expect_text_refused(path, "is empty");
	expect_text_refused("/bin/sh", "is not a text file");
}

Test(unicode, run_prints_seed_lines_and_keeps_every_round, .timeout = 120)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "obmalloc-radix:mode=per-thread",
		"-w", "unicode:words=256,rounds=7,layout=py26-ucs2,freelist=1", "-t", "2", "-o", "u.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "Testing Unicode/Bytes Allocation Speed with obmalloc-radix:mode=per-thread, layout "
				"py26-ucs2 (ascii), 2 threads\n") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "=== 256 words ===") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "Variant 32chars, 256 words, Bytes : ") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "Variant text, 256 words, Unicode: ") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "(best of 7 rounds)") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "lines shared by 2+ threads") != NULL, "%s", r.out);
	struct alloclab_results *doc = load_results(dir, "u.json");
	const struct alloclab_process *proc = &doc->cells[0].procs[0];
	json_t *reports = proc->values[0].thread_reports;
	cr_assert_eq(json_array_size(reports), 2);
	json_t *lines = json_object_get(json_array_get(reports, 0), "lines");
	cr_expect_eq(json_array_size(lines), 10, "5 variants x Unicode/Bytes");
	json_t *first = json_array_get(lines, 0);
	cr_expect_eq(json_array_size(json_object_get(first, "rounds_ns")), 7);
	/* Placement once per process, in its report. */
	cr_expect_null(json_object_get(first, "placement"));
	cr_assert_eq(json_array_size(proc->report), 2);
	json_t *placement = json_object_get(json_array_get(json_object_get(json_array_get(proc->report, 0), "lines"), 0),
					    "placement");
	/* py26 Unicode: an object and a buffer per word. */
	cr_expect_eq(json_integer_value(json_object_get(placement, "blocks")), 512);
	cr_expect(json_object_get(placement, "lines_shared") != NULL);
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(placement, "sizes"), "48")), 256);
	alloclab_results_free(doc);
	cmd_result_free(&r);
}
