/*
 * @NAME@: a free-list allocator with first fit, splitting and coalescing,
 * the second exercise of alloclab's course (docs/course/02-free-list.md).
 * Fill in the parts marked TODO.
 *
 * Every block has a header with its size and whether it is free; free
 * blocks are kept on a list. malloc takes the first free block that is big
 * enough (first fit), splits off what it does not need, and only when none
 * fits takes new memory from the end of the region; free marks the block
 * free and joins it with free neighbours (coalescing), so that memory is
 * reused and does not crumble into pieces too small to use.
 *
 * Build:  meson setup build && ninja -C build
 * Check:  alloclab check --level 2 ./build/@NAME@.so
 * Run:    alloclab run -p ./build/@NAME@.so -p system -w churn:ops=100000 -w fragment -t 1
 */
#include <alloclab/plugin.h>

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define REGION (1ull << 30)
#define ALIGN 16

/* A block's header, just below the block. Its size counts the header, is
 * a multiple of ALIGN, and its lowest bit says whether it is free. */
struct header {
	size_t size_and_free;
	size_t prev_size; /* the size of the block just below, for coalescing backwards */
};

/* A free block's body holds the list links. */
struct free_block {
	struct header h;
	struct free_block *next, *prev;
};

struct heap {
	unsigned char *base;
	size_t top;              /* bytes of the region used by blocks, free or not */
	size_t last;             /* the size of the block ending at top (0: none): the next block's prev_size;
				  * keep it right when you split or join the block at the top */
	struct free_block *free; /* the free list */
};

static int fl_create(const char *options, void **instance, char *err, size_t err_len)
{
	static struct heap h;
	if (options[0] != '\0') {
		snprintf(err, err_len, "takes no options");
		return -EINVAL;
	}
	h.base = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (h.base == MAP_FAILED)
		return -ENOMEM;
	h.top = 0;
	h.last = 0;
	h.free = NULL;
	*instance = &h;
	return 0;
}

static void fl_destroy(void *instance)
{
	struct heap *h = instance;
	munmap(h->base, REGION);
}

/* The bump step of exercise 1: new memory from the end of the region. */
static struct header *grow(struct heap *h, size_t total)
{
	if (total > REGION - h->top)
		return NULL;
	struct header *b = (struct header *)(h->base + h->top);
	b->size_and_free = total;
	b->prev_size = h->last;
	h->last = total;
	h->top += total;
	return b;
}

/*
 * malloc: a block of at least `size` bytes, ALIGN-aligned, apart from every
 * live block, keeping what is written into it; NULL when it cannot be met.
 */
static void *fl_malloc(void *instance, size_t size)
{
	struct heap *h = instance;
	if (size > REGION)
		return NULL;
	size_t total = (sizeof(struct header) + size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (total < sizeof(struct free_block))
		total = sizeof(struct free_block);
	/* TODO: walk h->free for the first block of at least `total` bytes;
	 * take it off the list, split it when what is left could hold a free
	 * block of its own (that part goes back on the list, its neighbour's
	 * prev_size set), and return the body just above its header. */
	struct header *b = grow(h, total);
	return b ? b + 1 : NULL;
}

/*
 * free: the block may be used again. free(NULL) does nothing.
 */
static void fl_free(void *instance, void *block)
{
	struct heap *h = instance;
	(void)h;
	if (block == NULL)
		return;
	/* TODO: mark the block free, join it with the block above and the
	 * block below when they are free (off the list, sizes added), put the
	 * result on the list; if it ends at h->top, lower h->top instead. */
}

/* usable_size: the bytes the block really has (at least what was asked). */
static size_t fl_usable_size(void *instance, void *block)
{
	(void)instance;
	struct header *b = (struct header *)block - 1;
	return (b->size_and_free & ~(size_t)1) - sizeof(struct header);
}

/* regions (optional, for `alloclab heapmap`; done for you, and right once
 * malloc and free keep the headers as described): the heap in pieces of PIECE bytes (one region would be one tile of
 * the picture), each with the bytes of blocks in use that lie in it and
 * the blocks in use that start in it: every block walked once, by its
 * headers, from the bottom up. */
#define PIECE (64 * 1024)

static int fl_regions(void *instance, alloclab_region_fn emit, void *arg)
{
	struct heap *h = instance;
	size_t pieces = (h->top + PIECE - 1) / PIECE, len = (pieces * 2 * sizeof(uint64_t) + 4095) & ~(size_t)4095;
	uint64_t *used = len ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : NULL;
	if (used == MAP_FAILED)
		return -ENOMEM;
	uint64_t *starts = used + pieces;
	for (size_t off = 0; off < h->top;) {
		const struct header *b = (const struct header *)(h->base + off);
		size_t size = b->size_and_free & ~(size_t)1;
		if (size == 0)
			break; /* a broken heap: stop rather than loop */
		if (!(b->size_and_free & 1)) {
			starts[(off + sizeof(struct header)) / PIECE]++; /* where the block itself starts */
			for (size_t at = off; at < off + size;) {
				size_t end = (at / PIECE + 1) * PIECE;
				if (end > off + size)
					end = off + size;
				used[at / PIECE] += end - at;
				at = end;
			}
		}
		off += size;
	}
	for (size_t i = 0; i < pieces; i++) {
		uint64_t bytes = i + 1 < pieces ? PIECE : h->top - i * PIECE;
		struct alloclab_region r = {sizeof r, ALLOCLAB_REGION_SPAN, (uintptr_t)(h->base + i * PIECE), bytes, 0,
					    used[i] < bytes ? used[i] : bytes, starts[i], 0};
		emit(arg, &r);
	}
	if (len)
		munmap(used, len);
	return 0;
}

static const struct alloclab_plugin desc = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "@NAME@",
	.version = "0.1",
	.description = "a free-list allocator, first fit (alloclab course, exercise 2)",
	.caps = ALLOCLAB_CAP_USABLE_SIZE,
	.min_align = ALIGN,
	.create = fl_create,
	.destroy = fl_destroy,
	.malloc = fl_malloc,
	.free = fl_free,
	.usable_size = fl_usable_size,
	.regions = fl_regions,
};

ALLOCLAB_PLUGIN_DEFINE(desc)
