/*
 * Memory over time: the timeline sampled from outside the worker, with its
 * steps; thinning; what the reader refuses; what the allocator gives back
 * (after finish, after its trim op, after --settle-ms); page faults per
 * value; the report and the picture.
 */
#include "helpers.h"
#include "memory_timeline.h"
#include "results.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *path_in(const char *dir, const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);
	sprintf(p, "%s/%s", dir, name);
	return p;
}

/* 20,000 blocks of 4 KiB live in every value: 80 MiB. */
#define BIG "churn:slots=20000,min_size=4096,max_size=4096,ops=300000"

Test(memory, the_timeline_has_the_working_set_and_the_steps, .timeout = 120)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-p", "mimalloc", "-w", BIG,
								      "-t", "1", "-n", "1", "-v", "2", "--settle-ms", "50",
								      "-o", "m.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "memory: the worker's resident set") && strstr(r.out, "trimmed"), "%s", r.out);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "m.json");
	for (unsigned c = 0; c < res->ncells; c++) {
		const struct alloclab_process *p = &res->cells[c].procs[0];
		cr_assert(p->memory, "%s: no timeline", res->cells[c].plugin);
		json_t *samples = json_object_get(p->memory, "samples"), *s;
		size_t i;
		long peak = 0;
		json_array_foreach(samples, i, s)
			if (json_integer_value(json_array_get(s, 1)) > peak)
				peak = (long)json_integer_value(json_array_get(s, 1));
		cr_expect_geq(peak, 78 * 1024, "%s: peak %ld KiB", res->cells[c].plugin, peak);
		cr_expect_geq(json_array_size(samples), 5);
		cr_expect_eq(json_integer_value(json_object_get(p->memory, "requested_ms")), 10);
		cr_expect(alloclab_timeline_phase(p->memory, "warm-up 1") >= 0 || alloclab_timeline_phase(p->memory, "run 1") >= 0,
			  "the steps are marked");
		/* The harness alone, then the working set, then given back. */
		cr_expect(p->rss_before_plugin_kib > 0 && p->rss_before_plugin_kib < 20 * 1024, "%ld", p->rss_before_plugin_kib);
		cr_expect_geq(p->rss_after_finish_kib, 0);
		cr_expect(p->rss_after_trim_kib > 0 && p->rss_after_trim_kib < 20 * 1024,
			  "%s: %ld KiB after trim (the workload freed its 80 MiB)", res->cells[c].plugin, p->rss_after_trim_kib);
		cr_expect_gt(p->rss_after_settle_kib, 0);
		cr_expect(p->values[0].faults_counted);
	}
	alloclab_results_free(res);

	/* --sample-ms 0: no timeline. */
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=1000", "-t", "1", "-n", "1",
						    "-v", "1", "--sample-ms", "0", "-o", "n.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	res = load_results(dir, "n.json");
	cr_expect_null(res->cells[0].procs[0].memory);
	alloclab_results_free(res);

	r = run_alloclab(dir, (const char *const[]){"plot", "m.json", "-o", "pictures", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	char *svg = read_file(path_in(dir, "pictures/memory-churn.svg"));
	cr_expect(svg && strstr(svg, "</svg>") && strstr(svg, "mimalloc"), "no memory picture");
	free(svg);
	cmd_result_free(&r);
}

Test(memory, page_faults_are_counted_per_value, .timeout = 60)
{
	char *dir = scratch_dir();
	/* Blocks of 64 MiB are mapped afresh by glibc on every malloc (past
	 * its largest mmap threshold), and churn touches two pages of each. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w",
								      "churn:slots=2,min_size=64M,max_size=64M,ops=50", "-t",
								      "1", "-n", "1", "-v", "2", "-o", "f.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "f.json");
	const struct alloclab_process *p = &res->cells[0].procs[0];
	for (unsigned v = 0; v < p->nvalues; v++) {
		cr_expect(p->values[v].faults_counted);
		cr_expect_geq(p->values[v].minor_faults, 100, "value %u: %llu faults", v,
			      (unsigned long long)p->values[v].minor_faults);
	}
	alloclab_results_free(res);
}

Test(memory, a_long_worker_is_thinned_to_at_most_the_cap)
{
	struct alloclab_timeline *t = alloclab_timeline_new(10, 0);
	for (unsigned i = 0; i < 5000; i++)
		alloclab_timeline_sample(t, getpid(), i * 0.01, i < 2500 ? "run 1" : "run 2");
	json_t *j = alloclab_timeline_json(t);
	char why[256];
	cr_assert_eq(alloclab_timeline_check(j, why, sizeof why), 0, "%s", why);
	size_t n = json_array_size(json_object_get(j, "samples"));
	cr_expect(n <= ALLOCLAB_TIMELINE_MAX_SAMPLES && n >= ALLOCLAB_TIMELINE_MAX_SAMPLES / 2, "%zu samples", n);
	/* Halved at the 2001st, 3001st and 4001st sample: 10 ms became 80. */
	cr_expect_eq(json_integer_value(json_object_get(j, "interval_ms")), 80);
	/* Both ends are still there. */
	json_t *last = json_array_get(json_object_get(j, "samples"), n - 1);
	cr_expect_geq(json_number_value(json_array_get(last, 0)), 49000);
	cr_expect_eq(json_array_size(json_object_get(j, "phases")), 2);
	json_decref(j);
	alloclab_timeline_free(t);
}

/* A results file with one field of a process's timeline changed must be
 * refused with one line naming it. */
Test(memory, the_reader_refuses_a_broken_timeline, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", BIG, "-t", "1", "-n", "1",
								      "-v", "1", "-o", "g.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	static const struct {
		const char *what, *says;
	} cases[] = {{"phase", "memory.samples[0]"}, {"backwards", "memory.samples[1]"}, {"size", "memory.samples[0][1]"},
		     {"interval", "interval_ms"}};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		json_t *doc = json_load_file(path_in(dir, "g.json"), 0, NULL);
		json_t *m = json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(doc, "cells"), 0),
									   "runs"), 0), "memory");
		json_t *samples = json_object_get(m, "samples");
		cr_assert(json_array_size(samples) >= 2, "too few samples to break");
		if (strcmp(cases[k].what, "phase") == 0)
			json_array_set_new(json_array_get(samples, 0), 4, json_integer(999));
		else if (strcmp(cases[k].what, "backwards") == 0)
			json_array_set_new(json_array_get(samples, 1), 0, json_real(-5));
		else if (strcmp(cases[k].what, "size") == 0)
			json_array_set_new(json_array_get(samples, 0), 1, json_integer(-7));
		else
			json_object_set_new(m, "interval_ms", json_integer(0));
		cr_assert_eq(json_dump_file(doc, path_in(dir, "bad.json"), 0), 0);
		json_decref(doc);
		r = run_alloclab(dir, (const char *const[]){"show", "bad.json", NULL});
		cr_expect_eq(r.status, 2, "%s: %d", cases[k].what, r.status);
		cr_expect(strstr(r.err, "bad.json") && strstr(r.err, cases[k].says), "%s: %s", cases[k].what, r.err);
		cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
		cmd_result_free(&r);
	}
}
