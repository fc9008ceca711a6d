/*
 * jemalloc: Debian's libjemalloc2 (5.3).
 *
 * Which API. Measured here in a churn loop: malloc/free about 13 ns per pair,
 * mallocx/dallocx about 19 ns (docs/background/platform.md), because the
 * standard entry points have a dedicated fast path and the extended ones
 * decode flags first. So the default, api=std, calls jemalloc's own
 * malloc/free; api=ext selects mallocx/dallocx for comparison.
 *
 * Reaching jemalloc's malloc. libjemalloc exports plain malloc/free. The
 * host loads this plugin RTLD_LOCAL, and a plugin's references are resolved
 * in the global scope first, so a plain call to malloc() here would reach
 * glibc. Instead the standard entry points are looked up in libjemalloc's own
 * handle with dlsym, and create() verifies with dladdr that they really live
 * in libjemalloc. The extended names (mallocx, sdallocx, ...) are unique to
 * jemalloc and are linked directly.
 *
 * Loading. libjemalloc uses initial-exec TLS; alloclab raises glibc's
 * optional static TLS before it starts (framework/plugin/static_tls.c), otherwise
 * dlopen fails with "cannot allocate memory in static TLS block".
 */
#define _GNU_SOURCE 1 /* dladdr, RTLD_NOLOAD */
#include <alloclab/plugin.h>
#include <alloclab/plugin_options.h>

#include <dlfcn.h>
#include <errno.h>
#include <jemalloc/jemalloc.h>
#include <stdio.h>
#include <string.h>

#define JEMALLOC_SONAME "libjemalloc.so.2"

/* Resolved once in create(); read-only afterwards, so threads may share them. */
static void *(*je_std_malloc)(size_t);
static void (*je_std_free)(void *);
static void *(*je_std_calloc)(size_t, size_t);
static void *(*je_std_realloc)(void *, size_t);
static void *(*je_std_aligned_alloc)(size_t, size_t);
static size_t (*je_std_usable_size)(void *);
static int je_use_ext;

static int resolve(void *handle, const char *name, void **out, char *err, size_t err_len)
{
	Dl_info info;
	void *sym = dlsym(handle, name);

	if (sym == NULL || dladdr(sym, &info) == 0 || info.dli_fname == NULL ||
	    strstr(info.dli_fname, "jemalloc") == NULL) {
		snprintf(err, err_len, "%s in %s does not resolve to jemalloc (got %s)", name, JEMALLOC_SONAME,
			 sym && dladdr(sym, &info) && info.dli_fname ? info.dli_fname : "nothing");
		return -ENOENT;
	}
	*out = sym;
	return 0;
}

static int jemalloc_create(const char *options, void **instance, char *err, size_t err_len)
{
	const char *cursor = options;
	struct alloclab_option opt;
	void *handle;
	int rc;

	je_use_ext = 0;
	while ((rc = alloclab_option_next(&cursor, &opt)) > 0) {
		if (!alloclab_option_is(&opt, "api"))
			return alloclab_option_unknown(&opt, err, err_len);
		if (alloclab_option_value_is(&opt, "ext"))
			je_use_ext = 1;
		else if (!alloclab_option_value_is(&opt, "std"))
			return alloclab_option_bad_value(&opt, "std or ext", err, err_len);
	}
	if (rc < 0)
		return alloclab_option_malformed(cursor, err, err_len);

	/* Already loaded as this plugin's dependency: RTLD_NOLOAD just gives
	 * us its handle, whose lookups start in libjemalloc itself. */
	handle = dlopen(JEMALLOC_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (handle == NULL) {
		snprintf(err, err_len, "cannot open %s: %s", JEMALLOC_SONAME, dlerror());
		return -ENOENT;
	}
	if ((rc = resolve(handle, "malloc", (void **)&je_std_malloc, err, err_len)) ||
	    (rc = resolve(handle, "free", (void **)&je_std_free, err, err_len)) ||
	    (rc = resolve(handle, "calloc", (void **)&je_std_calloc, err, err_len)) ||
	    (rc = resolve(handle, "realloc", (void **)&je_std_realloc, err, err_len)) ||
	    (rc = resolve(handle, "aligned_alloc", (void **)&je_std_aligned_alloc, err, err_len)) ||
	    (rc = resolve(handle, "malloc_usable_size", (void **)&je_std_usable_size, err, err_len)))
		return rc;
	*instance = NULL;
	return 0;
}

static void jemalloc_destroy(void *instance) { (void)instance; }

static void *jemalloc_malloc(void *instance, size_t size)
{
	(void)instance;
	if (je_use_ext)
		/* mallocx(0) is undefined; the ABI wants a unique block. */
		return mallocx(size ? size : 1, 0);
	return je_std_malloc(size);
}

static void jemalloc_free(void *instance, void *block)
{
	(void)instance;
	if (je_use_ext) {
		if (block)
			dallocx(block, 0);
		return;
	}
	je_std_free(block);
}

static void *jemalloc_calloc(void *instance, size_t nmemb, size_t size)
{
	(void)instance;
	return je_std_calloc(nmemb, size);
}

static void *jemalloc_realloc(void *instance, void *block, size_t size)
{
	(void)instance;
	return je_std_realloc(block, size);
}

static void *jemalloc_aligned_alloc(void *instance, size_t alignment, size_t size)
{
	(void)instance;
	return mallocx(size ? size : 1, MALLOCX_ALIGN(alignment));
}

static size_t jemalloc_usable_size(void *instance, void *block)
{
	(void)instance;
	return sallocx(block, 0);
}

static void jemalloc_free_sized(void *instance, void *block, size_t size)
{
	(void)instance;
	if (block)
		sdallocx(block, size ? size : 1, 0);
}

/* Every arena's dirty and muzzy pages purged at once (MALLCTL_ARENAS_ALL
 * is 4096), and the thread's cache flushed first so that its blocks
 * count as free. */
static int jemalloc_trim(void *instance)
{
	(void)instance;
	mallctl("thread.tcache.flush", NULL, NULL, NULL, 0);
	return mallctl("arena.4096.purge", NULL, NULL, NULL, 0) == 0 ? 0 : -ENOTSUP;
}

static int jemalloc_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	static const char *const names[] = {"stats.allocated", "stats.active", "stats.metadata",
					    "stats.resident", "stats.mapped", "stats.retained"};
	uint64_t epoch = 1;
	size_t len = sizeof epoch;
	(void)instance;

	/* Statistics are a snapshot refreshed by writing the epoch. */
	if (mallctl("epoch", &epoch, &len, &epoch, len) != 0)
		return -ENOTSUP;
	size_t got[sizeof names / sizeof names[0]] = {0};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		size_t value, value_len = sizeof value;
		if (mallctl(names[i], &value, &value_len, NULL, 0) == 0) {
			emit(arg, names[i] + strlen("stats."), value);
			got[i] = value;
		}
	}
	/* allocated, active, metadata, resident, mapped, retained: what is
	 * resident and neither the program's nor metadata is held free
	 * (partly used pages and dirty pages not yet purged). */
	emit(arg, ALLOCLAB_STAT_IN_USE, got[0]);
	emit(arg, ALLOCLAB_STAT_METADATA, got[2]);
	emit(arg, ALLOCLAB_STAT_RESIDENT, got[3]);
	emit(arg, ALLOCLAB_STAT_FREE, got[3] > got[0] + got[2] ? got[3] - got[0] - got[2] : 0);
	emit(arg, ALLOCLAB_STAT_RELEASED, got[5]);
	size_t thp = 0, thp_len = sizeof thp;
	if (mallctl("stats.metadata_thp", &thp, &thp_len, NULL, 0) == 0)
		emit(arg, "metadata_thp", thp);
	return 0;
}

static char jemalloc_version_text[96];

/* malloc and free only pass requests on: a workload may call the
 * allocator's own entry points, as a program does. */
static int jemalloc_entry_points(void *instance, void *(**malloc_out)(size_t), void (**free_out)(void *))
{
	(void)instance;
	if (je_use_ext)
		return -ENOTSUP; /* mallocx and dallocx: the plugin's own work */
	*malloc_out = je_std_malloc;
	*free_out = je_std_free;
	return 0;
}

/* The standard API as a program preloading libjemalloc calls it. */
static int jemalloc_program_api(void *instance, struct alloclab_program_api *api)
{
	(void)instance;
	if (je_use_ext)
		return -ENOTSUP;
	api->malloc = je_std_malloc;
	api->free = je_std_free;
	api->calloc = je_std_calloc;
	api->realloc = je_std_realloc;
	api->aligned_alloc = je_std_aligned_alloc;
	api->usable_size = je_std_usable_size;
	return 0;
}

static const struct alloclab_plugin jemalloc_plugin = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "jemalloc",
	.version = jemalloc_version_text,
	.description = "jemalloc, standard API by default (api=ext for mallocx/dallocx)",
	.options_help = "api=std|ext: malloc/free (default, faster here) or mallocx/dallocx",
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_CALLOC |
		ALLOCLAB_CAP_REALLOC | ALLOCLAB_CAP_ALIGNED_ALLOC | ALLOCLAB_CAP_USABLE_SIZE |
		ALLOCLAB_CAP_SIZED_FREE | ALLOCLAB_CAP_STATS,
	/* Requests below 16 bytes come from an 8-byte size class aligned
	 * to 8 (measured by the plugins test); 16 and up are 16-aligned. */
	.min_align = 8,
	.create = jemalloc_create,
	.destroy = jemalloc_destroy,
	.malloc = jemalloc_malloc,
	.free = jemalloc_free,
	.calloc = jemalloc_calloc,
	.realloc = jemalloc_realloc,
	.aligned_alloc = jemalloc_aligned_alloc,
	.usable_size = jemalloc_usable_size,
	.free_sized = jemalloc_free_sized,
	.stats = jemalloc_stats,
	.entry_points = jemalloc_entry_points,
	.program_api = jemalloc_program_api,
	.trim = jemalloc_trim,
};

ALLOCLAB_PLUGIN_EXPORT const struct alloclab_plugin *alloclab_plugin_entry(uint32_t host_abi_version);
ALLOCLAB_PLUGIN_EXPORT const struct alloclab_plugin *alloclab_plugin_entry(uint32_t host_abi_version)
{
	const char *v = "unknown";
	size_t len = sizeof v;
	(void)host_abi_version;
	mallctl("version", (void *)&v, &len, NULL, 0);
	snprintf(jemalloc_version_text, sizeof jemalloc_version_text, "1.0 (jemalloc %.64s)", v);
	return &jemalloc_plugin;
}
