/*
 * python: Python programs in CPython 3.11 (inside Debian's python3.11
 * executable, or embedding its libpython) whose allocator is
 * the plugin. One cell is one benchmark (a row named by it, as in pyperf's
 * tables); a value is the time of one benchmark iteration, with the loops
 * calibrated so that a value takes value_ms, as pyperf does. With -t N,
 * N Python threads run it in one interpreter, interleaved by the GIL.
 *
 * This file is the workload as alloclab sees it: parameters, where the
 * files are, and the reports. The interpreter's side lives in
 * python/embed.c: carried into Debian's python3.11 executable with the
 * worker (python/host.c, host=python3), or a module the worker opens
 * (host=embedded); either way only in the workers that run Python.
 * The benchmarks are python/bench/NAME.py, one each; docs/guides/python.md says
 * what they measure and how to write one.
 */
#define _GNU_SOURCE 1
#include "workload/workload.h"
#include "base/shell_word.h"
#include "base/lengths.h"

#include "python/embed.h"
#include "results/results.h"
#include "python/python_benchmarks.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "process/child.h"
#include "process/program.h"

/* Benchmarks one pyperf file may register, and words of its args=. */
#define MAX_TASKS 4096
#define MAX_ARGS 62

enum { P_BENCH, P_SCRIPT, P_PYPERF, P_VALUE_MS, P_LOOPS, P_SCALE, P_RAW, P_DEBUG_HOOKS, P_PROFILE, P_HASH_SEED,
       P_ARGS, P_TASK, P_NAME, P_CENSUS, P_HOST };

/* choices[0] "none": the program comes from script= or pyperf= instead. */
static const char *const bench_choices[] = {"none", ALLOCLAB_PYTHON_BENCHES, NULL};
static const char *const bench_groups[] = {"all", ALLOCLAB_PYTHON_ALL, "quick", ALLOCLAB_PYTHON_QUICK, NULL};
static const char *const bench_unless[] = {"script", "pyperf", NULL};
static const char *const no_yes[] = {"no", "yes", NULL};
enum { HOST_PYTHON, HOST_EMBEDDED };
static const char *const host_names[] = {"python3", "embedded", NULL};

static const struct alloclab_param python_params[] = {
	[P_BENCH] = {.name = "bench",
		     .help = "bundled benchmark(s): a name, a+b, 'quick' or 'all' (the default)",
		     .type = ALLOCLAB_PARAM_CHOICE, .choices = bench_choices, .groups = bench_groups,
		     .max = sizeof bench_choices / sizeof bench_choices[0] - 2,
		     .def_text = "all", .def_unless = bench_unless},
	[P_SCRIPT] = {.name = "script", .help = "your own benchmark file, defining bench(loops)",
		      .type = ALLOCLAB_PARAM_TEXT, .def_text = ""},
	[P_PYPERF] = {.name = "pyperf",
		      .help = "a benchmark file written for pyperf, run unmodified, every benchmark it registers a row "
			      "(a folder: each file, or pyperformance's MANIFEST)",
		      .type = ALLOCLAB_PARAM_TEXT, .def_text = ""},
	[P_VALUE_MS] = {.name = "value_ms", .help = "calibrate loops so that one value takes this long",
			.def = 100, .min = 1, .max = 600000},
	[P_LOOPS] = {.name = "loops", .help = "iterations per value (0: calibrate to value_ms)", .def = 0, .min = 0,
		     .max = 1ull << 32},
	[P_SCALE] = {.name = "scale", .help = "benchmark size in percent of the bundled size (SCALE in the file)",
		     .def = 100, .min = 1, .max = 100000},
	[P_RAW] = {.name = "raw", .help = "the raw domain (PyMem_RawMalloc) to the plugin too",
		   .type = ALLOCLAB_PARAM_CHOICE, .choices = no_yes, .max = 1},
	[P_DEBUG_HOOKS] = {.name = "debug_hooks", .help = "CPython's debug hooks around the allocator",
			   .type = ALLOCLAB_PARAM_CHOICE, .choices = no_yes, .max = 1},
	[P_PROFILE] = {.name = "profile", .help = "an untimed allocation-profile pass after the last value",
		       .type = ALLOCLAB_PARAM_CHOICE, .choices = no_yes, .def = 1, .max = 1},
	[P_HASH_SEED] = {.name = "hash_seed",
			 .help = "str/bytes hash seed, as PYTHONHASHSEED (0: random per process, as CPython does)",
			 .def = 0, .min = 0, .max = 4294967295u},
	[P_ARGS] = {.name = "args", .help = "the pyperf file's own command line, split at spaces (as sys.argv[1:])",
		    .type = ALLOCLAB_PARAM_TEXT, .def_text = ""},
	[P_TASK] = {.name = "task",
		    .help = "which benchmark of the pyperf file, from 1 (0: every one, each a row, found by running "
			    "the file once)",
		    .def = 0, .min = 0, .max = MAX_TASKS},
	[P_NAME] = {.name = "name", .help = "the name the pyperf file gives benchmark task= (checked when it runs)",
		    .type = ALLOCLAB_PARAM_TEXT, .def_text = ""},
	[P_CENSUS] = {.name = "census",
		      .help = "count every block the interpreter holds during the warm-ups, for fragmentation (the "
			      "values' loops are calibrated again without it)",
		      .type = ALLOCLAB_PARAM_CHOICE, .choices = no_yes, .def = 1, .max = 1},
	[P_HOST] = {.name = "host",
		    .help = "python3: the worker runs inside Debian's python3.11 executable (the interpreter pyperf runs); "
			    "embedded: it embeds libpython3.11.so, the slower build",
		    .type = ALLOCLAB_PARAM_CHOICE, .choices = host_names, .max = HOST_EMBEDDED},
};

/* ---- where things are: the build tree, else the installed tree ---- */

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static const char *module_path(void)
{
	return exists(ALLOCLAB_PYTHON_BUILD_MODULE) ? ALLOCLAB_PYTHON_BUILD_MODULE : ALLOCLAB_PYTHON_INSTALL_MODULE;
}

static const char *data_dir(void)
{
	return exists(ALLOCLAB_PYTHON_BUILD_MODULE) ? ALLOCLAB_PYTHON_SOURCE_DIR : ALLOCLAB_PYTHON_INSTALL_DIR;
}

/* The library that carries a worker into the python executable. */
static const char *host_path(void)
{
	return exists(ALLOCLAB_PYTHON_BUILD_MODULE) ? ALLOCLAB_PYHOST_BUILD_MODULE : ALLOCLAB_PYHOST_INSTALL_MODULE;
}

/* A sanitized build's library cannot go into an executable built without
 * the sanitizer's runtime: such a build embeds. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SANITIZED 1
#endif
#endif

/* host=python3: the worker inside Debian's python3.11 executable, carried
 * there by a preloaded library (workloads/python/host.c) that takes its
 * main over when ALLOCLAB_PYHOST names that very executable, and puts
 * LD_PRELOAD back as it was for the worker's own children. */
static int python_exec_worker(const struct alloclab_params *p, const char *spec)
{
#ifdef SANITIZED
	(void)p, (void)spec;
	return 0;
#endif
	if (p->v[P_HOST] != HOST_PYTHON)
		return 0;
	char *argv[] = {ALLOCLAB_PYTHON_PROGRAM, (char *)spec, NULL};
	const char *was = getenv("LD_PRELOAD");
	char exe[PATH_MAX];
	if (realpath(ALLOCLAB_PYTHON_PROGRAM, exe) == NULL || setenv("ALLOCLAB_PYHOST_PRELOAD_WAS", was ? was : "", 1) != 0 ||
	    setenv("LD_PRELOAD", host_path(), 1) != 0 || setenv("ALLOCLAB_PYHOST", exe, 1) != 0)
		return -1;
	execv(ALLOCLAB_PYTHON_PROGRAM, argv);
	return -1;
}

static int check_file(const char *what, const char *path, char *err, size_t err_len)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		snprintf(err, err_len, "workload 'python': %s=%s: %s", what, path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, err_len, "workload 'python': %s=%s: not a regular file", what, path);
		return -1;
	}
	return 0;
}

static unsigned count_words(const char *text)
{
	unsigned n = 0;
	for (const char *c = text; *c;) {
		c += strspn(c, " ");
		if (*c)
			n++;
		c += strcspn(c, " ");
	}
	return n;
}

static int python_check(const struct alloclab_params *p, char *err, size_t err_len)
{
	int script = p->text[P_SCRIPT][0] != '\0', pyperf = p->text[P_PYPERF][0] != '\0';

	if (script + pyperf + (p->v[P_BENCH] != 0) != 1) {
		snprintf(err, err_len, "workload 'python': give one of bench=, script= and pyperf=");
		return -1;
	}
	if (!pyperf && (p->text[P_ARGS][0] || p->v[P_TASK] || p->text[P_NAME][0])) {
		snprintf(err, err_len, "workload 'python': args=, task= and name= go with pyperf=");
		return -1;
	}
	if (count_words(p->text[P_ARGS]) > MAX_ARGS) {
		snprintf(err, err_len, "workload 'python': args= has more than %d words", MAX_ARGS);
		return -1;
	}
	if (p->v[P_HOST] == HOST_PYTHON && (!exists(ALLOCLAB_PYTHON_PROGRAM) || !exists(host_path()))) {
		snprintf(err, err_len, "workload 'python': host=python3 needs %s and %s (host=embedded runs without them)",
			 ALLOCLAB_PYTHON_PROGRAM, host_path());
		return -1;
	}
	if (script)
		return check_file("script", p->text[P_SCRIPT], err, err_len);
	if (pyperf)
		return check_file("pyperf", p->text[P_PYPERF], err, err_len);
	return 0;
}

/* ---- the worker's side: the embedded interpreter ---- */

static const struct alloclab_python_embed *embed;
static char embed_error[512];
static struct alloclab_python_config config;
static char file_path[ALLOCLAB_PATH_LEN], lib_dir[ALLOCLAB_PATH_LEN];

static void open_embed(void)
{
	void *h;
	const struct alloclab_python_embed *(*get)(void);

	/* Inside the python executable (host=python3) the interpreter's side
	 * came with the worker (workloads/python/host.c). */
	*(void **)&get = dlsym(RTLD_DEFAULT, "alloclab_python_embed");
	if (get && get() && get()->version == ALLOCLAB_PYTHON_EMBED_VERSION) {
		embed = get();
		return;
	}
	/* RTLD_GLOBAL: CPython's extension modules (_json, _pickle...) take
	 * libpython's symbols from the global scope. */
	h = dlopen(module_path(), RTLD_NOW | RTLD_GLOBAL);
	if (h == NULL) {
		snprintf(embed_error, sizeof embed_error, "no embedded Python: %s (alloclab is built without python3-dev?)",
			 dlerror());
		return;
	}
	*(void **)&get = dlsym(h, "alloclab_python_embed");
	if (get == NULL || get() == NULL || get()->version != ALLOCLAB_PYTHON_EMBED_VERSION) {
		snprintf(embed_error, sizeof embed_error, "%s is not this alloclab's Python module", module_path());
		return;
	}
	embed = get();
}

static void set_config(const struct alloclab_workload_thread *t)
{
	const struct alloclab_params *p = t->params;

	snprintf(lib_dir, sizeof lib_dir, "%s/lib", data_dir());
	if (p->text[P_SCRIPT][0]) {
		config.kind = ALLOCLAB_PY_SCRIPT;
		snprintf(file_path, sizeof file_path, "%s", p->text[P_SCRIPT]);
	} else if (p->text[P_PYPERF][0]) {
		config.kind = ALLOCLAB_PY_PYPERF;
		snprintf(file_path, sizeof file_path, "%s", p->text[P_PYPERF]);
	} else {
		const char *name = bench_choices[p->v[P_BENCH]];
		config.kind = strcmp(name, "startup") == 0 ? ALLOCLAB_PY_STARTUP : ALLOCLAB_PY_BUNDLED;
		snprintf(file_path, sizeof file_path, "%s/bench/%s.py", data_dir(), name);
	}
	config.file = file_path;
	config.lib_dir = lib_dir;
	config.program = ALLOCLAB_PYTHON_PROGRAM;
	/* The cpython plugin is CPython's own obmalloc: hooking it would send
	 * PyObject_Malloc to itself. Without a hook it is the true reference,
	 * untouched. */
	config.hook = strcmp(t->alloc->ops.name, "cpython") != 0;
	config.hook_raw = p->v[P_RAW] != 0;
	config.debug_hooks = p->v[P_DEBUG_HOOKS] != 0;
	config.profile = p->v[P_PROFILE] != 0;
	config.census = p->v[P_CENSUS] != 0;
	config.loops = p->v[P_LOOPS];
	config.value_ms = p->v[P_VALUE_MS];
	config.scale = (double)p->v[P_SCALE] / 100.0;
	config.hash_seed = p->v[P_HASH_SEED];
	config.args = p->text[P_ARGS];
	config.task = p->v[P_TASK] ? p->v[P_TASK] : 1;
	config.name = p->text[P_NAME];
	char *env[4];
	if (alloclab_preload_environment(t->plugin, t->plugin_options, t->gil, env) == 0)
		for (unsigned i = 0; i < 4; i++)
			config.command_env[i] = env[i]; /* kept for the process's life */
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static int configured;

static int python_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	pthread_once(&once, open_embed);
	if (embed == NULL) {
		snprintf(err, err_len, "%s", embed_error);
		t->not_applicable = 1;
		return -1;
	}
	pthread_mutex_lock(&config_lock);
	if (!configured) {
		set_config(t);
		configured = 1;
	}
	pthread_mutex_unlock(&config_lock);
	return embed->prepare(t, &config, err, err_len);
}

static void python_run(struct alloclab_workload_thread *t)
{
	embed->run(t);
}

static void python_finish(struct alloclab_workload_thread *t)
{
	if (embed)
		embed->finish(t);
}

/* ---- reports, read back from results files (untrusted) ---- */

static int count_of(const json_t *obj, const char *key, uint64_t *out, char *err, size_t err_len)
{
	const json_t *v = json_object_get(obj, key);
	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		snprintf(err, err_len, "python report: %s is not a non-negative whole number", key);
		return -1;
	}
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int count_array(const json_t *obj, const char *key, size_t n, char *err, size_t err_len)
{
	const json_t *a = json_object_get(obj, key), *x;
	size_t i;

	if (!json_is_array(a) || json_array_size(a) != n) {
		snprintf(err, err_len, "python report: %s is not an array of %zu counts", key, n);
		return -1;
	}
	json_array_foreach(a, i, x)
		if (!json_is_integer(x) || json_integer_value(x) < 0) {
			snprintf(err, err_len, "python report: %s[%zu] is not a non-negative whole number", key, i);
			return -1;
		}
	return 0;
}

static const char *const domains[] = {"raw", "mem", "obj"};
static const char *const ops[] = {"malloc", "calloc", "realloc", "free"};
#define SMALL_CLASSES 32
#define LARGE_BUCKETS 12

static int check_profile(const json_t *p, char *err, size_t err_len)
{
	const json_t *calls = json_object_get(p, "calls"), *per = json_object_get(p, "allocations_per_iteration");
	uint64_t n;

	if (!json_is_object(p) || !json_is_object(calls)) {
		snprintf(err, err_len, "python report: profile is not an object with calls");
		return -1;
	}
	for (int d = 0; d < 3; d++)
		for (int o = 0; o < 4; o++) {
			char key[32];
			const json_t *dom = json_object_get(calls, domains[d]);
			snprintf(key, sizeof key, "calls.%s.%s", domains[d], ops[o]);
			if (!json_is_object(dom) || count_of(dom, ops[o], &n, err, err_len) != 0) {
				snprintf(err, err_len, "python report: profile %s is not a non-negative whole number", key);
				return -1;
			}
		}
	if (count_of(p, "loops", &n, err, err_len) != 0)
		return -1;
	if (n == 0) {
		snprintf(err, err_len, "python report: profile loops is 0");
		return -1;
	}
	if (count_of(p, "peak_live_bytes", &n, err, err_len) || count_of(p, "peak_live_blocks", &n, err, err_len) ||
	    count_of(p, "frees_of_earlier_blocks", &n, err, err_len) ||
	    count_array(p, "small_classes", SMALL_CLASSES, err, err_len) ||
	    count_array(p, "large_buckets", LARGE_BUCKETS, err, err_len))
		return -1;
	if (!json_is_number(per) || !(json_number_value(per) >= 0)) {
		snprintf(err, err_len, "python report: allocations_per_iteration is not a non-negative number");
		return -1;
	}
	return 0;
}

/* A name fit for a table and a terminal: no control characters. */
static int printable(const json_t *s, size_t max)
{
	if (!json_is_string(s) || json_string_length(s) == 0 || json_string_length(s) > max)
		return 0;
	for (const unsigned char *c = (const unsigned char *)json_string_value(s); *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return 0;
	return 1;
}

static int python_check_report(int per_process, const json_t *r, char *err, size_t err_len)
{
	const json_t *profile = json_object_get(r, "profile");
	uint64_t loops;

	if (!per_process) {
		snprintf(err, err_len, "this workload makes no per-value reports");
		return -1;
	}
	if (!printable(json_object_get(r, "bench"), 200) || !printable(json_object_get(r, "python"), 32) ||
	    !json_is_boolean(json_object_get(r, "hooked"))) {
		snprintf(err, err_len, "python report: bench, python or hooked is missing or malformed");
		return -1;
	}
	if (count_of(r, "loops", &loops, err, err_len) != 0)
		return -1;
	/* pyperf's inner_loops: iterations of one loop (absent: an older file). */
	if (json_object_get(r, "inner_loops")) {
		uint64_t inner;
		if (count_of(r, "inner_loops", &inner, err, err_len) != 0)
			return -1;
		if (inner == 0 || inner > (1u << 20)) {
			snprintf(err, err_len, "python report: inner_loops is not from 1 to 2^20");
			return -1;
		}
	}
	/* Where the interpreter ran (absent: an older file, embedded). */
	const char *host = json_string_value(json_object_get(r, "host"));
	if (json_object_get(r, "host") && (host == NULL || (strcmp(host, "python3") != 0 && strcmp(host, "embedded") != 0))) {
		snprintf(err, err_len, "python report: host is neither python3 nor embedded");
		return -1;
	}
	return profile ? check_profile(profile, err, err_len) : 0;
}

/* The first process's report, or NULL. */
static const json_t *first_report(const struct alloclab_cell *cell)
{
	for (struct alloclab_report_iter it = alloclab_reports(cell, ALLOCLAB_REPORTS_PER_PROCESS); alloclab_reports_next(&it);)
		if (it.thread == 0)
			return it.report;
	return NULL;
}

static void python_row_name(const struct alloclab_cell *cell, char *out, size_t len)
{
	const json_t *r = first_report(cell);
	const char *bench = json_string_value(json_object_get(cell->params, "bench"));
	const char *script = json_string_value(json_object_get(cell->params, "script"));
	const char *pyperf = json_string_value(json_object_get(cell->params, "pyperf"));
	char base[256];

	const char *planned = json_string_value(json_object_get(cell->params, "name"));
	if (r && json_is_string(json_object_get(r, "bench"))) {
		snprintf(out, len, "%s", json_string_value(json_object_get(r, "bench")));
	} else if (planned && planned[0]) {
		snprintf(out, len, "%s", planned); /* the name a pyperf file gave it when the run was planned */
	} else if (bench && strcmp(bench, "none") != 0) {
		snprintf(out, len, "%s", bench);
	} else {
		const char *f = script && *script ? script : pyperf ? pyperf : "?";
		const char *slash = strrchr(f, '/');
		snprintf(base, sizeof base, "%s", slash ? slash + 1 : f);
		char *dot = strrchr(base, '.');
		if (dot && strcmp(dot, ".py") == 0)
			*dot = '\0';
		snprintf(out, len, "%s", base);
	}
	const char *raw = json_string_value(json_object_get(cell->params, "raw"));
	const char *dbg = json_string_value(json_object_get(cell->params, "debug_hooks"));
	size_t used = strlen(out);
	if (raw && strcmp(raw, "yes") == 0 && used < len)
		used += (size_t)snprintf(out + used, len - used, " raw");
	if (dbg && strcmp(dbg, "yes") == 0 && used < len)
		snprintf(out + used, len - used, " debug-hooks");
}

static void python_print_cell(const struct alloclab_cell *cell, FILE *out)
{
	const json_t *r = first_report(cell), *p = json_object_get(r, "profile"), *calls = json_object_get(p, "calls");
	const json_t *small = json_object_get(p, "small_classes"), *large = json_object_get(p, "large_buckets");
	uint64_t total_small = 0, total = 0;
	char row[512];

	if (r == NULL)
		return;
	python_row_name(cell, row, sizeof row);
	fprintf(out, "\n%s under %s t=%u: %" PRId64 " loops a value, %s, Python %.20s\n", row, cell->plugin,
		cell->threads, (int64_t)json_integer_value(json_object_get(r, "loops")),
		json_is_true(json_object_get(r, "hooked")) ? "the plugin as CPython's allocator"
							   : "CPython's own obmalloc (no hook)",
		json_string_value(json_object_get(r, "python")));
	if (p == NULL)
		return;
	fprintf(out, "  profile: %.1f allocations an iteration; peak live %" PRId64 " bytes in %" PRId64 " blocks;",
		json_number_value(json_object_get(p, "allocations_per_iteration")),
		(int64_t)json_integer_value(json_object_get(p, "peak_live_bytes")),
		(int64_t)json_integer_value(json_object_get(p, "peak_live_blocks")));
	for (int d = 2; d >= 0; d--) {
		const json_t *dom = json_object_get(calls, domains[d]);
		fprintf(out, "%s %s", d == 2 ? "" : ",", domains[d]);
		for (int o = 0; o < 4; o++)
			fprintf(out, "%s%" PRId64, o ? "/" : " ", (int64_t)json_integer_value(json_object_get(dom, ops[o])));
	}
	fprintf(out, " (malloc/calloc/realloc/free)\n");
	for (size_t i = 0; i < SMALL_CLASSES; i++)
		total_small += (uint64_t)json_integer_value(json_array_get(small, i));
	total = total_small;
	for (size_t i = 0; i < LARGE_BUCKETS; i++)
		total += (uint64_t)json_integer_value(json_array_get(large, i));
	if (total == 0)
		return;
	/* The classes that take 5% or more, then what is above obmalloc's
	 * range by power of two. */
	fprintf(out, "  sizes: %.1f%% in 1..512 bytes (", 100.0 * (double)total_small / (double)total);
	for (size_t i = 0, shown = 0; i < SMALL_CLASSES; i++) {
		uint64_t c = (uint64_t)json_integer_value(json_array_get(small, i));
		if (c * 20 >= total)
			fprintf(out, "%s%zu: %.0f%%", shown++ ? ", " : "", (i + 1) * 16, 100.0 * (double)c / (double)total);
	}
	fprintf(out, "); above 512:");
	int any = 0;
	for (size_t i = 0; i < LARGE_BUCKETS; i++) {
		uint64_t c = (uint64_t)json_integer_value(json_array_get(large, i));
		if (c == 0)
			continue;
		if (i + 1 == LARGE_BUCKETS)
			fprintf(out, "%s >1M: %" PRIu64, any++ ? "," : "", c);
		else
			fprintf(out, "%s <=%zuK: %" PRIu64, any++ ? "," : "", (size_t)1 << i, c);
	}
	fprintf(out, "%s\n", any ? "" : " none");
}

/* ---- the runner's side: every benchmark of a pyperf file, a cell each ---- */

/* The discovery child: Debian's interpreter running the harness's
 * discover() on the file or folder, the list written as JSON on fd 3. */
struct discovery {
	const char *path, *args, *lib_dir;
	double scale, timeout_s; /* timeout_s: each file's */
};

static int discovery_child(void *arg, int fd)
{
	const struct discovery *d = arg;
	static const char code[] =
		"import json, os, sys\n"
		"sys.path.insert(0, sys.argv[1])\n"
		"import alloclab_harness\n"
		"found = alloclab_harness.discover(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5:])\n"
		"with os.fdopen(3, 'w') as out:\n"
		"    json.dump(found, out)\n";
	char scale[32], timeout[32], *argv[MAX_ARGS + 9], *words = strdup(d->args), *save = NULL;
	unsigned n = 0;

	if (fd == 3 ? fcntl(fd, F_SETFD, 0) != 0 : dup2(fd, 3) < 0)
		return 3;
	snprintf(scale, sizeof scale, "%.17g", d->scale);
	argv[n++] = (char *)ALLOCLAB_PYTHON_PROGRAM;
	argv[n++] = "-I";
	argv[n++] = "-c";
	argv[n++] = (char *)code;
	argv[n++] = (char *)d->lib_dir;
	argv[n++] = (char *)d->path;
	argv[n++] = scale;
	snprintf(timeout, sizeof timeout, "%.17g", d->timeout_s);
	argv[n++] = timeout;
	for (char *w = words ? strtok_r(words, " ", &save) : NULL; w && n < MAX_ARGS + 8; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n] = NULL;
	execv(ALLOCLAB_PYTHON_PROGRAM, argv);
	return 3;
}

/* The rows expand found not applicable (a module not installed), by their
 * parameters, so that the plan says so (and runs no worker for them). */
#define MAX_NOT_APPLICABLE 512
struct known_not_applicable {
	const char *pyperf, *args, *name;
	char *why;
};
static struct known_not_applicable not_applicable[MAX_NOT_APPLICABLE];
static unsigned nnot_applicable;

static void remember_not_applicable(const struct alloclab_params *q, const char *why)
{
	if (nnot_applicable < MAX_NOT_APPLICABLE)
		not_applicable[nnot_applicable++] =
			(struct known_not_applicable){q->text[P_PYPERF], q->text[P_ARGS], q->text[P_NAME], strdup(why)};
}

static const char *python_plan_not_applicable(const struct alloclab_params *p)
{
	for (unsigned i = 0; i < nnot_applicable; i++)
		if (p->text[P_PYPERF] && strcmp(not_applicable[i].pyperf, p->text[P_PYPERF]) == 0 &&
		    strcmp(not_applicable[i].args, p->text[P_ARGS]) == 0 && strcmp(not_applicable[i].name, p->text[P_NAME]) == 0)
			return not_applicable[i].why;
	return NULL;
}

/* Each file runs once, as pyperf's main process runs it, for at most the
 * run's --timeout (alloclab_plan_step_timeout); the harness ends a file
 * at its deadline. The whole discovery's own deadline, a backstop: a file
 * and some seconds, or a folder of up to FOLDER_FILES_BUDGET files. */
#define FOLDER_FILES_BUDGET 60

/* The benchmarks a pyperf file or folder registers: each file run once
 * by the harness in a child with a deadline. The harness's list (an
 * array, at least one entry), or NULL with err set. */
static json_t *discover(const struct alloclab_params *p, const struct stat *st, char *err, size_t err_len)
{
	char libs[ALLOCLAB_PATH_PLUS_LEN], why[ALLOCLAB_PATH_LEN];
	struct alloclab_child_result res;

	snprintf(libs, sizeof libs, "%s/lib", data_dir());
	struct discovery d = {p->text[P_PYPERF], p->text[P_ARGS], libs, (double)p->v[P_SCALE] / 100.0,
			      alloclab_plan_step_timeout()};
	const double deadline_s = S_ISDIR(st->st_mode) ? d.timeout_s * FOLDER_FILES_BUDGET : d.timeout_s + 10;
	if (alloclab_child_run(discovery_child, &d, deadline_s, &res, err, err_len) != 0)
		return NULL;
	json_t *found = res.exited && res.exit_code == 0 ? json_loads(res.output, 0, NULL) : NULL;
	if (!json_is_array(found) || json_array_size(found) == 0) {
		char *printed = alloclab_child_printed(&res);
		if (res.exited && res.exit_code == 0)
			snprintf(why, sizeof why, "%s", S_ISDIR(st->st_mode)
				 ? "no benchmark found (a folder holds *.py files, */run_benchmark.py or pyperformance's MANIFEST)"
				 : "no benchmark found");
		else
			alloclab_child_describe(&res, deadline_s, why, sizeof why);
		snprintf(err, err_len, "workload 'python': pyperf=%s: %s%s%.300s", d.path, why, printed ? ": " : "",
			 printed ? printed : "");
		free(printed);
		json_decref(found);
		found = NULL;
	}
	alloclab_child_result_free(&res);
	return found;
}

/* One benchmark of the harness's list as the parameters of its cell,
 * into *q; its text checked (one line, arguments a word each). 0, or -1
 * with err set. */
static int benchmark_params(const struct alloclab_params *p, const json_t *e, const char *path,
			    struct alloclab_params *q, char *err, size_t err_len)
{
	const char *file = json_string_value(json_object_get(e, "file"));
	const char *name = json_string_value(json_object_get(e, "name"));
	const char *failed_row = json_string_value(json_object_get(e, "error"));
	json_t *args = json_object_get(e, "args"), *a;
	json_int_t task = json_integer_value(json_object_get(e, "task"));
	char joined[ALLOCLAB_PATH_LEN] = "";
	size_t used = 0, k;
	if (file == NULL || !json_is_array(args) || task < 0 || task > MAX_TASKS) {
		snprintf(err, err_len, "workload 'python': pyperf=%s: the harness's list is malformed", path);
		return -1;
	}
	/* A name becomes a row's label on terminals and in exports. */
	if (!alloclab_shell_word_one_line(file) || (name && !alloclab_shell_word_one_line(name))) {
		char shown[200];
		alloclab_printable(name && !alloclab_shell_word_one_line(name) ? name : file, shown, sizeof shown);
		snprintf(err, err_len, "workload 'python': pyperf=%s: the benchmark '%s' has a control character "
			 "(an escape sequence?) in its %s", path, shown,
			 name && !alloclab_shell_word_one_line(name) ? "name" : "file name");
		return -1;
	}
	json_array_foreach(args, k, a) {
		const char *w = json_string_value(a);
		if (w == NULL || w[0] == '\0' || strchr(w, ' ') || used + strlen(w) + 2 > sizeof joined) {
			snprintf(err, err_len, "workload 'python': %s: argument %zu cannot be passed (empty, a space in it, "
				 "or too long)", file, k + 1);
			return -1;
		}
		used += (size_t)snprintf(joined + used, sizeof joined - used, "%s%s", used ? " " : "", w);
	}
	*q = *p;
	q->text[P_PYPERF] = alloclab_params_intern(file, strlen(file));
	q->text[P_ARGS] = alloclab_params_intern(joined, strlen(joined));
	q->text[P_NAME] = alloclab_params_intern(name ? name : "", name ? strlen(name) : 0);
	if (failed_row && json_is_true(json_object_get(e, "not_applicable")))
		remember_not_applicable(q, failed_row);
	/* A file that failed (a module missing) is measured as its task 1:
	 * the worker meets the same failure and says so in the cell. */
	q->v[P_TASK] = task > 0 ? (uint64_t)task : 1;
	if (!q->text[P_PYPERF] || !q->text[P_ARGS] || !q->text[P_NAME]) {
		snprintf(err, err_len, "workload 'python': out of memory");
		return -1;
	}
	return 0;
}

static int python_expand(const struct alloclab_params *p, struct alloclab_params *out, unsigned max, unsigned *n,
			 char *err, size_t err_len)
{
	struct stat st;

	*n = 0;
	if (p->text[P_PYPERF][0] == '\0' || p->v[P_TASK] != 0) {
		out[0] = *p;
		*n = 1;
		return 0;
	}
	if (stat(p->text[P_PYPERF], &st) != 0)
		return check_file("pyperf", p->text[P_PYPERF], err, err_len);
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		snprintf(err, err_len, "workload 'python': pyperf=%s is not a regular file or a folder (a FIFO, a device?)",
			 p->text[P_PYPERF]);
		return -1;
	}
	json_t *found = discover(p, &st, err, err_len), *e;
	if (found == NULL)
		return -1;
	/* One file that cannot even run (its arguments wrong) is the user's to
	 * fix, now; in a folder such a file is its row's error. */
	const char *failed = json_string_value(json_object_get(json_array_get(found, 0), "error"));
	int rc = 0;
	if (!S_ISDIR(st.st_mode) && failed && !json_is_true(json_object_get(json_array_get(found, 0), "not_applicable"))) {
		snprintf(err, err_len, "workload 'python': pyperf=%s: %s", p->text[P_PYPERF], failed);
		rc = -1;
	}
	size_t i;
	json_array_foreach(found, i, e) {
		if (rc != 0)
			break;
		if (*n == max) {
			snprintf(err, err_len, "workload 'python': pyperf=%s has more than %u benchmarks", p->text[P_PYPERF],
				 max);
			rc = -1;
		} else if (benchmark_params(p, e, p->text[P_PYPERF], &out[*n], err, err_len) == 0) {
			(*n)++;
		} else {
			rc = -1;
		}
	}
	json_decref(found);
	return rc;
}

const struct alloclab_workload alloclab_workload_python = {
	.name = "python",
	.description = "Python programs (pyperformance-style) in CPython 3.11 whose allocator is the plugin",
	.unit_op = "benchmark iteration",
	.params = python_params,
	.nparams = sizeof python_params / sizeof python_params[0],
	/* CPython reallocs; with threads the cyclic collector and shared
	 * objects free what another thread allocated. */
	.flags = ALLOCLAB_WORKLOAD_ONE_ALLOCATOR | ALLOCLAB_WORKLOAD_NEEDS_REALLOC | ALLOCLAB_WORKLOAD_CROSS_THREAD_FREE_IN_THREADS |
		 /* greenlet (which SQLAlchemy imports) reads its thread state,
		  * in the plugin's memory, in a TLS destructor at exit. */
		 ALLOCLAB_WORKLOAD_KEEP_INSTANCE,
	.check_params = python_check,
	.plan_not_applicable = python_plan_not_applicable,
	.expand = python_expand,
	.exec_worker = python_exec_worker,
	.prepare = python_prepare,
	.run = python_run,
	.finish = python_finish,
	.check_report = python_check_report,
	.print_cell = python_print_cell,
	.row_name = python_row_name,
};
