/*
 * The reference solution of the course's third exercise (docs/course/
 * 03-size-classes.md): the segregated template with its TODOs done. The
 * tests check that it passes level 3.
 *
 * Requests are rounded up to one of a few sizes (classes); each class has
 * its own list of free blocks of exactly its size, so malloc and free are
 * a push and a pop with no search, no header and no coalescing. Blocks
 * come from pages of one class each (a page's class is found from the
 * block's address), and requests above the largest class go to the
 * operating system directly.
 *
 * Build:  meson setup build && ninja -C build
 * Check:  alloclab check --level 3 ./build/course-segregated.so
 * Run:    alloclab run -p ./build/course-segregated.so -p system -w churn -t 1 -n 5
 */
#include <alloclab/plugin.h>

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define REGION (1ull << 32) /* the classes' pages, in one region */
#define PAGE 4096
#define ALIGN 16
#define MAX_SMALL 1024      /* the largest class; larger requests are mapped on their own */
#define CLASSES (MAX_SMALL / ALIGN)

struct heap {
	unsigned char *base;
	size_t top;                      /* bytes of the region given to pages */
	void *free[CLASSES];             /* per class: a list of free blocks, linked through their first word */
	unsigned char class_of[REGION / PAGE]; /* per page: its class + 1, 0 when unused */
};

static struct heap *the_heap;

static int seg_create(const char *options, void **instance, char *err, size_t err_len)
{
	if (options[0] != '\0') {
		snprintf(err, err_len, "takes no options");
		return -EINVAL;
	}
	void *h = mmap(NULL, sizeof(struct heap), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h == MAP_FAILED)
		return -ENOMEM;
	the_heap = h;
	the_heap->base = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (the_heap->base == MAP_FAILED)
		return -ENOMEM;
	*instance = the_heap;
	return 0;
}

static void seg_destroy(void *instance)
{
	struct heap *h = instance;
	munmap(h->base, REGION);
	munmap(h, sizeof *h);
}

/* A class's index for a size of 1..MAX_SMALL. */
static unsigned class_index(size_t size) { return (unsigned)((size + ALIGN - 1) / ALIGN) - 1; }

/*
 * malloc: a block of at least `size` bytes, ALIGN-aligned, apart from every
 * live block; NULL when it cannot be met. Sizes above MAX_SMALL: mmap their
 * own pages (and remember their size to unmap them in free).
 */
/* A large block: mapped on its own, its length in a header of ALIGN bytes
 * below it. Its address is outside the classes' region. */
static void *large_malloc(size_t size)
{
	if (size > ((size_t)1 << 46))
		return NULL;
	size_t len = (size + ALIGN + PAGE - 1) & ~(size_t)(PAGE - 1);
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	*(size_t *)p = len;
	return p + ALIGN;
}

/* A new page for class c, cut into blocks pushed on its list. */
static int refill(struct heap *h, unsigned c)
{
	size_t block = (size_t)(c + 1) * ALIGN;
	if (h->top + PAGE > REGION)
		return -1;
	unsigned char *page = h->base + h->top;
	h->class_of[h->top / PAGE] = (unsigned char)(c + 1);
	h->top += PAGE;
	for (size_t off = 0; off + block <= PAGE; off += block) {
		*(void **)(page + off) = h->free[c];
		h->free[c] = page + off;
	}
	return 0;
}

static void *seg_malloc(void *instance, size_t size)
{
	struct heap *h = instance;
	if (size > MAX_SMALL)
		return large_malloc(size);
	unsigned c = class_index(size ? size : 1);
	if (h->free[c] == NULL && refill(h, c) != 0)
		return NULL;
	void *b = h->free[c];
	h->free[c] = *(void **)b;
	return b;
}

/* free: back on its class's list (found from its page), or unmapped. */
static void seg_free(void *instance, void *block)
{
	struct heap *h = instance;
	if (block == NULL)
		return;
	unsigned char *p = block;
	if (p < h->base || p >= h->base + REGION) {
		unsigned char *start = p - ALIGN;
		munmap(start, *(size_t *)start);
		return;
	}
	unsigned c = h->class_of[(size_t)(p - h->base) / PAGE] - 1u;
	*(void **)block = h->free[c];
	h->free[c] = block;
}

/* usable_size: a small block has its class's size. */
static size_t seg_usable_size(void *instance, void *block)
{
	struct heap *h = instance;
	unsigned char *p = block;
	if (p < h->base || p >= h->base + REGION)
		return *(size_t *)(p - ALIGN) - ALIGN;
	return (size_t)h->class_of[(size_t)(p - h->base) / PAGE] * ALIGN;
}

/* Every page in use, with its class and the blocks in use on it: those
 * not on its class's free list (found by walking the lists once). */
static int seg_regions(void *instance, alloclab_region_fn emit, void *arg)
{
	struct heap *h = instance;
	size_t pages = h->top / PAGE, len = (pages * sizeof(uint16_t) + PAGE - 1) & ~(size_t)(PAGE - 1);
	uint16_t *free_on = len ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : NULL;
	if (free_on == MAP_FAILED)
		return -ENOMEM;
	for (unsigned c = 0; c < CLASSES; c++)
		for (unsigned char *b = h->free[c]; b; b = *(void **)b)
			free_on[(size_t)(b - h->base) / PAGE]++;
	for (size_t i = 0; i < pages; i++) {
		uint64_t size = (uint64_t)h->class_of[i] * ALIGN, blocks = PAGE / size;
		struct alloclab_region r = {sizeof r, ALLOCLAB_REGION_PAGE, (uintptr_t)(h->base + i * PAGE), PAGE, size,
					    (blocks - free_on[i]) * size, blocks - free_on[i], blocks};
		emit(arg, &r);
	}
	if (len)
		munmap(free_on, len);
	return 0;
}

static const struct alloclab_plugin desc = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "course-segregated",
	.version = "0.1",
	.description = "segregated size classes (alloclab course, exercise 3)",
	.caps = ALLOCLAB_CAP_USABLE_SIZE,
	.min_align = ALIGN,
	.create = seg_create,
	.destroy = seg_destroy,
	.malloc = seg_malloc,
	.free = seg_free,
	.usable_size = seg_usable_size,
	.regions = seg_regions,
};

ALLOCLAB_PLUGIN_DEFINE(desc)
