/* A bump allocator that counts what the program holds: every block has a
 * 16-byte header with its requested size, nothing is ever reused or given
 * back. Its statistics are the exact requested bytes live
 * (std.in_use_bytes) and the most live since the last stats call
 * (live.peak_bytes), against which the tests check what the workloads say
 * they hold; and since it never reuses memory, a run's resident set is
 * what arithmetic says (the bytes bumped). */
#include <alloclab/plugin.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA (4ull << 30)
#define HEADER 16u

struct counting {
	unsigned char *base;
	atomic_size_t next;
	atomic_uint_least64_t live, peak;
};

static int lc_create(const char *options, void **instance, char *err, size_t err_len)
{
	struct counting *c = calloc(1, sizeof *c);
	(void)options, (void)err, (void)err_len;
	if (c == NULL)
		return -ENOMEM;
	c->base = mmap(NULL, ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (c->base == MAP_FAILED) {
		free(c);
		return -ENOMEM;
	}
	*instance = c;
	return 0;
}

static void lc_destroy(void *instance)
{
	struct counting *c = instance;
	munmap(c->base, ARENA);
	free(c);
}

static void *lc_malloc(void *instance, size_t size)
{
	struct counting *c = instance;
	size_t n = HEADER + ((size + 15) & ~(size_t)15);
	if (size > ARENA)
		return NULL;
	size_t at = atomic_fetch_add(&c->next, n);
	if (at + n > ARENA)
		return NULL;
	unsigned char *p = c->base + at;
	memcpy(p, &size, sizeof size);
	uint64_t live = atomic_fetch_add(&c->live, size) + size, peak = atomic_load(&c->peak);
	while (live > peak && !atomic_compare_exchange_weak(&c->peak, &peak, live))
		;
	return p + HEADER;
}

static size_t size_of(const void *block)
{
	size_t size;
	memcpy(&size, (const unsigned char *)block - HEADER, sizeof size);
	return size;
}

static void lc_free(void *instance, void *block)
{
	struct counting *c = instance;
	if (block)
		atomic_fetch_sub(&c->live, size_of(block));
}

static void *lc_calloc(void *instance, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return lc_malloc(instance, n * size); /* fresh pages are zero, and nothing is reused */
}

static void *lc_realloc(void *instance, void *block, size_t size)
{
	void *p = lc_malloc(instance, size);
	if (p && block) {
		size_t old = size_of(block);
		memcpy(p, block, old < size ? old : size);
		lc_free(instance, block);
	}
	return p;
}

static int lc_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	struct counting *c = instance;
	emit(arg, ALLOCLAB_STAT_IN_USE, atomic_load(&c->live));
	emit(arg, "live.peak_bytes", atomic_exchange(&c->peak, atomic_load(&c->live)));
	emit(arg, "bumped_bytes", atomic_load(&c->next));
	return 0;
}

static const struct alloclab_plugin desc = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "live-counting",
	.version = "0",
	.description = "test plugin: a bump allocator counting requested bytes live",
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_STATS | ALLOCLAB_CAP_CALLOC |
		ALLOCLAB_CAP_REALLOC,
	.min_align = 16,
	.create = lc_create,
	.destroy = lc_destroy,
	.malloc = lc_malloc,
	.free = lc_free,
	.calloc = lc_calloc,
	.realloc = lc_realloc,
	.stats = lc_stats,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
