/*
 * tcmalloc: gperftools' TCMalloc (the "minimal" build Debian ships as
 * libtcmalloc-minimal4), through its tc_* entry points, tc_free_sized
 * included.
 *
 * The plugin needs no development package: it opens the library itself
 * (RTLD_LOCAL, so its plain malloc never replaces the process's, and its
 * hooks stay its own) and looks the entry points up there, checking that
 * each really is the library's (not glibc's, found first by name).
 */
#define _GNU_SOURCE 1
#include <alloclab/plugin.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIBRARY "libtcmalloc_minimal.so.4"

static void *(*tc_malloc_fn)(size_t);
static void (*tc_free_fn)(void *);
static void (*tc_free_sized_fn)(void *, size_t);
static void *(*tc_calloc_fn)(size_t, size_t);
static void *(*tc_realloc_fn)(void *, size_t);
static void *(*tc_memalign_fn)(size_t, size_t);
static size_t (*tc_malloc_size_fn)(void *);
static const char *(*tc_version_fn)(int *, int *, const char **);
static char version[96] = "gperftools tcmalloc (not loaded yet)";
static void (*release_fn)(void);
static int (*property_fn)(const char *name, size_t *value);

/* gperftools' numeric properties: its own names, then the standard ones
 * made of them. */
static int tcmalloc_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	static const char *const names[] = {
		"generic.current_allocated_bytes", "generic.heap_size",
		"tcmalloc.pageheap_free_bytes",    "tcmalloc.pageheap_unmapped_bytes",
		"tcmalloc.central_cache_free_bytes", "tcmalloc.transfer_cache_free_bytes",
		"tcmalloc.thread_cache_free_bytes",
	};
	size_t v[sizeof names / sizeof names[0]] = {0};
	(void)instance;
	if (property_fn == NULL)
		return -ENOTSUP;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (property_fn(names[i], &v[i]))
			emit(arg, names[i], v[i]);
	emit(arg, ALLOCLAB_STAT_IN_USE, v[0]);
	emit(arg, ALLOCLAB_STAT_FREE, v[2] + v[4] + v[5] + v[6]);
	emit(arg, ALLOCLAB_STAT_RESIDENT, v[1] > v[3] ? v[1] - v[3] : 0);
	emit(arg, ALLOCLAB_STAT_RELEASED, v[3]);
	return 0;
}

static int tcmalloc_trim(void *instance)
{
	(void)instance;
	if (release_fn == NULL)
		return -ENOTSUP;
	release_fn();
	return 0;
}

static int tcmalloc_create(const char *options, void **instance, char *err, size_t err_len)
{
	static void *handle;
	static const struct {
		const char *name;
		void **slot;
	} entries[] = {
		{"tc_malloc", (void **)&tc_malloc_fn},       {"tc_free", (void **)&tc_free_fn},
		{"tc_free_sized", (void **)&tc_free_sized_fn}, {"tc_calloc", (void **)&tc_calloc_fn},
		{"tc_realloc", (void **)&tc_realloc_fn},     {"tc_memalign", (void **)&tc_memalign_fn},
		{"tc_malloc_size", (void **)&tc_malloc_size_fn}, {"tc_version", (void **)&tc_version_fn},
	};

	if (options[0] != '\0') {
		snprintf(err, err_len, "takes no options (got '%s'); use TCMALLOC_* environment variables", options);
		return -EINVAL;
	}
	/* tcmalloc takes memory with sbrk first, and so does glibc's main
	 * arena, which the host and the workloads' own bookkeeping use on the
	 * main thread (workload thread 0). sbrk is not thread-safe: two
	 * allocators moving the break at once hand out the same pages, and a
	 * later break below them unmaps the other's blocks. In a program
	 * tcmalloc replaces glibc and owns the break alone; beside glibc it
	 * must leave it to glibc. Read once, when the library loads. */
	if (handle == NULL)
		setenv("TCMALLOC_SKIP_SBRK", "true", 1);
	if (handle == NULL && (handle = dlopen(LIBRARY, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		snprintf(err, err_len, "cannot load %s: %s (Debian package libtcmalloc-minimal4)", LIBRARY, dlerror());
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
		Dl_info info;
		*entries[i].slot = dlsym(handle, entries[i].name);
		if (*entries[i].slot == NULL || dladdr(*entries[i].slot, &info) == 0 || info.dli_fname == NULL ||
		    strstr(info.dli_fname, "tcmalloc") == NULL) {
			snprintf(err, err_len, "%s has no %s of its own", LIBRARY, entries[i].name);
			return -ENOENT;
		}
	}
	/* Its C API's release of the page heap's free spans (optional). */
	void *release = dlsym(handle, "MallocExtension_ReleaseFreeMemory");
	memcpy(&release_fn, &release, sizeof release);
	void *property = dlsym(handle, "MallocExtension_GetNumericProperty");
	memcpy(&property_fn, &property, sizeof property);
	int major = 0, minor = 0;
	const char *patch = "";
	tc_version_fn(&major, &minor, &patch);
	snprintf(version, sizeof version, "gperftools tcmalloc %d.%d%s", major, minor, patch ? patch : "");
	*instance = NULL;
	return 0;
}

static void tcmalloc_destroy(void *instance) { (void)instance; }

static void *tcmalloc_malloc(void *instance, size_t size)
{
	(void)instance;
	return tc_malloc_fn(size);
}

static void tcmalloc_free(void *instance, void *block)
{
	(void)instance;
	tc_free_fn(block);
}

static void tcmalloc_free_sized(void *instance, void *block, size_t size)
{
	(void)instance;
	tc_free_sized_fn(block, size);
}

static void *tcmalloc_calloc(void *instance, size_t nmemb, size_t size)
{
	(void)instance;
	return tc_calloc_fn(nmemb, size);
}

static void *tcmalloc_realloc(void *instance, void *block, size_t size)
{
	(void)instance;
	return tc_realloc_fn(block, size);
}

static void *tcmalloc_aligned_alloc(void *instance, size_t alignment, size_t size)
{
	(void)instance;
	return tc_memalign_fn(alignment, size);
}

static size_t tcmalloc_usable_size(void *instance, void *block)
{
	(void)instance;
	return tc_malloc_size_fn(block);
}

/* malloc and free only pass requests on: a workload may call the
 * allocator's own entry points, as a program does. */
static int tcmalloc_entry_points(void *instance, void *(**malloc_out)(size_t), void (**free_out)(void *))
{
	(void)instance;
	*malloc_out = tc_malloc_fn;
	*free_out = tc_free_fn;
	return 0;
}

/* tcmalloc's tc_* API, what its LD_PRELOAD form serves malloc and the rest with. */
static int tcmalloc_program_api(void *instance, struct alloclab_program_api *api)
{
	(void)instance;
	api->malloc = tc_malloc_fn;
	api->free = tc_free_fn;
	api->calloc = tc_calloc_fn;
	api->realloc = tc_realloc_fn;
	api->aligned_alloc = tc_memalign_fn;
	api->usable_size = tc_malloc_size_fn;
	return 0;
}

static const struct alloclab_plugin tcmalloc_plugin = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "tcmalloc",
	.version = version,
	.description = "gperftools TCMalloc (libtcmalloc-minimal4) through tc_malloc/tc_free_sized",
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_SIZED_FREE |
		ALLOCLAB_CAP_ALIGNED_ALLOC | ALLOCLAB_CAP_USABLE_SIZE | ALLOCLAB_CAP_CALLOC | ALLOCLAB_CAP_REALLOC |
		ALLOCLAB_CAP_STATS,
	/* Requests of 8 bytes or less get 8-byte alignment (measured by
	 * alloclab check): its honest minimum. */
	.min_align = 8,
	.create = tcmalloc_create,
	.destroy = tcmalloc_destroy,
	.malloc = tcmalloc_malloc,
	.free = tcmalloc_free,
	.calloc = tcmalloc_calloc,
	.realloc = tcmalloc_realloc,
	.aligned_alloc = tcmalloc_aligned_alloc,
	.usable_size = tcmalloc_usable_size,
	.free_sized = tcmalloc_free_sized,
	.entry_points = tcmalloc_entry_points,
	.program_api = tcmalloc_program_api,
	.trim = tcmalloc_trim,
	.stats = tcmalloc_stats,
};

ALLOCLAB_PLUGIN_DEFINE(tcmalloc_plugin)
