/*
 * Hostile input, round three, one test per class of problem, each failing
 * on the code before its fix: a plugin that forks a live twin, crashes
 * while loading, reports statistics past INT64_MAX or sets a reserved
 * field; a worker's scratch after a timeout; output paths record and plot
 * must refuse as run does; counts and values checked where they are made
 * (repeated list items, cmd= word counts, a benchmark's own negative
 * time, a format version that is not the file's layout); the memory
 * limit; partial results marked in pictures.
 */
#define _GNU_SOURCE 1
#include "helpers.h"
#include "results/results.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* run's one-line refusal: exit 2, the text in one line on stderr, no
 * results file. */
static void assert_run_refused(const char *dir, const char *const *args, const char *text)
{
	struct cmd_result r = run_alloclab(dir, args);
	char out[4200];
	struct stat st;
	cr_expect_eq(r.status, 2, "%s: status %d: %s", text, r.status, r.err);
	cr_expect(strstr(r.err, text) != NULL, "expected '%s', got: %s", text, r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	snprintf(out, sizeof out, "%s/refused.json", dir);
	cr_expect_neq(stat(out, &st), 0, "%s: a results file was written", text);
	cmd_result_free(&r);
}

/* The single cell of a one-cell run, which must have failed with `text`. */
static void assert_cell_error(const char *dir, const char *const *args, const char *text)
{
	struct cmd_result r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 1, "%s: status %d: %s", text, r.status, r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "r.json");
	cr_assert_geq(res->ncells, 1);
	cr_expect_eq(res->cells[0].status, ALLOCLAB_CELL_ERROR, "%s", text);
	cr_expect(res->cells[0].message && strstr(res->cells[0].message, text), "expected '%s', got: %s", text,
		  res->cells[0].message);
	alloclab_results_free(res);
}

Test(hostile3, a_forked_twin_of_the_worker_is_found_killed_and_refused, .timeout = 60)
{
	char *dir = scratch_dir();
	/* Probed first: the twin appears in the probe already. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", test_plugin("fork_twin"),
								      "-w", "churn:ops=1000", "-t", "1", "-n", "1", "-o",
								      "refused.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "left 1 process of its own running"), "%s", r.err);
	cmd_result_free(&r);
}

Test(hostile3, a_crash_while_loading_names_the_plugin_and_the_step, .timeout = 60)
{
	char *dir = scratch_dir();
	const char *plugin = test_plugin("crash_in_load");
	const char *const *commands[] = {
		(const char *const[]){"run", "-p", plugin, "-w", "churn", "-o", "refused.json", NULL},
		(const char *const[]){"check", plugin, NULL},
		(const char *const[]){"stats", plugin, NULL},
		(const char *const[]){"exec", "-p", plugin, "--", "true", NULL},
		(const char *const[]){"record", "-p", plugin, "-w", "churn", "-o", "x.trace", NULL},
	};
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
		struct cmd_result r = run_alloclab(dir, commands[i]);
		cr_expect_eq(r.status, 2, "%s: %d: %s", commands[i][0], r.status, r.err);
		cr_expect(strstr(r.err, plugin) && strstr(r.err, "signal 11") && strstr(r.err, "while being loaded"),
			  "%s: %s", commands[i][0], r.err);
		cmd_result_free(&r);
	}
}

Test(hostile3, a_statistic_past_int64_max_is_kept_not_the_measurement_lost, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", test_plugin("huge_stat"), "-w",
								      "churn:ops=1000", "-t", "1", "-n", "1", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "r.json");
	cr_assert_eq(res->cells[0].status, ALLOCLAB_CELL_OK);
	const json_t *stats = res->cells[0].procs[0].stats;
	cr_assert(stats);
	cr_expect_eq(alloclab_stat_value(json_object_get(stats, "huge")), UINT64_MAX);
	cr_expect_eq(alloclab_stat_value(json_object_get(stats, "past.int64")), (uint64_t)INT64_MAX + 1);
	cr_expect_eq(alloclab_stat_value(json_object_get(stats, "ordinary")), 42);
	alloclab_results_free(res);
	r = run_alloclab(dir, (const char *const[]){"stats", "--no-check", test_plugin("huge_stat"), "-w", "churn:ops=1000",
						    NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "18446744073709551615"), "%s", r.out);
	cmd_result_free(&r);
}

Test(hostile3, a_descriptor_with_a_reserved_field_set_is_refused)
{
	char *dir = scratch_dir();
	assert_run_refused(dir, (const char *const[]){"run", "-p", test_plugin("reserved_set"), "-w", "churn", "-o",
						      "refused.json", NULL},
			   "reserved0 is 7");
}

Test(hostile3, a_file_that_is_not_a_plugin_is_refused_by_check)
{
	char *dir = scratch_dir(), path[4200];
	snprintf(path, sizeof path, "%s/x.trace", dir);
	FILE *f = fopen(path, "w");
	fputs("ALCTRACE not a plugin", f);
	fclose(f);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"check", path, NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "not a shared object") && count_lines(r.err) == 1, "%s", r.err);
	cr_expect_str_eq(r.out, "");
	cmd_result_free(&r);
}

/* Lists and counts checked where they are given, not in the worker. */
Test(hostile3, repeated_list_items_and_overlong_commands_are_refused_up_front)
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

/* A benchmark's own time that is no time, and a value too fast to be
 * work, fail the cell where they are made. */
Test(hostile3, absurd_values_fail_the_cell_where_they_are_made, .timeout = 120)
{
	char *dir = scratch_dir(), neg[4200], zero[4200], spec[4300];
	snprintf(neg, sizeof neg, "%s/neg.py", dir);
	snprintf(zero, sizeof zero, "%s/zero.py", dir);
	FILE *f = fopen(neg, "w");
	fputs("import pyperf\ndef f(loops):\n    return -1\npyperf.Runner().bench_time_func('neg', f)\n", f);
	fclose(f);
	f = fopen(zero, "w");
	fputs("import pyperf\npyperf.Runner().bench_func('empty', lambda: None, inner_loops=1000000)\n", f);
	fclose(f);
	snprintf(spec, sizeof spec, "python:pyperf=%s", neg);
	assert_cell_error(dir, (const char *const[]){"run", "-p", "system", "-w", spec, "-t", "1", "-n", "1", "-o",
						     "r.json", NULL},
			  "returned -1, not a duration in seconds");
	snprintf(spec, sizeof spec, "python:pyperf=%s", zero);
	assert_cell_error(dir, (const char *const[]){"run", "-p", "system", "-w", spec, "-t", "1", "-n", "1", "-o",
						     "r.json", NULL},
			  "the workload counted work it did not do");
}

Test(hostile3, a_results_file_whose_version_is_not_its_layout_is_refused)
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

static int alloclab_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		n += strncmp(e->d_name, "alloclab-", 9) == 0;
	closedir(d);
	return n;
}

/* A program that floods its output is stopped at the cap and hashed as it
 * streams; one that outlives the timeout is killed; either way the worker's
 * scratch goes with it. */
Test(hostile3, exec_scratch_never_outlives_its_worker, .timeout = 120)
{
	if (getenv("ALLOCLAB_UNDER_SANITIZER"))
		cr_skip_test("the preload library is for uninstrumented programs");
	char *dir = scratch_dir(), tmp[4200];
	snprintf(tmp, sizeof tmp, "%s/tmp", dir);
	mkdir(tmp, 0700);
	setenv("TMPDIR", tmp, 1);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--timeout", "3", "-p", "system", "-w",
								      "exec:cmd=sleep 30", "-t", "1", "-n", "1", "-v", "1",
								      "--warmups", "0", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 1, "%s", r.err);
	cmd_result_free(&r);
	cr_expect_eq(alloclab_entries(tmp), 0, "a timed-out worker left its scratch in TMPDIR");
	r = run_alloclab(dir, (const char *const[]){"run", "--timeout", "60", "-p", "system", "-w", "exec:cmd=yes", "-t",
						    "1", "-n", "1", "-v", "1", "--warmups", "0", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 1, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "r.json");
	cr_expect(strstr(res->cells[0].message, "wrote more than 1024 MiB"), "%s", res->cells[0].message);
	alloclab_results_free(res);
	cr_expect_eq(alloclab_entries(tmp), 0, "a flooding program's worker left its scratch in TMPDIR");
	unsetenv("TMPDIR");
}

Test(hostile3, record_refuses_what_run_refuses_and_leaves_nothing_when_killed, .timeout = 120)
{
	char *dir = scratch_dir(), path[4200], link_path[4300];
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=100", "-t", "1",
								      "-n", "1", "-o", "r.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	const char *outs[] = {"r.json", "l.trace", "/proc/nonexistent/x.trace", ""};
	const char *why[] = {"is not an alloclab trace", "symbolic link", "cannot create folder", "names no file"};
	snprintf(path, sizeof path, "%s/r.json", dir);
	snprintf(link_path, sizeof link_path, "%s/l.trace", dir);
	cr_assert_eq(symlink(path, link_path), 0);
	for (size_t i = 0; i < sizeof outs / sizeof *outs; i++) {
		r = run_alloclab(dir, (const char *const[]){"record", "-p", "system", "-w", "churn", "-o", outs[i], NULL});
		cr_expect_eq(r.status, 2, "%s: %s", outs[i], r.err);
		cr_expect(strstr(r.err, why[i]) && count_lines(r.err) == 1, "%s: %s", outs[i], r.err);
		cmd_result_free(&r);
	}
	/* The results file is intact; a folder that is missing is made. */
	struct alloclab_results *res = load_results(dir, "r.json");
	alloclab_results_free(res);
	r = run_alloclab(dir, (const char *const[]){"record", "-p", "system", "-w", "churn:ops=1000", "-o", "new/a.trace",
						    NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	/* run refuses to replace the trace, as record refuses a results file. */
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=100", "-o", "new/a.trace", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "is not an alloclab results file"), "%s", r.err);
	cmd_result_free(&r);
	/* Killed with SIGKILL half-way: nothing of the trace is left. */
	char sub[4300], cmd[9000];
	snprintf(sub, sizeof sub, "%s/killed", dir);
	mkdir(sub, 0755);
	snprintf(cmd, sizeof cmd, "cd %s && (%s record -p system -w churn:ops=400000000 -o big.trace & pid=$!; sleep 2; kill -9 $pid; wait) 2>/dev/null",
		 sub, getenv("ALLOCLAB_EXE"));
	cr_assert_neq(system(cmd), -1);
	DIR *d = opendir(sub);
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		cr_expect(e->d_name[0] == '.', "left behind by a killed record: %s", e->d_name);
	closedir(d);
}

Test(hostile3, a_worker_over_the_memory_limit_is_stopped_with_one_line, .timeout = 120)
{
	char *dir = scratch_dir();
	assert_cell_error(dir, (const char *const[]){"run", "--memory-limit", "100M", "-p", "system", "-w",
						     "churn:min_size=512K,max_size=1M,slots=4096,ops=100000", "-t", "1", "-n",
						     "1", "-o", "r.json", NULL},
			  "over the memory limit of 100 MiB");
	struct alloclab_results *res = load_results(dir, "r.json");
	cr_expect_eq(json_integer_value(json_object_get(res->config, "memory_limit_bytes")), 100 << 20);
	alloclab_results_free(res);
}

/* An interrupted run's cells, measured by fewer processes than planned,
 * are drawn marked as partial. */
Test(hostile3, partial_cells_are_marked_in_the_pictures, .timeout = 60)
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
		for (unsigned k = 0; k < (p ? 1u : 3u); k++) {
			struct alloclab_process pr = {.index = k, .peak_rss_kib = 1000};
			pr.values = calloc(1, sizeof *pr.values);
			pr.nvalues = 1;
			pr.values[0].wall_ns = 1000;
			pr.values[0].thread_ns = calloc(1, sizeof(uint64_t));
			pr.values[0].thread_ops = calloc(1, sizeof(uint64_t));
			pr.values[0].thread_ops[0] = 100;
			pr.values[0].per_op = 10.0 + p;
			alloclab_cell_add_process(cell, &pr);
		}
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

/* A FIFO where a file is read (a word list, a results file's journal) is
 * refused or passed over, never waited on. */
Test(hostile3, a_fifo_given_as_a_file_is_never_waited_on, .timeout = 30)
{
	char *dir = scratch_dir(), fifo[4200], spec[4300];
	snprintf(fifo, sizeof fifo, "%s/words", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	snprintf(spec, sizeof spec, "unicode:text=%s", fifo);
	assert_run_refused(dir, (const char *const[]){"run", "-p", "system", "-w", spec, "-o", "refused.json", NULL},
			   "not a regular file (a FIFO)");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=100", "-t", "1",
								      "-n", "1", "-o", "r.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	snprintf(fifo, sizeof fifo, "%s/r.json.journal", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	r = run_alloclab(dir, (const char *const[]){"show", "r.json", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
}
