/*
 * Results files: written by the one writer and read back identical by the
 * one reader; every kind of bad field refused with the file, the field and
 * the problem; the journal folded in after a kill; output paths that are
 * not regular files never replaced; one writer per file.
 */
#include "helpers.h"
#include "registry.h"
#include "results/results.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A run of one plugin and two cells (churn at 1 and 2 threads), the first
 * measured by one process of two values, through the model's builders. */
static struct alloclab_results *sample_run(void)
{
	char *argv[] = {"alloclab", "run"};
	struct alloclab_results *r = alloclab_results_new(2, argv, &(struct alloclab_run_settings){.processes = 1, .values = 1, .cache_align = "off", .measure = "time"});
	struct alloclab_plugin_info info = {.label = "system", .spec = "system", .name = "system", .version = "glibc"};
	alloclab_results_add_plugin(r, &info);
	for (unsigned t = 1; t <= 2; t++) {
		struct alloclab_cell c = {.plugin = "system", .workload = "churn", .threads = t,
					  .params = json_pack("{s:i,s:s}", "ops", 10, "text", "/x/y.txt"),
					  .status = t == 1 ? ALLOCLAB_CELL_OK : ALLOCLAB_CELL_PENDING, .planned = 1};
		struct alloclab_cell *cell = alloclab_results_add_cell(r, &c);
		if (t != 1)
			continue;
		struct alloclab_process p = {.index = 0, .peak_rss_kib = 3000, .elapsed_s = 0.5};
		p.values = calloc(2, sizeof *p.values);
		p.nvalues = 2;
		for (unsigned v = 0; v < 2; v++) {
			p.values[v].wall_ns = 1234567 + v;
			p.values[v].thread_ns = calloc(1, sizeof(uint64_t));
			p.values[v].thread_ops = calloc(1, sizeof(uint64_t));
			p.values[v].thread_ns[0] = 1234567 + v;
			p.values[v].thread_ops[0] = 10;
			p.values[v].per_op = 123456.7 + v;
		}
		p.stats = json_pack("{s:i}", "mallocs", 30);
		alloclab_cell_add_process(cell, &p);
	}
	return r;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

Test(results, round_trip_is_identical_and_compact)
{
	char *dir = scratch_dir(), path[4200], err[512];
	struct alloclab_results *r = sample_run(), *back;

	snprintf(path, sizeof path, "%s/sub/dir/r.json", dir);
	cr_assert_eq(alloclab_results_write(r, path, err, sizeof err), 0, "%s", err);
	back = alloclab_results_load(path, alloclab_workload_check_report, err, sizeof err);
	cr_assert_not_null(back, "%s", err);
	json_t *a = alloclab_results_to_json(r), *b = alloclab_results_to_json(back);
	cr_expect(json_equal(a, b), "read back differs");
	cr_expect_eq(back->cells[0].procs[0].values[1].per_op, 123457.7);
	cr_expect_eq(back->cells[0].procs[0].peak_rss_kib, 3000);
	cr_expect_eq(back->cells[1].status, ALLOCLAB_CELL_PENDING);
	/* Compact: one line, no indentation. */
	char *text = read_file(path);
	cr_expect_eq(count_lines(text), 1);
	cr_expect(strstr(text, "\n ") == NULL);
	free(text);
	/* No temporary file is left beside it. */
	snprintf(path, sizeof path, "%s/sub/dir", dir);
	DIR *d = opendir(path);
	struct dirent *e;
	int files = 0;
	while ((e = readdir(d)))
		files += e->d_name[0] != '.';
	closedir(d);
	cr_expect_eq(files, 1);
	json_decref(a);
	json_decref(b);
	alloclab_results_free(r);
	alloclab_results_free(back);
}

static void expect_load_fails(const char *content, const char *needle)
{
	char *dir = scratch_dir(), path[4200], err[512] = "";
	snprintf(path, sizeof path, "%s/bad.json", dir);
	write_text(path, content);
	cr_expect_null(alloclab_results_load(path, alloclab_workload_check_report, err, sizeof err), "accepted: %s",
		       content);
	cr_expect(strstr(err, needle) != NULL, "'%s' not in: %s", needle, err);
	cr_expect(strstr(err, path) == err, "the message does not start with the file: %s", err);
}

/* The sample run's JSON with one edit: `path` is a '/'-separated list of
 * keys and indices, `value` replaces what is there (NULL deletes it). */
static char *edited(const char *path, json_t *value)
{
	struct alloclab_results *r = sample_run();
	json_t *doc = alloclab_results_to_json(r), *at = doc, *parent = NULL;
	char copy[256], *save = NULL, *last = NULL;

	snprintf(copy, sizeof copy, "%s", path);
	for (char *k = strtok_r(copy, "/", &save); k; k = strtok_r(NULL, "/", &save)) {
		parent = at;
		last = k;
		at = json_is_array(at) ? json_array_get(at, (size_t)atoi(k)) : json_object_get(at, k);
	}
	if (json_is_array(parent)) {
		if (value)
			json_array_set_new(parent, (size_t)atoi(last), value);
		else
			json_array_remove(parent, (size_t)atoi(last));
	} else if (value) {
		json_object_set_new(parent, last, value);
	} else {
		json_object_del(parent, last);
	}
	char *text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	alloclab_results_free(r);
	return text;
}

static void expect_edit_fails(const char *path, json_t *value, const char *needle)
{
	char *text = edited(path, value);
	expect_load_fails(text, needle);
	free(text);
}

Test(results, every_field_is_checked)
{
	expect_edit_fails("format_version", json_string("1"), "format_version: is a string, not a whole number");
	expect_edit_fails("format_version", json_integer(99), "format version 99");
	expect_edit_fails("cells/0/threads", json_integer(0), "cells[0].threads: 0 is out of range 1..1024");
	expect_edit_fails("cells/0/threads", json_integer(2), "cells[0].runs[0].values[0].thread_ns: has 1 entries for 2 threads");
	expect_edit_fails("cells/0/workload", NULL, "cells[0].workload: missing");
	expect_edit_fails("cells/0/workload", json_integer(3), "cells[0].workload: is a whole number, not a string");
	expect_edit_fails("cells/0/status", json_string("great"), "cells[0].status: 'great' is not");
	expect_edit_fails("cells/0/runs/0/values/0/ns_per_op", json_real(-1), "values[0].ns_per_op: -1 is not a finite positive time");
	expect_edit_fails("cells/0/runs/0/values/0/ns_per_op", json_integer(0), "is not a finite positive time");
	expect_edit_fails("cells/0/runs/0/values/1/thread_ops/0", json_integer(-5), "thread_ops: entry 0 is negative");
	expect_edit_fails("cells/0/runs/0/values/0/thread_ns", json_string("x"), "thread_ns: is a string, not an array");
	expect_edit_fails("cells/0/runs/0/values", NULL, "cells[0].runs[0].values: missing");
	expect_edit_fails("cells/0/runs/0/stats/mallocs", json_string("many"), "stats: 'mallocs' is a string");
	expect_edit_fails("cells/0/params/ops", json_real(1.5), "params: 'ops' is a fractional number");
	expect_edit_fails("cells/0/plugin_index", json_integer(7), "cells[0].plugin_index: 7 is out of range 0..0");
	expect_edit_fails("cells/0/plugin", json_string("other"), "cells[0].plugin: 'other' is not the label of plugins[0]");
	expect_edit_fails("cells/0/runs/0/report", json_pack("[{s:i}]", "placement", 3), "report: entry 0: placement is not an object");
	expect_edit_fails("plugins/0/caps", json_pack("[i]", 1), "plugins[0].caps: entry 0 is a whole number");
	expect_edit_fails("cells/0/runs", json_pack("[i]", 1), "cells[0].runs[0]: is a whole number, not an object");
	expect_edit_fails("metadata", json_string("x"), "metadata: is missing or not an object");
	expect_edit_fails("cells/1/status", json_string("ok"), "cells[1].runs: a cell whose status is ok has no measurement");
	expect_edit_fails("cells/0/runs/0/layout_pad_pages", json_integer(5000), "layout_pad_pages: 5000 is out of range");
	expect_edit_fails("cells/0/runs/0/layout_pad_pages", json_string("7"), "layout_pad_pages: is a string");
	/* Absurd values, which no measurement gives, are refused by the
	 * reader rather than shown as "inf s" and "-nan%" (the two values
	 * summed for their mean reach infinity). */
	expect_edit_fails("cells/0/runs/0/values/0/ns_per_op", json_real(1.7e308), "ns_per_op: 1.7e+308 is more than 2^64 units");
	expect_edit_fails("cells/0/runs/0/values/0/d1_misses_per_op", json_real(1e300), "d1_misses_per_op: is not a number of misses");
	expect_edit_fails("cells/0/runs/0/elapsed_s", json_real(1e300), "elapsed_s: is not a number of seconds");
	expect_edit_fails("metadata/other_cpus", json_pack("{s:f,s:f,s:f}", "mean", 1e300, "stolen", 0.0, "peak", 1.0),
			  "metadata.other_cpus.mean: 1.0000000000000001e+300 is out of range");
	expect_edit_fails("metadata/allocator_environment", json_pack("{s:s}", "BAD NAME", "1"),
			  "metadata.allocator_environment: 'BAD NAME' is not a variable's name");
	/* The page faults and system time a value's timed region took, and
	 * the machine's cost of a fault (which turns them into time). */
	expect_edit_fails("cells/0/runs/0/values/0/sys_ns", json_integer(-3), "sys_ns");
	expect_edit_fails("cells/0/runs/0/values/0/sys_ns", json_string("3"), "sys_ns");
	expect_edit_fails("cells/0/runs/0/values/0/minor_faults", json_real(0.5), "minor_faults");
	expect_edit_fails("metadata/page_fault_ns", json_real(-1), "metadata.page_fault_ns");
	expect_edit_fails("metadata/page_fault_ns", json_real(1e300), "metadata.page_fault_ns");
	expect_edit_fails("metadata/page_fault_ns", json_string("fast"), "metadata.page_fault_ns");
}

Test(results, truncated_and_foreign_files_are_refused)
{
	char *text = edited("interrupted", json_false());
	text[strlen(text) / 2] = '\0';
	expect_load_fails(text, "not valid JSON");
	free(text);
	expect_load_fails("{\"benchmarks\": []}", "not an alloclab results file");
	expect_load_fails("[1, 2]", "not an alloclab results file");
	expect_load_fails("{\"format\": \"alloclab-run\", \"format_version\": 1, \"cells\": [], \"format\": 2}",
			  "duplicate object key");
	/* JSON has no NaN: a hand-made one is not JSON at all. */
	expect_load_fails("{\"format\": \"alloclab-run\", \"format_version\": 2, \"metadata\": {}, \"cells\": [NaN]}",
			  "not valid JSON");
}

Test(results, folders_and_missing_files_are_named)
{
	char *dir = scratch_dir(), err[512];
	cr_expect_null(alloclab_results_load("/nonexistent/r.json", NULL, err, sizeof err));
	cr_expect(strstr(err, "/nonexistent/r.json: No such file") != NULL, "%s", err);
	cr_expect_null(alloclab_results_load(dir, NULL, err, sizeof err));
	cr_expect(strstr(err, "is a folder, not a results file") != NULL, "%s", err);
}

Test(results, journal_is_folded_after_a_kill)
{
	char *dir = scratch_dir(), path[4200], err[512];
	struct alloclab_results *r = sample_run(), *back;
	struct alloclab_journal *j;

	snprintf(path, sizeof path, "%s/r.json", dir);
	/* The runner's first write: nothing complete yet. */
	r->complete = 0;
	cr_assert_eq(alloclab_results_write(r, path, err, sizeof err), 0, "%s", err);
	j = alloclab_journal_open(path, err, sizeof err);
	cr_assert_not_null(j, "%s", err);
	/* A second writer of the same file is refused at once. */
	cr_expect_null(alloclab_journal_open(path, err, sizeof err));
	cr_expect(strstr(err, "is being written by another alloclab run") != NULL, "%s", err);
	/* Cell 0 gets a second process, cell 1 an error, then the run dies
	 * in the middle of a line. */
	struct alloclab_process p = r->cells[0].procs[0];
	cr_assert_eq(alloclab_journal_append(j, 0, 1, ALLOCLAB_METRIC_TIME, &p, ALLOCLAB_CELL_OK, NULL, NULL, err, sizeof err), 0, "%s", err);
	/* The failed worker's samples go with the error. */
	char *phases[] = {"run 1"};
	struct alloclab_memory_sample sample = {5.0, 81234, 80000, -1, -1, 0};
	struct alloclab_memory_timeline tl = {10, 10, phases, 1, &sample, 1};
	cr_assert_eq(alloclab_journal_append(j, 1, 2, ALLOCLAB_METRIC_TIME, NULL, ALLOCLAB_CELL_ERROR, "process 2: boom", &tl, err, sizeof err), 0);
	char jpath[4300];
	snprintf(jpath, sizeof jpath, "%s.journal", path);
	FILE *f = fopen(jpath, "a");
	fputs("{\"cell\": 1, \"status\": \"ok\", \"process\": {\"val", f);
	fclose(f);
	back = alloclab_results_load(path, alloclab_workload_check_report, err, sizeof err);
	cr_assert_not_null(back, "%s", err);
	cr_expect(back->interrupted);
	cr_expect_eq(back->cells[0].status, ALLOCLAB_CELL_OK);
	cr_expect_eq(back->cells[0].nprocs, 2);
	cr_expect_eq(back->cells[0].procs[1].values[1].per_op, 123457.7);
	cr_expect_eq(back->cells[1].status, ALLOCLAB_CELL_ERROR);
	cr_expect_str_eq(back->cells[1].message, "process 2: boom");
	cr_assert(back->cells[1].failed_memory, "the failed worker's samples are not folded in");
	cr_expect_eq(back->cells[1].failed_memory->samples[0].rss_kib, 81234, "the failed worker's samples are not folded in");
	alloclab_journal_close(j, 0);
	alloclab_results_free(back);
	/* A complete document ignores a stale journal. */
	r->complete = 1;
	cr_assert_eq(alloclab_results_write(r, path, err, sizeof err), 0, "%s", err);
	back = alloclab_results_load(path, alloclab_workload_check_report, err, sizeof err);
	cr_assert_not_null(back, "%s", err);
	cr_expect_eq(back->cells[0].nprocs, 1);
	cr_expect_not(back->interrupted);
	alloclab_results_free(back);
	alloclab_results_free(r);
}

Test(results, only_regular_files_are_replaced)
{
	char *dir = scratch_dir(), path[4200], link[4300], err[512];
	struct alloclab_results *r = sample_run();
	struct stat st;

	/* A FIFO stands in for a device node: not a regular file. */
	snprintf(path, sizeof path, "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_expect_eq(alloclab_results_write(r, path, err, sizeof err), -1);
	cr_expect(strstr(err, "is not a regular file") != NULL, "%s", err);
	cr_expect(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
	/* A symbolic link is refused, and what it points to is untouched. */
	snprintf(path, sizeof path, "%s/target", dir);
	write_text(path, "keep");
	snprintf(link, sizeof link, "%s/link.json", dir);
	cr_assert_eq(symlink(path, link), 0);
	cr_expect_eq(alloclab_results_write(r, link, err, sizeof err), -1);
	cr_expect(strstr(err, "is a symbolic link") != NULL, "%s", err);
	char *kept = read_file(path);
	cr_expect_str_eq(kept, "keep");
	free(kept);
	cr_expect(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	alloclab_results_free(r);
}

/* The environment's allocator settings are facts of the run: recorded (as
 * the workers inherited them; of glibc's tunables only its malloc's),
 * shown under the table, and a difference between two runs said. A run of
 * the test suite records none: meson's random MALLOC_PERTURB_ is not
 * handed on to the commands the tests run. */
Test(results, the_allocator_environment_is_recorded_and_shown, .timeout = 120)
{
	char *dir = scratch_dir();
	const char *const args[] = {"run", "-p", "system", "-w", "churn:ops=2000", "-t", "1", "-n", "1", "-v", "1",
				    "--no-check", "-o", "e.json", "-q", NULL};
	struct cmd_result r = run_alloclab_env(
		dir, args,
		(const char *const[]){"MALLOC_ARENA_MAX=1", "MIMALLOC_PURGE_DELAY=0",
				      "GLIBC_TUNABLES=glibc.rtld.optional_static_tls=16384:glibc.malloc.tcache_count=0", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	const char *const plain[] = {"run", "-p", "system", "-w", "churn:ops=2000", "-t", "1", "-n", "1", "-v", "1",
				     "--no-check", "-o", "plain.json", "-q", NULL};
	r = run_alloclab(dir, plain);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);

	struct alloclab_results *e = load_results(dir, "e.json"), *p = load_results(dir, "plain.json");
	const json_t *env = e->facts.allocator_env;
	cr_assert_not_null(env);
	cr_expect_str_eq(json_string_value(json_object_get(env, "MALLOC_ARENA_MAX")), "1");
	cr_expect_str_eq(json_string_value(json_object_get(env, "MIMALLOC_PURGE_DELAY")), "0");
	cr_expect_str_eq(json_string_value(json_object_get(env, "GLIBC_TUNABLES")), "glibc.malloc.tcache_count=0");
	cr_expect_null(json_object_get(env, "MALLOC_PERTURB_"));
	cr_assert_not_null(p->facts.allocator_env);
	cr_expect_eq(json_object_size(p->facts.allocator_env), 0, "the suite's runs inherit an allocator setting");

	char why[1024];
	cr_expect_eq(alloclab_results_env_difference(p, p, why, sizeof why), 0);
	cr_expect_eq(alloclab_results_env_difference(p, e, why, sizeof why), 1);
	cr_expect(strstr(why, "e.json ran with") && strstr(why, "MALLOC_ARENA_MAX=1") && strstr(why, "plain.json without"),
		  "%s", why);
	alloclab_results_free(e);
	alloclab_results_free(p);

	r = run_alloclab(dir, (const char *const[]){"show", "e.json", NULL});
	cr_expect(strstr(r.out, "environment set the allocators") && strstr(r.out, "MALLOC_ARENA_MAX=1"), "%s", r.out);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"show", "plain.json", NULL});
	cr_expect_null(strstr(r.out, "environment set the allocators"), "%s", r.out);
	cmd_result_free(&r);

	/* compare says it above the table, in every format that has words. */
	const char *formats[] = {"rst", "md", "json"};
	for (int i = 0; i < 3; i++) {
		r = run_alloclab(dir, (const char *const[]){"compare", "-f", formats[i], "plain.json", "e.json", NULL});
		cr_expect_eq(r.status, 0, "%s", r.err);
		cr_expect(strstr(r.out, "environments set the allocators differently") &&
				  strstr(r.out, "e.json ran with MALLOC_ARENA_MAX=1"),
			  "compare -f %s: %s", formats[i], r.out);
		cmd_result_free(&r);
	}
	r = run_alloclab(dir, (const char *const[]){"compare", "-f", "json", "plain.json", "plain.json", NULL});
	cr_expect(r.status == 0 && strstr(r.out, "\"notes\"") == NULL, "runs alike get no note: %s", r.out);
	cmd_result_free(&r);
}
