/*
 * Memory over time: the timeline sampled from outside the worker, with its
 * steps; thinning; what the reader refuses; what the allocator gives back
 * (after finish, after its trim op, after --settle-ms); page faults per
 * value; the report and the picture.
 */
#include "helpers.h"
#include "process/memory_timeline.h"
#include "figures/process_memory.h"
#include "results/results.h"

#include <criterion/criterion.h>
#include <math.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
		long peak = 0;
		for (unsigned i = 0; i < p->memory->nsamples; i++)
			if (p->memory->samples[i].rss_kib > peak)
				peak = p->memory->samples[i].rss_kib;
		cr_expect_geq(peak, 78 * 1024, "%s: peak %ld KiB", res->cells[c].plugin, peak);
		cr_expect_geq(p->memory->nsamples, 5);
		cr_expect_eq(p->memory->requested_ms, 10);
		cr_expect(alloclab_memory_timeline_phase(p->memory, "warm-up 1") >= 0 ||
				  alloclab_memory_timeline_phase(p->memory, "run 1") >= 0,
			  "the steps are marked");
		/* The harness alone, then the working set, then given back. */
		cr_expect(p->rss_before_plugin_kib > 0 && p->rss_before_plugin_kib < 20 * 1024, "%ld", p->rss_before_plugin_kib);
		cr_expect_geq(p->rss_after_finish_kib, 0);
		/* Under a sanitizer glibc's malloc is the sanitizer's, which
		 * keeps freed memory in quarantine. */
		if (!getenv("ALLOCLAB_UNDER_SANITIZER"))
			cr_expect(p->rss_after_trim_kib > 0 && p->rss_after_trim_kib < 20 * 1024,
				  "%s: %ld KiB after trim (the workload freed its 80 MiB)", res->cells[c].plugin,
				  p->rss_after_trim_kib);
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
	cr_expect(svg && strstr(svg, "measured runs"), "the runs are not shaded");
	free(svg);
	/* What each keeps beside its peak, and fragmentation at the peak. */
	svg = read_file(path_in(dir, "pictures/memory-kept-churn.svg"));
	cr_expect(svg && strstr(svg, "freed all") && strstr(svg, "at the peak") && strstr(svg, "mimalloc"),
		  "no picture of what is kept");
	free(svg);
	svg = read_file(path_in(dir, "pictures/fragmentation.svg"));
	cr_expect(svg && strstr(svg, "resident / requested-live") && strstr(svg, "mimalloc"), "no fragmentation picture");
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
		alloclab_timeline_sample(t, getpid(), i * 0.01, i < 2500 ? "run 1" : "run 2", i * 1024);
	struct alloclab_memory_timeline *j = alloclab_timeline_take(t);
	char why[256];
	cr_assert_not_null(j);
	cr_assert_eq(alloclab_memory_timeline_valid(j, why, sizeof why), 0, "%s", why);
	unsigned n = j->nsamples;
	cr_expect(n <= ALLOCLAB_TIMELINE_MAX_SAMPLES && n >= ALLOCLAB_TIMELINE_MAX_SAMPLES / 2, "%u samples", n);
	/* Halved at the 2001st, 3001st and 4001st sample: 10 ms became 80. */
	cr_expect_eq(j->interval_ms, 80);
	/* Both ends are still there. */
	cr_expect_geq(j->samples[n - 1].t_ms, 49000);
	cr_expect_eq(j->nphases, 2);
	/* A copy is separate and alike. */
	struct alloclab_memory_timeline *c = alloclab_memory_timeline_copy(j);
	cr_assert(c != j && c->samples != j->samples && c->phases != j->phases);
	cr_expect_eq(c->nsamples, n);
	cr_expect_eq(memcmp(c->samples, j->samples, n * sizeof *c->samples), 0);
	cr_expect_str_eq(c->phases[1], j->phases[1]);
	alloclab_memory_timeline_free(c);
	alloclab_memory_timeline_free(j);
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

/* The workloads where memory is the point: each runs, says what it holds,
 * and fragmentation comes out of it. */
Test(memory, fragment_steady_and_blowup_report_what_they_hold, .timeout = 180)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-p", "mimalloc", "-w",
								      "fragment:blocks=100000", "-w", "steady:steps=300000",
								      "-w", "blowup:batches=50", "-t", "1,2", "-n", "1",
								      "--sample-ms", "1", "-o",
								      "w.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "fragmentation: resident over requested-live"), "%s", r.out);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "w.json");
	unsigned checked = 0;
	for (unsigned i = 0; i < res->ncells; i++) {
		const struct alloclab_cell *c = &res->cells[i];
		if (strcmp(c->workload, "blowup") == 0 && c->threads == 1) {
			cr_expect_eq(c->status, ALLOCLAB_CELL_NOT_APPLICABLE, "blowup needs pairs");
			continue;
		}
		cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s %s t=%u: %s", c->plugin, c->workload, c->threads,
			     c->message ? c->message : "");
		const struct alloclab_process *p = &c->procs[0];
		uint64_t end = p->values[p->nvalues - 1].live_end_bytes;
		if (strcmp(c->workload, "fragment") == 0) {
			/* 100,000 blocks of 16..256 bytes a thread: about 13.6 MB,
			 * the same again after the refill. */
			cr_expect(end > 12000000ull * c->threads && end < 16000000ull * c->threads, "fragment holds %llu",
				  (unsigned long long)end);
		} else if (strcmp(c->workload, "steady") == 0) {
			/* About 20,000 objects of 16..1024 bytes a thread. */
			cr_expect(end > 6000000ull * c->threads && end < 15000000ull * c->threads, "steady holds %llu",
				  (unsigned long long)end);
		}
		/* The timeline has what the workload held beside what was resident. */
		long most = 0;
		for (unsigned k = 0; k < p->memory->nsamples; k++)
			if (p->memory->samples[k].live_kib > most)
				most = p->memory->samples[k].live_kib;
		cr_expect_gt(most, 1000, "%s %s t=%u: no live bytes in the timeline", c->plugin, c->workload, c->threads);
		checked++;
	}
	cr_expect_eq(checked, 10);
	alloclab_results_free(res);
}

/* The standard statistic names mean the same in every plugin that gives
 * them: what the program holds, as the allocator counts it, agrees with
 * what the workload says it holds. */
Test(memory, standard_statistics_agree_with_what_the_workload_holds, .timeout = 120)
{
	if (getenv("ALLOCLAB_UNDER_SANITIZER"))
		cr_skip_test("under a sanitizer glibc's malloc, which the system plugin reports on, is the sanitizer's");
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-p", "jemalloc", "-p",
								      "tcmalloc", "-p", "obmalloc-radix", "-p", "cpython",
								      "-p", "mimalloc", "-w", "churn:slots=20000,ops=100000",
								      "-t", "1", "-n", "1", "-v", "1", "-o", "s.json", "-q",
								      NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "s.json");
	cr_assert_eq(res->ncells, 6);
	for (unsigned c = 0; c < res->ncells; c++) {
		const struct alloclab_process *p = &res->cells[c].procs[0];
		uint64_t resident = alloclab_stat_value(json_object_get(p->stats, "std.resident_bytes"));
		cr_expect_gt(resident, 0, "%s: no resident bytes", res->cells[c].plugin);
		if (strcmp(res->cells[c].plugin, "mimalloc") == 0)
			continue; /* Debian's release build counts what it committed, no more */
		/* What it hands out and what it holds free, it holds. */
		cr_expect_leq(alloclab_stat_value(json_object_get(p->stats, "std.in_use_bytes")) +
				      alloclab_stat_value(json_object_get(p->stats, "std.free_bytes")),
			      resident, "%s: in use and free beyond resident", res->cells[c].plugin);
		uint64_t live = p->values[p->nvalues - 1].live_end_bytes;
		uint64_t in_use = alloclab_stat_value(json_object_get(p->stats, "std.in_use_bytes"));
		uint64_t free_b = alloclab_stat_value(json_object_get(p->stats, "std.free_bytes"));
		/* About 20,000 blocks of 1..512 bytes: 5 MB, rounded up to size
		 * classes; glibc's count also holds the harness's own blocks. */
		cr_expect(live > 4000000 && live < 6500000, "%s: the workload holds %llu", res->cells[c].plugin,
			  (unsigned long long)live);
		cr_expect(in_use >= live && in_use < live * 2 + (4u << 20), "%s: in use %llu for %llu live",
			  res->cells[c].plugin, (unsigned long long)in_use, (unsigned long long)live);
		cr_expect(json_object_get(p->stats, "std.free_bytes") != NULL, "%s: no free bytes", res->cells[c].plugin);
		(void)free_b;
	}
	alloclab_results_free(res);
}

static uint64_t value_stat(const struct alloclab_value *v, const char *name)
{
	return alloclab_stat_value(json_object_get(v->stats, name));
}

/* What the replay and the multithreaded workloads say they hold is what
 * an allocator that counts every request sees: exactly at the end of a run
 * and, with one thread, at its peak; with two, threadtest and xmalloc
 * count what the threads hold together (within a chunk or a batch), the
 * others the sum of the threads' peaks, at least the true peak. A replay
 * of a trace's steady state times one window, after the interpreter's
 * start-up was replayed untimed: its most held is the window's, at most
 * the process's (which start-up may have set), a thread's at most; the
 * whole replay's is the process's. */
Test(memory, every_workload_says_what_it_holds_as_a_counting_allocator_sees_it, .timeout = 240)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(
		dir, (const char *const[]){"run", "-p", test_plugin("live_counting"), "-w", "larson:ops=200000", "-w",
					   "xmalloc:ops=40960", "-w", "threadtest:iterations=5", "-w", "cache-thrash",
					   "-w", "cache-scratch", "-w", "trace:file=richards.trace", "-w",
					   "trace:file=richards.trace,part=whole", "-w",
					   "unicode:rounds=3,words=1024", "-w", "unicode:rounds=3,words=1024,layout=2008", "-t",
					   "1,2", "-n", "1", "-v", "1", "-o", "h.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "h.json");
	/* unicode's 2008 layouts are two rows (py26-ucs2, py31-ucs2): their
	 * free list keeps objects past the run. */
	cr_assert_eq(res->ncells, 20);
	for (unsigned i = 0; i < res->ncells; i++) {
		const struct alloclab_cell *c = &res->cells[i];
		cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s t=%u: %s", c->workload, c->threads, c->message ? c->message : "");
		const struct alloclab_process *p = &c->procs[0];
		const struct alloclab_value *v = &p->values[p->nvalues - 1];
		uint64_t in_use = value_stat(v, "std.in_use_bytes"), peak = alloclab_stat_value(json_object_get(p->stats, "live.peak_bytes"));
		cr_expect_eq(v->live_end_bytes, in_use, "%s t=%u: says %llu held at the end, the allocator %llu", c->workload,
			     c->threads, (unsigned long long)v->live_end_bytes, (unsigned long long)in_use);
		cr_expect_gt(v->live_peak_bytes, 0, "%s t=%u: no most held", c->workload, c->threads);
		const char *part = json_string_value(json_object_get(c->params, "part"));
		if (part && strcmp(part, "whole") != 0)
			/* Each thread's window within what it held (at most all the
			 * process held) over the whole process. */
			cr_expect(v->live_peak_bytes <= c->threads * peak,
				  "trace %s t=%u: says %llu held at most, more than the allocator's %llu", part, c->threads,
				  (unsigned long long)v->live_peak_bytes, (unsigned long long)peak);
		else if (c->threads == 1)
			cr_expect_eq(v->live_peak_bytes, peak, "%s: says %llu held at most, the allocator %llu", c->workload,
				     (unsigned long long)v->live_peak_bytes, (unsigned long long)peak);
		else if (strcmp(c->workload, "xmalloc") == 0)
			/* Counted a batch at a time: within one batch (4,096 objects of
			 * 64 bytes and its table) of each of the two threads. */
			cr_expect(v->live_peak_bytes + 2 * 300000 > peak && v->live_peak_bytes < peak + 2 * 300000,
				  "xmalloc: says %llu held at most, the allocator %llu", (unsigned long long)v->live_peak_bytes,
				  (unsigned long long)peak);
		else if (strcmp(c->workload, "threadtest") == 0)
			/* Counted together a chunk of 1,024 blocks (of 8 bytes) at a
			 * time: never above the true peak, within a chunk of each
			 * of the two threads below it (their passes drift apart, so
			 * the sum of each thread's most would be up to twice it). */
			cr_expect(v->live_peak_bytes <= peak && v->live_peak_bytes + 2 * 1024 * 8 >= peak,
				  "threadtest: says %llu held at most, the allocator %llu", (unsigned long long)v->live_peak_bytes,
				  (unsigned long long)peak);
		else
			/* The sum of each thread's most: the true peak where the
			 * threads peak together (larson's, the replay's), more
			 * where they do not. */
			cr_expect(v->live_peak_bytes >= peak && v->live_peak_bytes <= 2 * peak,
				  "%s t=2: says %llu held at most, the allocator %llu", c->workload,
				  (unsigned long long)v->live_peak_bytes, (unsigned long long)peak);
		struct alloclab_process_memory m;
		alloclab_process_memory(p, &m);
		cr_expect_gt(m.frag_peak, 1, "%s t=%u: no fragmentation at the peak", c->workload, c->threads);
	}
	alloclab_results_free(res);
}

/* An allocator that never reuses memory: its resident set is the bytes it
 * bumped, so fragmentation at the peak is what arithmetic says, and it
 * keeps its peak after everything is freed. threadtest's 100,000 blocks of
 * 48 bytes take 64 bytes each (a 16-byte header), five passes a value, a
 * warm-up and a value: 64,000,000 bytes bumped over 4,800,000 held at
 * most, 13.33. */
Test(memory, a_bump_allocators_fragmentation_is_what_arithmetic_says, .timeout = 120)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", test_plugin("live_counting"), "-w",
								      "threadtest:objects=100000,iterations=5,size=48", "-t",
								      "1", "-n", "1", "--warmups", "1", "-v", "1", "-o", "b.json",
								      "-q", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "b.json");
	const struct alloclab_process *p = &res->cells[0].procs[0];
	struct alloclab_process_memory m;
	alloclab_process_memory(p, &m);
	cr_expect_eq(p->values[0].live_peak_bytes, 4800000);
	cr_expect(m.frag_peak > 13.33 * 0.97 && m.frag_peak < 13.33 * 1.03, "fragmentation at the peak %.3f, not 13.33",
		  m.frag_peak);
	cr_expect(m.kept_kib > 0.97 * m.peak_net_kib, "kept %.0f KiB of a %.0f KiB peak", m.kept_kib, m.peak_net_kib);
	alloclab_results_free(res);
}

/* A program under exec: in the warm-up the preload library counts every
 * block each of its processes holds, the same under any allocator (the
 * program asks for the same); the most held is its largest process's, as
 * its peak by wait4 is; the measured value is not counted. */
Test(memory, a_programs_census_counts_its_blocks_in_every_process, .timeout = 120)
{
	char *dir = scratch_dir();
	char one[1024], two[1024], script[1200];
	snprintf(one, sizeof one, "exec:cmd=%s hold 4000", getenv("ALLOCLAB_TEST_PROGRAM"));
	/* Two processes, one after the other, under a shell (a third). */
	snprintf(script, sizeof script, "#!/bin/sh\n%s hold 4000 && %s hold 4000\n", getenv("ALLOCLAB_TEST_PROGRAM"),
		 getenv("ALLOCLAB_TEST_PROGRAM"));
	FILE *f = fopen(path_in(dir, "two.sh"), "w");
	cr_assert(f);
	fputs(script, f);
	fclose(f);
	cr_assert_eq(chmod(path_in(dir, "two.sh"), 0755), 0);
	snprintf(two, sizeof two, "exec:cmd=%s", path_in(dir, "two.sh"));
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", "system", "-p", "mimalloc",
								      "-w", one, "-w", two, "-t", "1", "-n", "1", "-v", "1",
								      "--warmups", "1", "-q", "-o", "e.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "e.json");
	cr_assert_eq(res->ncells, 4);
	uint64_t peak[2][2];
	for (unsigned i = 0; i < 4; i++) {
		const struct alloclab_cell *c = &res->cells[i];
		cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s", c->message ? c->message : "");
		const struct alloclab_process *p = &c->procs[0];
		const struct alloclab_value *w = &p->warmups[0];
		int forks = strstr(json_string_value(json_object_get(c->params, "cmd")), "two.sh") != NULL;
		peak[strcmp(c->plugin, "system") != 0][forks] = w->live_peak_bytes;
		/* 4,000 blocks of 1000 bytes and their table, in its largest
		 * process (the shell asks for less). */
		uint64_t least = 4032000ull;
		cr_expect(w->live_peak_bytes == least,
			  "%s %s: held %llu at most", c->plugin, forks ? "two" : "one", (unsigned long long)w->live_peak_bytes);
		/* The census run's memory holds the census's table: never read. */
		cr_expect_eq(w->workload_anon_peak_kib, 0, "%s: the census run's memory was read", c->plugin);
		/* Its resident set before the plugin was loaded: the program's
		 * own start, less than its peak by about the table of 4 MB (not
		 * all of it: the first blocks can fill pages the start had
		 * touched; a CI run saw 3,928 KiB more for 3,937 held). */
		cr_expect(w->own_bytes > 0 && w->own_bytes / 1024 + least / 1024 * 97 / 100 < p->values[0].program_peak_rss_kib,
			  "%s: started with %llu KiB, peaked at %llu", c->plugin, (unsigned long long)w->own_bytes / 1024,
			  (unsigned long long)p->values[0].program_peak_rss_kib);
		cr_expect_eq(p->values[0].live_peak_bytes, 0, "the measured value is not counted");
		struct alloclab_process_memory m;
		alloclab_process_memory(p, &m);
		/* At the peak: the measured value's peak less that start, over
		 * the most held. */
		double want = ((double)p->values[0].program_peak_rss_kib - (double)w->own_bytes / 1024) /
			      ((double)w->live_peak_bytes / 1024);
		cr_expect(m.frag_peak > 0.97 && fabs(m.frag_peak - want) < 1e-9, "%s: fragmentation %g, want %g", c->plugin,
			  m.frag_peak, want);
		/* Once the program has gone, the worker holds only its idle
		 * instance: no figure of the program's kept memory. */
		cr_expect_lt(m.kept_kib, 0, "%s: kept %.0f KiB is the worker's, not the program's", c->plugin, m.kept_kib);
		/* The peak is the program's own, by wait4 (its largest process):
		 * every value has it, and it holds at least the 4 MB one process
		 * holds. */
		cr_expect_gt(p->values[0].program_peak_rss_kib, 4032000 / 1024, "%s: the program's peak %llu KiB", c->plugin,
			     (unsigned long long)p->values[0].program_peak_rss_kib);
		cr_expect_eq(m.peak_net_kib, m.program_peak_kib);
	}
	cr_expect_eq(peak[0][0], peak[1][0], "system and mimalloc were asked for different amounts");
	cr_expect_eq(peak[0][1], peak[1][1]);
	alloclab_results_free(res);
}

/* A worker that dies mid-value keeps its samples up to its end: in the
 * results with the cell's error, in the journal of a run that never
 * finished, and in show. */
Test(memory, a_worker_that_crashes_mid_value_keeps_its_samples, .timeout = 120)
{
	char *dir = scratch_dir();
	char plugin[1024];
	/* 20,000 blocks of 4 KiB held, then the crash a few million calls on. */
	snprintf(plugin, sizeof plugin, "%s:n=3000000", test_plugin("crash_nth"));
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", plugin, "-w",
								      "churn:slots=20000,min_size=4096,max_size=4096,ops=2000000",
								      "-t", "1", "-n", "1", "-v", "3", "--sample-ms", "2", "-o",
								      "crash.json", NULL});
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.out, "workers that failed, to their last sample"), "%s", r.out);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "crash.json");
	const struct alloclab_cell *c = &res->cells[0];
	cr_assert_eq(c->status, ALLOCLAB_CELL_ERROR);
	cr_assert(c->failed_memory, "the failed worker's samples are lost");
	long most = 0;
	for (unsigned k = 0; k < c->failed_memory->nsamples; k++)
		if (c->failed_memory->samples[k].rss_kib > most)
			most = c->failed_memory->samples[k].rss_kib;
	cr_expect_gt(most, 70 * 1024, "its 80 MB working set is not in its samples (%ld KiB at most)", most);
	cr_expect(alloclab_memory_timeline_phase(c->failed_memory, "run 1") >= 0 ||
			  alloclab_memory_timeline_phase(c->failed_memory, "warm-up 1") >= 0,
		  "no sample in a run");
	alloclab_results_free(res);
	/* A document whose cell has them without having failed is refused. */
	json_t *doc = json_load_file(path_in(dir, "crash.json"), 0, NULL);
	json_object_set_new(json_array_get(json_object_get(doc, "cells"), 0), "status", json_string("ok"));
	cr_assert_eq(json_dump_file(doc, path_in(dir, "bad.json"), 0), 0);
	json_decref(doc);
	r = run_alloclab(dir, (const char *const[]){"show", "bad.json", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "failed_memory"), "%s", r.err);
	cmd_result_free(&r);
}

/* A results file whose workload said nothing of what it held (an older
 * alloclab's): what each value said is taken out. */
static void forget_what_was_held(const char *dir, const char *from, const char *to, const char *workload)
{
	json_t *doc = json_load_file(path_in(dir, from), 0, NULL), *cell, *run, *v;
	size_t i, k, j;
	cr_assert(doc);
	json_array_foreach(json_object_get(doc, "cells"), i, cell)
	{
		if (strcmp(json_string_value(json_object_get(cell, "workload")), workload) != 0)
			continue;
		json_array_foreach(json_object_get(cell, "runs"), k, run)
		{
			json_array_foreach(json_object_get(run, "values"), j, v)
				json_object_del(v, "live_end_bytes"), json_object_del(v, "live_peak_bytes");
			json_array_foreach(json_object_get(run, "warmups"), j, v)
				json_object_del(v, "live_end_bytes"), json_object_del(v, "live_peak_bytes");
			json_t *s;
			json_array_foreach(json_object_get(json_object_get(run, "memory"), "samples"), j, s)
				json_array_set_new(s, 5, json_integer(-1));
		}
	}
	cr_assert_eq(json_dump_file(doc, path_in(dir, to), 0), 0);
	json_decref(doc);
}

/* compare --metric takes the memory figures: an allocator that never
 * gives memory back keeps more than glibc, which returns the freed top of
 * its heap, and a workload that says nothing of what it holds has no
 * fragmentation to compare. */
Test(memory, compare_takes_the_memory_figures, .timeout = 120)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-p", test_plugin("live_counting"),
								      "-w", "threadtest:objects=100000,iterations=2,size=48", "-w",
								      "unicode:rounds=1", "-t", "1", "-n", "4", "-v", "1", "-o",
								      "k.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	forget_what_was_held(dir, "k.json", "k-old.json", "unicode");
	const char *plugins = "system,live-counting"; /* labels, as the run's table shows them */
	const char *metrics[] = {"rss", "kept", "fragmentation", "faults"};
	for (unsigned m = 0; m < 4; m++) {
		r = run_alloclab(dir, (const char *const[]){"compare", "k-old.json", "--plugins", plugins, "--metric",
							      metrics[m], "-f", "json", NULL});
		cr_assert_eq(r.status, 0, "%s: %s", metrics[m], r.err);
		json_t *cmp = json_loads(r.out, 0, NULL);
		cr_assert(cmp, "%s: not JSON: %s", metrics[m], r.out);
		json_t *row, *tt = NULL, *uni = NULL;
		size_t i;
		json_array_foreach(json_object_get(cmp, "rows"), i, row)
		{
			if (strcmp(json_string_value(json_object_get(row, "workload")), "threadtest") == 0)
				tt = json_array_get(json_object_get(row, "columns"), 1);
			else
				uni = json_array_get(json_object_get(row, "columns"), 1);
		}
		cr_assert(tt && uni, "%s: rows missing: %s", metrics[m], r.out);
		if (m < 3) {
			/* 12.8 MB bumped a value, all kept; glibc gives it back. */
			cr_expect(json_number_value(json_object_get(tt, "ratio")) > 2 &&
					  json_is_true(json_object_get(tt, "significant")),
				  "%s: %s", metrics[m], json_dumps(tt, 0));
		}
		if (m == 2)
			cr_expect_str_eq(json_string_value(json_object_get(uni, "status")), "not measured", "%s",
					 json_dumps(uni, 0));
		else
			cr_expect_null(json_object_get(uni, "status"), "%s: %s", metrics[m], json_dumps(uni, 0));
		json_decref(cmp);
		cmd_result_free(&r);
	}
}

/* A plugin whose trim crashes: the cell is an error naming the plugin and
 * the step, and the run goes on. */
Test(memory, a_crash_in_trim_names_the_plugin_and_the_step, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", test_plugin("bad_trim"),
								      "-p", "system", "-w", "churn:ops=1000", "-t", "1", "-n",
								      "1", "-v", "1", "-o", "r.json", "-q", NULL});
	cr_expect_eq(r.status, 1, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "r.json");
	cr_assert_eq(res->ncells, 2);
	cr_expect_eq(res->cells[0].status, ALLOCLAB_CELL_ERROR);
	cr_expect(res->cells[0].message && strstr(res->cells[0].message, "in trim") &&
			  strstr(res->cells[0].message, "bad_trim"),
		  "%s", res->cells[0].message);
	cr_expect_eq(res->cells[1].status, ALLOCLAB_CELL_OK);
	alloclab_results_free(res);
}

/* The peak is the measured values': a sample before the plugin was loaded
 * (the size of the process the worker was forked from) and a warm-up's (a
 * census's tables) are not the program's. */
Test(memory, the_peak_is_the_measured_values_only)
{
	char *phases[] = {"start", "load", "warm-up 1", "prepare 1", "run 1", "finish 1"};
	struct alloclab_memory_sample samples[] = {
		{0, 90000, 80000, -1, -1, 0},  /* the parent's size, inherited */
		{1, 4000, 1000, -1, -1, 1},
		{2, 60000, 55000, -1, -1, 2}, /* the census warm-up */
		{3, 9000, 6000, -1, -1, 3},
		{4, 12000, 9000, -1, -1, 4},
		{5, 8000, 5000, -1, -1, 5},
	};
	struct alloclab_memory_timeline tl = {10, 10, phases, 6, samples, 6};
	uint64_t thread_ns = 1000, thread_ops = 10;
	struct alloclab_value value = {.per_op = 100, .wall_ns = 1000, .thread_ns = &thread_ns, .thread_ops = &thread_ops};
	struct alloclab_process p = {.values = &value, .nvalues = 1, .memory = &tl, .rss_before_plugin_kib = 4000};
	char why[256];
	cr_assert_eq(alloclab_memory_timeline_valid(&tl, why, sizeof why), 0, "%s", why);
	struct alloclab_process_memory m;
	alloclab_process_memory(&p, &m);
	cr_expect_eq(m.peak_kib, 12000, "peak %.0f KiB: not the measured run's", m.peak_kib);
	cr_expect_eq(m.peak_net_kib, 8000);
}
