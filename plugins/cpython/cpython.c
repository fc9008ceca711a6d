/*
 * cpython: the real obmalloc, CPython's own, as Debian's libpython3.11
 * builds it (radix tree, 1 MiB arenas, 16 KiB pools): the reference the
 * obmalloc-* plugins are measured against. It calls PyObject_Malloc,
 * PyObject_Calloc, PyObject_Realloc and PyObject_Free, which work without
 * initialising the interpreter (docs/obmalloc.md).
 *
 * obmalloc keeps its state in libpython's globals and is not thread-safe:
 * mode=none (the default) declares no thread-safety, so the host runs it
 * with one thread; mode=gil puts one process-wide lock around every call,
 * as obmalloc-*:mode=gil does.
 */
#define _GNU_SOURCE 1
#include <alloclab/plugin.h>
#include <alloclab/plugin_options.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* From libpython3.11 (Include/cpython/objimpl.h); declared here so that
 * Python.h's macros stay out of the plugin. */
void *PyObject_Malloc(size_t size);
void *PyObject_Calloc(size_t nelem, size_t elsize);
void *PyObject_Realloc(void *ptr, size_t new_size);
void PyObject_Free(void *ptr);
int _PyObject_DebugMallocStats(FILE *out);
extern const char *Py_GetVersion(void);

static pthread_mutex_t gil = PTHREAD_MUTEX_INITIALIZER;
static int use_gil;

static int cpython_create(const char *options, void **instance, char *err, size_t err_len)
{
	const char *cursor = options;
	struct alloclab_option opt;
	int rc;

	use_gil = 0;
	while ((rc = alloclab_option_next(&cursor, &opt)) > 0) {
		if (!alloclab_option_is(&opt, "mode"))
			return alloclab_option_unknown(&opt, err, err_len);
		if (alloclab_option_value_is(&opt, "gil"))
			use_gil = 1;
		else if (!alloclab_option_value_is(&opt, "none"))
			return alloclab_option_bad_value(&opt, "none or gil (CPython's obmalloc has one global state)",
							 err, err_len);
	}
	if (rc < 0)
		return alloclab_option_malformed(cursor, err, err_len);
	*instance = NULL;
	return 0;
}

static void cpython_destroy(void *instance) { (void)instance; }

#define LOCKED(expr)                                   \
	do {                                           \
		if (use_gil)                           \
			pthread_mutex_lock(&gil);      \
		expr;                                  \
		if (use_gil)                           \
			pthread_mutex_unlock(&gil);    \
	} while (0)

static void *cpython_malloc(void *instance, size_t size)
{
	void *p;
	(void)instance;
	LOCKED(p = PyObject_Malloc(size));
	return p;
}

static void cpython_free(void *instance, void *block)
{
	(void)instance;
	LOCKED(PyObject_Free(block));
}

static void *cpython_calloc(void *instance, size_t nmemb, size_t size)
{
	void *p;
	(void)instance;
	LOCKED(p = PyObject_Calloc(nmemb, size));
	return p;
}

static void *cpython_realloc(void *instance, void *block, size_t size)
{
	void *p;
	(void)instance;
	LOCKED(p = PyObject_Realloc(block, size));
	return p;
}

/* Turns "1,234,567" into 1234567. */
static uint64_t parse_grouped(const char *s)
{
	uint64_t v = 0;
	for (; *s; s++)
		if (*s >= '0' && *s <= '9')
			v = v * 10 + (uint64_t)(*s - '0');
		else if (*s != ',' && *s != ' ')
			break;
	return v;
}

/* CPython prints its statistics; read them back into named values. */
static int cpython_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	static const struct {
		const char *label, *name;
	} labels[] = {
		{"# arenas allocated total", "arenas.allocated_total"},
		{"# arenas reclaimed", "arenas.reclaimed"},
		{"# arenas highwater mark", "arenas.highwater"},
		{"# arenas allocated current", "arenas.current"},
		{"# bytes in allocated blocks", "bytes.allocated_blocks"},
		{"# bytes in available blocks", "bytes.available_blocks"},
		{"# bytes lost to pool headers", "bytes.pool_headers"},
		{"# bytes lost to quantization", "bytes.quantization"},
		{"# bytes lost to arena alignment", "bytes.arena_alignment"},
	};
	static const struct {
		const char *label, *name;
	} map_labels[] = {
		{"# arena map mid nodes", "radix.mid_nodes"},
		{"# arena map bot nodes", "radix.leaf_nodes"},
		{"# bytes lost to arena map root", "radix.bytes_root"},
		{"# bytes lost to arena map mid", "radix.bytes_mid"},
		{"# bytes lost to arena map bot", "radix.bytes_leaf"},
	};
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	int seen_total = 0;
	FILE *f = open_memstream(&text, &len);
	(void)instance;

	if (f == NULL)
		return -ENOMEM;
	LOCKED(_PyObject_DebugMallocStats(f));
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		unsigned long long a, b, c, d, e;
		char name[64];

		if (sscanf(line, "Small block threshold = %llu, in %llu size classes", &a, &b) == 2) {
			emit(arg, "config.small_threshold", a);
			emit(arg, "config.size_classes", b);
			continue;
		}
		/* A row of the class table: class, size, pools, in use, available. */
		if (sscanf(line, "%llu %llu %llu %llu %llu", &a, &b, &c, &d, &e) == 5 && eq == NULL) {
			snprintf(name, sizeof name, "class.%llu.size", a);
			emit(arg, name, b);
			snprintf(name, sizeof name, "class.%llu.pools", a);
			emit(arg, name, c);
			snprintf(name, sizeof name, "class.%llu.blocks_in_use", a);
			emit(arg, name, d);
			snprintf(name, sizeof name, "class.%llu.blocks_available", a);
			emit(arg, name, e);
			continue;
		}
		if (sscanf(line, "%llu arenas * %llu bytes/arena", &a, &b) == 2)
			emit(arg, "config.arena_size", b);
		if (sscanf(line, "%llu unused pools * %llu bytes", &a, &b) == 2)
			emit(arg, "config.pool_size", b);
		if (eq == NULL)
			continue;
		/* The first Total is the arenas'; the arena map's follows. */
		if (strncmp(line, "Total", 5) == 0) {
			emit(arg, seen_total++ ? "radix.bytes_total" : "bytes.total", parse_grouped(eq + 1));
			continue;
		}
		for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
			if (strncmp(line, labels[i].label, strlen(labels[i].label)) == 0 &&
			    (line[strlen(labels[i].label)] == ' ' || line[strlen(labels[i].label)] == '='))
				emit(arg, labels[i].name, parse_grouped(eq + 1));
		for (size_t i = 0; i < sizeof map_labels / sizeof map_labels[0]; i++)
			if (strncmp(line, map_labels[i].label, strlen(map_labels[i].label)) == 0)
				emit(arg, map_labels[i].name, parse_grouped(eq + 1));
		if (strstr(line, "unused pools *"))
			emit(arg, "pools.unused", parse_grouped(line));
		(void)e;
	}
	free(text);
	return 0;
}

static uint64_t cpython_instance_caps(void *instance)
{
	(void)instance;
	return use_gil ? ~(uint64_t)0 : ~(uint64_t)(ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE);
}

static char cpython_version[96];

static const struct alloclab_plugin cpython_plugin = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "cpython",
	.version = cpython_version,
	.description = "CPython's own obmalloc (PyObject_Malloc from libpython), the reference",
	.options_help = "mode=none|gil: no locking, one thread (default), or one global lock around every call",
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_CALLOC |
		ALLOCLAB_CAP_REALLOC | ALLOCLAB_CAP_STATS,
	.min_align = 16,
	.create = cpython_create,
	.destroy = cpython_destroy,
	.malloc = cpython_malloc,
	.free = cpython_free,
	.calloc = cpython_calloc,
	.realloc = cpython_realloc,
	.stats = cpython_stats,
	.instance_caps = cpython_instance_caps,
};

ALLOCLAB_PLUGIN_EXPORT const struct alloclab_plugin *alloclab_plugin_entry(uint32_t host_abi_version);
ALLOCLAB_PLUGIN_EXPORT const struct alloclab_plugin *alloclab_plugin_entry(uint32_t host_abi_version)
{
	const char *v = Py_GetVersion();
	(void)host_abi_version;
	snprintf(cpython_version, sizeof cpython_version, "1.0 (CPython %.*s)", (int)strcspn(v, " "), v);
	return &cpython_plugin;
}
