/*
 * mimalloc: Microsoft's mimalloc as packaged by Debian (libmimalloc2.0).
 *
 * Calls the mi_* entry points directly. libmimalloc also exports plain
 * malloc/free, but the host loads plugins RTLD_LOCAL, so those never replace
 * the process's allocator, and the plugin's own references to them would
 * resolve to glibc first: the prefixed names are both the fast path and the
 * only unambiguous one.
 */
#include <alloclab/plugin.h>

#include <errno.h>
#include <mimalloc.h>
#include <stdint.h>
#include <stdio.h>

static int mimalloc_create(const char *options, void **instance, char *err, size_t err_len)
{
	if (options[0] != '\0') {
		snprintf(err, err_len, "takes no options (got '%s'); use MIMALLOC_* environment variables",
			 options);
		return -EINVAL;
	}
	*instance = NULL;
	return 0;
}

static void mimalloc_destroy(void *instance) { (void)instance; }

static void *mimalloc_malloc(void *instance, size_t size)
{
	(void)instance;
	return mi_malloc(size);
}

static void mimalloc_free(void *instance, void *block)
{
	(void)instance;
	mi_free(block);
}

static void *mimalloc_calloc(void *instance, size_t nmemb, size_t size)
{
	(void)instance;
	return mi_calloc(nmemb, size);
}

static void *mimalloc_realloc(void *instance, void *block, size_t size)
{
	(void)instance;
	return mi_realloc(block, size);
}

/*
 * mimalloc 2.0.9 (Debian 12's) takes a size that is a multiple of the
 * alignment from its size class as it stands, assuming the class's blocks
 * aligned: once the class's page is in use, blocks of 256 asked to be
 * 256-aligned come back at 128 (and 512 at 384; `alloclab check mimalloc`,
 * case alignment, shows it without this). A misaligned block is given back
 * and asked for again one byte larger, which takes mimalloc's aligning
 * path: the test costs one instruction or two on every aligned call.
 */
static void *aligned_checked(size_t alignment, size_t size)
{
	void *p = mi_malloc_aligned(size, alignment);
	if (__builtin_expect(p != NULL && ((uintptr_t)p & (alignment - 1)) != 0, 0)) {
		mi_free(p);
		p = mi_malloc_aligned(size + 1, alignment);
	}
	return p;
}

static void *mimalloc_aligned_alloc(void *instance, size_t alignment, size_t size)
{
	(void)instance;
	return aligned_checked(alignment, size);
}

static size_t mimalloc_usable_size(void *instance, void *block)
{
	(void)instance;
	return mi_usable_size(block);
}

static void mimalloc_free_sized(void *instance, void *block, size_t size)
{
	(void)instance;
	mi_free_size(block, size);
}

static int mimalloc_thread_attach(void *instance)
{
	(void)instance;
	mi_thread_init();
	return 0;
}

static void mimalloc_thread_detach(void *instance)
{
	(void)instance;
	/* Returns the thread's heap pages to the abandoned list so that other
	 * threads can reclaim them, as a real thread exit would. */
	mi_thread_done();
}

/* mi_collect(true): frees what the heaps hold and returns the pages. */
static int mimalloc_trim(void *instance)
{
	(void)instance;
	mi_collect(true);
	return 0;
}

static int mimalloc_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	size_t elapsed, user, sys, rss, peak_rss, commit, peak_commit, faults;
	(void)instance;
	mi_process_info(&elapsed, &user, &sys, &rss, &peak_rss, &commit, &peak_commit, &faults);
	emit(arg, "bytes.rss", rss);
	emit(arg, "bytes.rss_peak", peak_rss);
	emit(arg, "bytes.committed", commit);
	emit(arg, "bytes.committed_peak", peak_commit);
	emit(arg, "page_faults", faults);
	/* The memory mimalloc has committed is its own count of what it
	 * holds; the rss figures are the whole process's. */
	emit(arg, ALLOCLAB_STAT_RESIDENT, commit);
	return 0;
}

/* mimalloc's own heap walk: each area is a page of one block size; the
 * calling thread's heap (the main thread's, where the host calls this). */
struct visit {
	alloclab_region_fn emit;
	void *arg;
};

static bool visit_area(const mi_heap_t *heap, const mi_heap_area_t *area, void *block, size_t block_size, void *arg)
{
	struct visit *v = arg;
	(void)heap;
	(void)block_size;
	if (block == NULL) { /* once per area */
		struct alloclab_region r = {sizeof r, ALLOCLAB_REGION_PAGE, (uintptr_t)area->blocks, area->committed,
					    area->block_size, (uint64_t)area->used * area->block_size, area->used,
					    area->block_size ? area->reserved / area->block_size : 0};
		v->emit(v->arg, &r);
	}
	return true;
}

static int mimalloc_regions(void *instance, alloclab_region_fn emit, void *arg)
{
	struct visit v = {emit, arg};
	(void)instance;
	return mi_heap_visit_blocks(mi_heap_get_default(), false, visit_area, &v) ? 0 : -EIO;
}

static char mimalloc_version_text[64];

/* malloc and free only pass requests on: a workload may call the
 * allocator's own entry points, as a program does. */
static int mimalloc_entry_points(void *instance, void *(**malloc_out)(size_t), void (**free_out)(void *))
{
	(void)instance;
	*malloc_out = mi_malloc;
	*free_out = mi_free;
	return 0;
}

/* mi_usable_size takes a const pointer: a tail call, not a cast. */
static size_t mimalloc_usable(void *block) { return mi_usable_size(block); }

/* mimalloc's own API, which initialises a thread on its first call and
 * cleans up when it ends, as for a program that preloads libmimalloc. */
static int mimalloc_program_api(void *instance, struct alloclab_program_api *api)
{
	(void)instance;
	api->malloc = mi_malloc;
	api->free = mi_free;
	api->calloc = mi_calloc;
	api->realloc = mi_realloc;
	api->aligned_alloc = aligned_checked;
	api->usable_size = mimalloc_usable;
	return 0;
}

static const struct alloclab_plugin mimalloc_plugin = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "mimalloc",
	.version = mimalloc_version_text,
	.description = "Microsoft mimalloc through its mi_* API",
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_CALLOC |
		ALLOCLAB_CAP_REALLOC | ALLOCLAB_CAP_ALIGNED_ALLOC | ALLOCLAB_CAP_USABLE_SIZE |
		ALLOCLAB_CAP_SIZED_FREE | ALLOCLAB_CAP_THREAD_HOOKS | ALLOCLAB_CAP_STATS,
	/* Requests below 16 bytes come from an 8-byte size class aligned
	 * to 8 (measured by the plugins test); 16 and up are 16-aligned. */
	.min_align = 8,
	.create = mimalloc_create,
	.destroy = mimalloc_destroy,
	.malloc = mimalloc_malloc,
	.free = mimalloc_free,
	.calloc = mimalloc_calloc,
	.realloc = mimalloc_realloc,
	.aligned_alloc = mimalloc_aligned_alloc,
	.usable_size = mimalloc_usable_size,
	.free_sized = mimalloc_free_sized,
	.thread_attach = mimalloc_thread_attach,
	.thread_detach = mimalloc_thread_detach,
	.stats = mimalloc_stats,
	.entry_points = mimalloc_entry_points,
	.program_api = mimalloc_program_api,
	.trim = mimalloc_trim,
	.regions = mimalloc_regions,
};

ALLOCLAB_PLUGIN_EXPORT const struct alloclab_plugin *alloclab_plugin_entry(uint32_t host_abi_version);
ALLOCLAB_PLUGIN_EXPORT const struct alloclab_plugin *alloclab_plugin_entry(uint32_t host_abi_version)
{
	int v = mi_version();
	(void)host_abi_version;
	snprintf(mimalloc_version_text, sizeof mimalloc_version_text, "1.0 (mimalloc %d.%d.%d)", v / 100,
		 (v / 10) % 10, v % 10);
	return &mimalloc_plugin;
}
