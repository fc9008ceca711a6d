/*
 * Hostile input, round four: what a plugin hands to alloclab's callbacks
 * and text from outside that reaches a terminal. Each test fails on the
 * code before its fix.
 */
#define _GNU_SOURCE 1
#include "helpers.h"
#include "results/results.h"
#include "plugin/stats.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A stats op that emits a NULL name, an empty one and an escape sequence
 * loses those statistics, not the worker and the cell. */
Test(hostile4, a_stats_op_with_bad_names_loses_only_those, .timeout = 60)
{
	char *dir = scratch_dir(), plugin[4300];
	snprintf(plugin, sizeof plugin, "%s:none", test_plugin("bad_regions"));
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", plugin, "-w", "churn:ops=2000", "-t", "1",
								      "-n", "1", "-v", "1", "--no-check", "-o", "s.json", "-q",
								      NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "s.json");
	cr_assert_eq(res->cells[0].status, ALLOCLAB_CELL_OK, "%s", res->cells[0].message ? res->cells[0].message : "");
	const json_t *stats = res->cells[0].procs[0].stats_after_finish;
	cr_expect_eq(alloclab_stat_value(json_object_get(stats, "good")), 4);
	cr_expect_eq(json_object_size(stats), 1, "a bad name was kept");
	alloclab_results_free(res);
}

static int has_control(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f)
			return 1;
	return 0;
}

/* A results file whose labels hold escape sequences and line breaks:
 * every command shows them as text, never passes them to the terminal. */
Test(hostile4, text_from_a_results_file_never_reaches_the_terminal_raw, .timeout = 60)
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

/* A pyperf file that registers a benchmark whose name holds an escape
 * sequence: the name is kept as text, harmless wherever it is shown. */
Test(hostile4, a_benchmark_name_with_an_escape_is_shown_harmless, .timeout = 120)
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

/* A descriptor whose struct_size ends inside a pointer is refused, not
 * half copied. */
Test(hostile4, a_descriptor_cut_inside_a_pointer_is_refused, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", test_plugin("cut_descriptor"), "-w", "churn",
								      "-o", "c.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "ends inside a member") && count_lines(r.err) == 1, "%s", r.err);
	cmd_result_free(&r);
	cr_expect_null(read_file(path_in(dir, "c.json")));
}

/* ALLOCLAB_SELF from the environment that names another program is not
 * believed: the workers are this alloclab. */
Test(hostile4, alloclab_self_naming_another_program_is_ignored, .timeout = 60)
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
Test(hostile4, a_word_list_in_proc_is_read_to_its_end, .timeout = 60)
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

/* A plugin that ends the process in a constructor is named, with the
 * step. */
Test(hostile4, a_plugin_that_exits_while_loading_is_named, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", test_plugin("exit_in_constructor"), "-w",
								      "churn", "-o", "x.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "exit_in_constructor") && strstr(r.err, "while being loaded") && count_lines(r.err) == 1,
		  "%s", r.err);
	cmd_result_free(&r);
}

/* A plugin that closes the worker's descriptors (its answer pipe among
 * them) is named as having done so. */
Test(hostile4, a_plugin_that_closes_the_workers_descriptors_is_named, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", test_plugin("close_fds"), "-w", "churn",
								      "-o", "x.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "close_fds") && strstr(r.err, "closed the worker's descriptors") && count_lines(r.err) == 1,
		  "%s", r.err);
	cmd_result_free(&r);
}

/* Something the run runs writes over -o and its journal: the whole run,
 * still in memory, goes to a file of its own beside it, and the message
 * names that file, which reads back. */
Test(hostile4, a_run_whose_output_was_overwritten_keeps_its_results, .timeout = 120)
{
	char *dir = scratch_dir(), *script = path_in(dir, "vandal.sh"), text[9000];
	snprintf(text, sizeof text, "#!/bin/sh\necho not-results > '%s/r.json'\necho not-a-journal > '%s/r.json.journal'\n",
		 dir, dir);
	FILE *f = fopen(script, "w");
	fputs(text, f);
	fclose(f);
	chmod(script, 0755);
	char w[9100];
	snprintf(w, sizeof w, "exec:cmd=%s", script);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", w, "-t", "1", "-n", "1",
								      "-v", "1", "--no-check", "-o", "r.json", "-q", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	const char *at = strstr(r.err, "the run's results are in ");
	cr_assert_not_null(at, "%s", r.err);
	char rescued[4200];
	snprintf(rescued, sizeof rescued, "%s", at + strlen("the run's results are in "));
	rescued[strcspn(rescued, "\n")] = '\0';
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"show", rescued, NULL});
	cr_expect_eq(r.status, 0, "%s: %s", rescued, r.err);
	cmd_result_free(&r);
}
