/*
 * Runner isolation: a plugin that crashes and one that hangs become their
 * cells' errors while every other cell is measured in full; a plugin that
 * is not thread-safe is "not applicable" above one thread; Ctrl-C keeps what
 * finished.
 */
#define _GNU_SOURCE 1
#include "helpers.h"
#include "results.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static json_t *cell_of(json_t *doc, const char *plugin, int threads)
{
	json_t *cell;
	size_t i;
	json_array_foreach(json_object_get(doc, "cells"), i, cell)
		if (strcmp(json_string_value(json_object_get(cell, "plugin")), plugin) == 0 &&
		    json_integer_value(json_object_get(cell, "threads")) == threads)
			return cell;
	return NULL;
}

static const char *str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	return s ? s : "";
}

Test(runner, crash_and_hang_are_recorded_and_the_run_goes_on, .timeout = 120)
{
	char *dir = scratch_dir(), crash[4200], path[4200], err[512];
	snprintf(crash, sizeof crash, "%s:n=3000", test_plugin("crash_nth"));
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", crash, "-p", test_plugin("hang"),
		"-p", "system", "-p", test_plugin("single_thread"), "-w", "churn:ops=20000,slots=256", "-t", "1,2",
		"-n", "2", "-v", "2", "--warmups", "1", "--timeout", "3", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 1, "exit status %d (want 1: some cells failed); stderr: %s", r.status, r.err);
	snprintf(path, sizeof path, "%s/r.json", dir);
	json_t *doc = alloclab_results_load(path, err, sizeof err);
	cr_assert_not_null(doc, "%s", err);

	for (int t = 1; t <= 2; t++) {
		json_t *c = cell_of(doc, "crash-nth", t), *h = cell_of(doc, "hang", t), *s = cell_of(doc, "system", t);
		cr_assert(c && h && s);
		cr_expect_str_eq(str(c, "status"), "error");
		cr_expect(strstr(str(c, "error"), "killed by signal 11 (Segmentation fault)") != NULL, "%s", str(c, "error"));
		cr_expect_str_eq(str(h, "status"), "error");
		cr_expect(strstr(str(h, "error"), "timed out after 3 s") != NULL, "%s", str(h, "error"));
		/* The system cell is complete: 2 processes x 2 values, all positive. */
		cr_expect_str_eq(str(s, "status"), "ok");
		json_t *runs = json_object_get(s, "runs");
		cr_assert_eq(json_array_size(runs), 2);
		for (size_t i = 0; i < 2; i++) {
			json_t *run = json_array_get(runs, i), *v;
			size_t k;
			cr_expect_eq(json_array_size(json_object_get(run, "values")), 2);
			cr_expect_eq(json_array_size(json_object_get(run, "warmups")), 1);
			cr_expect_gt(json_integer_value(json_object_get(run, "peak_rss_kib")), 0);
			json_array_foreach(json_object_get(run, "values"), k, v)
			{
				cr_expect_gt(json_number_value(json_object_get(v, "ns_per_op")), 0.0);
				cr_expect_eq(json_array_size(json_object_get(v, "thread_ns")), (size_t)t);
				cr_expect_eq(json_integer_value(json_array_get(json_object_get(v, "thread_ops"), 0)), 20000);
			}
		}
	}
	json_t *single1 = cell_of(doc, "single-thread", 1), *single2 = cell_of(doc, "single-thread", 2);
	cr_expect_str_eq(str(single1, "status"), "ok");
	cr_expect_str_eq(str(single2, "status"), "not applicable");
	cr_expect(strstr(str(single2, "reason"), "not thread-safe") != NULL);
	cr_expect(strstr(r.out, "error: process 1: killed by signal 11") != NULL, "table: %s", r.out);
	json_decref(doc);
	cmd_result_free(&r);
	free(dir);
}

Test(runner, interrupt_keeps_finished_cells, .timeout = 120)
{
	char *dir = scratch_dir(), path[4200], err[512];
	pid_t pid = fork();

	snprintf(path, sizeof path, "%s/r.json", dir);
	if (pid == 0) {
		if (chdir(dir) != 0)
			_exit(99);
		freopen("/dev/null", "w", stdout);
		/* The hang cell comes second, so the system cell finishes first
		 * and the run is then stuck until it is interrupted. */
		execl(getenv("ALLOCLAB_EXE"), "alloclab", "run", "-p", "system", "-p", test_plugin("hang"), "-w",
		      "churn:ops=1000,slots=64", "-t", "1", "-n", "1", "-v", "1", "--timeout", "60", "-o", "r.json",
		      (char *)NULL);
		_exit(98);
	}
	/* Wait for the first cell to be written. */
	for (int i = 0; i < 300 && access(path, F_OK) != 0; i++)
		usleep(20000);
	usleep(200000);
	kill(pid, SIGINT);
	int status;
	waitpid(pid, &status, 0);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status %d", status);
	json_t *doc = alloclab_results_load(path, err, sizeof err);
	cr_assert_not_null(doc, "%s", err);
	cr_expect(json_is_true(json_object_get(doc, "interrupted")));
	cr_expect_str_eq(str(cell_of(doc, "system", 1), "status"), "ok");
	cr_expect_eq(json_array_size(json_object_get(cell_of(doc, "system", 1), "runs")), 1);
	cr_expect_eq(json_array_size(json_object_get(cell_of(doc, "hang", 1), "runs")), 0);
	json_decref(doc);
	free(dir);
}

Test(runner, results_carry_reproduction_metadata, .timeout = 60)
{
	char *dir = scratch_dir(), path[4200], err[512];
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "mimalloc", "-w",
		"churn:ops=1000,slots=64", "-t", "1", "-n", "1", "-v", "1", "-o", "r.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(path, sizeof path, "%s/r.json", dir);
	json_t *doc = alloclab_results_load(path, err, sizeof err), *meta = json_object_get(doc, "metadata");
	cr_assert_not_null(doc, "%s", err);
	static const char *const keys[] = {"alloclab_version", "cpu_model", "kernel", "libc", "compiler",
					   "build_flags", "date"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		cr_expect(strlen(str(meta, keys[i])) > 0, "metadata.%s empty", keys[i]);
	cr_expect_gt(json_integer_value(json_object_get(meta, "cpu_count")), 0);
	cr_expect_gt(json_integer_value(json_object_get(meta, "cache_line_size")), 0);
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(meta, "command"), 1)), "run");
	json_t *plugin = json_array_get(json_object_get(doc, "plugins"), 0);
	cr_expect_str_eq(str(plugin, "name"), "mimalloc");
	cr_expect(strstr(str(plugin, "version"), "mimalloc 2.") != NULL, "%s", str(plugin, "version"));
	cr_expect(strstr(r.out, "results: r.json") != NULL, "%s", r.out);
	json_decref(doc);
	cmd_result_free(&r);
	free(dir);
}
