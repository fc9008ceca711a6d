/*
 * Comparing and plotting: the statistics against reference values (scipy's
 * for the same samples), every table format byte for byte against fixtures,
 * pictures that are real PNG and SVG files, one-line errors for bad
 * input, and a run of 20,000 cells read and written in time that grows
 * with its cells.
 */
#include "units.h"
#include "plot.h"
#include "figures/cell_index.h"
#include "results/results.h"
#include "helpers.h"
#include "statistics/significance.h"
#include "statistics/summary.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NEAR(x, want, tol) cr_expect(fabs((x) - (want)) <= (tol), "%s = %.10g, want %.10g", #x, (double)(x), (double)(want))

static const double a[] = {10.1, 10.3, 9.9, 10.2, 10.0, 10.4}, b[] = {10.6, 10.8, 10.5, 10.9, 10.7, 10.4};
static const double c[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, d[] = {5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const double e[] = {1, 1, 2, 2, 3, 3, 4}, f[] = {2, 3, 3, 4, 4, 5, 5, 6};
static const double g[] = {1.1, 2.2, 3.3, 6.6, 7.7}, h[] = {4.4, 5.5, 8.8, 9.9, 10.5};

Test(statistics, student_t_matches_reference)
{
	struct alloclab_test_result r;
	/* scipy.stats.ttest_ind(..., equal_var=True) */
	alloclab_t_test(a, 6, b, 6, &r);
	NEAR(r.statistic, -4.629100498862756, 1e-9);
	NEAR(r.p, 0.0009374616820801042, 1e-9);
	NEAR(r.df, 10, 0);
	alloclab_t_test(c, 12, d, 12, &r);
	NEAR(r.statistic, -2.71746488194703, 1e-9);
	NEAR(r.p, 0.012575407652004033, 1e-9);
	alloclab_t_test(e, 7, f, 8, &r);
	NEAR(r.statistic, -2.7094605497383117, 1e-9);
	NEAR(r.p, 0.017868640270383318, 1e-9);
	alloclab_t_test(g, 5, h, 5, &r);
	NEAR(r.p, 0.07247851608978499, 1e-9);
}

Test(statistics, mann_whitney_matches_reference)
{
	struct alloclab_test_result r;
	/* scipy.stats.mannwhitneyu(..., alternative='two-sided'): asymptotic
	 * with continuity correction where there are ties, exact otherwise. */
	alloclab_mann_whitney(a, 6, b, 6, &r);
	NEAR(r.statistic, 0.5, 0);
	NEAR(r.p, 0.006392268870767702, 1e-9);
	alloclab_mann_whitney(c, 12, d, 12, &r);
	NEAR(r.statistic, 32, 0);
	NEAR(r.p, 0.02234157056409974, 1e-9);
	alloclab_mann_whitney(e, 7, f, 8, &r);
	NEAR(r.statistic, 9, 0);
	NEAR(r.p, 0.029239238256098945, 1e-9);
	alloclab_mann_whitney(g, 5, h, 5, &r);
	NEAR(r.statistic, 4, 0);
	NEAR(r.p, 0.09523809523809523, 1e-12);
	static const double lo[] = {1, 2, 3, 4, 5}, hi[] = {6, 7, 8, 9, 10};
	alloclab_mann_whitney(lo, 5, hi, 5, &r);
	NEAR(r.p, 2.0 / 252, 1e-12);
}

/* Student's t quantiles against published values (to 6 digits), across
 * the 30 degrees of freedom where a table used to stop: at 31 the old
 * table's 2.0 was 2% narrow. */
Test(statistics, t_quantiles_are_exact)
{
	static const struct {
		unsigned df;
		double t;
	} known[] = {{1, 12.706205}, {2, 4.302653}, {3, 3.182446}, {9, 2.262157}, {29, 2.045230}, {30, 2.042272},
		     {31, 2.039513}, {40, 2.021075}, {60, 2.000298}, {120, 1.979930}, {1000, 1.962339}};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		NEAR(alloclab_t95(known[i].df), known[i].t, 2e-6);
	cr_expect(isinf(alloclab_t95(0)));
	/* The quantile is where the two-sided tail is 5%. */
	NEAR(alloclab_t_two_sided_p(alloclab_t95(31), 31), 0.05, 1e-9);
}

Test(statistics, incomplete_beta_and_formats)
{
	NEAR(alloclab_incomplete_beta(2, 3, 0.4), 0.5248, 1e-12);
	NEAR(alloclab_incomplete_beta(0.5, 0.5, 0.5), 0.5, 1e-12);
	char s[64];
	alloclab_format_ns(290e6, s, sizeof s);
	cr_expect_str_eq(s, "290 ms");
	alloclab_format_ns(24.4e3, s, sizeof s);
	cr_expect_str_eq(s, "24.4 us");
	alloclab_format_ns(8.19e3, s, sizeof s);
	cr_expect_str_eq(s, "8.19 us");
	alloclab_format_ns(182, s, sizeof s);
	cr_expect_str_eq(s, "182 ns");
	alloclab_format_ratio(292.0 / 290, s, sizeof s);
	cr_expect_str_eq(s, "1.01x slower (+1%)");
	alloclab_format_ratio(106.0 / 109, s, sizeof s);
	cr_expect_str_eq(s, "1.03x faster (-3%)");
	alloclab_format_ratio(8.85 / 8.89, s, sizeof s);
	cr_expect_str_eq(s, "1.00x faster (-0%)");
}

/* The ratio interval's p is its own test's: below 0.05 exactly where the
 * interval leaves 1 out, and with 5 processes a side a step of 28% (peak
 * memory's spread, 5%) gets a p that Benjamini-Hochberg keeps over a
 * series of 11 steps (0.05 / 11), where the rank test cannot go below
 * 0.008. */
Test(statistics, ratio_interval_p_is_its_own_tests)
{
	const double *pairs[][2] = {{a, b}, {c, d}, {g, h}, {a, a}};
	const size_t sizes[][2] = {{6, 6}, {12, 12}, {5, 5}, {6, 6}};
	for (int i = 0; i < 4; i++) {
		double lo, hi, p = -1;
		cr_assert_eq(alloclab_ratio_interval(pairs[i][0], sizes[i][0], pairs[i][1], sizes[i][1], &lo, &hi, &p), 0);
		cr_expect(p >= 0 && p <= 1, "pair %d: p %g", i, p);
		cr_expect_eq(p < 0.05, lo > 1 || hi < 1, "pair %d: p %g against [%g, %g]", i, p, lo, hi);
	}
	const double base[] = {1.70, 1.78, 1.62, 1.75, 1.66}, big[] = {2.20, 2.10, 2.28, 2.15, 2.05};
	double lo, hi, p;
	alloclab_ratio_interval(base, 5, big, 5, &lo, &hi, &p);
	cr_expect_lt(p, 0.05 / 11, "a 28%% step with 5 processes a side: p %g", p);
	cr_expect_gt(alloclab_mann_whitney_min_p(5, 5), 0.05 / 11);
}

static void expect_output(const char *fixture, const char *const *args)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/tests/fixtures/%s", getenv("ALLOCLAB_SOURCE_ROOT"), fixture);
	char *want = read_file(path);
	cr_assert_not_null(want, "no fixture %s", path);
	struct cmd_result r = run_alloclab(getenv("ALLOCLAB_SOURCE_ROOT"), args);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, want, "output differs from %s", fixture);
	cmd_result_free(&r);
	free(want);
}

#define A "tests/fixtures/run-a.json"
#define B "tests/fixtures/run-b.json"

Test(compare, rst_grid_is_the_seeds) { expect_output("compare.rst", (const char *const[]){"compare", A, B, NULL}); }
Test(compare, markdown) { expect_output("compare.md", (const char *const[]){"compare", A, B, "-f", "markdown", NULL}); }
Test(compare, csv) { expect_output("compare.csv", (const char *const[]){"compare", A, B, "--format", "csv", NULL}); }
Test(compare, plugins_within_one_run)
{
	expect_output("compare-plugins.rst", (const char *const[]){"compare", A, "--plugins", "system,mimalloc", NULL});
}

Test(compare, json_carries_tests_and_warnings)
{
	struct cmd_result r = run_alloclab(getenv("ALLOCLAB_SOURCE_ROOT"),
					   (const char *const[]){"compare", A, B, "-f", "json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	json_t *doc = json_loads(r.out, 0, NULL);
	cr_assert_not_null(doc);
	json_t *row = json_array_get(json_object_get(doc, "rows"), 1);
	json_t *other = json_array_get(json_object_get(row, "columns"), 1);
	cr_expect_str_eq(json_string_value(json_object_get(row, "name")), "system t=2");
	cr_expect(json_is_true(json_object_get(other, "significant")));
	cr_expect_lt(json_number_value(json_object_get(other, "p")), 0.05);
	/* 8 values per cell: fewer than the 6 of "too few"? no; stable: no warning. */
	cr_expect_eq(json_array_size(json_object_get(other, "warnings")), 0);
	json_decref(doc);
	cmd_result_free(&r);
}

static void expect_refused(const char *needle, const char *const *args)
{
	struct cmd_result r = run_alloclab(getenv("ALLOCLAB_SOURCE_ROOT"), args);
	cr_expect_eq(r.status, 2, "status %d: %s", r.status, r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect(strstr(r.err, needle) != NULL, "'%s' not in: %s", needle, r.err);
	cmd_result_free(&r);
}

Test(compare, bad_inputs)
{
	char *dir = scratch_dir(), trunc[4200], foreign[4200], other[4200];
	snprintf(trunc, sizeof trunc, "%s/trunc.json", dir);
	snprintf(foreign, sizeof foreign, "%s/foreign.json", dir);
	snprintf(other, sizeof other, "%s/other.json", dir);
	char *text = read_file(A);
	if (text == NULL) {
		char p[4200];
		snprintf(p, sizeof p, "%s/%s", getenv("ALLOCLAB_SOURCE_ROOT"), A);
		text = read_file(p);
	}
	FILE *fp = fopen(trunc, "w");
	fwrite(text, 1, strlen(text) / 2, fp);
	fclose(fp);
	fp = fopen(foreign, "w");
	fputs("{\"benchmarks\": []}", fp);
	fclose(fp);
	/* The same run with another thread count: nothing in common. */
	fp = fopen(other, "w");
	char *swapped = strdup(text), *at;
	while ((at = strstr(swapped, "\"threads\": ")) != NULL)
		memcpy(at, "\"threadz\": ", 11);
	fputs(swapped, fp);
	fclose(fp);
	expect_refused("/nonexistent.json: No such file", (const char *const[]){"compare", A, "/nonexistent.json", NULL});
	expect_refused("not valid JSON", (const char *const[]){"compare", A, trunc, NULL});
	expect_refused("not an alloclab results file", (const char *const[]){"compare", foreign, A, NULL});
	expect_refused("other.json: cells[0].threads: missing", (const char *const[]){"compare", A, other, NULL});
	expect_refused("plugin 'jemalloc' is not in", (const char *const[]){"compare", A, "--plugins", "system,jemalloc", NULL});
	expect_refused("give at least two results files", (const char *const[]){"compare", A, NULL});
	expect_refused("--test takes rank or pyperf", (const char *const[]){"compare", A, B, "--test", "z", NULL});
	free(text);
	free(swapped);
}

Test(compare, no_cells_in_common)
{
	char *dir = scratch_dir(), path[4200], src[4200];
	snprintf(src, sizeof src, "%s/%s", getenv("ALLOCLAB_SOURCE_ROOT"), B);
	char *text = read_file(src), *at;
	/* Rename the workload: every cell differs from run-a's. */
	while ((at = strstr(text, "\"churn\"")) != NULL)
		memcpy(at, "\"chura\"", 7);
	snprintf(path, sizeof path, "%s/b.json", dir);
	FILE *fp = fopen(path, "w");
	fputs(text, fp);
	fclose(fp);
	expect_refused("have no cells in common", (const char *const[]){"compare", A, path, NULL});
	free(text);
}

static int has_magic(const char *path, const char *magic, size_t n)
{
	char buf[16] = {0};
	FILE *fp = fopen(path, "rb");
	if (fp == NULL)
		return 0;
	size_t got = fread(buf, 1, sizeof buf, fp);
	fclose(fp);
	return got >= n && memcmp(buf, magic, n) == 0;
}

Test(plot, writes_png_and_svg, .timeout = 60)
{
	char *dir = scratch_dir(), out[4200], path[4400], svg[4400];
	snprintf(out, sizeof out, "%s/plots", dir);
	struct cmd_result r = run_alloclab(getenv("ALLOCLAB_SOURCE_ROOT"),
					   (const char *const[]){"plot", A, "-o", out, "--baseline", "system", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	static const char *const names[] = {"churn-plugins", "churn-scaling"};
	static const char *const titles[] = {"churn: time per operation relative to system", "churn: thread scaling"};
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/%s.png", out, names[i]);
		cr_expect(has_magic(path, "\x89PNG\r\n\x1a\n", 8), "%s is not a PNG", path);
		snprintf(svg, sizeof svg, "%s/%s.svg", out, names[i]);
		char *text = read_file(svg);
		cr_expect(text && strstr(text, "<svg") && strstr(text, "</svg>"), "%s is not an SVG", svg);
		cr_expect(text && strstr(text, titles[i]), "%s lacks its title '%s'", svg, titles[i]);
		/* Thread counts are whole: no tick at 1.5 threads; the curve
		 * is of medians, with its values' range drawn. */
		if (i == 1)
			cr_expect(text && !strstr(text, ">1.5<") && strstr(text, "median value, bars its values"),
				  "%s: ticks between thread counts, or no word of what is drawn", svg);
		free(text);
	}
	cmd_result_free(&r);
}

/* docs/guides/comparing.md's A/B recipe: two builds of one plugin (the same descriptor
 * name) in one run, by path, then --plugins with their labels. */
Test(compare, two_builds_of_one_plugin_in_one_run, .timeout = 120)
{
	char *dir = scratch_dir(), cmd[9000];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/old' '%s/new' && cp '%s/../../plugins/system.so' '%s/old/' && "
		 "cp '%s/../../plugins/system.so' '%s/new/'", dir, dir, getenv("ALLOCLAB_TEST_PLUGIN_DIR"), dir,
		 getenv("ALLOCLAB_TEST_PLUGIN_DIR"), dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "./old/system.so", "-p",
		"./new/system.so", "-w", "churn:ops=20000,slots=64", "-t", "1", "-n", "4", "-v", "1", "-o", "ab.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "./old/system.so") && strstr(r.out, "./new/system.so"), "%s", r.out);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"compare", "ab.json", "--plugins", "./old/system.so,./new/system.so",
		"-f", "json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	json_t *doc = json_loads(r.out, 0, NULL);
	json_t *rows = json_object_get(doc, "rows");
	cr_expect_eq(json_array_size(rows), 1, "%s", r.out);
	json_t *cols = json_object_get(json_array_get(rows, 0), "columns");
	cr_expect_eq(json_array_size(cols), 2);
	cr_expect(json_is_number(json_object_get(json_array_get(cols, 1), "ratio")));
	json_decref(doc);
	cmd_result_free(&r);
	/* Or named by the user. */
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "./old/system.so:as=before", "-p",
		"./new/system.so:as=after", "-w", "churn:ops=20000,slots=64", "-t", "1", "-n", "4", "-v", "1", "-o", "as.json",
		NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"compare", "as.json", "--plugins", "before,after", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system:as=x", "-p", "mimalloc:as=x", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "two plugins are labelled 'x'") != NULL, "%s", r.err);
	cmd_result_free(&r);
}

/* Error and not-applicable cells are never compared as if measured; too
 * few processes are said to be too few, not "not significant". */
Test(compare, unmeasured_cells_and_too_few_processes, .timeout = 120)
{
	char *dir = scratch_dir(), crash[4300];
	snprintf(crash, sizeof crash, "%s:n=100", test_plugin("crash_nth"));
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", "system", "-p", crash, "-p",
		test_plugin("single_thread"), "-w", "churn:ops=2000,slots=64", "-t", "1,2", "-n", "3", "-v", "1", "-o",
		"r.json", NULL});
	cr_assert_eq(r.status, 1, "%s", r.err);
	cmd_result_free(&r);
	char plugins[9000];
	snprintf(plugins, sizeof plugins, "system,crash-nth:n=100,single-thread");
	r = run_alloclab(dir, (const char *const[]){"compare", "r.json", "--plugins", plugins, NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "Not measured in every column (error, not applicable, or no latency) (2): churn t=1; churn t=2") != NULL,
		  "%s", r.out);
	cr_expect(strstr(r.out, "Cannot be significant with the processes measured") == NULL ||
		  strstr(r.out, "measure at least 4 processes per side") != NULL, "%s", r.out);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"compare", "r.json", "--plugins", "system,single-thread", "-f", "json",
		NULL});
	json_t *doc = json_loads(r.out, 0, NULL);
	json_t *rows = json_object_get(doc, "rows");
	cr_assert_eq(json_array_size(rows), 2, "%s", r.out);
	json_t *t1 = json_array_get(json_object_get(json_array_get(rows, 0), "columns"), 1);
	json_t *t2 = json_array_get(json_object_get(json_array_get(rows, 1), "columns"), 1);
	/* 3 processes a side: the rank test cannot reach p < 0.05. */
	cr_expect(json_is_false(json_object_get(t1, "reachable")), "%s", r.out);
	cr_expect(json_is_false(json_object_get(t1, "significant")));
	cr_expect_str_eq(json_string_value(json_object_get(t2, "status")), "not applicable");
	cr_expect_null(json_object_get(t2, "mean"));
	json_decref(doc);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"compare", "r.json", "--plugins", "system,single-thread", NULL});
	cr_expect(strstr(r.out, "Cannot be significant with the processes measured (1): churn t=1") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "measure at least 4 processes per side (-n)") != NULL, "%s", r.out);
	cmd_result_free(&r);
}

/* The plugins picture compares each group of rows (a benchmark, the
 * parameters that vary) with the baseline plugin in that same group and
 * thread count, never with one group's baseline for all. */
Test(plot, every_group_has_its_own_baseline, .timeout = 120)
{
	/* Counted in instructions, so that noop is below system every time,
	 * however busy the machine. */
	skip_unless_valgrind_counts();
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--measure", "instructions", "-p", "system",
		"-p", "noop", "-w", "churn:ops=4000,slots=64,max_size=16+2048", "-t", "1", "-n", "2", "-v", "1", "-o", "g.json",
		NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	struct alloclab_results *doc = load_results(dir, "g.json");
	struct alloclab_figure_list figs = {0};
	alloclab_plot_figures(doc, "system", &figs);
	const struct alloclab_figure *fig = NULL;
	for (size_t i = 0; i < figs.n; i++)
		if (strcmp(figs.items[i].name, "churn-plugins") == 0)
			fig = &figs.items[i];
	cr_assert_not_null(fig);
	cr_assert_eq(fig->ncategories, 2);
	cr_expect(strstr(fig->categories[0], "max_size=16") != NULL, "%s", fig->categories[0]);
	cr_expect(strstr(fig->categories[1], "max_size=2048") != NULL, "%s", fig->categories[1]);
	cr_assert_eq(fig->nseries, 2);
	cr_expect_str_eq(fig->series[0].title, "system");
	for (size_t k = 0; k < 2; k++) {
		cr_expect_float_eq(fig->series[0].y[k], 1.0, 1e-9, "the baseline of group %zu is %g", k, fig->series[0].y[k]);
		cr_expect(fig->series[1].y[k] > 0 && fig->series[1].y[k] < 1.0, "noop against system in group %zu: %g", k,
			  fig->series[1].y[k]);
	}
	alloclab_figure_list_free(&figs);
	alloclab_results_free(doc);
}

/* A title longer than a line is broken at spaces into quoted pieces that
 * gnuplot joins with line breaks, each piece at most a line, nothing lost;
 * a quote in it stays doubled; a word longer than a line stays whole. */
Test(plot, long_titles_are_broken_into_lines)
{
	char title[400], *text = NULL;
	size_t len = 0;
	snprintf(title, sizeof title, "%s", "fragmentation at the peak: resident over the most the program's run held "
					   "(the harness and the workload's own tables taken off; medians; 1 is none) "
					   "and a little more to need a third line of text here");
	FILE *m = open_memstream(&text, &len);
	alloclab_gnuplot_title(m, title);
	fclose(m);
	/* Split at the joins, unquote, and put the spaces back. */
	char joined[800] = "";
	size_t pieces = 0;
	for (char *p = text; *p;) {
		cr_assert_eq(*p, '\'', "piece %zu does not start with a quote: %s", pieces, text);
		char piece[400];
		size_t k = 0;
		for (p++; *p && !(*p == '\'' && p[1] != '\''); p++) {
			if (*p == '\'')
				p++;
			piece[k++] = *p;
		}
		piece[k] = '\0';
		cr_expect_leq(k, ALLOCLAB_TITLE_WIDTH, "a line of %zu characters: %s", k, piece);
		if (pieces++)
			strcat(joined, " ");
		strcat(joined, piece);
		p++; /* the closing quote */
		if (*p) {
			cr_assert(strncmp(p, ".\"\\n\".", 6) == 0, "not joined by a line break: %s", p);
			p += 6;
		}
	}
	cr_expect_eq(pieces, 3, "%zu lines: %s", pieces, text);
	cr_expect_str_eq(joined, title);
	free(text);

	char word[300];
	memset(word, 'x', 250);
	word[250] = '\0';
	m = open_memstream(&text, &len);
	alloclab_gnuplot_title(m, word);
	fclose(m);
	cr_expect_eq(len, 252, "a word longer than a line was cut: %s", text);
	free(text);
}

/* The cell index: a text's number kept once, groups in the order their
 * first text comes, each group's members in order. */
Test(compare, texts_are_indexed_and_grouped)
{
	struct alloclab_text_index *x = alloclab_text_index_new();
	char text[32];
	for (long i = 0; i < 5000; i++) {
		snprintf(text, sizeof text, "t%ld", i % 2500);
		cr_assert_eq(alloclab_text_index_put(x, text, i), i % 2500);
	}
	cr_expect_eq(alloclab_text_index_count(x), 2500);
	cr_expect_eq(alloclab_text_index_get(x, "t2499"), 2499);
	cr_expect_eq(alloclab_text_index_get(x, "t2500"), -1);
	alloclab_text_index_free(x);
	const char *texts[] = {"b", "a", "b", "c", "a", "b"};
	struct alloclab_text_groups groups;
	cr_assert_eq(alloclab_text_groups_make(texts, 6, &groups), 0);
	cr_expect_eq(groups.n, 3);
	static const size_t group[] = {0, 1, 0, 2, 1, 0}, member[] = {0, 2, 5, 1, 4, 3}, start[] = {0, 3, 5, 6};
	for (size_t i = 0; i < 6; i++)
		cr_expect(groups.group[i] == group[i] && groups.member[i] == member[i], "%zu: group %zu member %zu", i,
			  groups.group[i], groups.member[i]);
	for (size_t k = 0; k <= 3; k++)
		cr_expect_eq(groups.start[k], start[k], "start[%zu] %zu", k, groups.start[k]);
	alloclab_text_groups_free(&groups);
}

/* A run of 20,000 cells (two plugins, 10,000 rows told apart by a
 * parameter): show, compare, export and report read and write it in time
 * that grows with the cells. Each looked through every cell for every
 * cell's partners: show took minutes at 20,000 cells (23 s at 5,000),
 * compare of the file with itself more than 300 s, report more than 300 s. */
Test(compare, twenty_thousand_cells_in_linear_time, .timeout = 600)
{
	char *argv[] = {"alloclab", "run"}, err[512], *dir = scratch_dir();
	struct alloclab_results *r = alloclab_results_new(2, argv, NULL);
	static const char *const labels[] = {"system", "other"};
	for (unsigned p = 0; p < 2; p++) {
		struct alloclab_plugin_info info = {.label = (char *)labels[p], .spec = "x", .name = "x"};
		alloclab_results_add_plugin(r, &info);
		for (int row = 0; row < 10000; row++) {
			struct alloclab_cell cell = {.plugin = (char *)labels[p], .plugin_index = p, .workload = "churn",
						  .threads = 1, .status = ALLOCLAB_CELL_OK, .planned = 1,
						  .params = json_pack("{s:i,s:i}", "ops", 100, "seed", row + 1)};
			add_one_value_process(alloclab_results_add_cell(r, &cell), 0, 1, 10.0 + p + row % 7);
		}
	}
	r->complete = 1;
	cr_assert_eq(alloclab_results_write(r, path_in(dir, "many.json"), err, sizeof err), 0, "%s", err);
	alloclab_results_free(r);
	const char *const *commands[] = {
		(const char *const[]){"show", "many.json", NULL},
		(const char *const[]){"compare", "many.json", "many.json", "-f", "csv", NULL},
		(const char *const[]){"compare", "many.json", "--plugins", "system,other", NULL},
		(const char *const[]){"export", "-f", "csv", "-o", "many.csv", "many.json", NULL},
		(const char *const[]){"report", "many.json", "-o", "site", NULL},
	};
	for (size_t k = 0; k < sizeof commands / sizeof *commands; k++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		struct cmd_result res = run_alloclab(dir, commands[k]);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		cr_expect_eq(res.status, 0, "%s: %s", commands[k][0], res.err);
		/* a few seconds idle; a loaded machine is slower, never 20 times */
		cr_expect_lt(s, 90, "%s %s took %.1f s", commands[k][0], commands[k][1], s);
		cmd_result_free(&res);
	}
}

/* With 3 processes a side the rank test's smallest p is 0.1: no row can be
 * resolved at that count, whatever the times. Every format says so, and
 * how many processes would do, never a bare "no" or "not significant". */
Test(compare, too_few_processes_are_said_with_the_count_needed_in_every_format, .timeout = 180)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-q", "-p", "system", "-p", "mimalloc", "-w",
								      "churn:ops=2000", "-t", "1", "-n", "3", "-v", "1",
								      "-o", "r.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	static const struct {
		const char *format, *says;
	} formats[] = {
		{"rst", "Cannot be significant with the processes measured (1): churn\n  (these cannot be resolved at the "
			"processes measured, whatever their times: the test cannot reach p < 0.05 with so few; measure at "
			"least 4 processes per side, -n 4)"},
		{"markdown", "measure at least 4 processes per side, -n 4)"},
		{"csv", "\nchurn,"},
		{"json", "\"processes_needed\": 4"},
	};
	for (size_t k = 0; k < sizeof formats / sizeof *formats; k++) {
		r = run_alloclab(dir, (const char *const[]){"compare", "r.json", "--plugins", "system,mimalloc", "-f",
							    formats[k].format, NULL});
		cr_expect_eq(r.status, 0, "%s: %s", formats[k].format, r.err);
		cr_expect(strstr(r.out, formats[k].says), "%s: %s", formats[k].format, r.out);
		if (strcmp(formats[k].format, "csv") == 0)
			cr_expect(strstr(r.out, ",cannot tell (needs 4 processes per side)\n") && !strstr(r.out, ",no\n"),
				  "%s", r.out);
		if (strcmp(formats[k].format, "json") == 0) {
			json_t *doc = json_loads(r.out, 0, NULL);
			json_t *entry = json_array_get(json_object_get(json_array_get(json_object_get(doc, "rows"), 0), "columns"),
						   1);
			cr_expect(json_is_false(json_object_get(entry, "reachable")) &&
					  json_integer_value(json_object_get(entry, "processes_needed")) == 4,
				  "%s", r.out);
			json_decref(doc);
		}
		cmd_result_free(&r);
	}
}
