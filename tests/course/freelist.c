/*
 * The reference solution of the course's second exercise (docs/course/
 * 02-free-list.md): the free-list template with its TODOs done. The tests
 * check that it passes level 2 where the unfinished template fails.
 *
 * Every block has a header with its size and whether it is free; free
 * blocks are kept on a list. malloc takes the first free block that is big
 * enough (first fit), splits off what it does not need, and only when none
 * fits takes new memory from the end of the region; free marks the block
 * free and joins it with free neighbours (coalescing), so that memory is
 * reused and does not crumble into pieces too small to use.
 *
 * Build:  meson setup build && ninja -C build
 * Check:  alloclab check --level 2 ./build/course-freelist.so
 * Run:    alloclab run -p ./build/course-freelist.so -p system -w churn:ops=100000 -w fragment -t 1
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
	size_t last;             /* the size of the block ending at top (0: none) */
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

#define FREE_BIT ((size_t)1)
#define MIN_BLOCK sizeof(struct free_block)

static size_t size_of(const struct header *b) { return b->size_and_free & ~FREE_BIT; }
static int is_free(const struct header *b) { return (int)(b->size_and_free & FREE_BIT); }
static struct header *above(const struct header *b) { return (struct header *)((unsigned char *)b + size_of(b)); }

static void unlink_free(struct heap *h, struct free_block *f)
{
	if (f->prev)
		f->prev->next = f->next;
	else
		h->free = f->next;
	if (f->next)
		f->next->prev = f->prev;
}

static void push_free(struct heap *h, struct free_block *f)
{
	f->h.size_and_free |= FREE_BIT;
	f->prev = NULL;
	f->next = h->free;
	if (h->free)
		h->free->prev = f;
	h->free = f;
}

/* The block above b is told b's size (for coalescing backwards). */
static void tell_above(struct heap *h, struct header *b)
{
	struct header *a = above(b);
	if ((unsigned char *)a < h->base + h->top)
		a->prev_size = size_of(b);
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
	for (struct free_block *f = h->free; f; f = f->next) {
		size_t have = size_of(&f->h);
		if (have < total)
			continue;
		unlink_free(h, f);
		struct header *b = &f->h;
		if (have - total >= MIN_BLOCK) {
			/* Split: the rest is a free block of its own. */
			b->size_and_free = total;
			struct free_block *rest = (struct free_block *)above(b);
			rest->h.size_and_free = have - total;
			rest->h.prev_size = total;
			push_free(h, rest);
			tell_above(h, &rest->h);
			if ((unsigned char *)above(&rest->h) == h->base + h->top)
				h->last = have - total;
		} else {
			b->size_and_free = have;
		}
		return b + 1;
	}
	struct header *b = grow(h, total);
	return b ? b + 1 : NULL;
}

/*
 * free: the block may be used again. free(NULL) does nothing.
 */
static void fl_free(void *instance, void *block)
{
	struct heap *h = instance;
	if (block == NULL)
		return;
	struct header *b = (struct header *)block - 1;
	size_t size = size_of(b);
	/* Join the free block above. */
	struct header *a = above(b);
	if ((unsigned char *)a < h->base + h->top && is_free(a)) {
		unlink_free(h, (struct free_block *)a);
		size += size_of(a);
	}
	/* And the free block below. */
	if (b->prev_size) {
		struct header *below = (struct header *)((unsigned char *)b - b->prev_size);
		if (is_free(below)) {
			unlink_free(h, (struct free_block *)below);
			size += size_of(below);
			b = below;
		}
	}
	b->size_and_free = size;
	if ((unsigned char *)b + size == h->base + h->top) {
		/* At the end: the region shrinks instead (and its pages could go
		 * back to the system with madvise). */
		h->top -= size;
		h->last = b->prev_size;
		return;
	}
	push_free(h, (struct free_block *)b);
	tell_above(h, b);
}

/* usable_size: the bytes the block really has (at least what was asked). */
static size_t fl_usable_size(void *instance, void *block)
{
	(void)instance;
	struct header *b = (struct header *)block - 1;
	return (b->size_and_free & ~(size_t)1) - sizeof(struct header);
}

/* The heap in pieces of PIECE bytes (one region would be one tile of
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
		size_t size = size_of(b);
		if (size == 0)
			break; /* a broken heap: stop rather than loop */
		if (!is_free(b)) {
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
	.name = "course-freelist",
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
