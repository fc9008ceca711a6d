/*
 * The python workload's interpreter: Debian's libpython3.11 embedded in the
 * worker, with the plugin as CPython's allocator. See embed.h and
 * docs/guides/python.md.
 *
 * One interpreter per worker process, started by thread 0's first prepare
 * (on the process's main thread for ABI 2 plugins) and finalized by thread
 * 0's last finish. Between them every workload thread owns a Python thread
 * state and holds the GIL only inside run(): N threads run the benchmark
 * interleaved, as Python threads do under the GIL.
 *
 * The allocator: before Py_InitializeFromConfig, PyMem_SetAllocator routes
 * the object and mem domains (and raw with raw=1) to the plugin through the
 * hooks below, which add one indirect call each and nothing else. With the
 * cpython plugin nothing is hooked: CPython's own obmalloc is the reference.
 *
 * The profile pass runs after the last value, untimed: counting wrappers go
 * around whatever allocator each domain has (the plugin, or CPython's own),
 * the benchmark runs once more, and the wrappers come off again. Both are
 * the same allocator underneath, so blocks cross the swap freely.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "embed.h"
#include "base/hash.h"
#include "memory/block_map.h"
#include "base/clock.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the hooks: PyMem's contract on top of the plugin's ---- */

static const struct alloclab_allocator *plugin;

static void *hook_realloc(void *ctx, void *block, size_t size)
{
	(void)ctx;
	/* PyMem: a zero-size realloc keeps a block; the plugin ABI never
	 * sees size 0 here. */
	return plugin->ops.realloc(plugin->instance, block, size ? size : 1);
}

/* The plugin's malloc, calloc and free have PyMem's signatures (the
 * instance as ctx), so CPython calls them directly: one indirect call per
 * request, as CPython pays for its own obmalloc. realloc keeps a wrapper
 * for PyMem's size 0. */
static PyMemAllocatorEx hooks;

static void install_hooks(const struct alloclab_python_config *cfg)
{
	if (!cfg->hook)
		return;
	hooks = (PyMemAllocatorEx){plugin->instance, plugin->ops.malloc, plugin->ops.calloc, hook_realloc,
				   plugin->ops.free};
	PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &hooks);
	PyMem_SetAllocator(PYMEM_DOMAIN_MEM, &hooks);
	if (cfg->hook_raw)
		PyMem_SetAllocator(PYMEM_DOMAIN_RAW, &hooks);
}

static void census_start(struct alloclab_live *live);

/* ---- the process's interpreter ---- */

static struct {
	const struct alloclab_python_config *cfg;
	PyObject *harness;       /* alloclab_harness, the lib folder's */
	PyObject *not_applicable; /* alloclab_harness.NotApplicable */
	PyObject *missing_module; /* alloclab_harness.missing_module */
	uint64_t loops;          /* per value, per thread */
	/* Iterations of the benchmark in one loop (pyperf's inner_loops):
	 * a value is the time of one; 1 unless the file says otherwise. */
	uint64_t inner_loops;
	int started, failed;
	char name[256];          /* the benchmark's own name (pyperf files name theirs) */
} py;

struct py_thread {
	PyThreadState *ts;  /* this thread's, released between runs */
	PyObject *bench;    /* the benchmark's callable: bench(loops) */
	char error[512];
};

/* The module a pending ModuleNotFoundError says is not installed, by the
 * harness's one rule (alloclab_errors.missing_module), as a new
 * reference; NULL when it is not that (a blocked import, a submodule an
 * installed package lacks: the benchmark's error). */
static PyObject *missing_module_of(PyObject *value)
{
	if (py.missing_module == NULL || value == NULL)
		return NULL;
	PyObject *name = PyObject_CallOneArg(py.missing_module, value);
	if (name == NULL || !PyUnicode_Check(name)) {
		PyErr_Clear();
		Py_XDECREF(name);
		return NULL;
	}
	return name;
}

/* The pending exception as "Type: message" in out; clears it. Returns 1
 * when it was the harness's NotApplicable or a module not installed. */
static int take_exception(char *out, size_t len)
{
	PyObject *type, *value, *tb, *missing = NULL;
	int na;

	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	if (type && PyErr_GivenExceptionMatches(type, PyExc_ModuleNotFoundError))
		missing = missing_module_of(value);
	na = type && ((py.not_applicable && PyErr_GivenExceptionMatches(type, py.not_applicable)) || missing);
	if (missing) {
		const char *n = PyUnicode_AsUTF8(missing);
		snprintf(out, len, "needs the Python module '%s', which is not installed", n ? n : "?");
		Py_DECREF(missing);
	} else {
		PyObject *s = value ? PyObject_Str(value) : NULL;
		const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
		const char *tname = type ? ((PyTypeObject *)type)->tp_name : "exception";
		if (na)
			snprintf(out, len, "%s", msg ? msg : "not applicable");
		else
			snprintf(out, len, "%s: %s", tname, msg && *msg ? msg : "(no message)");
		Py_XDECREF(s);
	}
	PyErr_Clear();
	Py_XDECREF(type);
	Py_XDECREF(value);
	Py_XDECREF(tb);
	return na;
}

static int status_error(PyStatus st, const char *what, char *err, size_t err_len)
{
	snprintf(err, err_len, "python: %s: %s%s%s", what, st.func ? st.func : "", st.func ? ": " : "",
		 st.err_msg ? st.err_msg : "failed");
	return -1;
}

/* Initialises the interpreter with the hooks in place. The GIL is held on
 * return (0). */
/* census: where the census says what the interpreter holds (NULL: none). */
static int start_interpreter(const struct alloclab_python_config *cfg, struct alloclab_live *census_live, char *err,
			     size_t err_len)
{
	PyPreConfig pre;
	PyConfig config;
	PyStatus st;

	PyPreConfig_InitIsolatedConfig(&pre);
	pre.utf8_mode = 1; /* the same text handling whatever this machine's locale */
	st = Py_PreInitialize(&pre);
	if (PyStatus_Exception(st))
		return status_error(st, "pre-initialisation", err, err_len);
	install_hooks(cfg);
	if (cfg->debug_hooks)
		PyMem_SetupDebugHooks();
	if (census_live)
		census_start(census_live);

	/* Isolated: no PYTHON* variables, no user site, no script folder on
	 * sys.path; the standard library and Debian's dist-packages are found
	 * from the interpreter's own path, whatever python3 is first on PATH. */
	PyConfig_InitIsolatedConfig(&config);
	config.install_signal_handlers = 0;
	config.write_bytecode = 0;
	config.site_import = 1;
	if (cfg->hash_seed) {
		/* Deterministic dict and set orders: instruction counts repeat. */
		config.use_hash_seed = 1;
		config.hash_seed = (unsigned long)cfg->hash_seed;
	}
	st = PyConfig_SetBytesString(&config, &config.program_name, cfg->program);
	if (!PyStatus_Exception(st))
		st = Py_InitializeFromConfig(&config);
	PyConfig_Clear(&config);
	if (PyStatus_Exception(st))
		return status_error(st, "initialisation", err, err_len);
	return 0;
}

static int load_harness(const struct alloclab_python_config *cfg, char *err, size_t err_len)
{
	PyObject *path = PySys_GetObject("path"), *dir = PyUnicode_FromString(cfg->lib_dir);

	if (path == NULL || dir == NULL || PyList_Insert(path, 0, dir) != 0) {
		Py_XDECREF(dir);
		take_exception(err, err_len);
		return -1;
	}
	Py_DECREF(dir);
	py.harness = PyImport_ImportModule("alloclab_harness");
	if (py.harness)
		py.not_applicable = PyObject_GetAttrString(py.harness, "NotApplicable");
	if (py.not_applicable)
		py.missing_module = PyObject_GetAttrString(py.harness, "missing_module");
	if (py.harness == NULL || py.not_applicable == NULL || py.missing_module == NULL) {
		char why[400];
		take_exception(why, sizeof why);
		snprintf(err, err_len, "python: cannot load alloclab_harness from %s: %s", cfg->lib_dir, why);
		return -1;
	}
	return 0;
}

/* The benchmark's callable for this thread: each thread runs the file in
 * a namespace of its own, so module-level state is never shared. */
static PyObject *load_bench(const struct alloclab_python_config *cfg, int *na, char *err, size_t err_len)
{
	static const char *const kinds[] = {"bundled", "script", "pyperf"};
	PyObject *args = PyList_New(0), *env = PyDict_New(), *r = NULL;
	char *words = strdup(cfg->args ? cfg->args : ""), *save = NULL;
	for (char *w = words ? strtok_r(words, " ", &save) : NULL; w && args; w = strtok_r(NULL, " ", &save)) {
		PyObject *o = PyUnicode_DecodeFSDefault(w);
		if (o == NULL || PyList_Append(args, o) != 0)
			Py_CLEAR(args);
		Py_XDECREF(o);
	}
	free(words);
	for (unsigned i = 0; env && i < 4; i++) {
		const char *eq = cfg->command_env[i] ? strchr(cfg->command_env[i], '=') : NULL;
		if (eq == NULL)
			continue;
		PyObject *k = PyUnicode_DecodeFSDefaultAndSize(cfg->command_env[i], eq - cfg->command_env[i]);
		PyObject *v = PyUnicode_DecodeFSDefault(eq + 1);
		if (k == NULL || v == NULL || PyDict_SetItem(env, k, v) != 0)
			Py_CLEAR(env);
		Py_XDECREF(k);
		Py_XDECREF(v);
	}
	if (args && env)
		r = PyObject_CallMethod(py.harness, "load", "ssdKOsO", kinds[cfg->kind], cfg->file, cfg->scale,
					(unsigned long long)(cfg->task ? cfg->task : 1), args, cfg->name ? cfg->name : "", env);
	Py_XDECREF(args);
	Py_XDECREF(env);

	if (r == NULL || !PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 3 || !PyLong_Check(PyTuple_GET_ITEM(r, 2)) ||
	    PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(r, 2)) < 1 ||
	    PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(r, 2)) > (1ull << 20)) {
		char why[400] = "load() did not return (name, callable, inner loops from 1 to 2^20)";
		if (r == NULL)
			*na = take_exception(why, sizeof why);
		else
			PyErr_Clear(); /* what the checks of the tuple may have raised */
		snprintf(err, err_len, "%s%s", *na ? "" : "loading the benchmark raised ", why);
		Py_XDECREF(r);
		return NULL;
	}
	PyObject *name = PyTuple_GET_ITEM(r, 0), *fn = PyTuple_GET_ITEM(r, 1);
	if (PyUnicode_Check(name) && py.name[0] == '\0')
		snprintf(py.name, sizeof py.name, "%s", PyUnicode_AsUTF8(name));
	py.inner_loops = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(r, 2));
	Py_INCREF(fn);
	Py_DECREF(r);
	return fn;
}

/* The two things a value times, `loops` times over: 0, or -1 with err. */
typedef int (*run_loops_fn)(uint64_t loops, PyObject *fn, double *own_s, char *err, size_t err_len);

/* The benchmark's callable, with the GIL held. A callable that times
 * itself (pyperf's bench_time_func and timeit) returns its seconds, kept
 * in *own_s (else 0). */
static int bench_loops(uint64_t loops, PyObject *fn, double *own_s, char *err, size_t err_len)
{
	PyObject *r = PyObject_CallFunction(fn, "K", (unsigned long long)loops);

	*own_s = 0;
	if (r == NULL) {
		char why[480];
		take_exception(why, sizeof why);
		snprintf(err, err_len, "benchmark raised %s", why);
		return -1;
	}
	if (PyFloat_Check(r) || PyLong_Check(r))
		*own_s = PyFloat_AsDouble(r);
	Py_DECREF(r);
	return 0;
}

/* startup: the interpreter initialised and finalised, timed whole. */
/* A warm-up of bench=startup counts every interpreter it starts (the
 * census, each from its start to its end): where to say it, and the most
 * one held. */
static struct alloclab_live *startup_census;
static uint64_t startup_most;
static void census_stop(void);
static uint64_t census_peak(void);

static int startup_loops(uint64_t loops, PyObject *fn, double *own_s, char *err, size_t err_len)
{
	(void)fn;
	*own_s = 0;
	for (uint64_t i = 0; i < loops; i++) {
		if (start_interpreter(py.cfg, startup_census, err, err_len) != 0)
			return -1;
		if (Py_FinalizeEx() != 0) {
			snprintf(err, err_len, "python: Py_FinalizeEx failed");
			return -1;
		}
		if (startup_census) {
			uint64_t most = census_peak();
			startup_most = most > startup_most ? most : startup_most;
			census_stop();
		}
	}
	return 0;
}

/* pyperf's rule: double the loops until one value takes value_ms (or
 * the loops= given). Sets py.loops. */
static int calibrate(run_loops_fn run, PyObject *fn, char *err, size_t err_len)
{
	double target = (double)py.cfg->value_ms / 1e3;

	if (py.cfg->loops) {
		py.loops = py.cfg->loops;
		return 0;
	}
	for (uint64_t loops = 1;; loops *= 2) {
		double t0 = alloclab_now_s(), own = 0;
		if (run(loops, fn, &own, err, err_len) != 0) {
			size_t used = strlen(err);
			snprintf(err + used, err_len - used, " (while calibrating loops)");
			return -1;
		}
		/* pyperf's rule on the time the benchmark reports, where it does. */
		if ((own > 0 ? own : alloclab_now_s() - t0) >= target || loops >= (1ull << 32)) {
			py.loops = loops;
			return 0;
		}
	}
}

/* ---- counting wrappers: the census and the allocation profile ---- */

/* Request sizes: obmalloc's 32 classes of 16 bytes up to 512, then powers
 * of two up to 1 MiB, then the rest. */
#define SMALL_CLASSES 32
#define LARGE_BUCKETS 12 /* <=1K, <=2K, ... <=1M, more */
enum { OP_MALLOC, OP_CALLOC, OP_REALLOC, OP_FREE, NOPS };
static const char *const op_names[NOPS] = {"malloc", "calloc", "realloc", "free"};
static const char *const domain_names[3] = {"raw", "mem", "obj"};
static const PyMemAllocatorDomain all_domains[3] = {PYMEM_DOMAIN_RAW, PYMEM_DOMAIN_MEM, PYMEM_DOMAIN_OBJ};

/* Wrappers around whatever each domain has (the plugin's hooks, or
 * CPython's own), delegating to it, so that blocks cross the swap freely:
 * every block with its size in a map (framework/memory/block_map.h). At most one
 * set is in place at a time: the census (from the interpreter's start to
 * the end of the warm-ups: what the interpreter holds, said to `live`) or
 * the profile pass (after the last value: calls and sizes too). */
struct counting;
/* A wrapper's context: its set and its domain (sets can stack: the
 * profile pass of a process whose census never ended). */
struct counting_domain {
	struct counting *c;
	int d;
};

struct counting {
	PyMemAllocatorEx inner[3];
	struct counting_domain domain[3];
	struct alloclab_block_map map;
	pthread_mutex_t lock;           /* raw may be called without the GIL */
	struct alloclab_live *live;     /* the census: thread 0's counter, written under the lock */
	struct counting *outer;         /* the set it went around, or NULL */
	int profile;                    /* the profile pass: calls and sizes below */
	uint64_t calls[3][NOPS];
	uint64_t small[SMALL_CLASSES], large[LARGE_BUCKETS];
};

static struct counting *counting; /* the outermost set in place, or NULL */

/* CPython's obmalloc serves a large request from the raw domain, through
 * the allocator table: a wrapper around both domains would see it twice
 * (and count its block twice). Only a thread's outermost call counts; a
 * call inside it goes straight through. */
static __thread int nested;

/* What a call did, under the lock. */
static void counted(struct counting *c, int d, int op, void *old, void *block, size_t size)
{
	pthread_mutex_lock(&c->lock);
	if (c->profile) {
		c->calls[d][op]++;
		if (block && op != OP_FREE) {
			if (size <= 512) {
				c->small[size ? (size - 1) / 16 : 0]++;
			} else {
				unsigned b = 0;
				while (b + 1 < LARGE_BUCKETS && size > (size_t)1024 << b)
					b++;
				c->large[b]++;
			}
		}
	}
	if (op == OP_FREE || (op == OP_REALLOC && block))
		alloclab_block_map_release(&c->map, old);
	if (op != OP_FREE)
		alloclab_block_map_alloc(&c->map, block, size);
	if (c->live) {
		__atomic_store_n((uint64_t *)&c->live->bytes, c->map.live_bytes, __ATOMIC_RELAXED);
		__atomic_store_n((uint64_t *)&c->live->blocks, c->map.live_blocks, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&c->lock);
}

static void *count_malloc(void *ctx, size_t size)
{
	const struct counting_domain *cd = ctx;
	struct counting *c = cd->c;
	const int d = cd->d;
	if (nested)
		return c->inner[d].malloc(c->inner[d].ctx, size);
	nested = 1;
	void *b = c->inner[d].malloc(c->inner[d].ctx, size);
	nested = 0;
	counted(c, d, OP_MALLOC, NULL, b, size);
	return b;
}

static void *count_calloc(void *ctx, size_t nelem, size_t elsize)
{
	const struct counting_domain *cd = ctx;
	struct counting *c = cd->c;
	const int d = cd->d;
	if (nested)
		return c->inner[d].calloc(c->inner[d].ctx, nelem, elsize);
	nested = 1;
	void *b = c->inner[d].calloc(c->inner[d].ctx, nelem, elsize);
	nested = 0;
	counted(c, d, OP_CALLOC, NULL, b, nelem * elsize);
	return b;
}

static void *count_realloc(void *ctx, void *block, size_t size)
{
	const struct counting_domain *cd = ctx;
	struct counting *c = cd->c;
	const int d = cd->d;
	if (nested)
		return c->inner[d].realloc(c->inner[d].ctx, block, size);
	nested = 1;
	void *b = c->inner[d].realloc(c->inner[d].ctx, block, size);
	nested = 0;
	counted(c, d, OP_REALLOC, block, b, size);
	return b;
}

static void count_free(void *ctx, void *block)
{
	const struct counting_domain *cd = ctx;
	struct counting *c = cd->c;
	const int d = cd->d;
	if (nested) {
		c->inner[d].free(c->inner[d].ctx, block);
		return;
	}
	/* Counted first: once freed, the address may be handed out again. */
	counted(c, d, OP_FREE, block, NULL, 0);
	nested = 1;
	c->inner[d].free(c->inner[d].ctx, block);
	nested = 0;
}

/* Puts c's wrappers around every domain: 0, or -1 (its map cannot be
 * mapped: nothing counted). */
static int counting_start(struct counting *c)
{
	if (alloclab_block_map_init(&c->map) != 0)
		return -1;
	pthread_mutex_init(&c->lock, NULL);
	c->outer = counting;
	counting = c;
	for (int d = 0; d < 3; d++) {
		c->domain[d] = (struct counting_domain){c, d};
		PyMemAllocatorEx wrap = {&c->domain[d], count_malloc, count_calloc, count_realloc, count_free};
		PyMem_GetAllocator(all_domains[d], &c->inner[d]);
		PyMem_SetAllocator(all_domains[d], &wrap);
	}
	return 0;
}

/* Takes c's wrappers off: the last set put in place. */
static void counting_stop(struct counting *c)
{
	for (int d = 0; d < 3; d++)
		PyMem_SetAllocator(all_domains[d], &c->inner[d]);
	counting = c->outer;
	alloclab_block_map_free(&c->map);
	pthread_mutex_destroy(&c->lock);
}

/* ---- the allocation profile ---- */

static struct counting prof = {.profile = 1};

static json_t *profile_pass(PyObject *fn, uint64_t loops)
{
	json_t *calls = json_object(), *small = json_array(), *large = json_array(), *report;
	uint64_t allocs = 0;
	PyObject *r;

	memset(prof.calls, 0, sizeof prof.calls);
	memset(prof.small, 0, sizeof prof.small);
	memset(prof.large, 0, sizeof prof.large);
	int started = counting_start(&prof) == 0;
	r = PyObject_CallFunction(fn, "K", (unsigned long long)loops);
	uint64_t peak_bytes = prof.map.peak_bytes, peak_blocks = prof.map.peak_blocks, foreign = prof.map.foreign_frees;
	if (started)
		counting_stop(&prof);
	if (r == NULL)
		PyErr_Clear();
	Py_XDECREF(r);

	for (int d = 0; d < 3; d++) {
		json_t *ops = json_object();
		for (int o = 0; o < NOPS; o++)
			json_object_set_new(ops, op_names[o], json_integer((json_int_t)prof.calls[d][o]));
		json_object_set_new(calls, domain_names[d], ops);
		allocs += prof.calls[d][OP_MALLOC] + prof.calls[d][OP_CALLOC] + prof.calls[d][OP_REALLOC];
	}
	for (int i = 0; i < SMALL_CLASSES; i++)
		json_array_append_new(small, json_integer((json_int_t)prof.small[i]));
	for (int i = 0; i < LARGE_BUCKETS; i++)
		json_array_append_new(large, json_integer((json_int_t)prof.large[i]));
	report = json_pack("{s:I,s:o,s:o,s:o,s:I,s:I,s:I,s:f}", "loops", (json_int_t)loops, "calls", calls,
			   "small_classes", small, "large_buckets", large, "peak_live_bytes", (json_int_t)peak_bytes,
			   "peak_live_blocks", (json_int_t)peak_blocks, "frees_of_earlier_blocks", (json_int_t)foreign,
			   "allocations_per_iteration", (double)allocs / (double)loops);
	return report;
}

/* ---- the census: what the interpreter holds, in the warm-ups ---- */

/* From the interpreter's start to the end of the last warm-up the counting
 * wrappers are in place: every block with its size, so that what the
 * program holds is known exactly; a warm-up says what it held at its end
 * and at most (workload.h), for the framework's fragmentation. They come
 * off before the first measured value, whose loops are calibrated again
 * without them: the measured values pay nothing. */
static struct counting census;

/* Around whatever each domain has now (after the plugin's hooks and any
 * debug hooks: the sizes counted are the program's requests). */
static void census_start(struct alloclab_live *live)
{
	census.live = live;
	counting_start(&census); /* failing: the cell says nothing of what it holds */
}

static int census_on(void) { return counting == &census; }

static uint64_t census_peak(void)
{
	pthread_mutex_lock(&census.lock);
	uint64_t most = census.map.peak_bytes;
	pthread_mutex_unlock(&census.lock);
	return most;
}

static void census_stop(void)
{
	if (!census_on())
		return;
	counting_stop(&census);
	/* Nothing said from here: the measured values are not counted. */
	__atomic_store_n((uint64_t *)&census.live->bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n((uint64_t *)&census.live->blocks, 0, __ATOMIC_RELAXED);
}

/* ---- the workload's hooks ---- */

static int embed_prepare(struct alloclab_workload_thread *t, const struct alloclab_python_config *cfg, char *err,
			 size_t err_len)
{
	struct py_thread *pt;

	if (t->state) {
		/* The interpreter and the benchmark live from value to value;
		 * the census ends with the warm-ups, and the values' loops are
		 * calibrated without it. */
		pt = t->state;
		if (t->index == 0 && census_on() && !t->warmup && pt->bench) {
			PyEval_RestoreThread(pt->ts);
			census_stop();
			int rc = calibrate(bench_loops, pt->bench, err, err_len);
			pt->ts = PyEval_SaveThread();
			if (rc != 0)
				return -1;
		}
		return 0;
	}
	if (t->index == 0) {
		py.cfg = cfg;
		plugin = t->alloc;
		if (cfg->kind == ALLOCLAB_PY_STARTUP) {
			snprintf(py.name, sizeof py.name, "startup");
			if (t->nthreads > 1) {
				t->not_applicable = 1;
				snprintf(err, err_len, "startup starts and ends the one interpreter: 1 thread only");
				py.failed = 1;
			} else {
				/* Calibrated like the others, on the real thing. */
				py.failed = calibrate(startup_loops, NULL, err, err_len) != 0;
			}
		} else if (start_interpreter(cfg, cfg->census && t->warmup ? t->live : NULL, err, err_len) != 0 ||
			   load_harness(cfg, err, err_len) != 0) {
			py.failed = 1;
		} else {
			py.started = 1;
		}
	}
	pt = calloc(1, sizeof *pt);
	t->state = pt;
	if (cfg->kind == ALLOCLAB_PY_STARTUP) {
		if (py.failed && t->index == 0)
			return -1;
		return 0;
	}
	/* Thread 0 loads first and calibrates; the others then load in turn
	 * (the GIL orders them). */
	if (t->index == 0 && !py.failed) {
		int na = 0;
		pt->bench = load_bench(cfg, &na, err, err_len);
		if (pt->bench == NULL || calibrate(bench_loops, pt->bench, err, err_len) != 0) {
			t->not_applicable = na;
			py.failed = 1;
		}
		pt->ts = PyEval_SaveThread();
	}
	t->sync(t);
	if (py.failed) {
		if (t->index != 0)
			snprintf(err, err_len, "thread 0 could not start the benchmark");
		return -1;
	}
	if (t->index != 0) {
		int na = 0;
		PyGILState_Ensure();
		pt->bench = load_bench(cfg, &na, err, err_len);
		pt->ts = PyEval_SaveThread();
		if (pt->bench == NULL) {
			t->not_applicable = na;
			return -1;
		}
	}
	return 0;
}

static void embed_run(struct alloclab_workload_thread *t)
{
	struct py_thread *pt = t->state;
	int rc;

	double own = 0;
	const int in_census = t->index == 0 && census_on();
	if (in_census) {
		pthread_mutex_lock(&census.lock);
		census.map.peak_bytes = census.map.live_bytes;
		pthread_mutex_unlock(&census.lock);
	}
	/* A value is the time of one inner loop, as pyperf reports it. */
	t->ops = py.loops * (py.inner_loops ? py.inner_loops : 1);
	if (py.cfg->kind == ALLOCLAB_PY_STARTUP) {
		/* In a warm-up, each interpreter is counted from its start. */
		startup_census = py.cfg->census && t->warmup ? t->live : NULL;
		startup_most = 0;
		rc = startup_loops(py.loops, NULL, &own, pt->error, sizeof pt->error);
		if (startup_census && rc == 0)
			alloclab_live_peak(t, startup_most);
		startup_census = NULL;
	} else {
		PyEval_RestoreThread(pt->ts);
		rc = bench_loops(py.loops, pt->bench, &own, pt->error, sizeof pt->error);
		pt->ts = PyEval_SaveThread();
	}
	if (own > 0)
		t->own_ns = (uint64_t)(own * 1e9);
	if (rc != 0)
		t->error = pt->error;
	if (in_census) {
		pthread_mutex_lock(&census.lock);
		alloclab_live_end(t, census.map.live_bytes);
		alloclab_live_peak(t, census.map.peak_bytes);
		alloclab_live_own(t, alloclab_block_map_resident(&census.map));
		pthread_mutex_unlock(&census.lock);
	}
}

/* A pyperf file suspended at its benchmark goes on to its end (its
 * clean-up), with the GIL held; what it raises there is said on stderr. */
static void file_ends(void)
{
	if (py.harness == NULL)
		return;
	PyObject *r = PyObject_CallMethod(py.harness, "finish", NULL);
	if (r == NULL) {
		PyErr_Clear();
	} else if (PyUnicode_Check(r)) {
		fprintf(stderr, "python: the benchmark file's end raised %s\n", PyUnicode_AsUTF8(r));
	}
	Py_XDECREF(r);
}

static void embed_finish(struct alloclab_workload_thread *t)
{
	struct py_thread *pt = t->state;

	if (pt == NULL || !t->last_value)
		return;
	if (t->index != 0 && pt->ts) {
		/* This thread's Python state goes while the interpreter lives:
		 * its thread-locals are cleared on this thread, with the GIL. */
		PyEval_RestoreThread(pt->ts);
		file_ends();
		Py_CLEAR(pt->bench);
		PyThreadState_Clear(pt->ts);
		PyThreadState_DeleteCurrent();
		pt->ts = NULL;
	}
	t->sync(t); /* every thread done with Python */
	if (t->index == 0) {
		/* "3.11.2 (main, ...) [GCC ...]": the version is the first word. */
		char version[32];
		snprintf(version, sizeof version, "%.*s", (int)strcspn(Py_GetVersion(), " "), Py_GetVersion());
		json_t *report = json_pack("{s:s,s:I,s:I,s:s,s:b,s:s}", "bench", py.name, "loops", (json_int_t)py.loops,
					   "inner_loops", (json_int_t)(py.inner_loops ? py.inner_loops : 1), "python", version, "hooked", py.cfg->hook, "host",
#ifdef ALLOCLAB_PYHOST
					   "python3"
#else
					   "embedded"
#endif
		);
		if (py.started) {
			PyEval_RestoreThread(pt->ts);
			/* A process that failed in its warm-ups ends its census
			 * here. */
			census_stop();
			/* The profile runs every thread's work on thread 0's
			 * callable: what one iteration allocates, not how threads
			 * interleave. */
			if (py.cfg->profile && pt->bench)
				json_object_set_new(report, "profile", profile_pass(pt->bench, py.loops));
			file_ends();
			Py_CLEAR(pt->bench);
			Py_CLEAR(py.harness);
			Py_CLEAR(py.not_applicable);
			Py_CLEAR(py.missing_module);
			/* The interpreter's own blocks go back through the plugin
			 * while it still exists. */
			Py_FinalizeEx();
			py.started = 0;
		}
		t->process_report = report;
	}
	free(pt);
	t->state = NULL;
}

static const struct alloclab_python_embed embed = {
	.version = ALLOCLAB_PYTHON_EMBED_VERSION,
	.prepare = embed_prepare,
	.run = embed_run,
	.finish = embed_finish,
};

__attribute__((visibility("default"))) const struct alloclab_python_embed *alloclab_python_embed(void)
{
	return &embed;
}
