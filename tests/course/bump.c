/*
 * The reference solution of the course's first exercise (docs/course/
 * 01-bump.md): the bump template with its TODO done. The tests build it
 * beside the unfinished template and check that it passes level 1.
 *
 * A bump allocator takes one big region and hands out its bytes in order:
 * malloc moves a pointer forward, free does nothing. It is the fastest
 * allocator there is and never reuses a byte.
 *
 * Build:  meson setup build && ninja -C build
 * Check:  alloclab check --level 1 ./build/course-bump.so
 * Run:    alloclab run -p ./build/course-bump.so -w churn:ops=100000 -t 1
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
	if (size > REGION)
		return NULL; /* also keeps the rounding below from overflowing */
	size_t rounded = size ? (size + ALIGN - 1) & ~(size_t)(ALIGN - 1) : ALIGN;
	if (rounded > REGION - b->used)
		return NULL;
	void *block = b->base + b->used;
	b->used += rounded;
	return block;
}

/* The region as far as it is used, in pieces of 1 MiB (one region would
 * be one tile of the picture): a bump allocator counts every byte it has
 * handed out as in use, since it never takes one back. */
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

/* free: a bump allocator gives nothing back. free(NULL) must do nothing. */
static void bump_free(void *instance, void *block)
{
	(void)instance;
	(void)block;
}

static const struct alloclab_plugin desc = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "course-bump",
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
