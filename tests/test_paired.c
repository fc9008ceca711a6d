/*
 * Paired mode (run --paired, docs/guides/paired.md): plugins side by side
 * in one worker process, each with its own state; what the results file
 * says of them and what the reader refuses; a known cost recovered; the
 * fallback when plugins cannot share a process; bad input.
 */
#include "helpers.h"
#include "plot.h"
#include "statistics/faults.h"
#include "statistics/pairs.h"
#include "results/results.h"
#include "worker/slice.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char plugin_arg[8][4200];

/* "PATH:options" for a test plugin. */
static const char *tp(int k, const char *name, const char *options)
{
	snprintf(plugin_arg[k], sizeof plugin_arg[k], "%s%s%s", test_plugin(name), options[0] ? ":" : "", options);
	return plugin_arg[k];
}

/* Two instances of one plugin, loaded from private copies, measured side
 * by side on every workload that slices and on those that alternate whole
 * values: a block of one never reaches the other (owner.so aborts if it
 * does), and each copy counted one instance of its own. */
Test(paired, each_plugin_keeps_its_own_state, .timeout = 240)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(
		dir, (const char *const[]){"run", "--paired", "--no-check", "-p", tp(0, "owner", ""), "-p",
					   tp(1, "owner", "as=owner-B"), "-w", "churn:ops=50000", "-w", "unicode:rounds=2", "-w",
					   "fragment:blocks=20000", "-w", "steady:steps=50000", "-w", "threadtest:iterations=2",
					   "-w", "larson:ops=20000", "-w", "xmalloc:ops=20000", "-t", "1,2", "-n", "2", "-v", "1",
					   "--slice-ops", "2000", "-o", "p.json", "-q", NULL});
	/* A cell's error is in the results file, not on the terminal (-q). */
	struct alloclab_results *res = load_results(dir, "p.json");
	for (unsigned i = 0; i < res->ncells; i++)
		cr_expect_eq(res->cells[i].status, ALLOCLAB_CELL_OK, "%s %s t=%u: %s", res->cells[i].plugin,
			     res->cells[i].workload, res->cells[i].threads,
			     res->cells[i].message ? res->cells[i].message : "");
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	cr_assert_eq(res->facts.npair, 2);
	unsigned paired = 0;
	for (unsigned i = 0; i < res->ncells; i++) {
		const struct alloclab_cell *c = &res->cells[i];
		cr_expect_eq(c->status, ALLOCLAB_CELL_OK, "%s %s t=%u: %s", c->plugin, c->workload, c->threads,
			     c->message ? c->message : "");
		cr_expect(c->pair_design != NULL, "%s %s t=%u is not paired", c->plugin, c->workload, c->threads);
		paired += c->pair_design != NULL;
		for (unsigned p = 0; p < c->nprocs; p++) {
			const json_t *creates = json_object_get(c->procs[p].stats_after_finish, "creates");
			cr_expect_eq(alloclab_stat_value(creates), 1, "%s: the instances share their file's statics",
				     c->plugin);
		}
		if (strcmp(c->workload, "churn") == 0 || strcmp(c->workload, "fragment") == 0)
			cr_expect_str_eq(c->pair_design, ALLOCLAB_PAIR_SLICES);
		if (strcmp(c->workload, "larson") == 0 || (strcmp(c->workload, "xmalloc") == 0 && c->threads == 2))
			cr_expect_str_eq(c->pair_design, ALLOCLAB_PAIR_VALUES);
	}
	cr_expect_eq(paired, res->ncells);
	alloclab_results_free(res);
}

/* The rounds a value drops: those in which any slice was preempted, the
 * same for every slice; none when a slice would keep none of its timed
 * operations (a host that takes the CPU through every round of a short
 * value), so that the count of dropped rounds stays below the rounds, as
 * the results reader requires. */
static void slice_with(struct alloclab_slice *sl, struct alloclab_slice_part *parts, size_t n)
{
	memset(sl, 0, sizeof *sl);
	sl->parts = parts;
	sl->nparts = sl->cap = n;
}

Test(paired, preempted_rounds_are_dropped_alike_and_never_all)
{
	struct alloclab_slice_part a[3] = {{100, 10, 0, {0, 0, 0}}, {900, 10, 1, {0, 0, 0}}, {100, 10, 0, {0, 0, 0}}};
	/* Faults and system time go with their part: dropped with it. */
	struct alloclab_slice_part b[3] = {{200, 10, 0, {1, 0, 5}}, {200, 10, 0, {7, 1, 100}}, {200, 10, 0, {2, 0, 5}}};
	struct alloclab_slice sa, sb;
	struct alloclab_slice *both[2] = {&sa, &sb};
	struct alloclab_slice_kernel k;
	unsigned char *dropped;
	size_t ndropped;
	uint64_t ns, ops;

	slice_with(&sa, a, 3);
	slice_with(&sb, b, 3);
	cr_assert_eq(alloclab_slices_preempted(both, 2, &dropped, &ndropped), 3);
	cr_expect_eq(ndropped, 1);
	alloclab_slice_sum(&sb, dropped, 3, &ns, &ops, &k);
	cr_expect(ns == 400 && ops == 20, "the other plugin loses the same round: %lu ns, %lu ops",
		  (unsigned long)ns, (unsigned long)ops);
	cr_expect(k.minor_faults == 3 && k.major_faults == 0 && k.sys_ns == 10, "the kept rounds' faults: %lu, %lu, %lu",
		  (unsigned long)k.minor_faults, (unsigned long)k.major_faults, (unsigned long)k.sys_ns);
	free(dropped);

	/* Every round preempted: nothing is dropped. */
	a[0].preempted = a[2].preempted = 1;
	cr_assert_eq(alloclab_slices_preempted(both, 2, &dropped, &ndropped), 3);
	cr_expect_eq(ndropped, 0);
	alloclab_slice_sum(&sa, dropped, 3, &ns, &ops, &k);
	cr_expect(ns == 1100 && ops == 30, "%lu ns, %lu ops", (unsigned long)ns, (unsigned long)ops);
	free(dropped);

	/* A slice whose only timed operations fall in dropped rounds (a
	 * thread that ran out of work early): nothing is dropped, for anyone. */
	struct alloclab_slice_part c[3] = {{100, 10, 0, {0, 0, 0}}, {100, 10, 0, {0, 0, 0}}, {100, 0, 0, {0, 0, 0}}};
	struct alloclab_slice sc;
	struct alloclab_slice *three[3] = {&sa, &sb, &sc};
	a[0].preempted = 0;
	a[2].preempted = 0;
	a[1].preempted = 1;
	b[0].preempted = 1;
	slice_with(&sc, c, 3);
	cr_assert_eq(alloclab_slices_preempted(three, 3, &dropped, &ndropped), 3);
	cr_expect_eq(ndropped, 0, "a slice would have kept nothing");
	free(dropped);
}

/* A known cost: spin.so spinning 2 us on every malloc against the same
 * plugin spinning 1 us, each churn op a free and a malloc of a few tens of
 * ns: the ratio is (2000 + t0) / (1000 + t0), 1.9 to 2.0 for any t0 under
 * 100 ns. Paired mode must rank it, resolved, and its stated interval must
 * hold the truth (the test suite runs tests side by side: the interval is
 * what the noise allowed, and must say so honestly). */
Test(paired, a_known_cost_is_recovered_and_ranked, .timeout = 240)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(
		dir, (const char *const[]){"run", "--paired", "--no-check", "-p", tp(0, "spin", "every=1,us=1,as=one"),
					   "-p", tp(1, "spin", "every=1,us=2,as=two"), "-w", "churn:ops=20000,slots=256",
					   "--slice-ops", "500", "-t", "1", "-n", "6", "-o", "k.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "k.json");
	const struct alloclab_cell *two = cell_of(res, "two", 1);
	struct alloclab_pair_stat st;
	cr_assert_not_null(two);
	cr_assert_eq(alloclab_pair_stat(two, &st), 0);
	cr_expect_eq(st.n, 6);
	cr_expect(st.lo <= 2.0 && st.hi >= 1.9, "two/one = %.3f, stated %.3f .. %.3f: not the truth (1.9 .. 2.0)",
		  st.ratio, st.lo, st.hi);
	cr_expect(st.resolved && st.lo > 1.2, "not ranked: %.3f .. %.3f", st.lo, st.hi);
	/* The table says so, with the interval. */
	r = run_alloclab(dir, (const char *const[]){"show", "k.json", NULL});
	cr_expect(strstr(r.out, "slower") && strstr(r.out, "95% interval"), "%s", r.out);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"compare", "k.json", "--plugins", "one,two", NULL});
	cr_expect(strstr(r.out, "Paired") && strstr(r.out, "slower") && strstr(r.out, "["), "%s", r.out);
	cmd_result_free(&r);
	alloclab_results_free(res);
}

/* By default the plugins alternate whole values (slices are an option:
 * they bias a cache-bound workload), and the run records it. */
Test(paired, whole_values_by_default, .timeout = 120)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--paired", "-p", "system", "-p", "mimalloc",
								      "-w", "churn:ops=20000", "-t", "1", "-n", "2", "-o",
								      "d.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "d.json");
	cr_expect_eq(res->facts.slice_ops, 0);
	for (unsigned i = 0; i < res->ncells; i++)
		cr_expect_str_eq(res->cells[i].pair_design, ALLOCLAB_PAIR_VALUES);
	alloclab_results_free(res);
}

/* An untimed part before each slice: a value's time is over its timed
 * operations only, half of them here (500 untimed, 500 timed, 20,000 in
 * all), in the warm-up as in the values. */
Test(paired, the_untimed_part_is_not_counted, .timeout = 240)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(
		dir, (const char *const[]){"run", "--paired", "-p", "system", "-p", "mimalloc", "-w", "churn:ops=20000", "-t",
					   "1,2", "-n", "1", "--slice-ops", "500", "--slice-warm", "500", "-o", "w.json", "-q",
					   NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "w.json");
	cr_expect_eq(res->facts.slice_warm, 500);
	for (unsigned i = 0; i < res->ncells; i++) {
		const struct alloclab_cell *c = &res->cells[i];
		cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s", c->message ? c->message : "");
		for (unsigned p = 0; p < c->nprocs; p++)
			for (unsigned v = 0; v < c->procs[p].nvalues; v++) {
				/* 20000 ops in rounds of 500 warm + 500 timed; a round in
				 * which a thread was preempted is dropped whole, so the
				 * timed ops are 500 per round kept. */
				const struct alloclab_value *val = &c->procs[p].values[v];
				cr_expect_eq(val->slices, 20, "%s: %llu rounds", c->plugin, (unsigned long long)val->slices);
				uint64_t kept = 500 * (val->slices - val->slices_dropped);
				for (unsigned t = 0; t < c->threads; t++)
					cr_expect_eq(val->thread_ops[t], kept, "%s t=%u: %llu timed ops, %llu expected",
						     c->plugin, c->threads, (unsigned long long)val->thread_ops[t],
						     (unsigned long long)kept);
			}
	}
	alloclab_results_free(res);
}

/* Plugins that cannot share a process are measured in processes of their
 * own, back to back, with one line saying why; python always is. */
Test(paired, plugins_that_cannot_share_a_process_fall_back, .timeout = 240)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(
		dir, (const char *const[]){"run", "--paired", "--no-check", "-p", tp(0, "owner", "alone=1"), "-p",
					   tp(1, "owner", "alone=1,as=owner-B"), "-w", "churn:ops=20000", "-t", "1", "-n", "2",
					   "-o", "f.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	/* Which of the two is refused depends on the order they were set up
	 * in, drawn per process. */
	cr_expect(strstr(r.err, "cannot share one process") && strstr(r.err, "another instance lives"), "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "f.json");
	for (unsigned i = 0; i < res->ncells; i++) {
		cr_expect_str_eq(res->cells[i].pair_design, ALLOCLAB_PAIR_PROCESSES);
		cr_expect(res->cells[i].pair_why && strstr(res->cells[i].pair_why, "another instance"));
		cr_expect_eq(res->cells[i].nprocs, 2);
	}
	alloclab_results_free(res);

	/* Two settings of a plugin whose allocator is not its file's own
	 * (spin.so wraps glibc's malloc): one allocator, so not one process. */
	r = run_alloclab(dir, (const char *const[]){"run", "--paired", "--no-check", "-p", tp(0, "spin", "every=0"), "-p",
						    tp(1, "spin", "every=0,work=3"), "-w", "churn:ops=20000", "-t", "1", "-n",
						    "2", "-o", "s.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect(strstr(r.err, "own-state") && strstr(r.err, "one allocator"), "%s", r.err);
	cmd_result_free(&r);
	res = load_results(dir, "s.json");
	for (unsigned i = 0; i < res->ncells; i++)
		cr_expect_str_eq(res->cells[i].pair_design, ALLOCLAB_PAIR_PROCESSES);
	alloclab_results_free(res);

	r = run_alloclab(dir, (const char *const[]){"run", "--pair", "system,mimalloc", "-p", "system", "-p", "mimalloc", "-w",
						    "python:bench=nbody,value_ms=5,census=no", "-t", "1", "-n", "2", "-v", "1",
						    "-o", "py.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	res = load_results(dir, "py.json");
	cr_expect_str_eq(res->cells[0].pair_design, ALLOCLAB_PAIR_PROCESSES);
	cr_expect(res->cells[0].pair_why && strstr(res->cells[0].pair_why, "one allocator"));
	alloclab_results_free(res);
}

static void expect_refused(const char *const *args, const char *says)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 2, "%s: %d %s", says, r.status, r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect(strstr(r.err, says), "wanted '%s' in: %s", says, r.err);
	cmd_result_free(&r);
}

Test(paired, bad_groups_are_refused_in_one_line)
{
	expect_refused((const char *const[]){"run", "--pair", "system,jemalloc", "-p", "system", "-p", "mimalloc", "-w",
					     "churn:ops=100", "--dry-run", NULL},
		       "'jemalloc' is not a plugin of this run");
	expect_refused((const char *const[]){"run", "--pair", "system,system", "-p", "system", "-w", "churn", NULL},
		       "names 'system' twice");
	expect_refused((const char *const[]){"run", "--pair", "system", "-p", "system", "-w", "churn", NULL},
		       "names one plugin");
	expect_refused((const char *const[]){"run", "--paired", "-p", "system", "-w", "churn:ops=100", "--dry-run", NULL},
		       "two or more");
	expect_refused((const char *const[]){"run", "--paired", "--measure", "instructions", "-p", "system", "-p",
					     "mimalloc", "-w", "churn", NULL},
		       "--paired measures time");
	expect_refused((const char *const[]){"run", "--slice-ops", "100", "-p", "system", "-w", "churn", NULL},
		       "--slice-ops is paired mode's");
	expect_refused((const char *const[]){"run", "--slice-warm", "100", "-p", "system", "-w", "churn", NULL},
		       "paired mode's");
	expect_refused((const char *const[]){"run", "--paired", "--slice-ops", "0", "--slice-warm", "100", "-p", "system",
					     "-p", "mimalloc", "-w", "churn", NULL},
		       "goes with slices");
	expect_refused((const char *const[]){"run", "--paired", "--unpaired", "-p", "system", "-p", "mimalloc", NULL},
		       "goes without");
}

/* A paired run's file, then each way of breaking what it says of its
 * pairs, each refused with one line naming the field. */
Test(paired, the_reader_refuses_broken_pairs, .timeout = 120)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--paired", "-p", "system", "-p", "mimalloc",
								      "-w", "churn:ops=2000", "-t", "1", "-n", "2", "-v",
								      "2", "--slice-ops", "200", "-o", "g.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	static const struct {
		const char *what, *says;
	} cases[] = {
		{"unknown plugin", "is no plugin of the run"},
		{"missing partner", "has no partner of its round"},
		{"wrong ratio", "is not what its values"},
		{"missing value", "has no partner of its round"},
		{"unknown design", "is not slices, values or processes"},
		{"a group of one", "names fewer than two plugins"},
		{"every slice dropped", "slices_dropped"},
		{"no slice warm", "slice_warm"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		json_t *doc = json_load_file(path_in(dir, "g.json"), 0, NULL);
		json_t *cells = json_object_get(doc, "cells"), *mi = json_array_get(cells, 1);
		json_t *runs = json_object_get(mi, "runs");
		if (strcmp(cases[k].what, "unknown plugin") == 0)
			json_array_set_new(json_object_get(json_object_get(json_object_get(doc, "config"), "paired"), "plugins"),
					   1, json_string("tcmalloc"));
		else if (strcmp(cases[k].what, "missing partner") == 0)
			json_object_set_new(json_array_get(runs, 1), "process", json_integer(7));
		else if (strcmp(cases[k].what, "wrong ratio") == 0)
			json_object_set_new(json_array_get(runs, 0), "pair_ratio", json_real(0.123));
		else if (strcmp(cases[k].what, "missing value") == 0)
			json_array_remove(json_object_get(json_array_get(runs, 0), "values"), 1);
		else if (strcmp(cases[k].what, "unknown design") == 0)
			json_object_set_new(mi, "pair_design", json_string("telepathy"));
		else if (strcmp(cases[k].what, "every slice dropped") == 0) {
			json_t *v = json_array_get(json_object_get(json_array_get(runs, 0), "values"), 0);
			json_object_set_new(v, "slices_dropped", json_integer(json_integer_value(json_object_get(v, "slices"))));
		} else if (strcmp(cases[k].what, "no slice warm") == 0)
			json_object_del(json_object_get(json_object_get(doc, "config"), "paired"), "slice_warm");
		else
			json_array_remove(json_object_get(json_object_get(json_object_get(doc, "config"), "paired"), "plugins"), 1);
		cr_assert_eq(json_dump_file(doc, path_in(dir, "bad.json"), 0), 0);
		json_decref(doc);
		r = run_alloclab(dir, (const char *const[]){"show", "bad.json", NULL});
		cr_expect_eq(r.status, 2, "%s: %d %s", cases[k].what, r.status, r.out);
		cr_expect(strstr(r.err, "bad.json") && strstr(r.err, cases[k].says), "%s: %s", cases[k].what, r.err);
		cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
		cmd_result_free(&r);
	}
}

/* -n auto stops a paired slot when every ratio's interval is within --ci. */
Test(paired, auto_stops_on_the_ratios_interval, .timeout = 240)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--paired", "-p", "system", "-p",
								      "system:as=system-B", "-w", "churn:ops=100000", "-t", "1",
								      "-n", "auto", "--ci", "3", "--max-processes", "12", "-o",
								      "a.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "a.json");
	const struct alloclab_cell *b = cell_of(res, "system-B", 1);
	struct alloclab_pair_stat st;
	cr_assert_not_null(b);
	cr_assert_eq(alloclab_pair_stat(b, &st), 0);
	cr_expect(st.half_percent <= 3 || st.n == 12, "stopped at %u processes with +-%.2f%%", st.n, st.half_percent);
	cr_expect(st.n >= 5, "%u processes: fewer than -n auto's least", st.n);
	cr_expect_eq(res->cells[0].nprocs, b->nprocs, "the pair stopped apart");
	alloclab_results_free(res);
}

/* Copies path to dir/name (a plugin file of the test's own). */
static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	cr_assert(in && out, "cannot copy %s to %s", from, to);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		cr_assert_eq(fwrite(buf, 1, n, out), n);
	fclose(in);
	cr_assert_eq(fclose(out), 0);
}

/* Every process of every cell counted one instance of its copy of
 * owner.so: the members had statics of their own. */
static void expect_own_statics(const char *dir, const char *file, const char *how)
{
	struct alloclab_results *res = load_results(dir, file);
	for (unsigned i = 0; i < res->ncells; i++) {
		const struct alloclab_cell *c = &res->cells[i];
		cr_expect_eq(c->status, ALLOCLAB_CELL_OK, "%s: %s", how, c->message ? c->message : "");
		cr_expect_str_eq(c->pair_design, ALLOCLAB_PAIR_SLICES, "%s", how);
		for (unsigned p = 0; p < c->nprocs; p++)
			cr_expect_eq(alloclab_stat_value(json_object_get(c->procs[p].stats_after_finish, "creates")), 1,
				     "%s: %s shared its statics with its twin", how, c->plugin);
	}
	alloclab_results_free(res);
}

/* One own-state plugin file at two settings, named by two paths that the
 * loader takes for one file (a symbolic link, a hard link, a path through
 * a linked folder): each member still gets a private copy, so the two
 * settings are two allocators (before, they shared one file's statics
 * and every cell read ok). */
Test(paired, one_file_by_any_path_is_one_file, .timeout = 240)
{
	char *dir = scratch_dir(), *file = path_in(dir, "owner.so"), *hard = path_in(dir, "hard.so");
	char *soft = path_in(dir, "soft.so"), *linked_dir = path_in(dir, "linked"), *through = path_in(dir, "linked/owner.so");
	copy_file(test_plugin("owner"), file);
	cr_assert_eq(link(file, hard), 0);
	cr_assert_eq(symlink(file, soft), 0);
	cr_assert_eq(symlink(dir, linked_dir), 0);
	const char *other[] = {hard, soft, through};
	const char *how[] = {"a hard link", "a symbolic link", "a path through a linked folder"};
	for (int k = 0; k < 3; k++) {
		char first[4200], second[4200], out[32];
		snprintf(first, sizeof first, "%s:alone=0", file);
		snprintf(second, sizeof second, "%s:as=twin", other[k]);
		snprintf(out, sizeof out, "l%d.json", k);
		struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--paired", "--no-check", "-p", first,
									  "-p", second, "-w", "churn:ops=20000", "-t", "1",
									  "-n", "2", "-v", "1", "--slice-ops", "2000", "-o",
									  out, "-q", NULL});
		cr_assert_eq(r.status, 0, "%s: %s %s", how[k], r.out, r.err);
		cmd_result_free(&r);
		expect_own_statics(dir, out, how[k]);
	}
}

/* A paired run of `a` and `b` (labelled bad) on churn of one block size,
 * at two threads, in slices or whole values; the results. */
static struct alloclab_results *pair_run(const char *dir, const char *a, const char *b, const char *out, int sliced)
{
	const char *args[32] = {"run", "--paired", "--no-check", "-p", a, "-p", b, "-w",
				"churn:ops=20000,min_size=64,max_size=64", "-t", "2", "-n", "2", "-v", "1",
				"--timeout", "10", "-o", out, "-q"};
	size_t n = 20;
	if (sliced)
		args[n++] = "--slice-ops", args[n++] = "2000";
	struct cmd_result r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 1, "%s: %d %s %s", out, r.status, r.out, r.err);
	cmd_result_free(&r);
	return load_results(dir, out);
}

/* The plugin that ended a paired worker is the one named, in its own
 * cell with the step it was in; every other cell of the pair says it was
 * lost because of that plugin. Before, every cell read the same message,
 * naming the reference plugin (an exit in create, closed descriptors) or
 * no plugin at all (a crash, a hang). */
Test(paired, a_failure_names_the_plugin_that_caused_it, .timeout = 240)
{
	char *dir = scratch_dir();
	static const struct {
		const char *reference, *culprit, *says;
	} cases[] = {
		{"in_worker", "in_worker:do=exit,as=bad", "ended the worker (exit status 0) in create"},
		{"in_worker", "in_worker:do=close,as=bad", "closed the worker's descriptors"},
		{"in_worker", "crash_nth:n=3000,as=bad", "killed by signal 11 (Segmentation fault) in prepare"},
		{"in_worker", "hang:as=bad", "timed out after 10 s"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char name[64], culprit[4200], out[32];
		const char *colon = strchr(cases[k].culprit, ':');
		snprintf(name, sizeof name, "%.*s", (int)(colon - cases[k].culprit), cases[k].culprit);
		snprintf(culprit, sizeof culprit, "%s%s", test_plugin(name), colon);
		snprintf(out, sizeof out, "f%zu.json", k);
		for (int sliced = 0; sliced < 2; sliced++) {
			struct alloclab_results *res = pair_run(dir, test_plugin(cases[k].reference), culprit, out, sliced);
			const struct alloclab_cell *bad = cell_of(res, "bad", 2), *other = cell_of(res, "in-worker", 2);
			cr_assert(bad && other);
			cr_expect(bad->status == ALLOCLAB_CELL_ERROR && strstr(bad->message, "plugin 'bad'") &&
					  strstr(bad->message, cases[k].says),
				  "%s: %s", cases[k].culprit, bad->message ? bad->message : "ok");
			cr_expect(other->status == ALLOCLAB_CELL_ERROR && strstr(other->message, "lost with its pair when 'bad' failed") &&
					  strstr(other->message, cases[k].says),
				  "%s: %s", cases[k].culprit, other->message ? other->message : "ok");
			alloclab_results_free(res);
		}
	}
}

/* A plugin that writes into the blocks it freed, where its twin's blocks
 * are by then (both built on the C library's malloc): the worker finds
 * what the workload wrote changed, and no cell of the pair is measured
 * as ok (before, both were, and the ratio reported). */
Test(paired, blocks_written_after_free_are_found, .timeout = 240)
{
	char *dir = scratch_dir();
	char bad[4200];
	snprintf(bad, sizeof bad, "%s:do=uaf,as=bad", test_plugin("in_worker"));
	for (int sliced = 0; sliced < 2; sliced++) {
		struct alloclab_results *res = pair_run(dir, test_plugin("in_worker"), bad, "u.json", sliced);
		for (unsigned i = 0; i < res->ncells; i++) {
			const struct alloclab_cell *c = &res->cells[i];
			cr_expect(c->status == ALLOCLAB_CELL_ERROR && strstr(c->message, "changed under the workload") &&
					  strstr(c->message, "where the workload wrote 0x01"),
				  "%s, %s: %s", sliced ? "slices" : "values", c->plugin, c->message ? c->message : "ok");
		}
		alloclab_results_free(res);
	}
}

/* A paired run made without slices, then forged: a design the run could
 * not have measured a cell in is refused by every command that reads the
 * file, in one line naming the field (before, a forged "slices" was read
 * as if the run had had them). */
Test(paired, a_design_the_run_could_not_have_used_is_refused, .timeout = 120)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--paired", "-p", "system", "-p", "mimalloc",
								      "-w", "churn:ops=2000", "-t", "1", "-n", "2", "-v",
								      "2", "-o", "v.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	static const struct {
		const char *design_1, *design_0, *why_1, *says;
	} cases[] = {
		{"slices", NULL, NULL, "made without slices"},
		{"processes", NULL, "forged", "is not the design of its reference"},
		{"processes", "processes", NULL, "pair_why: is missing"},
		{NULL, NULL, "forged", "pair_why: is there"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		json_t *doc = json_load_file(path_in(dir, "v.json"), 0, NULL);
		json_t *cells = json_object_get(doc, "cells");
		if (cases[k].design_1)
			json_object_set_new(json_array_get(cells, 1), "pair_design", json_string(cases[k].design_1));
		if (cases[k].design_0)
			json_object_set_new(json_array_get(cells, 0), "pair_design", json_string(cases[k].design_0));
		if (cases[k].why_1)
			json_object_set_new(json_array_get(cells, 1), "pair_why", json_string(cases[k].why_1));
		cr_assert_eq(json_dump_file(doc, path_in(dir, "bad.json"), 0), 0);
		json_decref(doc);
		const char *const *commands[] = {
			(const char *const[]){"show", "bad.json", NULL},
			(const char *const[]){"compare", "bad.json", "--plugins", "system,mimalloc", NULL},
			(const char *const[]){"export", "--format", "csv", "bad.json", "-o", "x.csv", NULL},
			(const char *const[]){"plot", "bad.json", "-o", "pics", NULL},
		};
		for (size_t c = 0; c < sizeof commands / sizeof *commands; c++) {
			r = run_alloclab(dir, commands[c]);
			cr_expect_eq(r.status, 2, "%s, %s: %d %s", cases[k].says, commands[c][0], r.status, r.out);
			cr_expect(strstr(r.err, "bad.json: cells[") && strstr(r.err, cases[k].says), "%s: %s", commands[c][0],
				  r.err);
			cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
			cmd_result_free(&r);
		}
	}
}

/* Page faults are each plugin's own: faulting.so every=10 takes one fault
 * every ten mallocs (churn: one malloc an operation, 100 faults per 1,000
 * operations), its twin none, side by side in the same processes, in
 * whole values and in slices. show prints them per plugin, says the
 * difference is beyond the noise and what it costs at the run's fault
 * cost, which the run probed. */
Test(paired, page_faults_are_each_plugins_own, .timeout = 240)
{
	char *dir = scratch_dir();
	for (int sliced = 0; sliced < 2; sliced++) {
		struct cmd_result r = run_alloclab(
			dir, (const char *const[]){"run", "--paired", "--no-check", "-p", tp(0, "faulting", "every=0,as=calm"),
						   "-p", tp(1, "faulting", "every=10,as=faulty"), "-w", "churn:ops=20000",
						   "--slice-ops", sliced ? "500" : "0", "-t", "1", "-n", "3", "-o", "f.json",
						   "-q", NULL});
		cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
		cmd_result_free(&r);
		struct alloclab_results *res = load_results(dir, "f.json");
		const struct alloclab_cell *calm = cell_of(res, "calm", 1), *faulty = cell_of(res, "faulty", 1);
		cr_assert(calm && faulty);
		cr_assert_str_eq(faulty->pair_design, sliced ? ALLOCLAB_PAIR_SLICES : ALLOCLAB_PAIR_VALUES);
		double fc = alloclab_cell_faults_per_kop(calm, NULL), ff = alloclab_cell_faults_per_kop(faulty, NULL);
		cr_expect(ff > 80 && ff < 120, "faulty: %.2f faults per 1,000 operations, not about 100", ff);
		cr_expect(fc >= 0 && fc < 5, "calm: %.2f faults per 1,000 operations, not about 0", fc);
		struct alloclab_fault_difference d;
		cr_assert_eq(alloclab_fault_difference(calm, faulty, 1, &d), 0);
		cr_expect(d.resolved && d.lo > 50, "%.2f .. %.2f", d.lo, d.hi);
		cr_expect(res->facts.page_fault_ns > 0, "the run's fault cost was not probed");
		alloclab_results_free(res);

		r = run_alloclab(dir, (const char *const[]){"show", "f.json", NULL});
		cr_expect(strstr(r.out, "faults/kop"), "%s", r.out);
		cr_expect(strstr(r.out, "page faults per 1,000 operations more than calm's") && strstr(r.out, "of its time"),
			  "%s", r.out);
		cmd_result_free(&r);
	}
	/* Not beyond the noise: an A/A pair says nothing of faults. */
	struct cmd_result r = run_alloclab(
		dir, (const char *const[]){"run", "--paired", "--no-check", "-p", tp(0, "faulting", "every=10,as=a1"), "-p",
					   tp(1, "faulting", "every=10,as=a2"), "-w", "churn:ops=20000", "-t", "1", "-n", "3",
					   "-o", "aa.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"show", "aa.json", NULL});
	cr_expect(strstr(r.out, "faults/kop") && !strstr(r.out, "time includes"), "%s", r.out);
	cmd_result_free(&r);
}

/* A plugin that keeps a freed pointer and writes into it on a later
 * malloc, paired with system (both on the C library's malloc, so the
 * block it writes into may be either's by then): the worker finds blocks
 * changed and cannot tell by whom, so each member is measured alone, and
 * the one that changes its blocks alone too is named in its cell, the
 * other's cell saying it was lost with it. Before, both cells read "a
 * plugin of the pair wrote ... (which one, pairing cannot tell)". */
Test(paired, a_plugin_writing_into_freed_blocks_is_named, .timeout = 240)
{
	char *dir = scratch_dir();
	char bad[4200];
	snprintf(bad, sizeof bad, "%s:as=bad", test_plugin("uaf_later"));
	for (int sliced = 0; sliced < 2; sliced++) {
		struct alloclab_results *res = pair_run(dir, "system", bad, sliced ? "s.json" : "v.json", sliced);
		const struct alloclab_cell *b = cell_of(res, "bad", 2), *sys = cell_of(res, "system", 2);
		cr_assert(b && sys);
		cr_expect(b->status == ALLOCLAB_CELL_ERROR && b->message &&
				  strstr(b->message, "plugin 'bad' changes blocks it handed out or freed: measured alone") &&
				  strstr(b->message, "where the workload wrote 0x01"),
			  "%s: %s", sliced ? "slices" : "values", b->message ? b->message : "ok");
		cr_expect(sys->status == ALLOCLAB_CELL_ERROR && sys->message &&
				  strstr(sys->message, "lost with its pair when 'bad' failed"),
			  "%s: %s", sliced ? "slices" : "values", sys->message ? sys->message : "ok");
		alloclab_results_free(res);
	}
}

/* A slot that crashed in its third process, after two had finished (as
 * the runner leaves one: every cell of the slot an error, each keeping
 * the processes measured before): plot draws those two marked, never as
 * a whole measurement, in the bars and in the scaling lines (the legend
 * says "crashed after 2 of 3 processes", the bars are hatched, the points
 * hollow), and its output says so too. Before, such cells were left out
 * of the pictures with no word of what they had. */
Test(paired, a_crashed_cells_processes_are_plotted_marked, .timeout = 240)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--paired", "--no-check", "-p", "system", "-p",
								      "mimalloc", "-w", "churn:ops=20000", "-t", "1,2", "-n",
								      "3", "-v", "2", "-o", "c.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	json_t *doc = json_load_file(path_in(dir, "c.json"), 0, NULL);
	size_t i;
	json_t *cell;
	cr_assert(doc);
	json_array_foreach(json_object_get(doc, "cells"), i, cell)
	{
		if (json_integer_value(json_object_get(cell, "threads")) != 2)
			continue;
		json_object_set_new(cell, "status", json_string("error"));
		json_object_set_new(cell, "error", json_string("process 3: killed by signal 11 (Segmentation fault) in run"));
		cr_assert_eq(json_array_remove(json_object_get(cell, "runs"), 2), 0);
	}
	cr_assert_eq(json_dump_file(doc, path_in(dir, "crashed.json"), 0), 0);
	json_decref(doc);
	if (!alloclab_plot_available())
		cr_skip_test("gnuplot is not installed");
	r = run_alloclab(dir, (const char *const[]){"plot", "crashed.json", "-o", "pics", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cr_expect(strstr(r.out, "PARTIAL: mimalloc churn threads=2 crashed after 2 of 3 processes") &&
			  strstr(r.out, "PARTIAL: system churn threads=2 crashed after 2 of 3 processes"),
		  "%s", r.out);
	cmd_result_free(&r);
	static const char *const pictures[] = {"pics/churn-plugins.svg", "pics/churn-scaling.svg"};
	for (size_t k = 0; k < 2; k++) {
		char *svg = read_file(path_in(dir, pictures[k]));
		cr_assert(svg, "%s", pictures[k]);
		cr_expect(strstr(svg, "mimalloc (PARTIAL: crashed after 2 of 3 processes)") != NULL, "%s", pictures[k]);
		free(svg);
	}
}
