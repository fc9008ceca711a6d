/*
 * A workload added by its file and one line (tests/workloads/ticks.c and
 * test_workload_names in tests/meson.build) reaches every command: it is
 * listed, measured, its thread limit is honoured, `show` prints its own
 * report, `compare` names rows its way, `plot` draws its picture, and the
 * framework's placement service reports for it.
 */
#include "helpers.h"
#include "results/results.h"
#include "run/runner.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* run_alloclab runs ALLOCLAB_EXE: point it at the build with the test workload. */
static void use_test_exe(void)
{
	setenv("ALLOCLAB_EXE", getenv("ALLOCLAB_TEST_EXE"), 1);
}

Test(workload_interface, a_new_workload_reaches_every_command, .timeout = 120)
{
	char *dir = scratch_dir(), path[4200];
	struct stat st;

	use_test_exe();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"list", NULL});
	cr_expect(strstr(r.out, "ticks        a test workload") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "at most 2 threads") != NULL, "%s", r.out);
	cmd_result_free(&r);

	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-p", "mimalloc", "-w", "ticks:size=24+40",
		"-t", "1,2,3", "-n", "3", "-v", "1", "-o", "t.json", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cr_expect(strstr(r.out, "ticks report: system asked for") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "not applicable: workload 'ticks' runs with at most 2 threads") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "cache-line and page placement of the blocks live") != NULL, "%s", r.out);
	cmd_result_free(&r);

	struct alloclab_results *doc = load_results(dir, "t.json");
	const struct alloclab_cell *c = cell_of(doc, "system", 2);
	cr_assert_not_null(c);
	cr_expect_eq(c->nprocs, 3);
	cr_expect(json_is_object(json_object_get(json_array_get(c->procs[0].report, 0), "placement")));
	/* 3 processes x 1 value x 2 threads x 1000 blocks x 24 bytes. */
	r = run_alloclab(dir, (const char *const[]){"show", "t.json", NULL});
	cr_expect(strstr(r.out, "ticks report: system asked for 144000 bytes in all") != NULL, "%s", r.out);
	cmd_result_free(&r);

	r = run_alloclab(dir, (const char *const[]){"compare", "t.json", "--plugins", "system,mimalloc", "--format", "csv",
		NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "\nticks of 24 bytes t=1,") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "\nticks of 40 bytes t=2,") != NULL, "%s", r.out);
	cmd_result_free(&r);

	r = run_alloclab(dir, (const char *const[]){"plot", "t.json", "-o", "pics", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	snprintf(path, sizeof path, "%s/pics/ticks-bytes.png", dir);
	cr_expect(stat(path, &st) == 0 && st.st_size > 1000, "no %s", path);
	snprintf(path, sizeof path, "%s/pics/ticks-scaling.svg", dir);
	cr_expect(stat(path, &st) == 0 && st.st_size > 1000, "no %s", path);
	cmd_result_free(&r);
	alloclab_results_free(doc);
}

/* A prepare that fails at once in one thread, while the other has only
 * just left the round's first barrier: every thread must still meet at
 * the next one (a fast failure once made the slow thread leave, and the
 * worker hang until its timeout). */
Test(workload_interface, a_fast_prepare_failure_never_hangs_the_worker, .timeout = 120)
{
	char *dir = scratch_dir();
	use_test_exe();
	/* Sixteen workers (a cell stops at its first failed process). */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", "system", "-w",
		"ticks:fail=1,size=1+2+3+4+5+6+7+8+9+10+11+12+13+14+15+16", "-t", "2", "--timeout", "10", "-o", "f.json",
		NULL});
	cr_expect_eq(r.status, 1, "%s %s", r.out, r.err);
	cr_expect(strstr(r.out, "ticks: prepare failed on purpose") != NULL, "%s", r.out);
	cr_expect_null(strstr(r.out, "timed out"), "%s", r.out);
	cmd_result_free(&r);
}

/* Cells are visited in a shuffled order in each round of processes, drawn
 * from the recorded seed (so the same seed repeats it), and in the plan's
 * order with --order fixed. The ticks workload reports when its process
 * measured, which shows the order the runner took. */
static void visited_order(const struct alloclab_results *doc, unsigned round, unsigned *order)
{
	uint64_t started[16];
	for (unsigned k = 0; k < doc->ncells; k++) {
		cr_assert_gt(doc->cells[k].nprocs, round);
		const struct alloclab_process *p = &doc->cells[k].procs[round];
		started[k] = (uint64_t)json_integer_value(
			json_object_get(json_array_get(p->values[0].thread_reports, 0), "process_started_ns"));
		cr_assert_gt(started[k], 0);
		order[k] = k;
	}
	for (unsigned i = 1; i < doc->ncells; i++)
		for (unsigned j = i; j > 0 && started[order[j]] < started[order[j - 1]]; j--) {
			unsigned t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
}

Test(workload_interface, cells_are_visited_in_a_seeded_random_order, .timeout = 120)
{
	setenv("ALLOCLAB_EXE", getenv("ALLOCLAB_TEST_EXE"), 1);
	char *dir = scratch_dir();
	for (int fixed = 0; fixed < 2; fixed++) {
		struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w",
			"ticks:size=8+16+24+32+40+48", "-t", "1", "-n", "4", "-v", "1", "--warmups", "0", "--order",
			fixed ? "fixed" : "random", "--order-seed", "42", "-q", "-o", "o.json", NULL});
		cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
		cmd_result_free(&r);
		struct alloclab_results *doc = load_results(dir, "o.json");
		cr_assert_eq(doc->ncells, 6);
		unsigned shuffled_rounds = 0;
		for (unsigned round = 0; round < 4; round++) {
			unsigned got[16], want[16];
			visited_order(doc, round, got);
			alloclab_run_order(42, fixed, round, want, 6);
			for (unsigned i = 0; i < 6; i++)
				cr_expect_eq(got[i], want[i], "round %u, place %u: cell %u, expected %u", round, i, got[i],
					     want[i]);
			for (unsigned i = 0; i < 6; i++)
				if (want[i] != i) {
					shuffled_rounds++;
					break;
				}
		}
		if (fixed)
			cr_expect_eq(shuffled_rounds, 0);
		else
			cr_expect_gt(shuffled_rounds, 2, "the seed's shuffles left the plan's order in most rounds");
		alloclab_results_free(doc);
	}
}
