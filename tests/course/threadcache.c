/*
 * The reference solution of the course's fourth exercise (docs/course/
 * 04-thread-caches.md): step 3's size classes with a cache per thread.
 *
 * Each thread keeps, per class, a list of free blocks it takes from and
 * gives to without a lock. When its list is empty it takes a batch from
 * the class's shared list (under the one lock, which also cuts new pages);
 * when it holds more than two batches it gives one back. A block may be
 * freed by any thread: it goes into that thread's cache, since blocks
 * belong to their class, not to a thread. A thread that ends gives its
 * caches back (thread_detach), so nothing is lost with it.
 *
 * Check: alloclab check --level 4 ./course-threadcache.so
 */
#include <alloclab/plugin.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define REGION (1ull << 32)
#define PAGE 4096
#define ALIGN 16
#define MAX_SMALL 1024
#define CLASSES (MAX_SMALL / ALIGN)
#define BATCH 32

struct heap {
	unsigned char *base;
	size_t top;
	pthread_mutex_t lock;
	void *shared[CLASSES];           /* the classes' shared free lists, under lock */
	unsigned char class_of[REGION / PAGE];
};

/* A thread's caches: per class a list and its length. */
struct cache {
	void *list[CLASSES];
	unsigned count[CLASSES];
};

static struct heap *the_heap;
static __thread struct cache tcache;

static int tc_create(const char *options, void **instance, char *err, size_t err_len)
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
	pthread_mutex_init(&the_heap->lock, NULL);
	*instance = the_heap;
	return 0;
}

static void tc_destroy(void *instance)
{
	struct heap *h = instance;
	munmap(h->base, REGION);
	munmap(h, sizeof *h);
}

static unsigned class_index(size_t size) { return (unsigned)((size + ALIGN - 1) / ALIGN) - 1; }

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

/* Under the lock: a new page of class c onto its shared list. */
static int refill_shared(struct heap *h, unsigned c)
{
	size_t block = (size_t)(c + 1) * ALIGN;
	if (h->top + PAGE > REGION)
		return -1;
	unsigned char *page = h->base + h->top;
	h->class_of[h->top / PAGE] = (unsigned char)(c + 1);
	h->top += PAGE;
	for (size_t off = 0; off + block <= PAGE; off += block) {
		*(void **)(page + off) = h->shared[c];
		h->shared[c] = page + off;
	}
	return 0;
}

/* A batch from the shared list into this thread's cache. */
static int take_batch(struct heap *h, unsigned c)
{
	pthread_mutex_lock(&h->lock);
	for (unsigned i = 0; i < BATCH; i++) {
		if (h->shared[c] == NULL && refill_shared(h, c) != 0)
			break;
		void *b = h->shared[c];
		h->shared[c] = *(void **)b;
		*(void **)b = tcache.list[c];
		tcache.list[c] = b;
		tcache.count[c]++;
	}
	pthread_mutex_unlock(&h->lock);
	return tcache.list[c] ? 0 : -1;
}

/* n blocks of this thread's cache back to the shared list. */
static void give_back(struct heap *h, unsigned c, unsigned n)
{
	pthread_mutex_lock(&h->lock);
	while (n-- && tcache.list[c]) {
		void *b = tcache.list[c];
		tcache.list[c] = *(void **)b;
		tcache.count[c]--;
		*(void **)b = h->shared[c];
		h->shared[c] = b;
	}
	pthread_mutex_unlock(&h->lock);
}

static void *tc_malloc(void *instance, size_t size)
{
	struct heap *h = instance;
	if (size > MAX_SMALL)
		return large_malloc(size);
	unsigned c = class_index(size ? size : 1);
	if (tcache.list[c] == NULL && take_batch(h, c) != 0)
		return NULL;
	void *b = tcache.list[c];
	tcache.list[c] = *(void **)b;
	tcache.count[c]--;
	return b;
}

static void tc_free(void *instance, void *block)
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
	*(void **)block = tcache.list[c];
	tcache.list[c] = block;
	if (++tcache.count[c] > 2 * BATCH)
		give_back(h, c, BATCH);
}

static size_t tc_usable_size(void *instance, void *block)
{
	struct heap *h = instance;
	unsigned char *p = block;
	if (p < h->base || p >= h->base + REGION)
		return *(size_t *)(p - ALIGN) - ALIGN;
	return (size_t)h->class_of[(size_t)(p - h->base) / PAGE] * ALIGN;
}

static int tc_thread_attach(void *instance)
{
	(void)instance;
	return 0;
}

/* A thread that ends gives its caches back. */
static void tc_thread_detach(void *instance)
{
	struct heap *h = instance;
	for (unsigned c = 0; c < CLASSES; c++)
		give_back(h, c, tcache.count[c]);
}

static const struct alloclab_plugin desc = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "course-threadcache",
	.version = "0.1",
	.description = "size classes with per-thread caches (alloclab course, exercise 4)",
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_USABLE_SIZE |
		ALLOCLAB_CAP_THREAD_HOOKS,
	.min_align = ALIGN,
	.create = tc_create,
	.destroy = tc_destroy,
	.malloc = tc_malloc,
	.free = tc_free,
	.usable_size = tc_usable_size,
	.thread_attach = tc_thread_attach,
	.thread_detach = tc_thread_detach,
};

ALLOCLAB_PLUGIN_DEFINE(desc)
