/*
 * Text from outside that alloclab reads: results files crafted to run
 * commands through gnuplot, write outside the pictures' folder, or put
 * escapes on the terminal; results files whose version is not their
 * layout; word lists; command lines with empty, repeated, overlong and
 * non-finite values; a program that claims to be alloclab.
 */
#define _GNU_SOURCE 1
#include "helpers.h"
#include "base/lengths.h"
#include "grade_report.h"
#include "grade/grade.h"
#include "base/json_text.h"
#include "plugin/stats.h"
#include "results/results.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <ftw.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A run of two plugins on one workload at 1 and 2 threads, 3 processes a
 * cell, written by the results writer with whatever names are given. */
static void write_run(const char *path, const char *label_a, const char *label_b, const char *workload)
{
	char *argv[] = {"test"}, err[512];
	struct alloclab_results *r = alloclab_results_new(1, argv, NULL);
	const char *labels[] = {label_a, label_b};

	for (unsigned p = 0; p < 2; p++) {
		struct alloclab_plugin_info info = {.label = (char *)labels[p], .spec = "x", .name = "x"};
		alloclab_results_add_plugin(r, &info);
		for (unsigned t = 1; t <= 2; t++) {
			struct alloclab_cell c = {.plugin = (char *)labels[p], .plugin_index = p, .workload = (char *)workload,
						  .threads = t, .status = ALLOCLAB_CELL_OK, .planned = 3,
						  .params = json_pack("{s:i}", "ops", 10)};
			struct alloclab_cell *cell = alloclab_results_add_cell(r, &c);
			for (unsigned k = 0; k < 3; k++)
				add_one_value_process(cell, k, t, 10.0 * t + p + k * 0.1);
		}
	}
	r->complete = 1;
	cr_assert_eq(alloclab_results_write(r, path, err, sizeof err), 0, "%s", err);
	alloclab_results_free(r);
}

static int has_control(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f)
			return 1;
	return 0;
}

Test(untrusted_text, plot_never_runs_a_files_text_nor_writes_outside, .timeout = 60)
{
	char *dir = scratch_dir(), path[4200], pwned[4400];
	struct stat st;

	snprintf(pwned, sizeof pwned, "%s/PWNED", dir);
	/* Quotes and line breaks that would end gnuplot's string and command,
	 * system() and backquotes, and a workload that climbs out of -o. */
	char label[16384];
	snprintf(label, sizeof label, "a'\nsystem('touch %s')\nset title 'x` touch %s`", pwned, pwned);
	snprintf(path, sizeof path, "%s/evil.json", dir);
	write_run(path, label, "b\"\r\n;!touch PWNED", "../../escape");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"plot", "evil.json", "-o", "pics/inner", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(stat(pwned, &st) != 0, "a command from the file ran");
	snprintf(path, sizeof path, "%s/PWNED", dir);
	cr_expect(stat(path, &st) != 0, "a command from the file ran");
	/* Everything it wrote is inside pics/inner; nothing beside it. */
	snprintf(path, sizeof path, "%s/pics/inner", dir);
	cr_expect_geq(count_files(path), 4, "pictures missing");
	snprintf(path, sizeof path, "%s/pics", dir);
	snprintf(pwned, sizeof pwned, "%s/inner", path);
	cr_expect_eq(count_files(path), count_files(pwned), "a file outside -o");
	cr_expect_eq(count_files(dir) - 1, count_files(path), "a file outside -o");
	cmd_result_free(&r);
}

Test(untrusted_text, compare_takes_the_documented_maximum_of_files, .timeout = 60)
{
	char *dir = scratch_dir(), path[4200];
	const char *args[70];
	size_t n = 0;

	args[n++] = "compare";
	for (int i = 0; i < 64; i++) {
		static char names[64][32];
		snprintf(names[i], sizeof names[i], "r%02d.json", i);
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		write_run(path, "a", "b", "churn");
		args[n++] = names[i];
	}
	args[n++] = "--format";
	args[n++] = "csv";
	args[n] = NULL;
	struct cmd_result r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 0, "%s", r.err);
	/* A header and 4 rows (2 plugins x 2 thread counts), no more. */
	cr_expect_eq(count_lines(r.out), 5, "%.500s", r.out);
	cmd_result_free(&r);
	args[0] = "compare";
	args[65] = "r00.json";
	args[66] = NULL;
	r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "at most 64 results files") != NULL, "%s", r.err);
	cmd_result_free(&r);
}

Test(untrusted_text, command_lines_are_checked, .timeout = 60)
{
	static const char *const bad[][2] = {
		{"--timeout=nan", "--timeout 'nan' is not a number of seconds"},
		{"--timeout=inf", "--timeout 'inf' is not a number of seconds"},
		{"--timeout=-1", "is not a number of seconds"},
		{"-t1,,2", "--threads '1,,2' has an empty entry"},
		{"-t1,1", "--threads '1,1' gives 1 twice"},
		{"-t,", "has an empty entry"},
		{"-n99999999999999999999", "is too large"},
		{"-wchurn:ops=5,ops=7", "ops is given twice"},
		{"-wchurn:ops=99999999999G", "is too large"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct cmd_result r = run_alloclab(NULL, (const char *const[]){"run", "-p", "system", bad[i][0], NULL});
		cr_expect_eq(r.status, 2, "%s: status %d", bad[i][0], r.status);
		cr_expect(strstr(r.err, bad[i][1]) != NULL, "%s: '%s' not in: %s", bad[i][0], bad[i][1], r.err);
		cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
		cmd_result_free(&r);
	}
}

Test(untrusted_text, words_files_are_checked_once, .timeout = 60)
{
	char *dir = scratch_dir(), path[4200];
	snprintf(path, sizeof path, "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "unicode:words=16",
		"--words", "fifo", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "--words fifo: not a regular file") != NULL, "%s", r.err);
	cmd_result_free(&r);
	/* A comma in the path reaches the worker intact. */
	snprintf(path, sizeof path, "%s/a,b words.txt", dir);
	FILE *f = fopen(path, "w");
	fputs("alpha beta gamma delta epsilon zeta eta theta iota kappa\n", f);
	fclose(f);
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "unicode:words=16,variant=text,rounds=2",
		"--words", "a,b words.txt", "-t", "1", "-n", "1", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
}

/* Lists and counts checked where they are given, not in the worker. */
Test(untrusted_text, repeated_list_items_and_overlong_commands_are_refused_up_front)
{
	char *dir = scratch_dir(), cmd[2000] = "exec:cmd=true";
	assert_run_refused(dir, (const char *const[]){"run", "-p", "system", "-w", "python:bench=nbody+nbody", "-o",
						      "refused.json", NULL},
			   "bench=nbody is given twice");
	assert_run_refused(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=100+100", "-o",
						      "refused.json", NULL},
			   "ops=100 is given twice");
	for (int i = 0; i < 70; i++)
		strcat(cmd, " x");
	assert_run_refused(dir, (const char *const[]){"run", "-p", "system", "-w", cmd, "-o", "refused.json", NULL},
			   "cmd= has 71 words, more than 62");
	/* A group that brings an item given too is no slip: measured once. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w",
								      "python:bench=quick+nbody,loops=1", "-t", "1", "-n", "1",
								      "-v", "1", "--warmups", "0", "-o", "q.json", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "q.json");
	unsigned nbody = 0;
	for (unsigned i = 0; i < res->ncells; i++)
		nbody += strcmp(json_string_value(json_object_get(res->cells[i].params, "bench")), "nbody") == 0;
	cr_expect_eq(nbody, 1, "nbody measured %u times", nbody);
	alloclab_results_free(res);
}

Test(untrusted_text, a_results_file_whose_version_is_not_its_layout_is_refused)
{
	char *dir = scratch_dir(), path[4200];
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=100", "-t", "1",
								      "-n", "1", "-o", "r.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	snprintf(path, sizeof path, "%s/r.json", dir);
	char *text = read_file(path), *at = strstr(text, "\"format_version\":3");
	cr_assert(at, "no format_version 3 in %s", text);
	at[strlen("\"format_version\":")] = '1';
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	free(text);
	r = run_alloclab(dir, (const char *const[]){"show", "r.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "format_version") && strstr(r.err, "complete"), "%s", r.err);
	cmd_result_free(&r);
}

/* An interrupted run's cells, measured by fewer processes than planned,
 * are drawn marked as partial. */
Test(untrusted_text, partial_cells_are_marked_in_the_pictures, .timeout = 60)
{
	char *argv[] = {"test"}, err[512], path[4200], svg[4300];
	char *dir = scratch_dir();
	struct alloclab_results *r = alloclab_results_new(1, argv, NULL);
	const char *labels[] = {"whole", "cut"};
	for (unsigned p = 0; p < 2; p++) {
		struct alloclab_plugin_info info = {.label = (char *)labels[p], .spec = "x", .name = "x"};
		alloclab_results_add_plugin(r, &info);
		struct alloclab_cell c = {.plugin = (char *)labels[p], .plugin_index = p, .workload = "churn", .threads = 1,
					  .status = p ? ALLOCLAB_CELL_PENDING : ALLOCLAB_CELL_OK, .planned = 3,
					  .params = json_pack("{s:i}", "ops", 10)};
		struct alloclab_cell *cell = alloclab_results_add_cell(r, &c);
		for (unsigned k = 0; k < (p ? 1u : 3u); k++)
			add_one_value_process(cell, k, 1, 10.0 + p);
	}
	r->complete = 0;
	snprintf(path, sizeof path, "%s/cut.json", dir);
	cr_assert_eq(alloclab_results_write(r, path, err, sizeof err), 0, "%s", err);
	alloclab_results_free(r);
	struct cmd_result res = run_alloclab(dir, (const char *const[]){"plot", "cut.json", "-o", "pics", NULL});
	cr_assert_eq(res.status, 0, "%s", res.err);
	cmd_result_free(&res);
	snprintf(svg, sizeof svg, "%s/pics/churn-plugins.svg", dir);
	char *text = read_file(svg);
	cr_assert(text, "no %s", svg);
	cr_expect(strstr(text, "cut (PARTIAL"), "the partial cell is not marked");
	cr_expect_null(strstr(text, "whole (PARTIAL"), "the whole cell is marked partial");
	free(text);
}

/* A results file whose labels hold escape sequences and line breaks:
 * every command shows them as text, never passes them to the terminal. */
Test(untrusted_text, text_from_a_results_file_never_reaches_the_terminal_raw, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=2000", "-t", "1",
								      "-n", "2", "-v", "1", "--no-check", "-o", "r.json", "-q",
								      NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	json_t *doc = json_load_file(path_in(dir, "r.json"), 0, NULL);
	cr_assert_not_null(doc);
	json_t *cell = json_array_get(json_object_get(doc, "cells"), 0);
	json_object_set_new(cell, "plugin", json_string("sys\033[2J\033]0;pwned\007tem\nforged line"));
	cr_assert_eq(json_dump_file(doc, path_in(dir, "evil.json"), 0), 0);
	json_decref(doc);
	const char *const *commands[] = {
		(const char *const[]){"show", "evil.json", NULL},
		(const char *const[]){"compare", "evil.json", NULL},
		(const char *const[]){"show", "--format", "csv", "evil.json", NULL},
	};
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
		r = run_alloclab(dir, commands[i]);
		cr_expect(!has_control(r.out) && !has_control(r.err), "command %zu passed a control character: %s %s", i,
			  r.out, r.err);
		cr_expect(strstr(r.out, "forged line\n") == NULL || strstr(r.out, "?forged line"), "%zu: %s", i, r.out);
		cmd_result_free(&r);
	}
}

/* Whether s holds what a terminal must not get from a file: a control
 * character but a newline, an 8-bit CSI, U+202E or U+2066 (which turn the
 * rest of a line around). */
static int has_raw(const char *s)
{
	return has_control(s) || strstr(s, "\xc2\x9b") || strstr(s, "\xe2\x80\xae") || strstr(s, "\xe2\x81\xa6");
}

static int site_raw;

static int scan_site(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	char *text = type == FTW_F ? read_file(path) : NULL;
	if (text && has_raw(text)) {
		cr_log_error("%s holds a raw control character", path);
		site_raw++;
	}
	free(text);
	return 0;
}

/* A results file whose label, host, message and parameters (a name and a
 * value: the reader keeps them as they are) hold escape sequences, a
 * carriage return, an 8-bit CSI and bidirectional controls: show and
 * compare, as tables and as JSON, pass none of them to the terminal, a
 * bidirectional control shows as its escape, and no file of the report
 * holds one raw. */
Test(untrusted_text, a_files_parameters_and_bidirectional_controls_reach_no_terminal_raw, .timeout = 120)
{
	char *dir = scratch_dir();
	write_run(path_in(dir, "evil.json"), "sys\xe2\x80\xaetem", "b\xe2\x81\xa6x", "churn");
	json_t *doc = json_load_file(path_in(dir, "evil.json"), 0, NULL);
	cr_assert_not_null(doc);
	json_object_set_new(json_object_get(doc, "metadata"), "host", json_string("ho\xe2\x80\xaetso"));
	size_t i;
	json_t *cell;
	json_array_foreach(json_object_get(doc, "cells"), i, cell) {
		json_t *params = json_object_get(cell, "params");
		json_object_set_new(params, "x\033]0;pwned\007", json_string(i % 2 ? "v\033[2J\r\xc2\x9b\xe2\x80\xaeRTL" : "w"));
	}
	cell = json_array_get(json_object_get(doc, "cells"), 3);
	json_object_set_new(cell, "status", json_string("error"));
	json_object_set_new(cell, "error", json_string("it \xe2\x80\xae" "deliaf"));
	json_array_clear(json_object_get(cell, "runs"));
	cr_assert_eq(json_dump_file(doc, path_in(dir, "evil.json"), 0), 0);
	json_decref(doc);
	const char *const *commands[] = {
		(const char *const[]){"show", "evil.json", NULL},
		(const char *const[]){"show", "--format", "json", "evil.json", NULL},
		(const char *const[]){"compare", "evil.json", "evil.json", NULL},
		(const char *const[]){"compare", "evil.json", "--plugins", "sys\xe2\x80\xaetem,b\xe2\x81\xa6x", "-f", "md", NULL},
		(const char *const[]){"compare", "evil.json", "evil.json", "-f", "json", NULL},
	};
	for (size_t k = 0; k < sizeof commands / sizeof *commands; k++) {
		struct cmd_result r = run_alloclab(dir, commands[k]);
		cr_expect_eq(r.status, 0, "%zu: %s", k, r.err);
		cr_expect(!has_raw(r.out) && !has_raw(r.err), "command %zu passed a control character: %s %s", k, r.out, r.err);
		cr_expect(strstr(r.out, k == 1 || k == 4 ? "sys\\u202Etem" : "sys\\u202etem"), "%zu: %s", k, r.out);
		cmd_result_free(&r);
	}
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"show", "evil.json", NULL});
	cr_expect(strstr(r.out, "x?]0;pwned?=v?[2J??\\u202eRTL") && strstr(r.out, "error: it \\u202edeliaf"), "%s", r.out);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"report", "evil.json", "-o", "site", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	site_raw = 0;
	nftw(path_in(dir, "site"), scan_site, 16, FTW_PHYS);
	cr_expect_eq(site_raw, 0);
	char *index = read_file(path_in(dir, "site/index.html"));
	cr_expect(index && strstr(index, "ho\\u202etso"), "the host, its control as its escape");
	free(index);
}

/* A pyperf file that registers a benchmark whose name holds an escape
 * sequence: the name is kept as text, harmless wherever it is shown. */
Test(untrusted_text, a_benchmark_name_with_an_escape_is_shown_harmless, .timeout = 120)
{
	char *dir = scratch_dir(), *pf = path_in(dir, "pf");
	mkdir(pf, 0755);
	FILE *f = fopen(path_in(dir, "pf/bm.py"), "w");
	fputs("import pyperf\npyperf.Runner().bench_func('x\\x1b[31mred', lambda: None)\n", f);
	fclose(f);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "python:pyperf=pf/bm.py", "-t",
								      "1", "-n", "1", "-v", "1", "--no-check", "-o", "b.json",
								      NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(!has_control(r.out) && !has_control(r.err), "%s %s", r.out, r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"show", "b.json", NULL});
	cr_expect(strstr(r.out, "x?[31mred") && !has_control(r.out), "%s", r.out);
	cmd_result_free(&r);
}

/* ALLOCLAB_SELF from the environment that names another program is not
 * believed: the workers are this alloclab. */
Test(untrusted_text, alloclab_self_naming_another_program_is_ignored, .timeout = 60)
{
	char *dir = scratch_dir(), *fake = path_in(dir, "not-alloclab");
	char script[8400];
	snprintf(script, sizeof script, "#!/bin/sh\ntouch '%s/it-ran'\nexit 3\n", dir);
	FILE *f = fopen(fake, "w");
	fputs(script, f);
	fclose(f);
	chmod(fake, 0755);
	setenv("ALLOCLAB_SELF", fake, 1);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=2000", "-t", "1",
								      "-n", "1", "-v", "1", "--no-check", "-o", "s.json", "-q",
								      NULL});
	unsetenv("ALLOCLAB_SELF");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	cr_expect_null(read_file(path_in(dir, "it-ran")), "the workers ran ALLOCLAB_SELF's program");
}

/* A word list in /proc says it is empty (st_size 0) and holds text: it is
 * read to its end. */
Test(untrusted_text, a_word_list_in_proc_is_read_to_its_end, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w",
								      "unicode:text=/proc/self/status,rounds=1", "-t", "1", "-n",
								      "1", "-v", "1", "--no-check", "-o", "u.json", "-q", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "u.json");
	cr_expect_eq(res->cells[0].status, ALLOCLAB_CELL_OK, "%s", res->cells[0].message ? res->cells[0].message : "");
	alloclab_results_free(res);
}

/* Labels every format carries whole, or none: a run refuses one that is
 * too long, not UTF-8 or holds a control character, in one line (before,
 * an export cut labels at 511 bytes, and two long labels that differed
 * at their ends became one); the reader refuses a file holding one, or
 * two plugins of one label. */
Test(untrusted_text, labels_the_formats_cannot_carry_whole_are_refused, .timeout = 60)
{
	char *dir = scratch_dir(), a[400], b[400];
	snprintf(a, sizeof a, "system:as=%0300d-a", 0);
	snprintf(b, sizeof b, "system:as=%0300d-b", 0);
	assert_run_refused(dir, (const char *const[]){"run", "-p", a, "-p", b, "-w", "churn:ops=100", "-n", "1",
						      "-o", "refused.json", NULL},
			   "more than the 255");
	assert_run_refused(dir, (const char *const[]){"run", "-p", "system:as=red\033[31m", "-w", "churn:ops=100", "-n",
						      "1", "-o", "refused.json", NULL},
			   "control character");
	assert_run_refused(dir, (const char *const[]){"run", "-p", "system:as=caf\xe9", "-w", "churn:ops=100", "-n", "1",
						      "-o", "refused.json", NULL},
			   "not UTF-8");
	write_run(path_in(dir, "long.json"), a + 10, b + 10, "churn");
	write_run(path_in(dir, "twice.json"), "same", "same", "churn");
	static const char *const files[][2] = {{"long.json", "plugins[0].label: is 302 bytes long"},
					       {"twice.json", "plugins[1].label: 'same' is also plugins[0]'s label"}};
	for (size_t k = 0; k < 2; k++) {
		struct cmd_result r = run_alloclab(dir, (const char *const[]){"show", files[k][0], NULL});
		cr_expect_eq(r.status, 2, "%s: %d", files[k][0], r.status);
		cr_expect(strstr(r.err, files[k][1]) && count_lines(r.err) == 1, "%s: %s", files[k][0], r.err);
		cmd_result_free(&r);
	}
}

/* A cell that failed after some of its processes (a crash in its third)
 * is not drawn as if it had been measured: both of its workload's
 * pictures draw it from the processes it finished, marked as partial in
 * its legend. */
Test(untrusted_text, a_failed_cells_processes_are_drawn_marked, .timeout = 60)
{
	char *dir = scratch_dir();
	write_run(path_in(dir, "f.json"), "steady", "crashing", "churn");
	json_t *doc = json_load_file(path_in(dir, "f.json"), 0, NULL);
	json_t *cell = json_array_get(json_object_get(doc, "cells"), 3); /* crashing, 2 threads */
	json_object_set_new(cell, "status", json_string("error"));
	json_object_set_new(cell, "error", json_string("process 3: killed by signal 11 (Segmentation fault) in run 1"));
	json_array_remove(json_object_get(cell, "runs"), 2);
	cr_assert_eq(json_dump_file(doc, path_in(dir, "f.json"), 0), 0);
	json_decref(doc);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"plot", "f.json", "-o", "pics", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	static const char *const pictures[] = {"pics/churn-plugins.svg", "pics/churn-scaling.svg"};
	for (size_t k = 0; k < 2; k++) {
		char *svg = read_file(path_in(dir, pictures[k]));
		cr_assert(svg, "no %s", pictures[k]);
		cr_expect(strstr(svg, "PARTIAL: crashed after 2 of 3 processes") != NULL,
			  "%s does not mark the crashed cell as partial", pictures[k]);
		free(svg);
	}
}

/* A plugin's create that fails with hostile words (not UTF-8, line
 * breaks, terminal escapes, no NUL at the end of the buffer): every
 * command says it in one line a terminal shows as it is. */
Test(untrusted_text, a_plugins_create_failure_is_one_safe_line, .timeout = 60)
{
	char *dir = scratch_dir(), plugin[4200];
	snprintf(plugin, sizeof plugin, "%s:fail=hostile", test_plugin("create_fails"));
	const char *const *commands[] = {
		(const char *const[]){"run", "-p", plugin, "-w", "churn:ops=100", "-o", "r.json", NULL},
		(const char *const[]){"exec", "-p", plugin, "--", "/bin/true", NULL},
		(const char *const[]){"check", plugin, NULL},
	};
	for (size_t k = 0; k < sizeof commands / sizeof *commands; k++) {
		struct cmd_result r = run_alloclab(dir, commands[k]);
		cr_expect_eq(r.status, 2, "%s: %d %s", commands[k][0], r.status, r.err);
		cr_expect_eq(count_lines(r.err), 1, "%s: %s", commands[k][0], r.err);
		cr_expect(!has_control(r.err) && !has_control(r.out), "%s passed a control character: %s", commands[k][0],
			  r.err);
		cr_expect(strstr(r.err, "create() failed: bad?forged line?[2J?]0;pwned??"), "%s: %s", commands[k][0], r.err);
		json_t *as_text = json_string(r.err);
		cr_expect_not_null(as_text, "%s wrote what is not UTF-8: %s", commands[k][0], r.err);
		json_decref(as_text);
		cmd_result_free(&r);
	}
}

/* Lines on stderr that quote what came from outside (a file name, a
 * plugin's path in the loader's message, a name the command was given):
 * each one line, with no control character and no bidirectional control
 * raw (before, check, compare, the results reader's line, every usage
 * error and the plugin probe's line of record printed them as they were). */
Test(untrusted_text, error_lines_show_outside_text_harmless, .timeout = 120)
{
	char *dir = scratch_dir();
	write_run(path_in(dir, "r.json"), "a", "b", "churn");
	const char *const *commands[] = {
		(const char *const[]){"check", "./x\033[31my\xe2\x80\xae.so", NULL},
		(const char *const[]){"compare", "r.json", "--plugins", "a,n\033[2Jo\xe2\x81\xa6pe", NULL},
		(const char *const[]){"show", "n\033]0;pwned\007o\xe2\x80\xae.json", NULL},
		(const char *const[]){"run", "-p", "system", "-w", "no\033[2Jpe\xe2\x80\xae", "-n", "1", NULL},
		(const char *const[]){"export", "r.json", "--format", "x\033[2J\xe2\x80\xae", NULL},
		(const char *const[]){"record", "-p", "./x\033[2J\xe2\x80\xae.so", "-w", "churn:ops=100", "-o", "t.trace",
				      NULL},
	};
	for (size_t k = 0; k < sizeof commands / sizeof *commands; k++) {
		struct cmd_result r = run_alloclab(dir, commands[k]);
		cr_expect_neq(r.status, 0, "%zu: %s", k, r.err);
		cr_expect_eq(count_lines(r.err), 1, "%zu: %s", k, r.err);
		cr_expect(!has_raw(r.err) && !has_raw(r.out), "command %zu passed a control character: %s", k, r.err);
		cmd_result_free(&r);
	}
}

/* What a command prints on its standard output of a name from outside
 * (the results file run wrote, merge's output, the plugin check and stats
 * were given, the file plot drew) goes through the same safe line as its
 * errors: a window-title sequence, BEL and U+202E in a file's name reach
 * the terminal as '?' and "\u202e", never raw. */
Test(untrusted_text, names_quoted_on_stdout_are_shown_harmless, .timeout = 300)
{
	char *dir = scratch_dir();
	static const char evil[] = "e\033]0;pwned\007v\xe2\x80\xaeil";
	char json[64], merged[64], so[64];
	snprintf(json, sizeof json, "%s.json", evil);
	snprintf(merged, sizeof merged, "m%s.json", evil);
	snprintf(so, sizeof so, "./%s.so", evil);
	sh("cp \"$(dirname \"$(dirname %s)\")/plugins/system.so\" '%s/%s'", getenv("ALLOCLAB_EXE"), dir, so + 2);
	const char *const *commands[] = {
		(const char *const[]){"run", "-p", "system", "-w", "churn:ops=1000", "-t", "1", "-n", "2", "-v", "1",
				      "--no-check", "--shard", "1/1", "-o", json, NULL},
		(const char *const[]){"merge", "-o", merged, json, NULL},
		(const char *const[]){"plot", json, "-o", "pictures", NULL},
		(const char *const[]){"stats", so, "-w", "churn:ops=1000", NULL},
		(const char *const[]){"check", so, NULL},
	};
	for (size_t k = 0; k < sizeof commands / sizeof *commands; k++) {
		struct cmd_result r = run_alloclab(dir, commands[k]);
		cr_expect_eq(r.status, 0, "command %zu: %s%s", k, r.out, r.err);
		cr_expect(!has_raw(r.out) && !has_raw(r.err), "command %zu passed a control character: %s%s", k, r.out,
			  r.err);
		cr_expect(strstr(r.out, "\\u202e") != NULL, "command %zu does not name the file: %s", k, r.out);
		cmd_result_free(&r);
	}
}

/* A label that turns the text after it around (U+202E, U+2066) is
 * refused by run before anything runs, in one line that names the
 * problem; and a plugin's message made one line has none left raw
 * (before, run took the label and text_make_line kept the control). */
Test(untrusted_text, a_label_with_a_bidirectional_control_is_refused)
{
	char *dir = scratch_dir();
	assert_run_refused(dir, (const char *const[]){"run", "-p", "system:as=sys\xe2\x80\xaetem", "-w", "churn:ops=100",
						      "-n", "1", "-o", "refused.json", NULL},
			   "bidirectional control");
	assert_run_refused(dir, (const char *const[]){"run", "-p", "system:as=a\xe2\x81\xa6" "b", "-w", "churn:ops=100",
						      "-n", "1", "-o", "refused.json", NULL},
			   "bidirectional control");
	char said[] = "bad \xe2\x80\xae" "deliaf \xe2\x81\xa6x\xd8\x9c";
	cr_expect(!has_raw(alloclab_text_make_line(said)), "%s", said);
	cr_expect_str_eq(said, "bad ???deliaf ???x??");
	cr_expect_not_null(alloclab_text_line_problem("a\xe2\x80\xae"));
	cr_expect_null(alloclab_text_line_problem("caf\xc3\xa9 \xe2\x86\x92 ok"));
}

/* A grading whose reference and submission carry escape sequences and a
 * bidirectional control in their names (a reference given as a path, a
 * student's file and the plugin its build names): the table and the
 * feedback show them, the command that builds the file again as a word
 * bash reads back the same ($'...'), never raw (before, the reference and
 * the rebuild command's file and plugin were printed as they were). */
Test(untrusted_text, a_gradings_names_reach_its_files_harmless)
{
	char *dir = scratch_dir(), err[ALLOCLAB_ERR_LEN], stem[300];
	struct alloclab_grade_settings s = {.level = 1, .reference = "./ref\033[2J\xe2\x80\xae.so", .measuring = 1,
					    .processes = 3, .build_timeout_s = 1, .check_timeout_s = 1,
					    .measure_timeout_s = 1, .sandboxed = 1};
	/* Two rows of one submission's names: one that failed a case (its
	 * feedback gives the commands that build it again), one that passed
	 * and was timed (only such a row has ratios: the journal's invariant,
	 * checked in the invariants build). */
	struct alloclab_grade_row rows[2];
	memset(rows, 0, sizeof rows);
	for (int k = 0; k < 2; k++) {
		struct alloclab_grade_row *row = &rows[k];
		snprintf(row->name, sizeof row->name, "evil%d.c", k);
		snprintf(row->path, sizeof row->path, "class/ev\033]0;x\007il\xe2\x80\xae.c");
		snprintf(row->kind, sizeof row->kind, "c-file");
		snprintf(row->build, sizeof row->build, "ok");
		snprintf(row->plugin, sizeof row->plugin, "build/ev\033[31m.so");
		row->ncases = 1;
		snprintf(row->cases[0].name, sizeof row->cases[0].name, "alignment");
	}
	rows[0].nfail = 1;
	rows[0].cases[0].status = ALLOCLAB_GRADE_FAIL;
	snprintf(rows[0].cases[0].why, sizeof rows[0].cases[0].why, "misaligned");
	rows[1].npass = 1;
	rows[1].passed = 1;
	rows[1].cases[0].status = ALLOCLAB_GRADE_PASS;
	for (unsigned i = 0; i < 3; i++)
		rows[1].ratios[rows[1].nratios++] = 1.0 + 0.1 * i;
	char *out = path_in(dir, "g");
	cr_assert_eq(alloclab_grade_write(out, &s, rows, 2, "", err, sizeof err), 0, "%s", err);
	char *fbs[2];
	for (int k = 0; k < 2; k++) {
		char feedback[400];
		alloclab_grade_file_stem((size_t)k, rows[k].name, stem, sizeof stem);
		snprintf(feedback, sizeof feedback, "feedback/%s.txt", stem);
		fbs[k] = read_file(path_in(out, feedback));
		cr_assert(fbs[k], "no feedback %s", feedback);
		cr_expect(!has_raw(fbs[k]), "the feedback passes a control character: %s", fbs[k]);
	}
	char *table = read_file(path_in(out, "table.txt")), *fb = fbs[0];
	cr_assert(table, "no table");
	cr_expect(!has_raw(table), "the table passes a control character: %s", table);
	cr_expect(strstr(table, "./ref?[2J\\u202e.so's on churn"), "%s", table);
	cr_expect(strstr(fbs[1], "times ./ref?[2J\\u202e.so's"), "%s", fbs[1]);
	cr_expect(strstr(fb, " $'ev\\x1b]0;x\\x07il\\xe2\\x80\\xae.c' -o $'build/ev\\x1b[31m.so' && "), "%s", fb);
	free(fbs[1]);
	free(table);
	free(fb);
}

/* A history store given through a symbolic link that leads nowhere, or
 * through a linked folder: report and history show say so in words, and
 * name the store's own path where there is one (before, report said "No
 * such file or directory", and a linked folder was followed). */
Test(untrusted_text, a_store_through_a_link_is_refused_in_words, .timeout = 120)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=2000", "-t", "1",
								      "-n", "1", "-v", "1", "--no-check", "-o", "r.json", "-q",
								      NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	sh("cd %s && mkdir -p real && ln -s gone.db dangling.db && ln -s real linked && ln -s nowhere dead", dir);
	r = run_alloclab(dir, (const char *const[]){"history", "add", "r.json", "--db", "real/h.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	char own[4400];
	snprintf(own, sizeof own, "give the store's own path (%s/real/h.db), not one through a link", dir);
	static const char *const gone = "dangling.db: is a symbolic link to gone.db, which does not exist";
	static const char *const dead = "dead/h.db: its folder dead is a symbolic link to nowhere, which does not exist";
	const struct {
		const char *const *args;
		const char *says;
	} cases[] = {
		{(const char *const[]){"report", "dangling.db", "-o", "site", NULL}, gone},
		{(const char *const[]){"history", "show", "--db", "dangling.db", NULL},
		 "dangling.db: a symbolic link to gone.db (dangling: nothing is there)"},
		{(const char *const[]){"report", "dead/h.db", "-o", "site", NULL}, dead},
		{(const char *const[]){"history", "show", "--db", "dead/h.db", NULL}, dead},
		{(const char *const[]){"history", "show", "--db", "linked/h.db", NULL}, own},
		{(const char *const[]){"report", "linked/h.db", "-o", "site", NULL}, own},
		{(const char *const[]){"history", "add", "r.json", "--db", "linked/h.db", NULL}, own},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		r = run_alloclab(dir, cases[k].args);
		cr_expect_eq(r.status, 2, "%zu: %d %s", k, r.status, r.err);
		cr_expect(strstr(r.err, cases[k].says) && count_lines(r.err) == 1, "%zu: %s", k, r.err);
		cmd_result_free(&r);
	}
	cr_expect(access(path_in(dir, "nowhere"), F_OK) != 0, "something was made where the dead link points");
	r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "real/h.db", NULL});
	cr_expect_eq(r.status, 0, "the store by its own path: %s", r.err);
	cmd_result_free(&r);
}

/* A run of 100 plugins on 80 parameter sets: a workload's pictures draw
 * the first 32 plugins and 64 parameter sets and say in their titles what
 * they leave out (before, the picture's grid was plugins x parameter sets
 * x threads, whatever their number, all drawn). */
Test(untrusted_text, a_picture_of_many_rows_is_bounded_and_says_so, .timeout = 240)
{
	char *dir = scratch_dir(), *argv[] = {"test"}, err[512];
	struct alloclab_results *r = alloclab_results_new(1, argv, NULL);
	enum { PLUGINS = 100, SETS = 80 };
	for (unsigned p = 0; p < PLUGINS; p++) {
		char label[32];
		snprintf(label, sizeof label, "p%u", p);
		struct alloclab_plugin_info info = {.label = label, .spec = "x", .name = "x"};
		alloclab_results_add_plugin(r, &info);
		for (unsigned g = 0; g < SETS; g++) {
			struct alloclab_cell c = {.plugin = label, .plugin_index = p, .workload = "churn", .threads = 1,
						  .status = ALLOCLAB_CELL_OK, .planned = 2,
						  .params = json_pack("{s:i}", "ops", 1000 + g)};
			struct alloclab_cell *cell = alloclab_results_add_cell(r, &c);
			for (unsigned k = 0; k < 2; k++)
				add_one_value_process(cell, k, 1, 10.0 + p + k * 0.1);
		}
	}
	r->complete = 1;
	cr_assert_eq(alloclab_results_write(r, path_in(dir, "many.json"), err, sizeof err), 0, "%s", err);
	alloclab_results_free(r);
	struct cmd_result c = run_alloclab(dir, (const char *const[]){"plot", "many.json", "-o", "pics", NULL});
	cr_assert_eq(c.status, 0, "%s", c.err);
	cmd_result_free(&c);
	char *svg = read_file(path_in(dir, "pics/churn-plugins.svg"));
	cr_assert_not_null(svg);
	cr_expect(strstr(svg, "68 of 100 plugins") && strstr(svg, "16 of 80 parameter sets"),
		  "the picture does not say what it leaves out");
	cr_expect(strstr(svg, ">p31<") && !strstr(svg, ">p32<") && !strstr(svg, ">p99<"), "more plugins drawn than 32");
	free(svg);
}
