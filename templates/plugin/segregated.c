/*
 * @NAME@: segregated size classes, the third exercise of alloclab's course
 * (docs/course/03-size-classes.md). Fill in the parts marked TODO.
 *
 * Requests are rounded up to one of a few sizes (classes); each class has
 * its own list of free blocks of exactly its size, so malloc and free are
 * a push and a pop with no search, no header and no coalescing. Blocks
 * come from pages of one class each (a page's class is found from the
 * block's address), and requests above the largest class go to the
 * operating system directly.
 *
 * Build:  meson setup build && ninja -C build
 * Check:  alloclab check --level 3 ./build/@NAME@.so
 * Run:    alloclab run -p ./build/@NAME@.so -p system -w churn -t 1 -n 5
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
static inline unsigned class_index(size_t size) { return (unsigned)((size + ALIGN - 1) / ALIGN) - 1; }

/*
 * malloc: a block of at least `size` bytes, ALIGN-aligned, apart from every
 * live block; NULL when it cannot be met. Sizes above MAX_SMALL: mmap their
 * own pages (and remember their size to unmap them in free).
 */
static void *seg_malloc(void *instance, size_t size)
{
	struct heap *h = instance;
	(void)h;
	(void)size;
	/* TODO: for a small size, pop the class's free list; when it is empty,
	 * take a new page (h->top), mark its class in h->class_of, cut it into
	 * blocks of the class's size and push them all. For a large size, map
	 * it on its own with a header holding its length. */
	return NULL;
}

/* free: back on its class's list (found from its page), or unmapped. */
static void seg_free(void *instance, void *block)
{
	(void)instance;
	if (block == NULL)
		return;
	/* TODO */
}

/* regions (optional, for `alloclab heapmap`; done for you): every page in
 * use, with its class and the blocks in use on it: those
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
	.name = "@NAME@",
	.version = "0.1",
	.description = "segregated size classes (alloclab course, exercise 3)",
	.caps = 0,
	.min_align = ALIGN,
	.create = seg_create,
	.destroy = seg_destroy,
	.malloc = seg_malloc,
	.free = seg_free,
	.regions = seg_regions,
};

ALLOCLAB_PLUGIN_DEFINE(desc)
