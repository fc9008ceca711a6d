/*
 * cpython: the real obmalloc, CPython's own, as Debian's libpython3.11
 * builds it (radix tree, 1 MiB arenas, 16 KiB pools): the reference the
 * obmalloc-* plugins are measured against. It calls PyObject_Malloc,
 * PyObject_Calloc, PyObject_Realloc and PyObject_Free, which work without
 * initialising the interpreter (docs/background/obmalloc.md).
 *
 * obmalloc keeps its state in libpython's globals and is not thread-safe,
 * so the plugin declares no thread-safety and the host runs it with one
 * thread. It is the reference: each op is the call to CPython's function and
 * nothing more (a tail call), so it costs nothing CPython does not. For
 * threads the framework puts its own global lock around any plugin
 * (`-p cpython:gil=1`), as CPython's GIL does.
 */
#define _GNU_SOURCE 1
#include <alloclab/plugin.h>
#include <alloclab/plugin_options.h>

#include <errno.h>
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

static int cpython_create(const char *options, void **instance, char *err, size_t err_len)
{
	const char *cursor = options;
	struct alloclab_option opt;
	int rc;

	while ((rc = alloclab_option_next(&cursor, &opt)) > 0) {
		if (!alloclab_option_is(&opt, "mode"))
			return alloclab_option_unknown(&opt, err, err_len);
		if (alloclab_option_value_is(&opt, "gil")) {
			snprintf(err, err_len, "mode=gil is now the framework's: -p cpython:gil=1 puts one lock around every "
					       "call (the plugin itself adds nothing to CPython's own cost)");
			return -EINVAL;
		}
		if (!alloclab_option_value_is(&opt, "none"))
			return alloclab_option_bad_value(&opt, "none (CPython's obmalloc has one global state; for "
							 "threads use the framework's gil=1)", err, err_len);
	}
	if (rc < 0)
		return alloclab_option_malformed(cursor, err, err_len);
	*instance = NULL;
	return 0;
}

static void cpython_destroy(void *instance) { (void)instance; }

static void *cpython_malloc(void *instance, size_t size)
{
	(void)instance;
	return PyObject_Malloc(size);
}

static void cpython_free(void *instance, void *block)
{
	(void)instance;
	PyObject_Free(block);
}

static void *cpython_calloc(void *instance, size_t nmemb, size_t size)
{
	(void)instance;
	return PyObject_Calloc(nmemb, size);
}

static void *cpython_realloc(void *instance, void *block, size_t size)
{
	(void)instance;
	return PyObject_Realloc(block, size);
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
	/* For the standard names: CPython's own counts. */
	unsigned long long allocated = 0, available = 0, headers = 0, unused_bytes = 0, arenas = 0, arena_size = 0;
	FILE *f = open_memstream(&text, &len);
	(void)instance;

	if (f == NULL)
		return -ENOMEM;
	_PyObject_DebugMallocStats(f);
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
		if (sscanf(line, "%llu arenas * %llu bytes/arena", &a, &b) == 2) {
			emit(arg, "config.arena_size", b);
			arenas = a, arena_size = b;
		}
		if (sscanf(line, "%llu unused pools * %llu bytes", &a, &b) == 2) {
			emit(arg, "config.pool_size", b);
			unused_bytes = a * b;
		}
		if (eq == NULL)
			continue;
		/* The first Total is the arenas'; the arena map's follows. */
		if (strncmp(line, "Total", 5) == 0) {
			emit(arg, seen_total++ ? "radix.bytes_total" : "bytes.total", parse_grouped(eq + 1));
			continue;
		}
		for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
			if (strncmp(line, labels[i].label, strlen(labels[i].label)) == 0 &&
			    (line[strlen(labels[i].label)] == ' ' || line[strlen(labels[i].label)] == '=')) {
				unsigned long long v = parse_grouped(eq + 1);
				emit(arg, labels[i].name, v);
				if (strcmp(labels[i].name, "bytes.allocated_blocks") == 0)
					allocated = v;
				else if (strcmp(labels[i].name, "bytes.available_blocks") == 0)
					available = v;
				else if (strcmp(labels[i].name, "bytes.pool_headers") == 0)
					headers = v;
			}
		for (size_t i = 0; i < sizeof map_labels / sizeof map_labels[0]; i++)
			if (strncmp(line, map_labels[i].label, strlen(map_labels[i].label)) == 0)
				emit(arg, map_labels[i].name, parse_grouped(eq + 1));
		if (strstr(line, "unused pools *"))
			emit(arg, "pools.unused", parse_grouped(line));
		(void)e;
	}
	free(text);
	emit(arg, ALLOCLAB_STAT_IN_USE, allocated);
	emit(arg, ALLOCLAB_STAT_FREE, available + unused_bytes);
	emit(arg, ALLOCLAB_STAT_METADATA, headers);
	emit(arg, ALLOCLAB_STAT_RESIDENT, arenas * arena_size);
	return 0;
}

static char cpython_version[96];

/* malloc and free only pass requests on: a workload may call the
 * allocator's own entry points, as a program does. */
static int cpython_entry_points(void *instance, void *(**malloc_out)(size_t), void (**free_out)(void *))
{
	(void)instance;
	*malloc_out = PyObject_Malloc;
	*free_out = PyObject_Free;
	return 0;
}

static const struct alloclab_plugin cpython_plugin = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "cpython",
	.version = cpython_version,
	.description = "CPython's own obmalloc (PyObject_Malloc from libpython), the reference",
	.options_help = "mode=none: the only mode, no locking, one thread (for threads: gil=1, the framework's lock)",
	.caps = ALLOCLAB_CAP_CALLOC | ALLOCLAB_CAP_REALLOC | ALLOCLAB_CAP_STATS,
	.min_align = 16,
	.create = cpython_create,
	.destroy = cpython_destroy,
	.malloc = cpython_malloc,
	.free = cpython_free,
	.calloc = cpython_calloc,
	.realloc = cpython_realloc,
	.stats = cpython_stats,
	.entry_points = cpython_entry_points,
};

ALLOCLAB_PLUGIN_EXPORT const struct alloclab_plugin *alloclab_plugin_entry(uint32_t host_abi_version);
ALLOCLAB_PLUGIN_EXPORT const struct alloclab_plugin *alloclab_plugin_entry(uint32_t host_abi_version)
{
	const char *v = Py_GetVersion();
	(void)host_abi_version;
	snprintf(cpython_version, sizeof cpython_version, "1.0 (CPython %.*s)", (int)strcspn(v, " "), v);
	return &cpython_plugin;
}
