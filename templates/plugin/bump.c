/*
 * @NAME@: a bump allocator, the first exercise of alloclab's course
 * (docs/course/01-bump.md). Fill in the parts marked TODO.
 *
 * A bump allocator takes one big region and hands out its bytes in order:
 * malloc moves a pointer forward, free does nothing. It is the fastest
 * allocator there is and never reuses a byte.
 *
 * Build:  meson setup build && ninja -C build
 * Check:  alloclab check --level 1 ./build/@NAME@.so
 * Run:    alloclab run -p ./build/@NAME@.so -w churn:ops=100000 -t 1
 */
#include <alloclab/plugin.h>

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define REGION (1ull << 30) /* 1 GiB of address space; pages are touched only when used */
#define ALIGN 16            /* every block's address is a multiple of this (the ABI's default) */

struct bump {
	unsigned char *base; /* the region */
	size_t used;         /* bytes handed out so far */
};

/* create: make the instance. Options are not used here: refuse any. */
static int bump_create(const char *options, void **instance, char *err, size_t err_len)
{
	static struct bump b; /* one instance per process (the ABI promises it) */
	if (options[0] != '\0') {
		snprintf(err, err_len, "takes no options");
		return -EINVAL;
	}
	b.base = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (b.base == MAP_FAILED)
		return -ENOMEM;
	b.used = 0;
	*instance = &b;
	return 0;
}

static void bump_destroy(void *instance)
{
	struct bump *b = instance;
	munmap(b->base, REGION);
}

/*
 * malloc must return a block of at least `size` bytes that
 *   - starts at a multiple of ALIGN,
 *   - overlaps no other live block,
 *   - keeps what is written into it until it is freed;
 * malloc(0) returns a unique pointer (or NULL), and a request that cannot
 * be met (past the region, or a size near SIZE_MAX) returns NULL.
 */
static void *bump_malloc(void *instance, size_t size)
{
	struct bump *b = instance;
	(void)b;
	(void)size;
	/* TODO: round size up to a multiple of ALIGN (at least ALIGN, so that
	 * malloc(0) is unique), refuse it if it does not fit in what is left
	 * of the region (mind the overflow for huge sizes), then return
	 * b->base + b->used and move b->used forward. */
	return NULL;
}

/* free: a bump allocator gives nothing back. free(NULL) must do nothing. */
static void bump_free(void *instance, void *block)
{
	(void)instance;
	(void)block;
}

/* regions (optional, for `alloclab heapmap`; done for you): the region as
 * far as it is used, in pieces of 1 MiB (one region would be one tile of
 * the picture): a bump allocator counts every byte it has handed out as in
 * use, since it never takes one back. */
static int bump_regions(void *instance, alloclab_region_fn emit, void *arg)
{
	struct bump *b = instance;
	const size_t piece = 1 << 20;
	for (size_t off = 0; off < b->used; off += piece) {
		uint64_t bytes = b->used - off < piece ? b->used - off : piece;
		struct alloclab_region r = {sizeof r, ALLOCLAB_REGION_SPAN, (uintptr_t)(b->base + off), bytes, 0, bytes, 0, 0};
		emit(arg, &r);
	}
	return 0;
}

static const struct alloclab_plugin desc = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "@NAME@",
	.version = "0.1",
	.description = "a bump allocator (alloclab course, exercise 1)",
	/* One thread at a time: the framework's gil=1 serialises calls if
	 * you run it in threads. */
	.caps = 0,
	.min_align = ALIGN,
	.create = bump_create,
	.destroy = bump_destroy,
	.malloc = bump_malloc,
	.free = bump_free,
	.regions = bump_regions,
};

ALLOCLAB_PLUGIN_DEFINE(desc)
