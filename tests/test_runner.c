/*
 * Runner isolation: a plugin that crashes and one that hangs become their
 * cells' errors while every other cell is measured in full; a plugin that
 * is not thread-safe is "not applicable" above one thread; Ctrl-C keeps what
 * finished.
 */
#define _GNU_SOURCE 1
#include "helpers.h"
#include "results/results.h"
#include "worker/worker.h"

#include <criterion/criterion.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	return s ? s : "";
}

Test(runner, crash_and_hang_are_recorded_and_the_run_goes_on, .timeout = 120)
{
	char *dir = scratch_dir(), crash[4200];
	snprintf(crash, sizeof crash, "%s:n=3000", test_plugin("crash_nth"));
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", crash, "-p", test_plugin("hang"),
		"-p", "system", "-p", test_plugin("single_thread"), "-w", "churn:ops=20000,slots=256", "-t", "1,2",
		"-n", "2", "-v", "2", "--warmups", "1", "--timeout", "3", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 1, "exit status %d (want 1: some cells failed); stderr: %s", r.status, r.err);
	struct alloclab_results *doc = load_results(dir, "r.json");

	for (unsigned t = 1; t <= 2; t++) {
		const struct alloclab_cell *c = cell_of(doc, "crash-nth:n=3000", t), *h = cell_of(doc, "hang", t),
					   *s = cell_of(doc, "system", t);
		cr_assert(c && h && s);
		cr_expect_eq(c->status, ALLOCLAB_CELL_ERROR);
		cr_expect(strstr(c->message, "killed by signal 11 (Segmentation fault)") != NULL, "%s", c->message);
		cr_expect_eq(h->status, ALLOCLAB_CELL_ERROR);
		cr_expect(strstr(h->message, "timed out after 3 s") != NULL, "%s", h->message);
		/* The system cell is complete: 2 processes x 2 values, all positive. */
		cr_expect_eq(s->status, ALLOCLAB_CELL_OK);
		cr_assert_eq(s->nprocs, 2);
		for (unsigned i = 0; i < 2; i++) {
			const struct alloclab_process *run = &s->procs[i];
			cr_expect_eq(run->nvalues, 2);
			cr_expect_eq(run->nwarmups, 1);
			cr_expect_gt(run->peak_rss_kib, 0);
			for (unsigned k = 0; k < run->nvalues; k++) {
				cr_expect_gt(run->values[k].per_op, 0.0);
				cr_expect_eq(run->values[k].thread_ops[0], 20000);
			}
		}
	}
	const struct alloclab_cell *single1 = cell_of(doc, "single-thread", 1), *single2 = cell_of(doc, "single-thread", 2);
	cr_expect_eq(single1->status, ALLOCLAB_CELL_OK);
	cr_expect_eq(single2->status, ALLOCLAB_CELL_NOT_APPLICABLE);
	cr_expect(strstr(single2->message, "not thread-safe") != NULL);
	cr_expect(strstr(r.out, "error: process 1: killed by signal 11") != NULL, "table: %s", r.out);
	alloclab_results_free(doc);
	cmd_result_free(&r);
	free(dir);
}

Test(runner, interrupt_keeps_finished_cells, .timeout = 120)
{
	char *dir = scratch_dir(), path[4200];
	pid_t pid = fork();

	snprintf(path, sizeof path, "%s/r.json", dir);
	if (pid == 0) {
		if (chdir(dir) != 0)
			_exit(99);
		freopen("/dev/null", "w", stdout);
		/* The hang cell comes second (the plan's order), so the system
		 * cell finishes first and the run is then stuck until it is
		 * interrupted. */
		execl(getenv("ALLOCLAB_EXE"), "alloclab", "run", "--no-check", "--order", "fixed", "-p", "system", "-p", test_plugin("hang"), "-w",
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
	struct alloclab_results *doc = load_results(dir, "r.json");
	cr_expect(doc->interrupted);
	cr_expect_eq(cell_of(doc, "system", 1)->status, ALLOCLAB_CELL_OK);
	cr_expect_eq(cell_of(doc, "system", 1)->nprocs, 1);
	cr_expect_eq(cell_of(doc, "hang", 1)->nprocs, 0);
	alloclab_results_free(doc);
	free(dir);
}

Test(runner, results_carry_reproduction_metadata, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "mimalloc", "-w",
		"churn:ops=1000,slots=64", "-t", "1", "-n", "1", "-v", "1", "-o", "r.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	struct alloclab_results *doc = load_results(dir, "r.json");
	json_t *meta = doc->metadata;
	static const char *const keys[] = {"alloclab_version", "cpu_model", "kernel", "libc", "compiler",
					   "build_flags", "date"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		cr_expect(strlen(str(meta, keys[i])) > 0, "metadata.%s empty", keys[i]);
	cr_expect_gt(json_integer_value(json_object_get(meta, "cpu_count")), 0);
	cr_expect_gt(json_integer_value(json_object_get(meta, "cache_line_size")), 0);
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(meta, "command"), 1)), "run");
	cr_assert_eq(doc->nplugins, 1);
	cr_expect_str_eq(doc->plugins[0].name, "mimalloc");
	cr_expect(strstr(doc->plugins[0].version, "mimalloc 2.") != NULL, "%s", doc->plugins[0].version);
	cr_expect(strstr(r.out, "results: r.json") != NULL, "%s", r.out);
	cr_expect(doc->complete);
	alloclab_results_free(doc);
	cmd_result_free(&r);
	free(dir);
}

/* gil=1: the framework's lock lets a plugin that is not thread-safe run in
 * threads (CPython's allocator under its GIL); its label says so. */
Test(runner, the_frameworks_gil_makes_any_plugin_threadable, .timeout = 60)
{
	char *dir = scratch_dir(), spec[4300];
	snprintf(spec, sizeof spec, "%s:gil=1", test_plugin("single_thread"));
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", spec, "-p", "cpython:gil=1",
		"-w", "churn:ops=20000,slots=64", "-t", "2", "-n", "1", "-v", "1", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	struct alloclab_results *doc = load_results(dir, "r.json");
	const struct alloclab_cell *c = cell_of(doc, "single-thread:gil=1", 2), *cp = cell_of(doc, "cpython:gil=1", 2);
	cr_assert(c && cp);
	cr_expect_eq(c->status, ALLOCLAB_CELL_OK, "%s", c->message ? c->message : "");
	cr_expect_eq(cp->status, ALLOCLAB_CELL_OK, "%s", cp->message ? cp->message : "");
	alloclab_results_free(doc);
}

/* --measure instructions: callgrind counts the timed region only, so the
 * same work gives the same count, value after value and run after run. */
Test(runner, instructions_are_deterministic, .timeout = 300)
{
	skip_unless_valgrind_counts();
	char *dir = scratch_dir();
	for (int run = 0; run < 2; run++) {
		struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--measure", "instructions", "-p", "noop",
			"-p", "system", "-w", "churn:ops=20000,slots=64", "-t", "1", "-n", "1", "-v", "2", "-o",
			run ? "b.json" : "a.json", NULL});
		cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
		cr_expect(strstr(r.out, "instr/op") != NULL, "%s", r.out);
		cmd_result_free(&r);
	}
	struct alloclab_results *a = load_results(dir, "a.json"), *b = load_results(dir, "b.json");
	const struct alloclab_cell *na = cell_of(a, "noop", 1), *nb = cell_of(b, "noop", 1);
	cr_assert(na && nb && na->nprocs == 1 && nb->nprocs == 1);
	cr_expect_str_eq(na->metric, ALLOCLAB_METRIC_INSTRUCTIONS);
	double v0 = na->procs[0].values[0].per_op, v1 = na->procs[0].values[1].per_op, w0 = nb->procs[0].values[0].per_op;
	/* The churn loop and two calls of noop: a few tens of instructions. */
	cr_expect(v0 > 10 && v0 < 200, "noop: %g instructions per op", v0);
	cr_expect_eq(v0, v1, "value to value: %g against %g", v0, v1);
	cr_expect_eq(v0, w0, "run to run: %g against %g", v0, w0);
	alloclab_results_free(a);
	alloclab_results_free(b);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"compare", "a.json", "b.json", "-f", "json", NULL});
	json_t *cmp = json_loads(r.out, 0, NULL);
	cr_expect(strstr(json_string_value(json_object_get(cmp, "test")), "deterministic") != NULL, "%s", r.out);
	json_decref(cmp);
	cmd_result_free(&r);
}

/* --measure cache: callgrind's simulated caches, set to this machine's
 * geometry (recorded), give data misses per operation for every value. */
Test(runner, cache_misses_are_simulated, .timeout = 300)
{
	skip_unless_valgrind_counts();
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--measure", "cache", "-p", "system", "-w",
		"unicode:words=256,rounds=1,variant=9chars", "--cache-align", "both", "-t", "1", "-n", "1", "-o", "c.json",
		NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cr_expect(strstr(r.out, "simulated data-cache misses per operation") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "D1 misses per op") != NULL, "%s", r.out);
	cmd_result_free(&r);
	struct alloclab_results *doc = load_results(dir, "c.json");
	cr_expect(json_is_string(json_object_get(doc->metadata, "cache_simulated")));
	const struct alloclab_value *v = &doc->cells[0].procs[0].values[0];
	cr_expect(v->cache_simulated);
	cr_expect_gt(v->d1_misses_per_op, 0.0);
	cr_expect_geq(v->ll_misses_per_op, 0.0);
	cr_expect_leq(v->ll_misses_per_op, v->d1_misses_per_op);
	alloclab_results_free(doc);
}

/* --measure tlb: the simulated caches are data TLBs with a page's lines, of
 * the geometry asked for and recorded; a working set over many pages
 * misses them more often than one on a few pages. */
Test(runner, tlb_is_simulated_with_pages_for_lines, .timeout = 300)
{
	skip_unless_valgrind_counts();
	char *dir = scratch_dir();
	/* A first level large enough for the small set's pages with room to
	 * spare: with 16 entries of 4 ways its 4 sets made the small set's
	 * misses depend on where the harness's own pages fell (1.5 a op with
	 * one build, under 1 with another). */
	setenv("ALLOCLAB_TLB", "64,4,512,8", 1);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--measure", "tlb", "-p", "system", "-w",
		"churn:ops=20000,slots=32+8192,max_size=256", "-t", "1", "-n", "2", "-v", "1", "-o", "t.json", NULL});
	unsetenv("ALLOCLAB_TLB");
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cr_expect(strstr(r.out, "simulated data-TLB misses per operation") != NULL, "%s", r.out);
	cmd_result_free(&r);
	struct alloclab_results *doc = load_results(dir, "t.json");
	const char *g = doc->facts.cache_simulated;
	cr_assert_not_null(g);
	cr_expect(strstr(g, "first level 64 entries 4-way, second level 512 entries 8-way (override") != NULL, "%s", g);
	cr_expect(strstr(g, "--D1=262144,4,4096 --LL=2097152,8,4096") != NULL, "%s", g);
	cr_expect(doc->facts.tlb_simulated);
	cr_assert_eq(doc->ncells, 2);
	const struct alloclab_value *small = &doc->cells[0].procs[0].values[0], *big = &doc->cells[1].procs[0].values[0];
	cr_expect(small->cache_simulated && big->cache_simulated);
	cr_expect_gt(big->d1_misses_per_op, 4 * small->d1_misses_per_op, "8192 slots: %g misses per op, 32 slots: %g",
		     big->d1_misses_per_op, small->d1_misses_per_op);
	/* The first process has the build's own layout; the second maps the
	 * pages its number draws before the plugin, and says how many. */
	for (unsigned c = 0; c < 2; c++) {
		cr_assert_eq(doc->cells[c].nprocs, 2);
		cr_expect_eq(doc->cells[c].procs[0].layout_pad_pages, 0);
		cr_expect_eq(doc->cells[c].procs[1].layout_pad_pages, alloclab_layout_pad(1));
		cr_expect_eq(alloclab_layout_pad(1), 37);
	}
	alloclab_results_free(doc);
}

/* -n auto: at least 5 processes, more until the interval is narrow enough,
 * never more than --max-processes; the table says when the target was not
 * reached. */
Test(runner, processes_auto_stops_by_the_confidence_interval, .timeout = 120)
{
	char *dir = scratch_dir();
	/* Values of tens of milliseconds, so that one process descheduled on
	 * a busy machine (or under a sanitizer) cannot widen the interval
	 * past 100% of the mean. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-n", "auto", "--ci", "100", "--max-processes",
		"9", "-p", "system", "-w", "churn:ops=400000,slots=64", "-t", "1", "-v", "2", "-o", "wide.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"run", "-n", "auto", "--ci", "0.00001", "--max-processes", "7", "-p",
		"system", "-w", "churn:ops=20000,slots=64", "-t", "1", "-v", "2", "-o", "narrow.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "7 processes") && strstr(r.out, "not reached"), "%s", r.out);
	cmd_result_free(&r);
	struct alloclab_results *wide = load_results(dir, "wide.json"), *narrow = load_results(dir, "narrow.json");
	cr_expect_eq(wide->cells[0].nprocs, 5);
	cr_expect_eq(narrow->cells[0].nprocs, 7);
	cr_expect_eq(narrow->cells[0].status, ALLOCLAB_CELL_OK);
	alloclab_results_free(wide);
	alloclab_results_free(narrow);
	r = run_alloclab(dir, (const char *const[]){"run", "-n", "auto", "--ci", "nan", NULL});
	cr_expect_eq(r.status, 2);
	cmd_result_free(&r);
}

/* The table says the parameters every row of a workload shares once,
 * above it, and on each row only what tells it from the others. */
Test(runner, the_table_shows_shared_parameters_once, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w",
		"churn:ops=2000,slots=64,max_size=64+512", "-t", "1", "-n", "1", "-v", "1", "-o", "r.json", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	const char *head = strstr(r.out, "parameters (the same in every row of the workload):\n  churn ");
	cr_assert_not_null(head, "%s", r.out);
	const char *end = strchr(head + 52, '\n');
	cr_assert_not_null(end);
	cr_expect(strstr(head, "slots=64") && strstr(head, "slots=64") < end, "%s", r.out);
	cr_expect(strstr(head, "max_size") == NULL || strstr(head, "max_size") > end, "max_size varies: %s", r.out);
	int rows = 0;
	for (const char *line = strstr(r.out, "\nsystem "); line; line = strstr(line + 1, "\nsystem ")) {
		const char *eol = strchr(line + 1, '\n');
		cr_expect(strstr(line, "max_size=") && strstr(line, "max_size=") < eol, "row without max_size: %.*s",
			  (int)(eol - line), line);
		cr_expect(strstr(line, "slots=") == NULL || strstr(line, "slots=") > eol, "row repeats slots: %.*s",
			  (int)(eol - line), line);
		rows++;
	}
	cr_expect_eq(rows, 2, "%s", r.out);
	cmd_result_free(&r);
}

/* A two-thread run's results with these facts of the machine, shown. */
static char *show_with(const char *dir, const char *name, double load, double others)
{
	char *argv[] = {"test"}, err[512], path[4200];
	struct alloclab_results *r = alloclab_results_new(1, argv, NULL);
	struct alloclab_plugin_info info = {.label = "system", .spec = "system", .name = "system"};
	alloclab_results_add_plugin(r, &info);
	for (unsigned t = 1; t <= 2; t++) {
		struct alloclab_cell c = {.plugin = "system", .workload = "churn", .threads = t,
					  .status = ALLOCLAB_CELL_OK, .planned = 1, .params = json_pack("{s:i}", "ops", 10)};
		add_one_value_process(alloclab_results_add_cell(r, &c), 0, t, 10.0 * t);
	}
	json_object_set_new(r->metadata, "cpus_allowed", json_integer(2));
	json_object_set_new(r->metadata, "load_average_start", json_real(load));
	alloclab_results_set_end(r, load, 0.1, 2);
	alloclab_results_set_others(r, others, 0, others);
	r->complete = 1;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	cr_assert_eq(alloclab_results_write(r, path, err, sizeof err), 0, "%s", err);
	alloclab_results_free(r);
	struct cmd_result res = run_alloclab(dir, (const char *const[]){"show", name, NULL});
	cr_assert_eq(res.status, 0, "%s", res.err);
	free(res.err);
	return res.out;
}

/* The note that the machine could not give the threads their CPUs says
 * what other processes took while the run ran, never the load average
 * (which counts the run's own workers: 1.83 on an idle 2-core machine
 * running 2 threads, and the note blamed the machine). */
Test(runner, the_machine_note_is_about_other_processes, .timeout = 60)
{
	char *dir = scratch_dir();
	char *idle = show_with(dir, "idle.json", 1.83, 0.05), *busy = show_with(dir, "busy.json", 0.2, 1.6);
	cr_expect_null(strstr(idle, "CPUs were free"), "a note for a machine nothing else used: %s", idle);
	cr_expect(strstr(busy, "other processes kept up to 1.6 of the 2 CPUs") && strstr(busy, "about 0.4 CPUs were free"),
		  "%s", busy);
	free(idle);
	free(busy);
}

/* What other processes took, measured: a run held to one CPU records
 * about half of it taken while a loop spins there beside it, and its own
 * work (a worker busy all along) is never counted as another's. */
Test(runner, other_processes_work_is_measured, .timeout = 120)
{
	char *dir = scratch_dir();
	cpu_set_t one, all;
	cr_assert_eq(sched_getaffinity(0, sizeof all, &all), 0);
	int cpu = 0;
	while (!CPU_ISSET(cpu, &all))
		cpu++;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0);
	const char *const args[] = {"run", "-p", "system", "-w", "churn:ops=4000000", "-t", "1", "-n", "1", "-v", "1",
				    "--no-check", "-o", "alone.json", "-q", NULL};
	struct cmd_result r = run_alloclab(dir, args);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	pid_t spinner = fork();
	if (spinner == 0)
		for (;;)
			;
	const char *const beside[] = {"run", "-p", "system", "-w", "churn:ops=4000000", "-t", "1", "-n", "1", "-v", "1",
				      "--no-check", "-o", "beside.json", "-q", NULL};
	r = run_alloclab(dir, beside);
	kill(spinner, SIGKILL);
	waitpid(spinner, NULL, 0);
	sched_setaffinity(0, sizeof all, &all);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *a = load_results(dir, "alone.json"), *b = load_results(dir, "beside.json");
	cr_expect(a->facts.other_cpus_mean >= 0 && a->facts.other_cpus_mean < 0.95,
		  "the run's own work counted as others': %.2f of its one CPU", a->facts.other_cpus_mean);
	cr_expect(b->facts.other_cpus_mean > 0.25 && b->facts.other_cpus_mean <= 1.05,
		  "a loop spinning beside the run on its one CPU took %.2f of it", b->facts.other_cpus_mean);
	alloclab_results_free(a);
	alloclab_results_free(b);
}
