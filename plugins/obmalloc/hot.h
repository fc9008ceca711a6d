/*
 * The hot paths of obmalloc, written once and instantiated several times:
 * malloc of a small request from a used pool, free of an owned block, and
 * the ownership check. CPython compiles them with its sizes as constants;
 * so does this template, once per preset (plugin.c's entry points), and
 * once with the sizes read from the state (alloc.c: every other size and
 * the tests). No include guard: include it once per instantiation, after
 * defining
 *
 *   HOT(name)           the generated functions' names (HOT(malloc) ...)
 *   HOT_POOL_MASK(st)   pool size - 1
 *   HOT_ARENA_SHIFT(st) log2 of the arena size
 *   HOT_BRANCHLESS(st)  radix: 1 for check=branchless, 0 for CPython's form
 *
 * each a constant or an expression of st, and optionally
 *
 *   HOT_ARENA_SIZE(st)  the arena size (default 1 << HOT_ARENA_SHIFT)
 *
 * The template undefines them.
 * The functions are always inlined: each instantiation is one function
 * set with its constants folded in, not a call through a generic one.
 */

#define HOT_INLINE static inline __attribute__((always_inline))
#ifndef HOT_ARENA_SIZE
#define HOT_ARENA_SIZE(st) ((uintptr_t)1 << HOT_ARENA_SHIFT(st))
#endif

HOT_INLINE struct obm_pool *HOT(pool_of)(const struct obm_state *st, const void *p)
{
	(void)st;
	return (struct obm_pool *)((uintptr_t)p & ~(uintptr_t)HOT_POOL_MASK(st));
}

#ifdef OBM_BIGPOOL
/* The arena index of p's page: may read a foreign block's page (see
 * bigpool.c, OBM_PAGE_INDEX). An index that passes names an arena that
 * really contains p. */
HOT_INLINE int HOT(in_range)(const struct obm_state *st, const void *p)
{
	uint32_t idx = OBM_PAGE_INDEX(p);
	return idx < st->maxarenas && st->arenas[idx].address != 0 &&
	       (uintptr_t)p - st->arenas[idx].address < HOT_ARENA_SIZE(st);
}
#else
/* The radix tree: three dependent loads, as CPython's arena_map_is_used
 * (radix.c has the layout). */
HOT_INLINE int HOT(in_range)(const struct obm_state *st, const void *p)
{
	uintptr_t a = (uintptr_t)p;
	const struct obm_radix_mid *m = st->radix_root[a >> (64 - OBM_RADIX_ROOT_BITS)];
	const struct obm_radix_slot *l, *s;
	int32_t t, lo, hi;

	if (m == NULL)
		return 0;
	l = m->leaves[(a >> OBM_RADIX_LEAF_SHIFT) & (OBM_RADIX_MID_LEN - 1)];
	if (l == NULL)
		return 0;
	s = &l[(a >> HOT_ARENA_SHIFT(st)) & (((uintptr_t)1 << (OBM_RADIX_LEAF_SHIFT - HOT_ARENA_SHIFT(st))) - 1)];
	t = (int32_t)(a & (((uintptr_t)1 << HOT_ARENA_SHIFT(st)) - 1));
	lo = s->tail_lo;
	hi = s->tail_hi;
	if (HOT_BRANCHLESS(st)) {
		/* check=branchless, a proposed change: the same test with sign
		 * bits, so that no branch depends on which part of an arena p
		 * lies in. When an arena straddles two slots that is a coin
		 * toss, and the branches made of ||/&& mispredict half the
		 * time in processes whose arenas split evenly. t, lo and hi
		 * are in [-1, 2^30]: the differences cannot overflow. */
		uint32_t below_lo = (uint32_t)(t - lo) >> 31;
		uint32_t from_hi = (uint32_t)(hi - 1 - t) >> 31;
		uint32_t hi_set = (uint32_t)(hi | -hi) >> 31;
		return (int)(below_lo | (from_hi & hi_set));
	}
	/* CPython's own form (arena_map_is_used), branches and all. */
	return (t < lo) || (t >= hi && hi != 0);
}
#endif

/* CPython's pymalloc_alloc: a block of a used pool, or NULL (not a small
 * request, or no arena to be had). Written as CPython writes it: the head
 * of the ring is usedpools[2c], and a ring is empty when its first pool's
 * nextpool is itself. */
HOT_INLINE void *HOT(pymalloc_alloc)(struct obm_state *st, size_t n)
{
	if (__builtin_expect(n == 0, 0))
		return NULL;
	if (__builtin_expect(n > OBM_SMALL_THRESHOLD, 0))
		return NULL;
	unsigned c = (unsigned)(n - 1) >> OBM_ALIGNMENT_SHIFT;
	struct obm_pool *pool = st->usedpools[c + c];
	void *bp;

	if (__builtin_expect(pool != pool->nextpool, 1)) {
		/* A used pool: its free list is never empty. */
		OBM_CHECK(obm_pool_valid(st, pool) && pool->freeblock != NULL);
		++pool->count;
		bp = pool->freeblock;
		if (__builtin_expect((pool->freeblock = *(void **)bp) == NULL, 0)) {
			/* CPython's pymalloc_pool_extend. */
			if (pool->nextoffset <= pool->maxnextoffset) {
				/* Lazy carving: the next virgin block. */
				pool->freeblock = (uint8_t *)pool + pool->nextoffset;
				pool->nextoffset = obm_next_offset(pool->nextoffset, (c + 1) << OBM_ALIGNMENT_SHIFT);
				*(void **)pool->freeblock = NULL;
			} else {
				/* Full: off the ring. */
				struct obm_pool *next = pool->nextpool;
				pool = pool->prevpool;
				next->prevpool = pool;
				pool->nextpool = next;
			}
		}
	} else {
		bp = obm_pool_allocate(st, c);
	}
	return bp;
}

/* CPython's _PyObject_Malloc: the pools, else the raw allocator. */
HOT_INLINE void *HOT(malloc)(struct obm_state *st, size_t n)
{
	void *p = HOT(pymalloc_alloc)(st, n);
	if (__builtin_expect(p != NULL, 1))
		return p;
	return obm_raw_malloc(st, n);
}

/* CPython's pymalloc_free: frees p if st owns it and returns 1; returns 0
 * (and does nothing) if not. */
HOT_INLINE int HOT(free_owned)(struct obm_state *st, void *p)
{
	struct obm_pool *pool = HOT(pool_of)(st, p);
	void *lastfree;

	if (__builtin_expect(!HOT(in_range)(st, p), 0))
		return 0;
	OBM_CHECK(obm_pool_valid(st, pool));
	lastfree = pool->freeblock;
	*(void **)p = lastfree;
	pool->freeblock = p;
	pool->count--;
	if (__builtin_expect(lastfree == NULL, 0)) {
		/* Was full: back at the front of its ring (CPython's
		 * insert_to_usedpool), so the next allocation of this class
		 * reuses the block just freed. */
		struct obm_pool *next = st->usedpools[pool->szidx + pool->szidx], *prev = next->prevpool;
		pool->nextpool = next;
		pool->prevpool = prev;
		next->prevpool = pool;
		prev->nextpool = pool;
		return 1;
	}
	if (__builtin_expect(pool->count != 0, 1))
		return 1;
	/* Empty: leaves the used ring for its arena (insert_to_freepool). */
	pool->nextpool->prevpool = pool->prevpool;
	pool->prevpool->nextpool = pool->nextpool;
	obm_pool_release(st, pool);
	return 1;
}

/* CPython's _PyObject_Free: the pools, else the raw allocator. */
HOT_INLINE void HOT(free)(struct obm_state *st, void *p)
{
	if (p == NULL)
		return;
	if (__builtin_expect(!HOT(free_owned)(st, p), 0))
		obm_raw_free(st, p);
}

#undef HOT_INLINE
#undef HOT
#undef HOT_POOL_MASK
#undef HOT_ARENA_SHIFT
#undef HOT_BRANCHLESS
#undef HOT_ARENA_SIZE
