/* What an allocator has handed out, block by block. See census.h. */
#define _GNU_SOURCE 1
#include "census.h"
#include "hash.h"

#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

/* address -> requested size; open addressing, linear probing, a freed
 * block's entry a tombstone (size TOMB) until the table is rebuilt. */
#define TOMB UINT64_MAX

static struct alloclab_plugin inner;
static struct {
	uintptr_t *keys;
	uint64_t *sizes;
	size_t cap, used;
	uint64_t live, peak;
} map;
static atomic_flag lock = ATOMIC_FLAG_INIT;
static void (*on_peak)(void);
static uint64_t next_call; /* the most held at which on_peak is called next */

static void take(void)
{
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		;
}

static void give(void) { atomic_flag_clear_explicit(&lock, memory_order_release); }

static void *pages(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static size_t slot_of(uintptr_t key)
{
	size_t s = (size_t)(((uint64_t)key * ALLOCLAB_GOLDEN_GAMMA) >> 20) & (map.cap - 1);
	while (map.keys[s] && map.keys[s] != key)
		s = (s + 1) & (map.cap - 1);
	return s;
}

/* A table twice the size with the live entries: 0, or -1 (as it was). */
static int grow(void)
{
	uintptr_t *keys = map.keys;
	uint64_t *sizes = map.sizes;
	size_t cap = map.cap, ncap = cap ? cap * 2 : 1u << 16;
	uintptr_t *nkeys = pages(ncap * sizeof *nkeys);
	uint64_t *nsizes = pages(ncap * sizeof *nsizes);
	if (nkeys == NULL || nsizes == NULL) {
		if (nkeys)
			munmap(nkeys, ncap * sizeof *nkeys);
		if (nsizes)
			munmap(nsizes, ncap * sizeof *nsizes);
		return -1;
	}
	map.keys = nkeys, map.sizes = nsizes, map.cap = ncap, map.used = 0;
	for (size_t i = 0; i < cap; i++)
		if (keys[i] && sizes[i] != TOMB) {
			size_t s = slot_of(keys[i]);
			map.keys[s] = keys[i];
			map.sizes[s] = sizes[i];
			map.used++;
		}
	if (cap) {
		munmap(keys, cap * sizeof *keys);
		munmap(sizes, cap * sizeof *sizes);
	}
	return 0;
}

static void note_alloc(void *block, uint64_t size)
{
	int call = 0;
	if (block == NULL)
		return;
	take();
	if ((map.used + 1) * 2 <= map.cap || grow() == 0) {
		size_t s = slot_of((uintptr_t)block);
		if (map.keys[s] == 0)
			map.used++;
		else if (map.sizes[s] != TOMB)
			map.live -= map.sizes[s]; /* handed out again, its free not seen */
		map.keys[s] = (uintptr_t)block;
		map.sizes[s] = size;
		map.live += size;
		if (map.live > map.peak)
			map.peak = map.live;
		if (on_peak && map.peak >= next_call) {
			next_call = map.peak + map.peak / 16 + 4096;
			call = 1;
		}
	}
	give();
	if (call)
		on_peak();
}

static void note_free(void *block)
{
	if (block == NULL)
		return;
	take();
	size_t s = slot_of((uintptr_t)block);
	if (map.keys[s] && map.sizes[s] != TOMB) {
		map.live -= map.sizes[s];
		map.sizes[s] = TOMB;
	}
	give();
}

static void *c_malloc(void *inst, size_t size)
{
	void *p = inner.malloc(inst, size);
	note_alloc(p, size);
	return p;
}

static void *c_calloc(void *inst, size_t n, size_t size)
{
	void *p = inner.calloc(inst, n, size);
	note_alloc(p, (uint64_t)n * size);
	return p;
}

static void *c_realloc(void *inst, void *block, size_t size)
{
	void *p = inner.realloc(inst, block, size);
	if (p) {
		note_free(block);
		note_alloc(p, size);
	}
	return p;
}

static void *c_aligned_alloc(void *inst, size_t alignment, size_t size)
{
	void *p = inner.aligned_alloc(inst, alignment, size);
	note_alloc(p, size);
	return p;
}

static void c_free(void *inst, void *block)
{
	note_free(block);
	inner.free(inst, block);
}

static void c_free_sized(void *inst, void *block, size_t size)
{
	note_free(block);
	inner.free_sized(inst, block, size);
}

int alloclab_census_install(struct alloclab_allocator *a, void (*peak_hook)(void))
{
	if (grow() != 0)
		return -1;
	on_peak = peak_hook;
	inner = a->ops;
	alloclab_allocator_no_shortcuts(a);
	a->ops.malloc = c_malloc;
	a->ops.calloc = c_calloc;
	a->ops.free = c_free;
	a->ops.free_sized = c_free_sized;
	if (inner.realloc)
		a->ops.realloc = c_realloc;
	if (inner.aligned_alloc)
		a->ops.aligned_alloc = c_aligned_alloc;
	return 0;
}

void alloclab_census_read(uint64_t *live_bytes, uint64_t *peak_bytes)
{
	take();
	*live_bytes = map.live;
	*peak_bytes = map.peak;
	give();
}
