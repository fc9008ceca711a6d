/*
 * The python workload: the embedded interpreter's allocations reach the
 * plugin (and never do for the cpython plugin), every bundled benchmark
 * runs under every bundled plugin, pyperf-style files run unmodified, and
 * a raising benchmark, a missing library, a missing file, an exhausted
 * allocator and threads each give the documented result.
 */
#include "helpers.h"
#include "figures/process_memory.h"
#include "registry.h"
#include "results/results.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

/* Under the sanitizer and valgrind setups CPython's debug hooks go around
 * the plugin too, so that overruns and API misuse in CPython's use of it
 * are caught there. */
static int checked_setup(void)
{
	return getenv("ALLOCLAB_UNDER_SANITIZER") || getenv("ALLOCLAB_UNDER_VALGRIND");
}

/* One process, one value, no warm-up, `loops` iterations: the least that
 * runs the whole path. */
static struct alloclab_results *run_python(const char *dir, const char *plugin, const char *spec,
					   const char *threads, int expect_status)
{
	char workload[1024];
	snprintf(workload, sizeof workload, "%s%s", spec,
		 checked_setup() && !strstr(spec, "debug_hooks") ? ",debug_hooks=yes" : "");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", plugin, "-w", workload,
		"-t", threads, "-n", "1", "-v", "1", "--warmups", "0", "-q", "-o", "py.json", NULL});
	/* expect_status < 0: the caller checks each cell (and says which failed). */
	if (expect_status >= 0)
		cr_assert_eq(r.status, expect_status, "%s %s: status %d: %s %s", plugin, workload, r.status, r.out, r.err);
	else
		cr_assert(r.status == 0 || r.status == 1, "%s %s: status %d: %s", plugin, workload, r.status, r.err);
	cmd_result_free(&r);
	return load_results(dir, "py.json");
}

static long long stat_of(const struct alloclab_cell *c, const char *name)
{
	return json_integer_value(json_object_get(c->procs[0].stats_after_finish, name));
}

static const json_t *report_of(const struct alloclab_cell *c)
{
	return json_array_get(c->procs[0].report, 0);
}

static const char *const allocating_script =
	"def bench(loops):\n"
	"    for _ in range(loops):\n"
	"        d = {str(i): [i] * 3 for i in range(2000)}\n"
	"        s = ''.join(d)\n";

Test(python, the_interpreter_allocates_through_the_plugin, .timeout = 120)
{
	char *dir = scratch_dir();
	write_text(dir, "alloc.py", allocating_script);
	struct alloclab_results *doc = run_python(dir, test_plugin("thread_counting"), "python:script=alloc.py,loops=3", "1", 0);
	const struct alloclab_cell *c = &doc->cells[0];
	cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s", c->message);
	/* Interpreter start-up alone makes tens of thousands of calls; the
	 * benchmark makes 2000 dicts' worth of lists and strings per loop. */
	cr_expect_gt(stat_of(c, "mallocs"), 20000);
	cr_expect_gt(stat_of(c, "reallocs"), 100);
	cr_expect_gt(stat_of(c, "frees"), 20000);
	/* Finalisation gives back most of what was taken. */
	cr_expect_gt(stat_of(c, "frees") * 10, (stat_of(c, "mallocs") + stat_of(c, "callocs")) * 9);
	cr_expect(json_is_true(json_object_get(report_of(c), "hooked")));
	/* The profile pass counted the benchmark: 3 loops x (2000 lists +
	 * 2000 strings + the dict's growth) in the object domain. */
	const json_t *prof = json_object_get(report_of(c), "profile");
	cr_assert(prof);
	long long obj = json_integer_value(json_object_get(json_object_get(json_object_get(prof, "calls"), "obj"), "malloc"));
	cr_expect_gt(obj, 3 * 4000, "obj mallocs %lld", obj);
	cr_expect_gt(json_number_value(json_object_get(prof, "allocations_per_iteration")), 4000);
	alloclab_results_free(doc);
}

Test(python, the_cpython_plugin_is_cpythons_own_obmalloc_unhooked, .timeout = 120)
{
	char *dir = scratch_dir();
	struct alloclab_results *doc = run_python(dir, "cpython", "python:bench=nbody,loops=1,scale=1", "1", 0);
	cr_assert_eq(doc->cells[0].status, ALLOCLAB_CELL_OK, "%s", doc->cells[0].message);
	cr_expect(json_is_false(json_object_get(report_of(&doc->cells[0]), "hooked")));
	alloclab_results_free(doc);
}

/* Every bundled benchmark under one plugin, tiny: each cell measured, or
 * not applicable only because a library it needs is not installed. */
static void every_benchmark(const char *plugin)
{
	char *dir = scratch_dir();
	/* Under valgrind, 50 times slower: the quick three. */
	int quick = getenv("ALLOCLAB_UNDER_VALGRIND") != NULL;
	struct alloclab_results *doc = run_python(dir, plugin,
		quick ? "python:bench=quick,loops=1,scale=1,profile=no" : "python:loops=1,scale=1,profile=no", "1", -1);
	const struct alloclab_workload *w = alloclab_workload_find("python");
	unsigned benches = 0;
	for (unsigned i = 0; w->params[0].choices[i]; i++)
		benches++;
	cr_expect_eq(doc->ncells, quick ? 3 : benches - 1, "bench=all is every benchmark (%u cells)", doc->ncells);
	for (unsigned i = 0; i < doc->ncells; i++) {
		const struct alloclab_cell *c = &doc->cells[i];
		const char *bench = json_string_value(json_object_get(c->params, "bench"));
		if (c->status == ALLOCLAB_CELL_NOT_APPLICABLE)
			cr_expect(strstr(c->message, "needs the Python module"), "%s %s: %s", plugin, bench, c->message);
		else
			cr_expect_eq(c->status, ALLOCLAB_CELL_OK, "%s %s: %s", plugin, bench, c->message);
	}
	alloclab_results_free(doc);
}

Test(python_all, under_system, .timeout = 300) { every_benchmark("system"); }
Test(python_all, under_jemalloc, .timeout = 300) { every_benchmark("jemalloc"); }
Test(python_all, under_mimalloc, .timeout = 300) { every_benchmark("mimalloc"); }
Test(python_all, under_tcmalloc, .timeout = 300) { every_benchmark("tcmalloc"); }
Test(python_all, under_tbbmalloc, .timeout = 300) { every_benchmark("tbbmalloc"); }
Test(python_all, under_cpython, .timeout = 300) { every_benchmark("cpython"); }
Test(python_all, under_obmalloc_radix, .timeout = 300) { every_benchmark("obmalloc-radix"); }
Test(python_all, under_obmalloc_bigpool, .timeout = 300) { every_benchmark("obmalloc-bigpool:preset=table-64m-16k"); }
Test(python_all, under_obmalloc_py37, .timeout = 300) { every_benchmark("obmalloc-py37"); }

static const char *const pyperf_file =
	"import pyperf\n"
	"\n"
	"def work(n):\n"
	"    return sorted(str(i) for i in range(n))\n"
	"\n"
	"if __name__ == '__main__':\n"
	"    runner = pyperf.Runner()\n"
	"    runner.metadata['description'] = 'sort strings'\n"
	"    runner.argparser.add_argument('--n', type=int, default=300)\n"
	"    args = runner.parse_args()\n"
	"    runner.bench_func('sort_strings', work, args.n)\n";

Test(python, a_pyperf_file_runs_unmodified, .timeout = 120)
{
	char *dir = scratch_dir();
	write_text(dir, "bm_sort.py", pyperf_file);
	write_text(dir, "bm_time.py",
		   "import pyperf\n"
		   "def t(loops):\n"
		   "    t0 = pyperf.perf_counter()\n"
		   "    for _ in range(loops): list(range(100))\n"
		   "    return pyperf.perf_counter() - t0\n"
		   "runner = pyperf.Runner()\n"
		   "runner.bench_time_func('ranges', t)\n");
	write_text(dir, "bm_timeit.py",
		   "import pyperf\n"
		   "pyperf.Runner().timeit('joins', stmt='\"-\".join(x)', setup='x = [str(i) for i in range(50)]')\n");
	write_text(dir, "bm_cmd.py",
		   "import pyperf\npyperf.Runner().bench_command('served', ['sh', '-c', "
		   "'case \"$LD_PRELOAD\" in *liballoclab-preload*) test \"${ALLOCLAB_PRELOAD_PLUGIN%%:*}\" = jemalloc;; "
		   "*) exit 1;; esac'])\n");
	struct alloclab_results *doc =
		run_python(dir, "system", "python:pyperf=bm_sort.py,loops=2", "1", 0);
	cr_assert_eq(doc->cells[0].status, ALLOCLAB_CELL_OK, "%s", doc->cells[0].message);
	/* The row is named by the benchmark the file registered. */
	cr_expect_str_eq(json_string_value(json_object_get(report_of(&doc->cells[0]), "bench")), "sort_strings");
	alloclab_results_free(doc);
	doc = run_python(dir, "system", "python:pyperf=bm_time.py,loops=2", "1", 0);
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_OK, "%s", doc->cells[0].message);
	alloclab_results_free(doc);
	doc = run_python(dir, "system", "python:pyperf=bm_timeit.py,loops=2", "1", 0);
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_OK, "%s", doc->cells[0].message);
	alloclab_results_free(doc);
	/* bench_command's program runs with the plugin as its malloc. */
	doc = run_python(dir, "jemalloc", "python:pyperf=bm_cmd.py,loops=2", "1", 0);
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_OK, "%s", doc->cells[0].message);
	alloclab_results_free(doc);
}

Test(python, a_folder_of_pyperf_benchmarks_is_one_cell_each, .timeout = 120)
{
	char *dir = scratch_dir();
	char path[4200];
	/* pyperformance's layout (a folder per benchmark, importing its
	 * neighbours) and plain files, side by side. */
	snprintf(path, sizeof path, "%s/suite", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/suite/bm_a", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	write_text(path, "helper.py", "def work():\n    return [str(i) for i in range(100)]\n");
	write_text(path, "run_benchmark.py",
		   "import pyperf\nimport helper\nif __name__ == '__main__':\n"
		   "    pyperf.Runner().bench_func('from_a_folder', helper.work)\n");
	snprintf(path, sizeof path, "%s/suite", dir);
	write_text(path, "bm_b.py", pyperf_file);
	struct alloclab_results *doc = run_python(dir, "system", "python:pyperf=suite,loops=2", "1", 0);
	cr_assert_eq(doc->ncells, 2);
	for (unsigned i = 0; i < 2; i++)
		cr_expect_eq(doc->cells[i].status, ALLOCLAB_CELL_OK, "%s", doc->cells[i].message);
	cr_expect_str_eq(json_string_value(json_object_get(report_of(&doc->cells[0]), "bench")), "from_a_folder");
	cr_expect_str_eq(json_string_value(json_object_get(report_of(&doc->cells[1]), "bench")), "sort_strings");
	alloclab_results_free(doc);
	snprintf(path, sizeof path, "%s/empty", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "python:pyperf=empty",
		NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "pyperf=empty: no benchmark found (a folder holds *.py files"), "%s", r.err);
	cmd_result_free(&r);
}

Test(python, faults_give_the_documented_results, .timeout = 120)
{
	char *dir = scratch_dir();
	struct alloclab_results *doc;

	write_text(dir, "raises.py", "def bench(loops):\n    raise ValueError('deliberate')\n");
	doc = run_python(dir, "system", "python:script=raises.py,loops=1", "1", 1);
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_ERROR);
	cr_expect(strstr(doc->cells[0].message, "ValueError: deliberate"), "%s", doc->cells[0].message);
	alloclab_results_free(doc);

	write_text(dir, "needs.py", "import alloclab_no_such_library\ndef bench(loops):\n    pass\n");
	doc = run_python(dir, "system", "python:script=needs.py,loops=1", "1", 0);
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_NOT_APPLICABLE);
	cr_expect(strstr(doc->cells[0].message, "'alloclab_no_such_library'"), "%s", doc->cells[0].message);
	alloclab_results_free(doc);

	write_text(dir, "nobench.py", "x = 1\n");
	doc = run_python(dir, "system", "python:script=nobench.py,loops=1", "1", 1);
	cr_expect(strstr(doc->cells[0].message, "defines no function bench(loops)"), "%s", doc->cells[0].message);
	alloclab_results_free(doc);

	/* An allocator that runs out: MemoryError in the benchmark's cell. */
	write_text(dir, "big.py", "def bench(loops):\n    b = b'x' * (256 << 20)\n");
	doc = run_python(dir, test_plugin("thread_counting") /* no options here */, "python:script=big.py,loops=1", "1", 0);
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_OK, "without the limit it runs: %s", doc->cells[0].message);
	alloclab_results_free(doc);
	char limited[4200];
	snprintf(limited, sizeof limited, "%s:fail_above=67108864", test_plugin("thread_counting"));
	doc = run_python(dir, limited, "python:script=big.py,loops=1", "1", 1);
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_ERROR);
	cr_expect(strstr(doc->cells[0].message, "MemoryError"), "%s", doc->cells[0].message);
	alloclab_results_free(doc);

	/* A file that is not there: a usage error before anything runs. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w",
		"python:script=missing.py", "-o", "none.json", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "script=missing.py: No such file"), "%s", r.err);
	char none[4200];
	snprintf(none, sizeof none, "%s/none.json", dir);
	cr_expect_null(read_file(none));
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "python:bench=nbody,script=raises.py",
		NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "give one of bench=, script= and pyperf="), "%s", r.err);
	cmd_result_free(&r);
}

Test(python, threads_share_one_interpreter, .timeout = 120)
{
	char *dir = scratch_dir();
	struct alloclab_results *doc;

	/* Objects handed from thread to thread through a shared module: the
	 * receiving thread frees them. */
	write_text(dir, "handoff.py",
		   "import collections, sys\n"
		   "q = sys.modules['alloclab_harness'].__dict__.setdefault('q', collections.deque())\n"
		   "def bench(loops):\n"
		   "    for i in range(loops * 200):\n"
		   "        q.append([i, str(i)])\n"
		   "        if len(q) > 50:\n"
		   "            q.popleft()\n");
	doc = run_python(dir, test_plugin("thread_counting"), "python:script=handoff.py,loops=20", "2", 0);
	cr_assert_eq(doc->cells[0].status, ALLOCLAB_CELL_OK, "%s", doc->cells[0].message);
	cr_expect_gt(stat_of(&doc->cells[0], "cross_thread_frees"), 0);
	cr_expect_eq(doc->cells[0].procs[0].values[0].thread_ops[1], 20);
	alloclab_results_free(doc);

	/* A plugin whose state is per thread cannot take those frees. */
	doc = run_python(dir, "obmalloc-radix:mode=per-thread", "python:bench=nbody,loops=1,scale=1", "2", 0);
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_NOT_APPLICABLE);
	alloclab_results_free(doc);
	doc = run_python(dir, "obmalloc-radix:mode=per-thread", "python:bench=nbody,loops=1,scale=1", "1", 0);
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_OK, "%s", doc->cells[0].message);
	alloclab_results_free(doc);
	doc = run_python(dir, "system", "python:bench=startup,loops=1", "2", 0);
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_NOT_APPLICABLE);
	alloclab_results_free(doc);
}

Test(python, debug_hooks_and_the_raw_domain, .timeout = 120)
{
	char *dir = scratch_dir();
	write_text(dir, "alloc.py", allocating_script);
	struct alloclab_results *doc =
		run_python(dir, test_plugin("thread_counting"), "python:script=alloc.py,loops=2,debug_hooks=yes", "1", 0);
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_OK, "%s", doc->cells[0].message);
	long long hooked = stat_of(&doc->cells[0], "mallocs");
	alloclab_results_free(doc);
	doc = run_python(dir, test_plugin("thread_counting"), "python:script=alloc.py,loops=2,raw=yes", "1", 0);
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_OK, "%s", doc->cells[0].message);
	/* raw=yes adds the raw domain's calls to the plugin's. */
	cr_expect_gt(stat_of(&doc->cells[0], "mallocs"), hooked);
	alloclab_results_free(doc);
}

Test(python, bench_groups_expand_and_rows_are_benchmarks, .timeout = 120)
{
	char *dir = scratch_dir();
	struct alloclab_results *doc = run_python(dir, "system", "python:bench=quick,loops=1,scale=1,profile=no", "1", 0);
	cr_expect_eq(doc->ncells, 3);
	alloclab_results_free(doc);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"compare", "py.json", "py.json", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	/* Rows are benchmarks, as in pyperf's tables (identical runs: all
	 * of them in the not-significant line). */
	cr_expect(strstr(r.out, "nbody") && strstr(r.out, "richards") && strstr(r.out, "json_dumps"), "%s", r.out);
	cr_expect_null(strstr(r.out, "bench="), "%s", r.out);
	cmd_result_free(&r);
}

Test(python, a_malformed_profile_is_refused, .timeout = 120)
{
	char *dir = scratch_dir();
	char path[4096];
	struct alloclab_results *doc = run_python(dir, "system", "python:bench=nbody,loops=1,scale=1", "1", 0);
	alloclab_results_free(doc);
	snprintf(path, sizeof path, "%s/py.json", dir);
	char *text = read_file(path);
	cr_assert(text);
	char *at = strstr(text, "\"small_classes\": [");
	if (at == NULL)
		at = strstr(text, "\"small_classes\":[");
	cr_assert(at, "%s", text);
	/* One count fewer: the array no longer has obmalloc's 32 classes. */
	char *first = strchr(at, '[') + 1, *comma = strchr(first, ',');
	memmove(first, comma + 1, strlen(comma + 1) + 1);
	write_text(dir, "bad.json", text);
	free(text);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"show", "bad.json", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "bad.json") && strstr(r.err, "small_classes"), "%s", r.err);
	cmd_result_free(&r);
}

/* The median time per operation of a one-cell run. */
static double per_op_of(const struct alloclab_cell *c)
{
	return c->procs[0].values[0].per_op;
}

/* As pyperf reports them: a value is the time of one inner loop, and a
 * bench_time_func's (or timeit's) own time leaves its set-up out. */
Test(python, inner_loops_and_a_benchmarks_own_time_are_pyperfs, .timeout = 120)
{
	char *dir = scratch_dir();
	const char *body = "def f():\n    s = 0\n    for i in range(200):\n        s += i\n";
	char text[1024];
	snprintf(text, sizeof text, "import pyperf\n%spyperf.Runner().bench_func('plain', f)\n", body);
	write_text(dir, "plain.py", text);
	snprintf(text, sizeof text, "import pyperf\n%spyperf.Runner().bench_func('inner', f, inner_loops=50)\n", body);
	write_text(dir, "inner.py", text);
	write_text(dir, "timed.py",
		   "import pyperf, time\n"
		   "def t(loops):\n"
		   "    time.sleep(0.3)  # set-up that pyperf leaves out\n"
		   "    t0 = pyperf.perf_counter()\n"
		   "    for _ in range(loops): sum(range(200))\n"
		   "    return pyperf.perf_counter() - t0\n"
		   "pyperf.Runner().bench_time_func('timed', t)\n");
	struct alloclab_results *doc = run_python(dir, "system", "python:pyperf=plain.py,loops=2000", "1", 0);
	double plain = per_op_of(&doc->cells[0]);
	alloclab_results_free(doc);
	doc = run_python(dir, "system", "python:pyperf=inner.py,loops=2000", "1", 0);
	double inner = per_op_of(&doc->cells[0]);
	alloclab_results_free(doc);
	/* 50 when exact; two single timed values on a busy machine stray
	 * from it, but inner_loops ignored would give 1 and divided twice
	 * 2500. */
	cr_expect(plain / inner > 10 && plain / inner < 250, "inner_loops=50: %.1f ns against %.1f ns a call", inner, plain);
	doc = run_python(dir, "system", "python:pyperf=timed.py,loops=2000", "1", 0);
	double timed = per_op_of(&doc->cells[0]);
	alloclab_results_free(doc);
	/* 2000 loops in well under 0.3 s: with the sleep the value would be
	 * over 150 µs an iteration. */
	cr_expect(timed < 50000, "bench_time_func's own time not used: %.0f ns an iteration", timed);
}

/* As pyperf runs a benchmark file: its own command line (args=), every
 * benchmark it registers a row, each measured within the file's own run
 * (its set-up still there, its clean-up after, the file as __main__ so
 * that a process pool can pickle its functions). */
Test(python, every_benchmark_of_a_pyperf_file_is_a_row_measured_within_its_run, .timeout = 200)
{
	char *dir = scratch_dir();
	write_text(dir, "bm_many.py",
		   "import os, pickle, shutil, tempfile, pyperf\n"
		   "import concurrent.futures\n"
		   "def square(x):\n    return x * x\n"
		   "runner = pyperf.Runner()\n"
		   "runner.argparser.add_argument('variant', choices=['small', 'big'])\n"
		   "args = runner.parse_args()\n"
		   "n = 10 if args.variant == 'small' else 100\n"
		   "tmp = tempfile.mkdtemp()\n"
		   "try:\n"
		   "    def touch():\n"
		   "        with open(os.path.join(tmp, 'f'), 'w') as f:\n"
		   "            f.write('x' * n)\n"
		   "    runner.bench_func(args.variant + '_files', touch)\n"
		   "    runner.bench_func(args.variant + '_pickle', lambda: pickle.dumps(square))\n"
		   "    if __name__ == '__main__':\n"
		   "        with concurrent.futures.ProcessPoolExecutor(2) as ex:\n"
		   "            runner.bench_func(args.variant + '_pool', lambda: list(ex.map(square, range(n))))\n"
		   "finally:\n"
		   "    shutil.rmtree(tmp)\n");
	/* Without its argument the file is refused as argparse refuses it. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "python:pyperf=bm_many.py",
								      "-o", "x.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "the following arguments are required: variant"), "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *doc = run_python(dir, "system", "python:pyperf=bm_many.py,args=big,loops=3", "1", 0);
	cr_assert_eq(doc->ncells, 3);
	const char *names[] = {"big_files", "big_pickle", "big_pool"};
	for (unsigned i = 0; i < 3; i++) {
		cr_expect_eq(doc->cells[i].status, ALLOCLAB_CELL_OK, "%s: %s", names[i], doc->cells[i].message);
		cr_expect_str_eq(json_string_value(json_object_get(report_of(&doc->cells[i]), "bench")), names[i]);
	}
	alloclab_results_free(doc);
}

/* pyperformance's folders: the MANIFEST's benchmarks, each run with its
 * metadata's extra_opts (a variant with its own .toml inheriting its
 * sibling pyproject.toml), and a module Debian lacks is "not applicable"
 * naming the module. */
Test(python, a_pyperformance_manifest_gives_each_benchmark_with_its_options, .timeout = 200)
{
	char *dir = scratch_dir(), path[4200];
	snprintf(path, sizeof path, "%s/suite", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	write_text(path, "MANIFEST",
		   "[benchmarks]\n\nname\tmetafile\nshapes\t<local>\nshapes_big\t<local:shapes>\nexotic\t<local>\n");
	snprintf(path, sizeof path, "%s/suite/bm_shapes", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	write_text(path, "pyproject.toml",
		   "[project]\nname = \"bm_shapes\"\n\n[tool.pyperformance]\nname = \"shapes\"\nextra_opts = [\"square\"]\n");
	write_text(path, "bm_shapes_big.toml", "[tool.pyperformance]\nname = \"shapes_big\"\nextra_opts = [\"circle\"]\n");
	write_text(path, "run_benchmark.py",
		   "import pyperf\n"
		   "runner = pyperf.Runner()\n"
		   "runner.argparser.add_argument('shape')\n"
		   "shape = runner.parse_args().shape\n"
		   "runner.bench_func('draw_' + shape, lambda: [shape] * 100)\n");
	snprintf(path, sizeof path, "%s/suite/bm_exotic", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	write_text(path, "pyproject.toml", "[tool.pyperformance]\nname = \"exotic\"\n");
	write_text(path, "run_benchmark.py", "import pyperf\nimport no_such_module_anywhere\n");
	struct alloclab_results *doc = run_python(dir, "system", "python:pyperf=suite,loops=2", "1", -1);
	cr_assert_eq(doc->ncells, 3);
	const char *rows[] = {"draw_square", "draw_circle", NULL};
	for (unsigned i = 0; i < 2; i++) {
		cr_expect_eq(doc->cells[i].status, ALLOCLAB_CELL_OK, "%s: %s", rows[i], doc->cells[i].message);
		cr_expect_str_eq(json_string_value(json_object_get(report_of(&doc->cells[i]), "bench")), rows[i]);
	}
	cr_expect_eq(doc->cells[2].status, ALLOCLAB_CELL_NOT_APPLICABLE, "%s", doc->cells[2].message);
	cr_expect(strstr(doc->cells[2].message, "no_such_module_anywhere"), "%s", doc->cells[2].message);
	alloclab_results_free(doc);
}

/* A pyperformance folder is other people's files: a benchmark folder
 * without pyproject.toml runs its run_benchmark.py with no options, and a
 * broken or missing metadata file is that row's error, naming the file,
 * while the other rows run; a MANIFEST that cannot be parsed is one line
 * naming it and its line, status 2. */
Test(python, a_pyperformance_folder_with_broken_metadata_fails_only_those_rows, .timeout = 200)
{
	char *dir = scratch_dir(), path[4200];
	snprintf(path, sizeof path, "%s/suite", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	write_text(path, "MANIFEST",
		   "[benchmarks]\n\nname\tmetafile\nplain\t<local>\nbroken\t<local>\nghost\t<local:plain>\n\n"
		   "[group default]\n-ghost\n");
	snprintf(path, sizeof path, "%s/suite/bm_plain", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	write_text(path, "run_benchmark.py",
		   "import pyperf\nrunner = pyperf.Runner()\nrunner.bench_func('plain', lambda: [0] * 100)\n");
	snprintf(path, sizeof path, "%s/suite/bm_broken", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	write_text(path, "pyproject.toml", "[tool.pyperformance\nname = \"broken\"\n");
	write_text(path, "run_benchmark.py", "import pyperf\n");
	struct alloclab_results *doc = run_python(dir, "system", "python:pyperf=suite,loops=2", "1", -1);
	cr_assert_eq(doc->ncells, 3);
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_OK, "%s", doc->cells[0].message);
	cr_expect_str_eq(json_string_value(json_object_get(report_of(&doc->cells[0]), "bench")), "plain");
	cr_expect_eq(doc->cells[1].status, ALLOCLAB_CELL_ERROR);
	cr_expect(strstr(doc->cells[1].message, "bm_broken/pyproject.toml") && strstr(doc->cells[1].message, "TOML"),
		  "%s", doc->cells[1].message);
	cr_expect_eq(doc->cells[2].status, ALLOCLAB_CELL_ERROR);
	cr_expect(strstr(doc->cells[2].message, "bm_ghost.toml"), "%s", doc->cells[2].message);
	alloclab_results_free(doc);

	snprintf(path, sizeof path, "%s/suite", dir);
	write_text(path, "MANIFEST", "[benchmarks]\n\nname\tmetafile\nplain\t<local>\nno tab here\n");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", "system", "-w",
		"python:pyperf=suite", "-t", "1", "-n", "1", "-q", "-o", "bad.json", NULL});
	cr_expect_eq(r.status, 2, "%d: %s", r.status, r.err);
	cr_expect(strstr(r.err, "MANIFEST: line 5") && !strstr(r.err, "Traceback"), "%s", r.err);
	cr_expect_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1, "one line: %s", r.err);
	cmd_result_free(&r);
}

/* "Not applicable" is for a module that is not installed, and for nothing
 * else that raises ModuleNotFoundError: a file that blocks a module (None
 * in sys.modules, as pyperformance's mako does to markupsafe) and then
 * needs it, or a submodule an installed package lacks, is the benchmark's
 * error, saying so. */
Test(python, only_a_module_not_installed_is_not_applicable, .timeout = 200)
{
	char *dir = scratch_dir(), path[4200];
	snprintf(path, sizeof path, "%s/mods", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	write_text(path, "a_blocked.py", "import sys\nsys.modules['csv'] = None\nimport csv\n");
	write_text(path, "b_submodule.py", "import json.no_such_part_of_json\n");
	write_text(path, "c_absent.py", "import no_such_module_anywhere.part\n");
	struct alloclab_results *doc = run_python(dir, "system", "python:pyperf=mods,loops=2", "1", -1);
	cr_assert_eq(doc->ncells, 3);
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_ERROR, "%s", doc->cells[0].message);
	cr_expect(strstr(doc->cells[0].message, "halted"), "%s", doc->cells[0].message);
	cr_expect_eq(doc->cells[1].status, ALLOCLAB_CELL_ERROR, "%s", doc->cells[1].message);
	cr_expect(strstr(doc->cells[1].message, "json.no_such_part_of_json"), "%s", doc->cells[1].message);
	cr_expect_eq(doc->cells[2].status, ALLOCLAB_CELL_NOT_APPLICABLE, "%s", doc->cells[2].message);
	cr_expect(strstr(doc->cells[2].message, "'no_such_module_anywhere', which is not installed"), "%s",
		  doc->cells[2].message);
	alloclab_results_free(doc);
	/* The plan knows it already (the file ran once to be found out):
	 * --dry-run counts it. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "python:pyperf=mods",
								      "-t", "1", "--dry-run", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "3 cells (1 not applicable)"), "%s", r.out);
	cmd_result_free(&r);
}

/* The census: in the warm-ups, what the interpreter holds is counted block
 * by block, and agrees with an allocator that counts its requests (raw
 * too, so that every PyMem request goes to it; PyMem's realloc to 0 bytes
 * asks the plugin for 1, so a few bytes apart). The measured value is not
 * counted, its loops calibrated again without the census; census=no
 * leaves the warm-ups uncounted as well. */
Test(python, the_census_counts_what_the_interpreter_holds_in_the_warm_ups, .timeout = 120)
{
	if (checked_setup())
		cr_skip_test("debug hooks pad what the plugin is asked for");
	char *dir = scratch_dir();
	for (int census = 1; census >= 0; census--) {
		char spec[128];
		snprintf(spec, sizeof spec, "python:bench=richards,raw=yes,profile=no,census=%s", census ? "yes" : "no");
		struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", test_plugin("live_counting"),
									      "-w", spec, "-t", "1", "-n", "1", "-v", "1",
									      "--warmups", "1", "-q", "-o", "census.json", NULL});
		cr_assert_eq(r.status, 0, "%s", r.err);
		cmd_result_free(&r);
		struct alloclab_results *doc = load_results(dir, "census.json");
		const struct alloclab_process *p = &doc->cells[0].procs[0];
		cr_assert_eq(p->nwarmups, 1);
		const struct alloclab_value *w = &p->warmups[0], *v = &p->values[0];
		uint64_t in_use = alloclab_stat_value(json_object_get(w->stats, "std.in_use_bytes"));
		if (census) {
			cr_expect(w->live_end_bytes > 1000000, "the warm-up held %llu", (unsigned long long)w->live_end_bytes);
			cr_expect(w->live_end_bytes <= in_use && in_use - w->live_end_bytes < 256,
				  "the census says %llu, the allocator %llu", (unsigned long long)w->live_end_bytes,
				  (unsigned long long)in_use);
			cr_expect_geq(w->live_peak_bytes, w->live_end_bytes);
			cr_expect_gt(w->own_bytes, 0, "the census's own map is not taken off");
			struct alloclab_process_memory m;
			alloclab_process_memory(p, &m);
			/* A bump allocator: everything it ever handed out stays. */
			cr_expect_gt(m.frag_peak, 2, "fragmentation at the peak %.2f", m.frag_peak);
		} else {
			cr_expect_eq(w->live_end_bytes, 0);
		}
		cr_expect_eq(v->live_end_bytes, 0, "the measured value is not counted");
		cr_expect_eq(v->live_peak_bytes, 0);
		alloclab_results_free(doc);
	}
}

/* The worker runs inside Debian's python3.11 executable by default
 * (host=python3), embeds libpython with host=embedded and under valgrind,
 * and says which in its report; what the benchmark runs does not inherit
 * the preloaded library. */
Test(python, the_worker_runs_inside_the_python_executable, .timeout = 180)
{
	if (getenv("ALLOCLAB_UNDER_SANITIZER"))
		cr_skip_test("a sanitized build embeds: its runtime cannot go into the python executable");
	char *dir = scratch_dir();
	write_text(dir, "env.py",
		   "import os, subprocess, sys\n"
		   "def bench(loops):\n"
		   "    p = subprocess.run(['/usr/bin/env'], capture_output=True, text=True)\n"
		   "    if p.returncode or 'PATH=' not in p.stdout or 'pyhost' in p.stdout + p.stderr or 'ALLOCLAB_PYHOST' in p.stdout:\n"
		   "        raise RuntimeError('a child inherited the host: ' + p.stdout + p.stderr)\n"
		   "    for _ in range(loops):\n"
		   "        [str(i) for i in range(100)]\n");
	char spec[4200];
	snprintf(spec, sizeof spec, "python:script=%s/env.py,loops=1,profile=no", dir);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", "system", "-w", spec, "-w",
								      "python:bench=richards,loops=1,profile=no,host=embedded",
								      "-t", "1", "-n", "1", "-v", "1", "-q", "-o", "h.json", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	struct alloclab_results *doc = load_results(dir, "h.json");
	cr_assert_eq(doc->ncells, 2);
	cr_expect_str_eq(json_string_value(json_object_get(report_of(&doc->cells[0]), "host")), "python3");
	cr_expect_str_eq(json_string_value(json_object_get(report_of(&doc->cells[1]), "host")), "embedded");
	alloclab_results_free(doc);
	r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "--measure", "instructions", "-p", "system", "-w",
						    "python:bench=richards,loops=1,profile=no", "-t", "1", "-n", "1", "-v", "1",
						    "-q", "-o", "v.json", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	doc = load_results(dir, "v.json");
	cr_expect_str_eq(json_string_value(json_object_get(report_of(&doc->cells[0]), "host")), "embedded",
			 "valgrind runs alloclab, not the python executable");
	alloclab_results_free(doc);
}
