/* What an allocator has handed out, block by block. See census.h. */
#define _GNU_SOURCE 1
#include "memory/census.h"
#include "base/hash.h"
#include "memory/block_map.h"

#include <pthread.h>
#include <stdatomic.h>

/*
 * Blocks are spread over stripes by address, each stripe a table under its
 * own lock, so that a program's threads counting different blocks seldom
 * wait for each other: under one lock for every call the census serialised
 * them, which changed how a program whose live set depends on its threads'
 * pace (xmalloc-test's producer and consumer) ran while counted, and made
 * a counted run of alloc-test 4.1 times its plain time (2.5 now). A
 * block's alloc and free land in one stripe: free is noted before the
 * allocator can hand the block out again, an alloc after it was handed
 * out, so a stripe sees each block's calls in order.
 *
 * The total held is one atomic counter of requested bytes, changed by each
 * stripe's change; the most held is its largest value, kept by
 * compare-and-swap: exact in the order the changes reach the counter.
 * Invariant: live_total is the sum of the stripes' live_bytes whenever no
 * call is between its stripe's update and the counter's (tests/
 * test_census.c checks it once the threads that counted have joined).
 */
#define STRIPES 64

struct stripe {
	atomic_flag lock;
	struct alloclab_block_map map;
} __attribute__((aligned(64)));

static struct alloclab_plugin inner;
static struct stripe stripes[STRIPES];
static _Atomic uint64_t live_total, peak_total;
static _Atomic uint64_t next_call; /* the most held at which on_peak is called next */
static void (*on_peak)(void);

static struct stripe *stripe_of(const void *block)
{
	/* The top bits of the product: the tables index with lower ones. */
	return &stripes[((uint64_t)(uintptr_t)block * ALLOCLAB_GOLDEN_GAMMA) >> 58];
}

static void take(struct stripe *s)
{
	while (atomic_flag_test_and_set_explicit(&s->lock, memory_order_acquire))
		;
}

static void give(struct stripe *s) { atomic_flag_clear_explicit(&s->lock, memory_order_release); }

/* The stripe's change of live bytes, reaching the total. */
static void account(uint64_t before, uint64_t after)
{
	if (after < before) {
		atomic_fetch_sub_explicit(&live_total, before - after, memory_order_relaxed);
		return;
	}
	uint64_t now = atomic_fetch_add_explicit(&live_total, after - before, memory_order_relaxed) + (after - before);
	uint64_t most = atomic_load_explicit(&peak_total, memory_order_relaxed);
	while (now > most &&
	       !atomic_compare_exchange_weak_explicit(&peak_total, &most, now, memory_order_relaxed, memory_order_relaxed))
		;
	if (on_peak && now > most) {
		uint64_t due = atomic_load_explicit(&next_call, memory_order_relaxed);
		if (now >= due && atomic_compare_exchange_strong_explicit(&next_call, &due, now + now / 16 + 4096,
									  memory_order_relaxed, memory_order_relaxed))
			on_peak();
	}
}

static void note_alloc(void *block, uint64_t size)
{
	if (block == NULL)
		return;
	struct stripe *s = stripe_of(block);
	take(s);
	uint64_t before = s->map.live_bytes;
	alloclab_block_map_alloc(&s->map, block, size);
	uint64_t after = s->map.live_bytes;
	give(s);
	account(before, after);
}

static void note_free(void *block)
{
	if (block == NULL)
		return;
	struct stripe *s = stripe_of(block);
	take(s);
	uint64_t before = s->map.live_bytes;
	alloclab_block_map_release(&s->map, block);
	uint64_t after = s->map.live_bytes;
	give(s);
	account(before, after);
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

/* A fork while another thread holds a stripe would leave the child's copy
 * of that lock held for ever, and the child's first call on one of the
 * stripe's blocks spinning: every stripe is taken across the fork. */
static void take_all(void)
{
	for (unsigned i = 0; i < STRIPES; i++)
		take(&stripes[i]);
}

static void give_all(void)
{
	for (unsigned i = STRIPES; i-- > 0;)
		give(&stripes[i]);
}

/* Registered once however often the census is installed: a second
 * registration would take every stripe twice across a fork. */
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static int fork_handlers;

static void register_fork_handlers(void)
{
	fork_handlers = pthread_atfork(take_all, give_all, give_all) == 0;
}

int alloclab_census_install(struct alloclab_allocator *a, void (*peak_hook)(void))
{
	pthread_once(&fork_once, register_fork_handlers);
	if (!fork_handlers)
		return -1;
	for (unsigned i = 0; i < STRIPES; i++)
		if (alloclab_block_map_init(&stripes[i].map) != 0) {
			while (i--)
				alloclab_block_map_free(&stripes[i].map);
			return -1;
		}
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
	*live_bytes = atomic_load_explicit(&live_total, memory_order_relaxed);
	*peak_bytes = atomic_load_explicit(&peak_total, memory_order_relaxed);
}
