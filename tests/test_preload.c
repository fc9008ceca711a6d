/*
 * The preload library and the exec workload: every call of the C API
 * reaches the plugin (seen in a recording of the calls), calls made while
 * the plugin loads come from the bootstrap area and are freed harmlessly, a
 * program that forks and one that starts and ends many threads run under
 * every bundled plugin, real programs give glibc's output under every
 * bundled plugin, a crashing program is a cell's error, and a program's
 * calls can be recorded and replayed.
 */
#define _GNU_SOURCE 1
#include "helpers.h"
#include "results/results.h"
#include "trace/trace.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sanitizer builds make an instrumented preload library, which cannot be
 * loaded into the uninstrumented programs it is for; valgrind puts its own
 * malloc in every program it runs, in place of any preloaded one. */
static void skip_under_sanitizer(void)
{
	if (getenv("ALLOCLAB_UNDER_SANITIZER"))
		cr_skip_test("the preload library is for uninstrumented programs");
	if (getenv("ALLOCLAB_UNDER_VALGRIND"))
		cr_skip_test("valgrind replaces the malloc the preload library would serve");
}

static const char *program(void)
{
	return getenv("ALLOCLAB_TEST_PROGRAM");
}

static const char *const bundled[] = {"system", "jemalloc", "mimalloc", "tcmalloc", "tbbmalloc", "cpython",
				      "obmalloc-radix", "obmalloc-bigpool", "obmalloc-py37"};

static struct cmd_result exec_under(const char *dir, const char *plugin, const char *mode, const char *record)
{
	if (record)
		return run_alloclab(dir, (const char *const[]){"exec", "-p", plugin, "--record", record, "--", program(),
							       mode, NULL});
	return run_alloclab(dir, (const char *const[]){"exec", "-p", plugin, "--", program(), mode, NULL});
}

/* The program's requests (alloc_api.c, mode api): size, alignment. */
static const struct {
	uint64_t size, align;
} requests[] = {{1001, 0}, {1002, 0} /* calloc(2, 501) */, {1003, 0} /* realloc */, {1004, 0} /* reallocarray */,
		{1005, 64},   {1006, 256},  {1007, 4096},  {1008, 4096} /* valloc */, {4096, 4096} /* pvalloc(1009) */};

/* Finds each of the program's requests among thread 0's allocations in the
 * trace, as the plugin saw it: the same size (and an aligned_alloc for an
 * aligned one), or, for a plugin with neither aligned_alloc nor
 * usable_size, the size plus the library's 16-byte header (plus the
 * alignment it over-allocates). Each must be released later. Returns how
 * many were found. */
static unsigned requests_seen(const char *trace, int native)
{
	char err[512];
	struct alloclab_trace *t = alloclab_trace_open(trace, err, sizeof err);
	cr_assert(t, "%s", err);
	cr_assert_eq(alloclab_trace_validate(t, NULL, err, sizeof err), 0, "%s", err);
	struct alloclab_trace_cursor *c = alloclab_trace_cursor_new(t, 0);
	struct alloclab_trace_event *ev = malloc(ALLOCLAB_TRACE_CHUNK_EVENTS * sizeof *ev);
	uint32_t slots = alloclab_trace_slots(t, 0);
	unsigned char *watched = calloc(slots + 1, 1);
	const size_t nreq = sizeof requests / sizeof *requests;
	unsigned seen[16] = {0}, found = 0;
	size_t n;
	while (alloclab_trace_next_chunk(c, ev, &n, err, sizeof err) == 1)
		for (size_t i = 0; i < n; i++) {
			const struct alloclab_trace_event *e = &ev[i];
			if (alloclab_trace_op_releases(e->op) && !e->remote)
				watched[e->old_slot] = 0;
			if (!alloclab_trace_op_allocates(e->op))
				continue;
			uint64_t size = e->op == ALLOCLAB_TRACE_CALLOC ? e->size * e->arg : e->size;
			for (size_t k = 0; k < nreq; k++) {
				int match = native ? size == requests[k].size &&
							     (requests[k].align ? e->op == ALLOCLAB_TRACE_ALIGNED &&
										  e->arg == requests[k].align
									: 1)
						   : size == requests[k].size + requests[k].align + 16;
				if (match) {
					found += !seen[k];
					seen[k] = 1;
					watched[e->slot] = 1;
				}
			}
		}
	for (uint32_t s = 0; s < slots; s++)
		cr_assert_eq(watched[s], 0, "slot %u: a request of the program was never freed", s);
	free(watched);
	free(ev);
	alloclab_trace_cursor_free(c);
	alloclab_trace_close(t);
	return found;
}

/* Whether the trace has a sized free of a 1010-byte block. */
static int sized_free_seen(const char *trace)
{
	char err[512];
	size_t n;
	int seen = 0;
	struct alloclab_trace *t = alloclab_trace_open(trace, err, sizeof err);
	cr_assert(t, "%s", err);
	struct alloclab_trace_cursor *c = alloclab_trace_cursor_new(t, 0);
	struct alloclab_trace_event *ev = malloc(ALLOCLAB_TRACE_CHUNK_EVENTS * sizeof *ev);
	while (alloclab_trace_next_chunk(c, ev, &n, err, sizeof err) == 1)
		for (size_t i = 0; i < n; i++)
			seen |= ev[i].op == ALLOCLAB_TRACE_FREE_SIZED && ev[i].size == 1010;
	free(ev);
	alloclab_trace_cursor_free(c);
	alloclab_trace_close(t);
	return seen;
}

Test(preload, every_call_of_the_c_api_reaches_the_plugin)
{
	skip_under_sanitizer();
	char *dir = scratch_dir();
	/* jemalloc aligns and knows its sizes; thread_counting does neither:
	 * the library over-allocates and keeps sizes in headers. */
	const char *plugins[] = {"jemalloc", test_plugin("thread_counting")};
	for (int k = 0; k < 2; k++) {
		char trace[4200];
		snprintf(trace, sizeof trace, "%s/api%d.trace", dir, k);
		struct cmd_result r = exec_under(dir, plugins[k], "api", trace);
		cr_assert_eq(r.status, 0, "%s: %d: %s %s", plugins[k], r.status, r.out, r.err);
		cr_assert_str_eq(r.out, "ok\n");
		cr_assert(strstr(r.err, "alloclab exec: ") && strstr(r.err, "exit status 0") && strstr(r.err, "peak RSS"),
			  "%s", r.err);
		cmd_result_free(&r);
		unsigned found = requests_seen(trace, k == 0);
		if (k == 0)
			cr_assert(sized_free_seen(trace), "free_sized(p, 1010) did not reach jemalloc's sized free");
		/* malloc, calloc, realloc, reallocarray, posix_memalign,
		 * aligned_alloc, memalign, valloc, pvalloc */
		cr_assert_eq(found, 9, "%s: %u of the program's 9 requests reached the plugin", plugins[k], found);
	}
}

Test(preload, calls_made_while_the_plugin_loads_are_freed_harmlessly)
{
	skip_under_sanitizer();
	char *dir = scratch_dir();
	setenv("ALLOCLAB_PRELOAD_REPORT", "1", 1);
	struct cmd_result r = exec_under(dir, "jemalloc", "api", NULL);
	unsetenv("ALLOCLAB_PRELOAD_REPORT");
	cr_assert_eq(r.status, 0, "%s", r.err);
	unsigned long blocks = 0, bytes = 0, frees = 0;
	const char *line = strstr(r.err, "alloclab-preload: bootstrap: ");
	cr_assert(line && sscanf(line, "alloclab-preload: bootstrap: %lu blocks, %lu bytes, %lu frees", &blocks, &bytes,
				 &frees) == 3,
		  "%s", r.err);
	/* dlopen of the plugin and of libjemalloc allocates, and the loader
	 * frees some of it again: those frees reach the library and are
	 * ignored without harm (the program ran). */
	cr_assert_gt(blocks, 0);
	cr_assert_gt(frees, 0);
	cmd_result_free(&r);
}

Test(preload, programs_that_fork_and_start_threads_run_under_every_plugin, .timeout = 240)
{
	skip_under_sanitizer();
	char *dir = scratch_dir();
	for (size_t i = 0; i < sizeof bundled / sizeof *bundled; i++)
		for (int m = 0; m < 2; m++) {
			const char *mode = m ? "threads" : "fork";
			struct cmd_result r = exec_under(dir, bundled[i], mode, NULL);
			cr_assert_eq(r.status, 0, "%s %s: %d: %s", bundled[i], mode, r.status, r.err);
			cr_assert_str_eq(r.out, "ok\n", "%s %s", bundled[i], mode);
			cmd_result_free(&r);
		}
	/* Per-thread state cannot serve threads; noop is no allocator. */
	struct cmd_result r = exec_under(dir, "obmalloc-radix:mode=per-thread", "threads", NULL);
	cr_assert_eq(r.status, 127, "%s", r.err);
	cr_assert(strstr(r.err, "not applicable"), "%s", r.err);
	cmd_result_free(&r);
	r = exec_under(dir, "obmalloc-radix:mode=per-thread", "fork", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	/* Refused while it loads: the program never ran, which exec says
	 * with status 2. */
	r = exec_under(dir, "noop", "api", NULL);
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, "the program never ran"), "%s", r.err);
	cr_assert(strstr(r.err, "not an allocator"), "%s", r.err);
	cmd_result_free(&r);
}

Test(preload, a_crashing_program_is_its_cell_error)
{
	skip_under_sanitizer();
	char *dir = scratch_dir(), spec[4200];
	snprintf(spec, sizeof spec, "exec:cmd=%s crash", program());
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", "system", "-p", "mimalloc",
								      "-w", spec, "-t", "1", "-n", "1", "-v", "1", "-o", "x.json",
								      NULL});
	cr_assert_eq(r.status, 1, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "x.json");
	cr_assert_eq(res->ncells, 2);
	for (unsigned i = 0; i < 2; i++) {
		cr_assert_eq(res->cells[i].status, ALLOCLAB_CELL_ERROR);
		cr_assert(strstr(res->cells[i].message, "killed by signal 11"), "%s", res->cells[i].message);
	}
	alloclab_results_free(res);
}

Test(preload, real_programs_give_glibc_s_output_under_every_plugin, .timeout = 300)
{
	skip_under_sanitizer();
	char *dir = scratch_dir();
	const char *args[64] = {"run", "--no-check", "-w", "exec:scale=5", "-t", "1", "-n", "1", "-v", "1", "--warmups",
				"0", "-q", "-o", "p.json"};
	size_t n = 15;
	for (size_t i = 0; i < sizeof bundled / sizeof *bundled; i++) {
		args[n++] = "-p";
		args[n++] = bundled[i];
	}
	args[n++] = "-p";
	args[n++] = "obmalloc-radix:mode=per-thread";
	args[n] = NULL;
	struct cmd_result r = run_alloclab(dir, args);
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "p.json");
	unsigned compared = 0;
	for (unsigned i = 0; i < res->ncells; i++) {
		const struct alloclab_cell *c = &res->cells[i], *base = NULL;
		const char *prog = json_string_value(json_object_get(c->params, "program"));
		if (c->status == ALLOCLAB_CELL_NOT_APPLICABLE) {
			cr_assert(strstr(c->plugin, "per-thread") &&
					  (!strcmp(prog, "sort") || !strcmp(prog, "xz") || !strcmp(prog, "alloc-threads")),
				  "%s %s: %s", c->plugin, prog, c->message);
			continue;
		}
		cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s %s: %s", c->plugin, prog, c->message);
		for (unsigned k = 0; k < res->ncells; k++)
			if (!strcmp(res->cells[k].plugin, "system") &&
			    !strcmp(json_string_value(json_object_get(res->cells[k].params, "program")), prog))
				base = &res->cells[k];
		cr_assert(base);
		const char *h = json_string_value(
			json_object_get(json_array_get(c->procs[0].values[0].thread_reports, 0), "output_hash"));
		const char *want = json_string_value(
			json_object_get(json_array_get(base->procs[0].values[0].thread_reports, 0), "output_hash"));
		cr_assert_str_eq(h, want, "%s under %s: output differs from glibc's", prog, c->plugin);
		compared++;
	}
	cr_assert_geq(compared, 9 * 9);
	alloclab_results_free(res);
}

Test(preload, a_program_s_calls_are_recorded_and_replayed, .timeout = 120)
{
	skip_under_sanitizer();
	char *dir = scratch_dir(), trace[4200], spec[4300];
	snprintf(trace, sizeof trace, "%s/sqlite.trace", dir);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"record", "-p", "mimalloc", "-w",
								      "exec:program=sqlite,scale=3", "-o", trace, NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	char err[512];
	struct alloclab_trace *t = alloclab_trace_open(trace, err, sizeof err);
	cr_assert(t, "%s", err);
	cr_assert_gt(alloclab_trace_events(t, 0), 10000);
	alloclab_trace_close(t);
	snprintf(spec, sizeof spec, "trace:file=%s", trace);
	r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", "system", "-w", spec, "-t", "1", "-n", "1",
						   "-v", "1", "-o", "r.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	/* One run of the program, whole: it has no measured values to mark
	 * as windows, and says so rather than running it four times. */
	char other[4300];
	snprintf(other, sizeof other, "%s/windows.trace", dir);
	r = run_alloclab(dir, (const char *const[]){"record", "-p", "system", "-w", "exec:program=sqlite,scale=1", "-v",
						    "3", "-o", other, NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "-W and -v do not apply") && count_lines(r.err) == 1, "%s", r.err);
	cmd_result_free(&r);
}

Test(preload, exec_refuses_bad_requests_before_the_program_starts)
{
	char *dir = scratch_dir();
	const char *const *cases[] = {
		(const char *const[]){"exec", "-p", "nosuch", "--", "true", NULL},
		(const char *const[]){"exec", "-p", "jemalloc:api=bogus", "--", "true", NULL},
		(const char *const[]){"exec", "-p", "system", NULL},
		(const char *const[]){"exec", "--", "true", NULL},
	};
	const char *why[] = {"not found", "bad option", "which program", "which plugin"};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct cmd_result r = run_alloclab(dir, cases[i]);
		cr_assert_eq(r.status, 2, "case %zu: %d: %s", i, r.status, r.err);
		cr_assert(strstr(r.err, why[i]) && count_lines(r.err) == 1, "case %zu: %s", i, r.err);
		cmd_result_free(&r);
	}
}

/* The aligned calls at their edges (alignment 0, 3, 24, one past the
 * largest) give under every plugin what they give under glibc 2.36. */
Test(preload, the_aligned_calls_behave_as_glibc_s_at_their_edges, .timeout = 120)
{
	skip_under_sanitizer();
	char *dir = scratch_dir();
	char glibc[1024], cmd[4300];
	snprintf(cmd, sizeof cmd, "%s edges", program());
	FILE *f = popen(cmd, "r");
	cr_assert(f && fgets(glibc, sizeof glibc, f), "the program gave nothing under glibc");
	pclose(f);
	const char *plugins[] = {"system", "jemalloc", "mimalloc", "obmalloc-radix", test_plugin("thread_counting")};
	for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++) {
		struct cmd_result r = exec_under(dir, plugins[i], "edges", NULL);
		cr_assert_eq(r.status, 0, "%s: %s", plugins[i], r.err);
		cr_expect_str_eq(r.out, glibc, "%s differs from glibc", plugins[i]);
		cmd_result_free(&r);
	}
}

/* exec confirms that the plugin served the program: a plugin that ends it
 * while being loaded, a static program no preload reaches, and a plugin
 * that hangs in loading (with --timeout) are each said so, with exit
 * status 2, never "exit status 0" as if measured. */
Test(preload, exec_says_when_the_plugin_never_served_the_program, .timeout = 120)
{
	skip_under_sanitizer();
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"exec", "--no-check", "-p", test_plugin("exit_in_malloc"),
								      "--", "/bin/echo", "hello", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "the program never ran") && strstr(r.err, "exit_in_malloc"), "%s", r.err);
	cr_expect_eq(strstr(r.out, "hello"), NULL, "the program ran: %s", r.out);
	cmd_result_free(&r);

	r = run_alloclab(dir, (const char *const[]){"exec", "-p", "system", "--", getenv("ALLOCLAB_TEST_STATIC_PROGRAM"), NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "the plugin never served it"), "%s", r.err);
	cmd_result_free(&r);

	r = run_alloclab(dir, (const char *const[]){"exec", "--timeout", "2", "-p", test_plugin("hang_in_load"), "--",
						    "/bin/echo", "hello", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "timed out after 2 s while the preload library was loading plugin"), "%s", r.err);
	cmd_result_free(&r);

	/* A program that never starts says why, naming what could not be
	 * run; exec's deadline is its own, whether or not one is given. */
	r = run_alloclab(dir, (const char *const[]){"exec", "-p", "system", "--", "/nonexistent/program", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "never started: /nonexistent/program cannot be run: No such file or directory"), "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"exec", "--help", NULL});
	cr_expect(strstr(r.out, "(default 600;"), "%s", r.out);
	cmd_result_free(&r);

	/* In a run, the same: an error for the cell, not a measurement. */
	char spec[4300];
	snprintf(spec, sizeof spec, "exec:cmd=%s", getenv("ALLOCLAB_TEST_STATIC_PROGRAM"));
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", spec, "-t", "1", "-n", "1", "-v", "1",
						    "-o", "s.json", NULL});
	cr_expect_eq(r.status, 1, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "s.json");
	cr_expect_eq(res->cells[0].status, ALLOCLAB_CELL_ERROR);
	cr_expect(strstr(res->cells[0].message, "never served"), "%s", res->cells[0].message);
	alloclab_results_free(res);
	/* A folder to run in that is not there is said, naming it, before
	 * anything is measured (it was "exit status 126"). */
	assert_run_refused(dir, (const char *const[]){"run", "-p", "system", "-w", "exec:cmd=/bin/true,cwd=/nonexistent/dir",
						      "-n", "1", "-o", "refused.json", NULL},
			   "cwd=/nonexistent/dir: No such file or directory");
}

/* What a plugin prints while it loads goes to stderr, never into the
 * program's output (nor into its hash). */
Test(preload, a_plugins_chatter_never_enters_the_programs_output)
{
	skip_under_sanitizer();
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"exec", "--no-check", "-p", test_plugin("chatty"), "--",
								      "/bin/echo", "hello", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "hello\n");
	cr_expect(strstr(r.err, "hello from chatty"), "%s", r.err);
	cmd_result_free(&r);
}

/* A plugin that offers its allocator's C API (program_api) serves a
 * program through that API itself (the preload path's cost is then a few
 * instructions a call); one that needs the library's help (size headers:
 * no usable_size) keeps the general paths. Both give the program's output. */
Test(preload, a_plugin_with_a_program_api_is_called_directly)
{
	skip_under_sanitizer();
	char *dir = scratch_dir();
	setenv("ALLOCLAB_PRELOAD_REPORT", "1", 1);
	const char *plugins[] = {"jemalloc", "mimalloc", "system", test_plugin("thread_counting")};
	const char *path[] = {"the allocator's own API", "the allocator's own API", "the allocator's own API", "general"};
	for (size_t i = 0; i < sizeof plugins / sizeof *plugins; i++) {
		struct cmd_result r = exec_under(dir, plugins[i], "api", NULL);
		cr_expect_eq(r.status, 0, "%s: %s", plugins[i], r.err);
		cr_expect_str_eq(r.out, "ok\n", "%s", plugins[i]);
		char want[128];
		snprintf(want, sizeof want, "paths: %s", path[i]);
		cr_expect(strstr(r.err, want), "%s: expected '%s': %s", plugins[i], want, r.err);
		cmd_result_free(&r);
	}
	unsetenv("ALLOCLAB_PRELOAD_REPORT");
}
