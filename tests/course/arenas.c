/*
 * The reference solution of the course's fifth exercise (docs/course/
 * 05-arenas.md): pools in arenas, as CPython's obmalloc organises them.
 *
 * Requests up to 512 bytes are served from 32 classes of 16 bytes. Memory
 * comes in arenas of 1 MiB (aligned to their size, mapped from the
 * system), cut into 64 pools of 16 KiB; a pool serves one class, keeps its
 * free blocks on a list inside itself, and carves blocks it has never
 * handed out only as they are needed. A class's pools with free blocks are
 * on its list of usable pools; a pool that empties goes back to its arena,
 * an arena all of whose pools are empty goes back to the system. Whether a
 * block is ours is found from its arena: its address rounded down to 1 MiB,
 * looked up in a table of the arenas. What is not ours, and every larger
 * request, is the C library's. One lock serialises everything, as CPython's
 * GIL does.
 *
 * Check: alloclab check --level 5 ./course-arenas.so
 */
#include <alloclab/plugin.h>

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA ((size_t)1 << 20)
#define POOL ((size_t)16 << 10)
#define POOLS (ARENA / POOL)
#define ALIGN 16
#define SMALL 512
#define CLASSES (SMALL / ALIGN)
#define MAX_ARENAS 16384 /* 16 GiB of small blocks */
#define TABLE (2 * MAX_ARENAS)

/* At the start of every pool in use. */
struct pool {
	unsigned cls, used;       /* its class; blocks handed out */
	void *free;               /* freed blocks, to hand out again */
	unsigned char *fresh;     /* the first block never handed out */
	struct pool *next, *prev; /* in its class's usable pools */
	struct arena *arena;
};
#define FIRST_BLOCK ((sizeof(struct pool) + ALIGN - 1) & ~(size_t)(ALIGN - 1))

struct arena {
	uintptr_t base;           /* 0: slot unused */
	unsigned empty_pools;     /* pools handed back or never used */
	struct pool *spare;       /* pools handed back, for reuse */
	unsigned untouched;       /* pools never used: from this index on */
};

static struct {
	pthread_mutex_t lock;
	struct pool *usable[CLASSES];
	struct arena arenas[MAX_ARENAS];
	unsigned narenas;         /* slots used so far (some may be free again) */
	int table[TABLE];         /* arena key -> index + 1, open addressing; -1 deleted */
	struct arena *current;    /* where new pools are taken from */
} heap;

static unsigned slot_of(uintptr_t key) { return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 49) % TABLE; }

static struct arena *find_arena(const void *p)
{
	uintptr_t key = (uintptr_t)p & ~(ARENA - 1);
	for (unsigned i = slot_of(key), n = 0; n < TABLE; i = (i + 1) % TABLE, n++) {
		int v = heap.table[i];
		if (v == 0)
			return NULL;
		if (v > 0 && heap.arenas[v - 1].base == key)
			return &heap.arenas[v - 1];
	}
	return NULL;
}

static void table_put(uintptr_t key, int index)
{
	unsigned i = slot_of(key);
	while (heap.table[i] > 0)
		i = (i + 1) % TABLE;
	heap.table[i] = index + 1;
}

static void table_remove(uintptr_t key)
{
	for (unsigned i = slot_of(key), n = 0; n < TABLE; i = (i + 1) % TABLE, n++) {
		int v = heap.table[i];
		if (v == 0)
			return;
		if (v > 0 && heap.arenas[v - 1].base == key) {
			heap.table[i] = -1;
			return;
		}
	}
}

static struct arena *new_arena(void)
{
	unsigned idx = 0;
	while (idx < heap.narenas && heap.arenas[idx].base)
		idx++;
	if (idx == MAX_ARENAS)
		return NULL;
	/* Twice the size, then the aligned middle kept. */
	unsigned char *raw = mmap(NULL, 2 * ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	uintptr_t base = ((uintptr_t)raw + ARENA - 1) & ~(ARENA - 1);
	if (base > (uintptr_t)raw)
		munmap(raw, base - (uintptr_t)raw);
	munmap((void *)(base + ARENA), (uintptr_t)raw + 2 * ARENA - (base + ARENA));
	struct arena *a = &heap.arenas[idx];
	*a = (struct arena){base, POOLS, NULL, 0};
	if (idx == heap.narenas)
		heap.narenas++;
	table_put(base, (int)idx);
	return a;
}

static struct pool *new_pool(unsigned cls)
{
	struct arena *a = heap.current;
	if (a == NULL || a->base == 0 || a->empty_pools == 0) {
		a = NULL;
		for (unsigned i = 0; i < heap.narenas && a == NULL; i++)
			if (heap.arenas[i].base && heap.arenas[i].empty_pools)
				a = &heap.arenas[i];
		if (a == NULL && (a = new_arena()) == NULL)
			return NULL;
		heap.current = a;
	}
	struct pool *p;
	if (a->spare) {
		p = a->spare;
		a->spare = p->next;
	} else {
		p = (struct pool *)(a->base + a->untouched++ * POOL);
	}
	a->empty_pools--;
	*p = (struct pool){cls, 0, NULL, (unsigned char *)p + FIRST_BLOCK, NULL, NULL, a};
	return p;
}

static void unlink_usable(struct pool *p)
{
	if (p->prev)
		p->prev->next = p->next;
	else
		heap.usable[p->cls] = p->next;
	if (p->next)
		p->next->prev = p->prev;
	p->next = p->prev = NULL;
}

static void link_usable(struct pool *p)
{
	p->prev = NULL;
	p->next = heap.usable[p->cls];
	if (p->next)
		p->next->prev = p;
	heap.usable[p->cls] = p;
}

static int pool_full(const struct pool *p)
{
	size_t size = (size_t)(p->cls + 1) * ALIGN;
	return p->free == NULL && p->fresh + size > (unsigned char *)p + POOL;
}

static int ar_create(const char *options, void **instance, char *err, size_t err_len)
{
	if (options[0] != '\0') {
		snprintf(err, err_len, "takes no options");
		return -EINVAL;
	}
	pthread_mutex_init(&heap.lock, NULL);
	*instance = &heap;
	return 0;
}

static void ar_destroy(void *instance)
{
	(void)instance;
	for (unsigned i = 0; i < heap.narenas; i++)
		if (heap.arenas[i].base)
			munmap((void *)heap.arenas[i].base, ARENA);
	memset(&heap, 0, sizeof heap);
}

static void *ar_malloc(void *instance, size_t size)
{
	(void)instance;
	if (size > SMALL)
		return malloc(size);
	unsigned cls = size ? (unsigned)((size - 1) / ALIGN) : 0;
	pthread_mutex_lock(&heap.lock);
	struct pool *p = heap.usable[cls];
	if (p == NULL) {
		if ((p = new_pool(cls)) == NULL) {
			pthread_mutex_unlock(&heap.lock);
			return NULL;
		}
		link_usable(p);
	}
	void *b;
	if (p->free) {
		b = p->free;
		p->free = *(void **)b;
	} else {
		b = p->fresh;
		p->fresh += (size_t)(cls + 1) * ALIGN;
	}
	p->used++;
	if (pool_full(p))
		unlink_usable(p);
	pthread_mutex_unlock(&heap.lock);
	return b;
}

static void ar_free(void *instance, void *block)
{
	(void)instance;
	if (block == NULL)
		return;
	pthread_mutex_lock(&heap.lock);
	struct arena *a = find_arena(block);
	if (a == NULL) {
		pthread_mutex_unlock(&heap.lock);
		free(block);
		return;
	}
	struct pool *p = (struct pool *)((uintptr_t)block & ~(POOL - 1));
	int was_full = pool_full(p);
	*(void **)block = p->free;
	p->free = block;
	p->used--;
	if (was_full)
		link_usable(p);
	if (p->used == 0) {
		/* Empty: back to its arena, and the arena to the system once
		 * all its pools are back. */
		unlink_usable(p);
		p->next = a->spare;
		a->spare = p;
		if (++a->empty_pools == POOLS) {
			table_remove(a->base);
			munmap((void *)a->base, ARENA);
			if (heap.current == a)
				heap.current = NULL;
			a->base = 0;
		}
	}
	pthread_mutex_unlock(&heap.lock);
}

static size_t ar_usable_size(void *instance, void *block)
{
	(void)instance;
	pthread_mutex_lock(&heap.lock);
	struct arena *a = find_arena(block);
	size_t n = a ? (size_t)(((struct pool *)((uintptr_t)block & ~(POOL - 1)))->cls + 1) * ALIGN : 0;
	pthread_mutex_unlock(&heap.lock);
	return a ? n : malloc_usable_size(block);
}

/* Every arena, then its pools: those in use with their class and count. */
static int ar_regions(void *instance, alloclab_region_fn emit, void *arg)
{
	(void)instance;
	pthread_mutex_lock(&heap.lock);
	for (unsigned i = 0; i < heap.narenas; i++) {
		const struct arena *a = &heap.arenas[i];
		if (a->base == 0)
			continue;
		struct alloclab_region r = {sizeof r, ALLOCLAB_REGION_ARENA, a->base, ARENA, 0, 0, 0, 0};
		emit(arg, &r);
		for (unsigned k = 0; k < a->untouched; k++) {
			const struct pool *p = (const struct pool *)(a->base + k * POOL);
			struct alloclab_region pr = {sizeof pr, ALLOCLAB_REGION_POOL, (uintptr_t)p, POOL, 0, 0, 0, 0};
			if (p->used) {
				size_t size = (size_t)(p->cls + 1) * ALIGN;
				pr.block_size = size;
				pr.blocks_in_use = p->used;
				pr.bytes_in_use = (uint64_t)p->used * size;
				pr.blocks = (POOL - FIRST_BLOCK) / size;
			}
			emit(arg, &pr);
		}
	}
	pthread_mutex_unlock(&heap.lock);
	return 0;
}

/* realloc: a block of the C library stays one; one of ours moves when it
 * outgrows its class (or could take a smaller one). */
static void *ar_realloc(void *instance, void *block, size_t size)
{
	if (block == NULL)
		return ar_malloc(instance, size);
	pthread_mutex_lock(&heap.lock);
	struct arena *a = find_arena(block);
	size_t have = a ? (size_t)(((struct pool *)((uintptr_t)block & ~(POOL - 1)))->cls + 1) * ALIGN : 0;
	pthread_mutex_unlock(&heap.lock);
	if (a == NULL)
		return realloc(block, size);
	if (size <= have && size > have - ALIGN)
		return block;
	void *moved = ar_malloc(instance, size);
	if (moved == NULL)
		return NULL;
	memcpy(moved, block, size < have ? size : have);
	ar_free(instance, block);
	return moved;
}

static const struct alloclab_plugin desc = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "course-arenas",
	.version = "0.1",
	.description = "pools in arenas, as obmalloc (alloclab course, exercise 5)",
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_USABLE_SIZE |
		ALLOCLAB_CAP_REALLOC,
	.min_align = ALIGN,
	.create = ar_create,
	.destroy = ar_destroy,
	.malloc = ar_malloc,
	.free = ar_free,
	.usable_size = ar_usable_size,
	.realloc = ar_realloc,
	.regions = ar_regions,
};

ALLOCLAB_PLUGIN_DEFINE(desc)
