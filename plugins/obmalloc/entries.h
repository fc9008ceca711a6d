/*
 * One set of domain allocators, malloc(ctx, size) and free(ctx, block) for
 * each mode, on the hot paths of hot.h instantiated with one preset's
 * sizes as constants and on the process's one state: what CPython's
 * _PyObject_Malloc and _PyObject_Free are (its sizes are constants, its
 * state static). plugin.c's front door calls them as PyObject_Malloc calls
 * those, through the domain's allocator structure.
 * plugin.c includes this once per preset, after defining
 *
 *   ENTRY_TAG            a name for the set (py310, ...)
 *   ENTRY_POOL_SHIFT, ENTRY_ARENA_SHIFT, ENTRY_BRANCHLESS
 *                        the preset's sizes and the radix check's form,
 *                        as constants; or ENTRY_GENERIC alone, for a set
 *                        that reads them from the state (any other size)
 *
 * It defines `entry_TAG_set`, a struct obm_entry_set. No include guard;
 * the parameters are undefined at the end.
 */
#define ENTRY_CAT_(a, b) a##_##b
#define ENTRY_CAT(a, b) ENTRY_CAT_(a, b)
#define ENT(name) ENTRY_CAT(ENTRY_CAT(entry, ENTRY_TAG), name)

#define HOT(name) ENT(hot_##name)
#ifdef ENTRY_GENERIC
#define HOT_POOL_MASK(st) ((st)->pool_mask)
#define HOT_ARENA_SIZE(st) ((st)->arena_size)
#ifdef OBM_BIGPOOL
#define HOT_ARENA_SHIFT(st) ((st)->cfg->arena_shift)
#define HOT_BRANCHLESS(st) 0
#else
#define HOT_ARENA_SHIFT(st) ((st)->radix_arena_shift)
#define HOT_BRANCHLESS(st) __builtin_expect((st)->radix_branchless, 0)
#endif
#else
#define HOT_POOL_MASK(st) (((uintptr_t)1 << ENTRY_POOL_SHIFT) - 1)
#define HOT_ARENA_SHIFT(st) ENTRY_ARENA_SHIFT
#define HOT_BRANCHLESS(st) ENTRY_BRANCHLESS
#endif
#include "hot.h"

/* none: the algorithm alone, on the static state. */
static void *ENT(malloc_none)(void *ctx, size_t n)
{
	(void)ctx;
	return ENT(hot_malloc)(&global_state, n);
}

static void ENT(free_none)(void *ctx, void *p)
{
	(void)ctx;
	ENT(hot_free)(&global_state, p);
}

/* gil: one process-wide lock around every call. */
static void *ENT(malloc_gil)(void *ctx, size_t n)
{
	void *p;
	(void)ctx;
	pthread_mutex_lock(&global_lock);
	p = ENT(hot_malloc)(&global_state, n);
	pthread_mutex_unlock(&global_lock);
	return p;
}

static void ENT(free_gil)(void *ctx, void *p)
{
	(void)ctx;
	if (p == NULL)
		return;
	pthread_mutex_lock(&global_lock);
	ENT(hot_free)(&global_state, p);
	pthread_mutex_unlock(&global_lock);
}

/* per-thread: the calling thread's state; another state's block is
 * refused and counted, never freed (plugin.c, foreign()). */
static void *ENT(malloc_per_thread)(void *ctx, size_t n)
{
	struct obm_state *st = my_state(ctx);
	return st ? ENT(hot_malloc)(st, n) : NULL;
}

static void ENT(free_per_thread)(void *ctx, void *p)
{
	struct obm_state *st;
	if (p == NULL)
		return;
	st = my_state(ctx);
	if (st && ENT(hot_free_owned)(st, p))
		return;
	if (!foreign(ctx, st, p))
		free(p); /* a raw block (not counted: which state's is unknown) */
}

static const struct obm_entry_set ENT(set) = {
#ifdef ENTRY_GENERIC
	.generic = 1,
#else
	.pool_shift = ENTRY_POOL_SHIFT,
	.arena_shift = ENTRY_ARENA_SHIFT,
	.branchless = ENTRY_BRANCHLESS,
#endif
	.malloc = {ENT(malloc_none), ENT(malloc_gil), ENT(malloc_per_thread)},
	.free = {ENT(free_none), ENT(free_gil), ENT(free_per_thread)},
};

#undef ENT
#undef ENTRY_TAG
#undef ENTRY_GENERIC
#undef ENTRY_POOL_SHIFT
#undef ENTRY_ARENA_SHIFT
#undef ENTRY_BRANCHLESS
