/*
 * The python workload's interpreter: Debian's libpython3.11 embedded in the
 * worker, with the plugin as CPython's allocator. See embed.h and
 * docs/python.md.
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
#include "hash.h"
#include "resident.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

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

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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
		double t0 = now_s(), own = 0;
		if (run(loops, fn, &own, err, err_len) != 0) {
			size_t used = strlen(err);
			snprintf(err + used, err_len - used, " (while calibrating loops)");
			return -1;
		}
		/* pyperf's rule on the time the benchmark reports, where it does. */
		if ((own > 0 ? own : now_s() - t0) >= target || loops >= (1ull << 32)) {
			py.loops = loops;
			return 0;
		}
	}
}

/* ---- the allocation profile ---- */

/* Request sizes: obmalloc's 32 classes of 16 bytes up to 512, then powers
 * of two up to 1 MiB, then the rest. */
#define SMALL_CLASSES 32
#define LARGE_BUCKETS 12 /* <=1K, <=2K, ... <=1M, more */
enum { OP_MALLOC, OP_CALLOC, OP_REALLOC, OP_FREE, NOPS };
static const char *const op_names[NOPS] = {"malloc", "calloc", "realloc", "free"};
static const char *const domain_names[3] = {"raw", "mem", "obj"};

/* Blocks live: address -> size (open addressing, linear probing,
 * tombstones as size SIZE_MAX), with their bytes and count and the most
 * of each. Mapped, not from the C library's heap, which the system plugin
 * shares with CPython. */
struct block_map {
	uintptr_t *keys;
	size_t *sizes, cap, used;
	uint64_t live_bytes, live_blocks, peak_bytes, peak_blocks, foreign_frees;
};

struct profile {
	PyMemAllocatorEx inner[3];
	uint64_t calls[3][NOPS];
	uint64_t small[SMALL_CLASSES], large[LARGE_BUCKETS];
	struct block_map map; /* blocks allocated during the pass */
	pthread_mutex_t lock; /* raw may be called without the GIL */
};

static struct profile prof;

/* The slot holding key, or the empty one where it would go. */
static size_t slot_of(const struct block_map *m, uintptr_t key)
{
	uint64_t h = (uint64_t)key * ALLOCLAB_GOLDEN_GAMMA;
	size_t s = (size_t)(h >> 20) & (m->cap - 1);

	while (m->keys[s] && m->keys[s] != key)
		s = (s + 1) & (m->cap - 1);
	return s;
}

static void *map_pages(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* Doubles the table; 0, or -1 out of memory (the map as it was). */
static int map_grow(struct block_map *m)
{
	struct block_map old = *m;

	m->cap = old.cap ? old.cap * 2 : 1u << 16;
	m->keys = map_pages(m->cap * sizeof *m->keys);
	m->sizes = map_pages(m->cap * sizeof *m->sizes);
	if (m->keys == NULL || m->sizes == NULL) {
		if (m->keys)
			munmap(m->keys, m->cap * sizeof *m->keys);
		if (m->sizes)
			munmap(m->sizes, m->cap * sizeof *m->sizes);
		*m = old;
		return -1;
	}
	m->used = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i] && old.sizes[i] != SIZE_MAX) {
			size_t s = slot_of(m, old.keys[i]);
			m->keys[s] = old.keys[i];
			m->sizes[s] = old.sizes[i];
			m->used++;
		}
	if (old.cap) {
		munmap(old.keys, old.cap * sizeof *old.keys);
		munmap(old.sizes, old.cap * sizeof *old.sizes);
	}
	return 0;
}

static void map_free(struct block_map *m)
{
	if (m->cap) {
		munmap(m->keys, m->cap * sizeof *m->keys);
		munmap(m->sizes, m->cap * sizeof *m->sizes);
	}
	memset(m, 0, sizeof *m);
}

/* The resident bytes of the map's tables: the harness's own memory. */
static uint64_t map_resident(const struct block_map *m)
{
	return alloclab_resident_bytes(m->keys, m->cap * sizeof *m->keys) +
	       alloclab_resident_bytes(m->sizes, m->cap * sizeof *m->sizes);
}

static void map_alloc(struct block_map *m, void *block, size_t size)
{
	size_t s;

	if (block == NULL || ((m->used + 1) * 2 > m->cap && map_grow(m) != 0))
		return;
	s = slot_of(m, (uintptr_t)block);
	if (m->keys[s] == 0) {
		m->used++;
	} else if (m->sizes[s] != SIZE_MAX) {
		/* Handed out again without a free seen (a free by a way that
		 * is not wrapped): the old block is gone. */
		m->live_bytes -= m->sizes[s];
		m->live_blocks--;
	}
	m->keys[s] = (uintptr_t)block;
	m->sizes[s] = size;
	m->live_bytes += size;
	m->live_blocks++;
	if (m->live_bytes > m->peak_bytes)
		m->peak_bytes = m->live_bytes;
	if (m->live_blocks > m->peak_blocks)
		m->peak_blocks = m->live_blocks;
}

static void map_release(struct block_map *m, void *block)
{
	size_t s;

	if (block == NULL || m->cap == 0)
		return;
	s = slot_of(m, (uintptr_t)block);
	if (m->keys[s] == 0 || m->sizes[s] == SIZE_MAX) {
		m->foreign_frees++; /* allocated before the map began */
		return;
	}
	m->live_bytes -= m->sizes[s];
	m->live_blocks--;
	m->sizes[s] = SIZE_MAX;
}

static void note_alloc(void *block, size_t size)
{
	if (block == NULL)
		return;
	if (size <= 512) {
		prof.small[size ? (size - 1) / 16 : 0]++;
	} else {
		unsigned b = 0;
		while (b + 1 < LARGE_BUCKETS && size > (size_t)1024 << b)
			b++;
		prof.large[b]++;
	}
	map_alloc(&prof.map, block, size);
}

static void note_free(void *block)
{
	map_release(&prof.map, block);
}

/* CPython's obmalloc serves a large request from the raw domain, through
 * the allocator table: a counting wrapper around both domains would see
 * it twice (and count its block twice). Only a thread's outermost call
 * counts; a call inside it goes straight through. */
static __thread int nested;

static void *prof_malloc(void *ctx, size_t size)
{
	int d = (int)(intptr_t)ctx;
	if (nested)
		return prof.inner[d].malloc(prof.inner[d].ctx, size);
	nested = 1;
	void *b = prof.inner[d].malloc(prof.inner[d].ctx, size);
	nested = 0;
	pthread_mutex_lock(&prof.lock);
	prof.calls[d][OP_MALLOC]++;
	note_alloc(b, size);
	pthread_mutex_unlock(&prof.lock);
	return b;
}

static void *prof_calloc(void *ctx, size_t nelem, size_t elsize)
{
	int d = (int)(intptr_t)ctx;
	if (nested)
		return prof.inner[d].calloc(prof.inner[d].ctx, nelem, elsize);
	nested = 1;
	void *b = prof.inner[d].calloc(prof.inner[d].ctx, nelem, elsize);
	nested = 0;
	pthread_mutex_lock(&prof.lock);
	prof.calls[d][OP_CALLOC]++;
	note_alloc(b, nelem * elsize);
	pthread_mutex_unlock(&prof.lock);
	return b;
}

static void *prof_realloc(void *ctx, void *block, size_t size)
{
	int d = (int)(intptr_t)ctx;
	if (nested)
		return prof.inner[d].realloc(prof.inner[d].ctx, block, size);
	nested = 1;
	void *b = prof.inner[d].realloc(prof.inner[d].ctx, block, size);
	nested = 0;
	pthread_mutex_lock(&prof.lock);
	prof.calls[d][OP_REALLOC]++;
	if (b) {
		note_free(block);
		note_alloc(b, size);
	}
	pthread_mutex_unlock(&prof.lock);
	return b;
}

static void prof_free(void *ctx, void *block)
{
	int d = (int)(intptr_t)ctx;
	if (nested) {
		prof.inner[d].free(prof.inner[d].ctx, block);
		return;
	}
	pthread_mutex_lock(&prof.lock);
	prof.calls[d][OP_FREE]++;
	note_free(block);
	pthread_mutex_unlock(&prof.lock);
	nested = 1;
	prof.inner[d].free(prof.inner[d].ctx, block);
	nested = 0;
}

static json_t *profile_pass(PyObject *fn, uint64_t loops)
{
	static const PyMemAllocatorDomain domains[3] = {PYMEM_DOMAIN_RAW, PYMEM_DOMAIN_MEM, PYMEM_DOMAIN_OBJ};
	json_t *calls = json_object(), *small = json_array(), *large = json_array(), *report;
	uint64_t allocs = 0;
	PyObject *r;

	memset(&prof, 0, sizeof prof);
	pthread_mutex_init(&prof.lock, NULL);
	map_grow(&prof.map);
	for (int d = 0; d < 3; d++) {
		PyMemAllocatorEx wrap = {(void *)(intptr_t)d, prof_malloc, prof_calloc, prof_realloc, prof_free};
		PyMem_GetAllocator(domains[d], &prof.inner[d]);
		PyMem_SetAllocator(domains[d], &wrap);
	}
	r = PyObject_CallFunction(fn, "K", (unsigned long long)loops);
	for (int d = 0; d < 3; d++)
		PyMem_SetAllocator(domains[d], &prof.inner[d]);
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
			   "small_classes", small, "large_buckets", large, "peak_live_bytes",
			   (json_int_t)prof.map.peak_bytes, "peak_live_blocks", (json_int_t)prof.map.peak_blocks,
			   "frees_of_earlier_blocks", (json_int_t)prof.map.foreign_frees, "allocations_per_iteration",
			   (double)allocs / (double)loops);
	map_free(&prof.map);
	pthread_mutex_destroy(&prof.lock);
	return report;
}

/* ---- the census: what the interpreter holds, in the warm-ups ---- */

/* From the interpreter's start to the end of the last warm-up, counting
 * wrappers go around each domain's allocator (the plugin's hooks, or
 * CPython's own): every block with its size, so that what the program
 * holds is known exactly; a warm-up says what it held at its end and at
 * most (workload.h), for the framework's fragmentation. They come off
 * before the first measured value, whose loops are calibrated again
 * without them: the measured values pay nothing. */
static struct {
	PyMemAllocatorEx inner[3];
	struct block_map map;
	pthread_mutex_t lock; /* raw may be called without the GIL */
	struct alloclab_live *live; /* thread 0's counter, written under the lock */
	int on;
} census = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void census_said(void)
{
	__atomic_store_n((uint64_t *)&census.live->bytes, census.map.live_bytes, __ATOMIC_RELAXED);
	__atomic_store_n((uint64_t *)&census.live->blocks, census.map.live_blocks, __ATOMIC_RELAXED);
}

static void *census_malloc(void *ctx, size_t size)
{
	int d = (int)(intptr_t)ctx;
	if (nested)
		return census.inner[d].malloc(census.inner[d].ctx, size);
	nested = 1;
	void *b = census.inner[d].malloc(census.inner[d].ctx, size);
	nested = 0;
	pthread_mutex_lock(&census.lock);
	map_alloc(&census.map, b, size);
	census_said();
	pthread_mutex_unlock(&census.lock);
	return b;
}

static void *census_calloc(void *ctx, size_t nelem, size_t elsize)
{
	int d = (int)(intptr_t)ctx;
	if (nested)
		return census.inner[d].calloc(census.inner[d].ctx, nelem, elsize);
	nested = 1;
	void *b = census.inner[d].calloc(census.inner[d].ctx, nelem, elsize);
	nested = 0;
	pthread_mutex_lock(&census.lock);
	map_alloc(&census.map, b, nelem * elsize);
	census_said();
	pthread_mutex_unlock(&census.lock);
	return b;
}

static void *census_realloc(void *ctx, void *block, size_t size)
{
	int d = (int)(intptr_t)ctx;
	if (nested)
		return census.inner[d].realloc(census.inner[d].ctx, block, size);
	nested = 1;
	void *b = census.inner[d].realloc(census.inner[d].ctx, block, size);
	nested = 0;
	pthread_mutex_lock(&census.lock);
	if (b) {
		map_release(&census.map, block);
		map_alloc(&census.map, b, size);
	}
	census_said();
	pthread_mutex_unlock(&census.lock);
	return b;
}

static void census_free(void *ctx, void *block)
{
	int d = (int)(intptr_t)ctx;
	if (nested) {
		census.inner[d].free(census.inner[d].ctx, block);
		return;
	}
	pthread_mutex_lock(&census.lock);
	map_release(&census.map, block);
	census_said();
	pthread_mutex_unlock(&census.lock);
	nested = 1;
	census.inner[d].free(census.inner[d].ctx, block);
	nested = 0;
}

static const PyMemAllocatorDomain all_domains[3] = {PYMEM_DOMAIN_RAW, PYMEM_DOMAIN_MEM, PYMEM_DOMAIN_OBJ};

/* Around whatever each domain has now (after the plugin's hooks and any
 * debug hooks: the sizes counted are the program's requests). */
static void census_start(struct alloclab_live *live)
{
	if (map_grow(&census.map) != 0)
		return; /* no census: the cell says nothing of what it holds */
	census.live = live;
	for (int d = 0; d < 3; d++) {
		PyMemAllocatorEx wrap = {(void *)(intptr_t)d, census_malloc, census_calloc, census_realloc, census_free};
		PyMem_GetAllocator(all_domains[d], &census.inner[d]);
		PyMem_SetAllocator(all_domains[d], &wrap);
	}
	census.on = 1;
}

static uint64_t census_peak(void)
{
	pthread_mutex_lock(&census.lock);
	uint64_t most = census.map.peak_bytes;
	pthread_mutex_unlock(&census.lock);
	return most;
}

static void census_stop(void)
{
	if (!census.on)
		return;
	for (int d = 0; d < 3; d++)
		PyMem_SetAllocator(all_domains[d], &census.inner[d]);
	census.on = 0;
	map_free(&census.map);
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
		if (t->index == 0 && census.on && !t->warmup && pt->bench) {
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
	const int counted = t->index == 0 && census.on;
	if (counted) {
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
	if (counted) {
		pthread_mutex_lock(&census.lock);
		alloclab_live_end(t, census.map.live_bytes);
		alloclab_live_peak(t, census.map.peak_bytes);
		alloclab_live_own(t, map_resident(&census.map));
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
		json_t *report = json_pack("{s:s,s:I,s:s,s:b,s:s}", "bench", py.name, "loops", (json_int_t)py.loops,
					   "python", version, "hooked", py.cfg->hook, "host",
#ifdef ALLOCLAB_PYHOST
					   "python3"
#else
					   "embedded"
#endif
		);
		if (py.started) {
			PyEval_RestoreThread(pt->ts);
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
