/*
 * system: the C library's allocator (glibc malloc on Debian), the baseline
 * every other plugin is compared against. The host itself runs on this same
 * allocator, so its bookkeeping shares the heap with the workload's blocks;
 * the host keeps that bookkeeping out of the timed region.
 */
#include <alloclab/plugin.h>

#include <errno.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

static int system_create(const char *options, void **instance, char *err, size_t err_len)
{
	if (options[0] != '\0') {
		snprintf(err, err_len, "takes no options (got '%s')", options);
		return -EINVAL;
	}
	*instance = NULL;
	return 0;
}

static void system_destroy(void *instance) { (void)instance; }

static void *system_malloc(void *instance, size_t size)
{
	(void)instance;
	return malloc(size);
}

static void system_free(void *instance, void *block)
{
	(void)instance;
	free(block);
}

static void *system_calloc(void *instance, size_t nmemb, size_t size)
{
	(void)instance;
	return calloc(nmemb, size);
}

static void *system_realloc(void *instance, void *block, size_t size)
{
	(void)instance;
	return realloc(block, size);
}

static void *system_aligned_alloc(void *instance, size_t alignment, size_t size)
{
	void *block;
	(void)instance;
	/* posix_memalign, not aligned_alloc: C11 lets aligned_alloc refuse a
	 * size that is not a multiple of the alignment, the ABI does not. */
	return posix_memalign(&block, alignment, size) == 0 ? block : NULL;
}

static size_t system_usable_size(void *instance, void *block)
{
	(void)instance;
	return malloc_usable_size(block);
}

static int system_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	struct mallinfo2 mi = mallinfo2();
	(void)instance;
	emit(arg, "bytes.arena", mi.arena);
	emit(arg, "bytes.mmapped", mi.hblkhd);
	emit(arg, "bytes.allocated", mi.uordblks);
	emit(arg, "bytes.free", mi.fordblks);
	emit(arg, "bytes.top_releasable", mi.keepcost);
	emit(arg, "chunks.mmapped", mi.hblks);
	/* mallinfo2: in use is the arenas' allocated bytes and the chunks
	 * mapped on their own; free, the arenas' free chunks. */
	emit(arg, ALLOCLAB_STAT_IN_USE, mi.uordblks + mi.hblkhd);
	emit(arg, ALLOCLAB_STAT_FREE, mi.fordblks);
	emit(arg, ALLOCLAB_STAT_RESIDENT, mi.arena + mi.hblkhd);
	return 0;
}

/* glibc returns the top of each arena and whole free pages inside them. */
static int system_trim(void *instance)
{
	(void)instance;
	malloc_trim(0);
	return 0;
}

static char system_version[64];

/* malloc and free only pass requests on: a workload may call the
 * allocator's own entry points, as a program does. */
static int system_entry_points(void *instance, void *(**malloc_out)(size_t), void (**free_out)(void *))
{
	(void)instance;
	*malloc_out = malloc;
	*free_out = free;
	return 0;
}

/* glibc's own C API. */
static int system_program_api(void *instance, struct alloclab_program_api *api)
{
	(void)instance;
	api->malloc = malloc;
	api->free = free;
	api->calloc = calloc;
	api->realloc = realloc;
	api->aligned_alloc = aligned_alloc;
	api->usable_size = malloc_usable_size;
	return 0;
}

static const struct alloclab_plugin system_plugin = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "system",
	.version = system_version,
	.description = "the C library's malloc (glibc ptmalloc2)",
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_CALLOC |
		ALLOCLAB_CAP_REALLOC | ALLOCLAB_CAP_ALIGNED_ALLOC | ALLOCLAB_CAP_USABLE_SIZE |
		ALLOCLAB_CAP_STATS,
	.min_align = 16,
	.create = system_create,
	.destroy = system_destroy,
	.malloc = system_malloc,
	.free = system_free,
	.calloc = system_calloc,
	.realloc = system_realloc,
	.aligned_alloc = system_aligned_alloc,
	.usable_size = system_usable_size,
	.stats = system_stats,
	.entry_points = system_entry_points,
	.program_api = system_program_api,
	.trim = system_trim,
};

ALLOCLAB_PLUGIN_EXPORT const struct alloclab_plugin *alloclab_plugin_entry(uint32_t host_abi_version);
ALLOCLAB_PLUGIN_EXPORT const struct alloclab_plugin *alloclab_plugin_entry(uint32_t host_abi_version)
{
	(void)host_abi_version;
	snprintf(system_version, sizeof system_version, "1.0 (glibc %s)", gnu_get_libc_version());
	return &system_plugin;
}
