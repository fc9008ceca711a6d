/* What an allocator has handed out, block by block. See census.h. */
#define _GNU_SOURCE 1
#include "memory/census.h"
#include "memory/block_map.h"

#include <stdatomic.h>

static struct alloclab_plugin inner;
static struct alloclab_block_map map;
static atomic_flag lock = ATOMIC_FLAG_INIT;
static void (*on_peak)(void);
static uint64_t next_call; /* the most held at which on_peak is called next */

static void take(void)
{
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		;
}

static void give(void) { atomic_flag_clear_explicit(&lock, memory_order_release); }

static void note_alloc(void *block, uint64_t size)
{
	int call = 0;
	if (block == NULL)
		return;
	take();
	alloclab_block_map_alloc(&map, block, size);
	if (on_peak && map.peak_bytes >= next_call) {
		next_call = map.peak_bytes + map.peak_bytes / 16 + 4096;
		call = 1;
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
	alloclab_block_map_release(&map, block);
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
	if (alloclab_block_map_init(&map) != 0)
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
	*live_bytes = map.live_bytes;
	*peak_bytes = map.peak_bytes;
	give();
}
