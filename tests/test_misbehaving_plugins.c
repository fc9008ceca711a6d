/*
 * Plugins that misbehave while alloclab loads, checks or measures them:
 * they flood the result pipe, leave daemons, print, hang in a shared step,
 * fork a live twin, crash or exit while loading, report absurd statistics
 * or values, cut or corrupt their descriptor, close the worker's
 * descriptors, or outgrow the memory limit. Each costs only its own cell
 * (or is refused with one line), and says which plugin did it.
 */
#define _GNU_SOURCE 1
#include "helpers.h"
#include "plugin/stats.h"
#include "results/results.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

Test(misbehaving_plugins, a_flooding_worker_is_an_error_not_a_runaway_runner, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", test_plugin("flood"), "-w",
		"churn:ops=100", "-t", "1", "-n", "1", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 1, "%s", r.err);
	struct alloclab_results *doc = load_results(dir, "r.json");
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_ERROR);
	cr_expect(strstr(doc->cells[0].message, "worker sent more than 64 MiB") != NULL, "%s", doc->cells[0].message);
	alloclab_results_free(doc);
	cmd_result_free(&r);
}

Test(misbehaving_plugins, a_plugins_daemon_is_reaped, .timeout = 60)
{
	char *dir = scratch_dir(), spec[4300], pidfile[4200];
	snprintf(pidfile, sizeof pidfile, "%s/daemon.pid", dir);
	snprintf(spec, sizeof spec, "%s:pidfile=%s", test_plugin("daemon"), pidfile);
	/* Left running beside the probe: killed, and the plugin refused. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", spec, "-w", "churn:ops=100", "-t", "1",
		"-n", "1", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "left 1 process of its own running"), "%s", r.err);
	char *text = read_file(pidfile);
	cr_assert_not_null(text, "the daemon never started");
	long pid = atol(text);
	cr_expect_gt(pid, 0);
	cr_expect_not(alive(pid), "the plugin's daemon %ld outlived its cell", pid);
	free(text);
	cmd_result_free(&r);
}

Test(misbehaving_plugins, plugin_output_never_reaches_alloclabs_own, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"check", test_plugin("chatty"), "--json", "--case",
		"alignment", NULL});
	json_t *doc = json_loads(r.out, 0, NULL);
	cr_assert_not_null(doc, "check --json is not JSON: %s", r.out);
	cr_expect_eq(r.status, 0);
	json_t *c = json_array_get(json_object_get(json_array_get(doc, 0), "cases"), 0);
	cr_expect(strstr(json_string_value(json_object_get(c, "plugin_output")), "hello from chatty") != NULL);
	json_decref(doc);
	cmd_result_free(&r);

	r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", test_plugin("chatty"), "-w", "churn:ops=100", "-t", "1",
		"-n", "1", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 0);
	/* Not a line of its own: only inside alloclab's flagged note. */
	cr_expect(strstr(r.out, "\nhello from chatty") == NULL, "%s", r.out);
	cr_expect(strstr(r.out, "note: plugin chatty printed while measured") != NULL, "%s", r.out);
	struct alloclab_results *res = load_results(dir, "r.json");
	cr_expect(strstr(res->cells[0].procs[0].plugin_output, "chatty: first malloc") != NULL);
	alloclab_results_free(res);
	cmd_result_free(&r);
}

Test(misbehaving_plugins, a_hang_in_a_shared_step_stops_check_at_once, .timeout = 60)
{
	struct cmd_result r = run_alloclab(NULL, (const char *const[]){"check", test_plugin("hang_detach"), "--timeout",
		"2", NULL});
	cr_expect_eq(r.status, 1);
	cr_expect(strstr(r.out, "timed out after 2 s (raise --timeout if it is just slow) in thread_detach") != NULL, "%s",
		  r.out);
	cr_expect(strstr(r.out, "the other cases were not run: thread_detach hung in case alignment") != NULL, "%s",
		  r.out);
	cmd_result_free(&r);
}

/* A plugin given by path is put through `alloclab check` before it is
 * measured; one that fails a case is measured all the same but marked, in
 * the table and the JSON; the outcome is cached for the same file. */
Test(misbehaving_plugins, run_checks_plugins_given_by_path, .timeout = 120)
{
	char *dir = scratch_dir(), cache[4300];
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", test_plugin("bad_neighbour"), "-w",
		"churn:ops=1000,slots=16,max_size=64", "-t", "1", "-n", "1", "-o", "r.json", NULL});
	/* Its writes over its neighbours reach the blocks churn holds: the
	 * worker finds them changed, and the cell is an error, not a
	 * measurement; the check's finding is recorded all the same. */
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.out, "[fails check: guards]") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "bad-neighbour fails check case guards: operation") != NULL, "%s", r.out);
	cmd_result_free(&r);
	struct alloclab_results *doc = load_results(dir, "r.json");
	cr_expect(doc->cells[0].status == ALLOCLAB_CELL_ERROR && strstr(doc->cells[0].message, "changed under the workload"),
		  "%s", doc->cells[0].message ? doc->cells[0].message : "ok");
	json_t *check = doc->plugins[0].check;
	cr_assert_eq(json_array_size(check), 1);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(check, 0), "case")), "guards");
	alloclab_results_free(doc);
	snprintf(cache, sizeof cache, "%s/alloclab/check", getenv("XDG_CACHE_HOME"));
	cr_expect_geq(count_files(cache), 1, "nothing cached in %s", cache);
	/* Named plugins are not checked unless asked; --no-check checks none. */
	r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", test_plugin("bad_neighbour"), "-w",
		"churn:ops=1000,slots=16,max_size=64", "-t", "1", "-n", "1", "-o", "r2.json", NULL});
	cr_expect(strstr(r.out, "fails check") == NULL, "%s", r.out);
	cmd_result_free(&r);
}

Test(misbehaving_plugins, descriptor_text_must_be_utf8, .timeout = 60)
{
	struct cmd_result r = run_alloclab(NULL, (const char *const[]){"run", "-p", test_plugin("bad_utf8"), "-w",
		"churn:ops=100", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "bad_utf8.so: descriptor's description string is not UTF-8") != NULL, "%s", r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cmd_result_free(&r);
	/* check vets it as run does: refused in one line, nothing on stdout
	 * that a reader of --json could take for a report. */
	r = run_alloclab(NULL, (const char *const[]){"check", test_plugin("bad_utf8"), "--json", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "is not UTF-8") != NULL && count_lines(r.err) == 1, "%s", r.err);
	cr_expect_str_eq(r.out, "");
	cmd_result_free(&r);
}

Test(misbehaving_plugins, a_forked_twin_of_the_worker_is_found_killed_and_refused, .timeout = 60)
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

Test(misbehaving_plugins, a_crash_while_loading_names_the_plugin_and_the_step, .timeout = 60)
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

Test(misbehaving_plugins, a_statistic_past_int64_max_is_kept_not_the_measurement_lost, .timeout = 60)
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

Test(misbehaving_plugins, a_descriptor_with_a_reserved_field_set_is_refused)
{
	char *dir = scratch_dir();
	assert_run_refused(dir, (const char *const[]){"run", "-p", test_plugin("reserved_set"), "-w", "churn", "-o",
						      "refused.json", NULL},
			   "reserved0 is 7");
}

Test(misbehaving_plugins, a_file_that_is_not_a_plugin_is_refused_by_check)
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

/* A benchmark's own time that is no time, and a value too fast to be
 * work, fail the cell where they are made. */
Test(misbehaving_plugins, absurd_values_fail_the_cell_where_they_are_made, .timeout = 120)
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

/* A program that floods its output is stopped at the cap and hashed as it
 * streams; one that outlives the timeout is killed; either way the worker's
 * scratch goes with it. */
Test(misbehaving_plugins, exec_scratch_never_outlives_its_worker, .timeout = 120)
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

Test(misbehaving_plugins, a_worker_over_the_memory_limit_is_stopped_with_one_line, .timeout = 120)
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

/* A stats op that emits a NULL name, an empty one and an escape sequence
 * loses those statistics, not the worker and the cell. */
Test(misbehaving_plugins, a_stats_op_with_bad_names_loses_only_those, .timeout = 60)
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

/* A descriptor whose struct_size ends inside a pointer is refused, not
 * half copied. */
Test(misbehaving_plugins, a_descriptor_cut_inside_a_pointer_is_refused, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", test_plugin("cut_descriptor"), "-w", "churn",
								      "-o", "c.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "ends inside a member") && count_lines(r.err) == 1, "%s", r.err);
	cmd_result_free(&r);
	cr_expect_null(read_file(path_in(dir, "c.json")));
}

/* A plugin that ends the process in a constructor is named, with the
 * step. */
Test(misbehaving_plugins, a_plugin_that_exits_while_loading_is_named, .timeout = 60)
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
Test(misbehaving_plugins, a_plugin_that_closes_the_workers_descriptors_is_named, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", test_plugin("close_fds"), "-w", "churn",
								      "-o", "x.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "close_fds") && strstr(r.err, "closed the worker's descriptors") && count_lines(r.err) == 1,
		  "%s", r.err);
	cmd_result_free(&r);
}

/* A plugin that writes into blocks after freeing them (into the blocks it
 * hands out next) is not measured as ok: the worker checks, after each
 * value's run, that the blocks the workload holds carry what it wrote.
 * Before, nothing checked, and the cell was ok. */
Test(misbehaving_plugins, a_plugin_that_changes_live_blocks_is_not_measured, .timeout = 120)
{
	char *dir = scratch_dir();
	char plugin[4200];
	snprintf(plugin, sizeof plugin, "%s:do=uaf", test_plugin("in_worker"));
	static const char *const workloads[] = {"churn:ops=20000,min_size=64,max_size=64", "steady:steps=20000,min_size=64,max_size=64"};
	for (size_t k = 0; k < 2; k++)
		assert_cell_error(dir,
				  (const char *const[]){"run", "--no-check", "-p", plugin, "-w", workloads[k], "-t", "1", "-n",
							"1", "-v", "1", "-o", "r.json", "-q", NULL},
				  "changed under the workload");
}

/* A plugin that crashes in its entry function, after dlopen and its
 * constructors: every command names it, and the step, which is told from
 * the loading before it. */
Test(misbehaving_plugins, a_crash_in_the_entry_function_is_named, .timeout = 120)
{
	char *dir = scratch_dir(), *folder = path_in(dir, "plugins"), env[4300];
	const char *plugin = test_plugin("crash_in_entry");
	const char *const *commands[] = {
		(const char *const[]){"run", "-p", plugin, "-w", "churn:ops=100", "-o", "r.json", NULL},
		(const char *const[]){"exec", "-p", plugin, "--", "/bin/true", NULL},
		(const char *const[]){"check", plugin, NULL},
		(const char *const[]){"record", "-p", plugin, "-w", "churn:ops=100", "-o", "t.trace", NULL},
	};
	for (size_t k = 0; k < sizeof commands / sizeof *commands; k++) {
		struct cmd_result r = run_alloclab(dir, commands[k]);
		cr_expect_eq(r.status, 2, "%s: %d %s", commands[k][0], r.status, r.err);
		cr_expect(strstr(r.err, "crash_in_entry") && strstr(r.err, "in its entry function (alloclab_plugin_entry)") &&
				  count_lines(r.err) == 1,
			  "%s: %s", commands[k][0], r.err);
		cmd_result_free(&r);
	}
	/* `list` probes what it finds by name: the same words. */
	cr_assert_eq(mkdir(folder, 0700), 0);
	char *text = read_file(plugin);
	struct stat st;
	cr_assert(text && stat(plugin, &st) == 0);
	FILE *f = fopen(path_in(folder, "crash_in_entry.so"), "wb");
	cr_assert(f && fwrite(text, 1, (size_t)st.st_size, f) == (size_t)st.st_size);
	fclose(f);
	free(text);
	snprintf(env, sizeof env, "ALLOCLAB_PLUGIN_PATH=%s", folder);
	struct cmd_result r = run_alloclab_env(dir, (const char *const[]){"list", NULL}, (const char *const[]){env, NULL});
	cr_expect(strstr(r.out, "crash_in_entry cannot be probed: plugin 'crash_in_entry' killed by signal 11") &&
			  strstr(r.out, "in its entry function"),
		  "%s", r.out);
	cmd_result_free(&r);
}

/* A plugin that closes its descriptors (the answer pipe, its output)
 * and then takes memory is held to the memory limit all the same: its
 * supervisor no longer reads pipes, but still looks at its memory. */
Test(misbehaving_plugins, a_plugin_without_pipes_is_held_to_the_memory_limit, .timeout = 120)
{
	char *dir = scratch_dir();
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--memory-limit", "128M", "--timeout", "60",
								      "-p", test_plugin("hog"), "-w", "churn:ops=100", "-o",
								      "r.json", NULL});
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_expect_eq(r.status, 2, "%d %s", r.status, r.err);
	cr_expect(strstr(r.err, "hog") && strstr(r.err, "over the memory limit of 128 MiB") && count_lines(r.err) == 1, "%s",
		  r.err);
	cr_expect((double)(t1.tv_sec - t0.tv_sec) < 45, "held until its deadline: %ld s", (long)(t1.tv_sec - t0.tv_sec));
	cmd_result_free(&r);
}

/* A plugin that crashes or aborts in create, the first op any process
 * calls: every command that loads it names it, by its label where it has
 * one and by its file, and the step. */
Test(misbehaving_plugins, a_crash_in_create_names_the_plugin_its_label_and_the_step, .timeout = 180)
{
	char *dir = scratch_dir(), labelled[4300], aborting[4300];
	const char *plugin = test_plugin("bad_create");
	snprintf(labelled, sizeof labelled, "%s:as=mine", plugin);
	snprintf(aborting, sizeof aborting, "%s:how=abort,as=mine", plugin);
	const struct {
		const char *const *args;
		const char *says;
	} commands[] = {
		{(const char *const[]){"run", "-p", labelled, "-w", "churn:ops=100", "-o", "r.json", NULL}, "signal 11"},
		{(const char *const[]){"run", "-p", aborting, "-w", "churn:ops=100", "-o", "r.json", NULL}, "signal 6"},
		{(const char *const[]){"exec", "-p", labelled, "--", "/bin/true", NULL}, "signal 11"},
		{(const char *const[]){"check", labelled, NULL}, "signal 11"},
		{(const char *const[]){"record", "-p", labelled, "-w", "churn:ops=100", "-o", "t.trace", NULL}, "signal 11"},
	};
	for (size_t k = 0; k < sizeof commands / sizeof *commands; k++) {
		struct cmd_result r = run_alloclab(dir, commands[k].args);
		cr_expect_eq(r.status, 2, "%s: %d %s", commands[k].args[0], r.status, r.err);
		cr_expect(strstr(r.err, "plugin 'mine'") && strstr(r.err, plugin) && strstr(r.err, commands[k].says) &&
				  strstr(r.err, "in create") && count_lines(r.err) == 1,
			  "%s: %s", commands[k].args[0], r.err);
		cmd_result_free(&r);
	}
}
