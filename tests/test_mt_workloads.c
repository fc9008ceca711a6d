/*
 * The multithreaded workloads: what each allocates is the same for a seed,
 * blocks really are freed by other threads where the workload says so (and
 * never where it says not), plugins without cross-thread frees are not
 * applicable, and the false-sharing measure is right on placements built
 * to be shared or not.
 */
#include "helpers.h"
#include "figures/figure.h"
#include "registry.h"
#include "results/results.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs one workload at `threads` threads under the thread-counting test
 * plugin (one process, one value, one warm-up) and returns a statistic of
 * it after the run. */
static long long counted(const char *dir, const char *workload, const char *threads, const char *stat)
{
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p",
		test_plugin("thread_counting"), "-w", workload, "-t", threads, "-n", "1", "-v", "1", "-o", "tc.json", NULL});
	cr_assert_eq(r.status, 0, "%s: %s %s", workload, r.out, r.err);
	cmd_result_free(&r);
	struct alloclab_results *doc = load_results(dir, "tc.json");
	cr_assert_eq(doc->cells[0].status, ALLOCLAB_CELL_OK, "%s: %s", workload, doc->cells[0].message);
	long long v = json_integer_value(json_object_get(doc->cells[0].procs[0].stats_after_finish, stat));
	alloclab_results_free(doc);
	return v;
}

Test(mt_workloads, remote_frees_happen_where_the_workload_says, .timeout = 120)
{
	char *dir = scratch_dir();
	/* The producer allocates, the consumer frees: every free is remote,
	 * the objects' and their batches' ((warm-up + value) x (2048 + 2)). */
	cr_expect_eq(counted(dir, "xmalloc:ops=2048,batch=1024", "2", "cross_thread_frees"), 2 * (2048 + 2));
	/* Thread 1's blocks were made by thread 0 (the original's main
	 * thread), and retired generations' blocks are freed by their
	 * successors. */
	cr_expect_gt(counted(dir, "larson:ops=20000,slots=500,rounds=40", "2", "cross_thread_frees"), 300);
	/* One thread, but its work passes through retired generations. */
	cr_expect_gt(counted(dir, "larson:ops=20000,slots=500,rounds=4", "1", "cross_thread_frees"), 100);
	/* Thread 0 hands each thread one object, freed by a thread started
	 * for the value (as the original's workers): exactly one remote free
	 * per value for each, thread 0's own included. */
	cr_expect_eq(counted(dir, "cache-scratch:iterations=100,writes=1", "3", "cross_thread_frees"), 2 * 3);
	cr_expect_eq(counted(dir, "threadtest:objects=1000,iterations=3", "2", "cross_thread_frees"), 0);
	cr_expect_eq(counted(dir, "cache-thrash:iterations=100,writes=1", "2", "cross_thread_frees"), 0);
}

Test(mt_workloads, what_they_allocate_is_fixed_by_the_seed, .timeout = 120)
{
	char *dir = scratch_dir();
	/* A count of everything allocated: the same twice for a seed (any
	 * interleaving), and the formula each workload promises. */
	long long a = counted(dir, "larson:ops=20000,slots=500,rounds=20,seed=5", "2", "mallocs");
	long long b = counted(dir, "larson:ops=20000,slots=500,rounds=20,seed=5", "2", "mallocs");
	cr_expect_eq(a, b);
	/* (warm-up + value) x (thread 0 making every block and replacing each
	 * four times, then each thread's ops) */
	cr_expect_eq(a, 2 * (5 * 2 * 500 + 2 * 20000));
	/* (warm-up + value) x iterations x objects, and the last value's
	 * placement pass: each thread's 500 blocks held once. */
	cr_expect_eq(counted(dir, "threadtest:objects=1000,iterations=3", "2", "mallocs"), 2 * 3 * 1000 + 1000);
	/* (warm-up + value) x the one producer's whole batches (5000 objects
	 * make two of 4096) and the batches themselves, and the placement
	 * pass's 256 blocks a thread. */
	cr_expect_eq(counted(dir, "xmalloc:ops=5000", "3", "mallocs"), 2 * (2 * 4096 + 2) + 3 * 256);
	/* Every allocation the false-sharing loops claim reaches the plugin
	 * (compiled C++ originals can lose theirs to the optimiser: GCC 12's
	 * -O3 removes new/delete pairs without -fno-allocation-dce): (warm-up +
	 * value) x threads x iterations, thread 0's handed-out objects (and,
	 * as the original's main, its table of them and its workers'
	 * arguments, and its thread table by calloc), and the placement pass's
	 * one object a thread. */
	cr_expect_eq(counted(dir, "cache-thrash:iterations=1000,writes=2", "2", "mallocs"), 2 * 2 * 1000 + 2);
	cr_expect_eq(counted(dir, "cache-scratch:iterations=1000,writes=2", "2", "mallocs"), 2 * (2 * 1000 + 2 + 2) + 2);
	cr_expect_eq(counted(dir, "cache-scratch:iterations=1000,writes=2", "2", "callocs"), 2);
}

Test(mt_workloads, plugins_that_cannot_free_remotely_are_not_applicable, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "obmalloc-radix:mode=per-thread", "-w",
		"larson:ops=1000", "-w", "xmalloc:ops=1000", "-w", "cache-scratch:iterations=10", "-w",
		"threadtest:objects=100,iterations=1", "-t", "2", "-n", "1", "-o", "na.json", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *doc = load_results(dir, "na.json");
	for (unsigned i = 0; i < doc->ncells; i++) {
		const struct alloclab_cell *c = &doc->cells[i];
		int remote = strcmp(c->workload, "threadtest") != 0;
		cr_expect_eq(c->status, remote ? ALLOCLAB_CELL_NOT_APPLICABLE : ALLOCLAB_CELL_OK, "%s", c->workload);
		if (remote)
			cr_expect(strstr(c->message, "cross-thread-free") != NULL, "%s", c->message);
	}
	alloclab_results_free(doc);
}

/* The placement measure on placements made to order: a bump allocator
 * giving two threads the next 8 bytes of one line shares a line; with a
 * line per block it never does. */
static json_t *placement_of(const char *dir, const char *plugin)
{
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", plugin, "-w",
		"cache-thrash:iterations=4,writes=1", "-t", "2", "-n", "1", "-v", "1", "--warmups", "0", "-o", "p.json",
		NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *doc = load_results(dir, "p.json");
	json_t *p = json_incref(json_object_get(json_array_get(doc->cells[0].procs[0].report, 0), "placement"));
	alloclab_results_free(doc);
	return p;
}

Test(mt_workloads, false_sharing_is_measured_right, .timeout = 60)
{
	char *dir = scratch_dir(), line[4300];
	json_t *shared = placement_of(dir, test_plugin("bump_shared"));
	snprintf(line, sizeof line, "%s:line=1", test_plugin("bump_shared"));
	json_t *apart = placement_of(dir, line);
	cr_assert_not_null(shared);
	cr_assert_not_null(apart);
	cr_expect_eq(json_integer_value(json_object_get(shared, "lines_total")), 1);
	cr_expect_eq(json_integer_value(json_object_get(shared, "lines_shared")), 1);
	cr_expect_eq(json_integer_value(json_object_get(apart, "lines_total")), 2);
	cr_expect_eq(json_integer_value(json_object_get(apart, "lines_shared")), 0);
	json_decref(shared);
	json_decref(apart);
}

/* The workloads' own reports: the run prints each cell in its benchmark's
 * terms, and the false-sharing picture shows the lines the placement pass
 * found shared: all of them under the bump allocator, none with a line per
 * block. */
Test(mt_workloads, own_reports_and_pictures, .timeout = 60)
{
	char *dir = scratch_dir(), shared[4300], apart[4300];
	snprintf(shared, sizeof shared, "%s:as=shared", test_plugin("bump_shared"));
	snprintf(apart, sizeof apart, "%s:line=1,as=apart", test_plugin("bump_shared"));
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", shared, "-p", apart,
		"-w", "cache-thrash:iterations=4,writes=1", "-t", "1,2", "-n", "1", "-v", "1", "--warmups", "0", "-o",
		"own.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "cache-thrash shared t=2: ") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "object rounds per second (all threads), peak RSS") != NULL, "%s", r.out);
	cmd_result_free(&r);

	struct alloclab_results *doc = load_results(dir, "own.json");
	const struct alloclab_cell *cells[4];
	cr_assert_eq(doc->ncells, 4);
	for (unsigned i = 0; i < 4; i++)
		cells[i] = &doc->cells[i];
	struct alloclab_figure_list figs = {0};
	alloclab_workload_find("cache-thrash")->figures(cells, 4, &figs);
	cr_assert_eq(figs.n, 1);
	const struct alloclab_figure *f = &figs.items[0];
	cr_expect_str_eq(f->name, "cache-thrash-shared-lines");
	cr_assert_eq(f->ncategories, 2);
	cr_expect_str_eq(f->categories[0], "shared");
	cr_expect_str_eq(f->categories[1], "apart");
	/* One series, for two threads; one thread shares nothing by definition. */
	cr_assert_eq(f->nseries, 1);
	cr_expect_str_eq(f->series[0].title, "2 threads");
	cr_expect_float_eq(f->series[0].y[0], 100.0, 1e-9);
	cr_expect_float_eq(f->series[0].y[1], 0.0, 1e-9);
	alloclab_figure_list_free(&figs);

	/* The memory picture: one point per thread count, in order. */
	alloclab_workload_find("larson")->figures(cells, 4, &figs);
	cr_assert_eq(figs.n, 1);
	cr_expect_str_eq(figs.items[0].name, "larson-memory");
	cr_assert_eq(figs.items[0].nseries, 2);
	cr_expect_float_eq(figs.items[0].series[0].x[0], 1.0, 1e-9);
	cr_expect_float_eq(figs.items[0].series[0].x[1], 2.0, 1e-9);
	cr_expect_gt(figs.items[0].series[0].y[0], 0.0);
	alloclab_figure_list_free(&figs);
	alloclab_results_free(doc);
}

/* A statistic of a churn run at `threads` threads under `plugin`. */
static long long stat_of(const char *dir, const char *plugin, const char *threads, const char *stat)
{
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", plugin, "-w",
		"churn:ops=1000,slots=16", "-t", threads, "-n", "1", "-v", "1", "-o", "mt.json", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	struct alloclab_results *doc = load_results(dir, "mt.json");
	cr_assert_eq(doc->cells[0].status, ALLOCLAB_CELL_OK, "%s", doc->cells[0].message);
	long long v = json_integer_value(json_object_get(doc->cells[0].procs[0].stats_after_finish, stat));
	alloclab_results_free(doc);
	return v;
}

/* Workload thread 0 is the main thread, hooks and all, for a plugin of ABI
 * version 2; a version 1 plugin keeps its promise that the hooks never run
 * there, and then no op does either. */
Test(mt_workloads, thread_zero_is_the_main_thread_from_abi_2, .timeout = 60)
{
	char *dir = scratch_dir();
	const char *v2 = test_plugin("main_thread"), *v1 = test_plugin("main_thread_v1");
	/* Thread 0's work: (warm-up + value) x ops, and the 16 slots prepared each round. */
	cr_expect_eq(stat_of(dir, v2, "1", "main_thread_mallocs"), 2 * (1000 + 16));
	cr_expect_eq(stat_of(dir, v2, "2", "main_thread_mallocs"), 2 * (1000 + 16));
	cr_expect_eq(stat_of(dir, v2, "2", "main_thread_hooks"), 2);
	cr_expect_eq(stat_of(dir, v1, "1", "main_thread_mallocs"), 0);
	cr_expect_eq(stat_of(dir, v1, "2", "main_thread_hooks"), 0);
}

/* churn calls a plugin's entry points when it hands them out, and its ops
 * when it refuses or a wrapper stands between. */
Test(mt_workloads, churn_calls_entry_points_when_handed_out, .timeout = 60)
{
	char *dir = scratch_dir(), spec[4300];
	const char *ep = test_plugin("entry_points");
	/* (warm-up + value) x 1000 replacements through the entry point; the
	 * 16 slots a round are prepared through the op. */
	cr_expect_eq(stat_of(dir, ep, "1", "direct_mallocs"), 2 * 1000);
	cr_expect_eq(stat_of(dir, ep, "1", "op_mallocs"), 2 * 16);
	snprintf(spec, sizeof spec, "%s:refuse=1", ep);
	cr_expect_eq(stat_of(dir, spec, "1", "direct_mallocs"), 0);
	snprintf(spec, sizeof spec, "%s:gil=1", ep);
	cr_expect_eq(stat_of(dir, spec, "1", "direct_mallocs"), 0);
	cr_expect_eq(stat_of(dir, spec, "1", "op_mallocs"), 2 * (1000 + 16));
}

/* An entry point that does not stand for malloc fails check's honesty case. */
Test(mt_workloads, check_catches_a_false_entry_point, .timeout = 60)
{
	char *dir = scratch_dir(), spec[4300];
	snprintf(spec, sizeof spec, "%s:misalign=1", test_plugin("entry_points"));
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"check", spec, NULL});
	cr_expect_eq(r.status, 1, "%s %s", r.out, r.err);
	cr_expect(strstr(r.out, "entry point's block") != NULL, "%s", r.out);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"check", test_plugin("entry_points"), NULL});
	cr_expect_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
}

/* tcmalloc beside glibc: both once took memory with sbrk, glibc for the
 * host's own bookkeeping on the main thread (workload thread 0) while
 * tcmalloc served the other threads, and the break raced (a process in
 * a few crashed at 3 threads and more). Many processes, so that a return
 * of the race would show. */
Test(mt_workloads, tcmalloc_leaves_the_break_to_glibc, .timeout = 120)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "tcmalloc", "-w",
		"churn:ops=5000,slots=4096", "-t", "4", "-n", "16", "-v", "1", "--warmups", "0", "-o", "tc.json", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	struct alloclab_results *doc = load_results(dir, "tc.json");
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_OK, "%s", doc->cells[0].message);
	alloclab_results_free(doc);
}
