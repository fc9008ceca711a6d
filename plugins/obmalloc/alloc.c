/*
 * The allocator proper: small requests from pools, everything else raw;
 * free and realloc by ownership; statistics in sys._debugmallocstats()
 * terms; the invariant checker for debug builds.
 */
#define _GNU_SOURCE 1
#include "obmalloc.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int obm_state_init(struct obm_state *st, const struct obm_config *cfg, const struct obm_class *classes)
{
	memset(st, 0, sizeof *st);
	st->cfg = cfg;
	st->pool_mask = cfg->pool_size - 1;
	st->arena_size = cfg->arena_size;
	st->classes = classes;
	for (unsigned c = 0; c < OBM_NCLASSES; c++) {
		struct obm_pool *head = obm_usedpool(st, c);
		head->nextpool = head->prevpool = head;
	}
	st->nfp2lasta = calloc((size_t)cfg->pools_per_arena + 1, sizeof *st->nfp2lasta);
	if (st->nfp2lasta == NULL || obm_variant_init(st) != 0) {
		free(st->nfp2lasta);
		return -1;
	}
	return 0;
}

void obm_state_fini(struct obm_state *st)
{
	obm_arenas_free_all(st);
	obm_variant_fini(st);
	free(st->nfp2lasta);
	st->nfp2lasta = NULL;
}

/* The hot paths with the sizes read from the state (OBM_POOL_MASK and
 * OBM_ARENA_SHIFT are constants in a build with fixed sizes): every size,
 * and what the tests link. plugin.c instantiates them per preset. */
#define HOT(name) generic_##name
#define HOT_POOL_MASK(st) OBM_POOL_MASK(st)
#ifdef OBM_BIGPOOL
#define HOT_ARENA_SHIFT(st) ((st)->cfg->arena_shift)
#define HOT_ARENA_SIZE(st) ((st)->arena_size)
#define HOT_BRANCHLESS(st) 0
#else
#define HOT_ARENA_SHIFT(st) OBM_ARENA_SHIFT(st)
#define HOT_BRANCHLESS(st) __builtin_expect((st)->radix_branchless, 0)
#endif
#include "hot.h"

void *obm_raw_malloc(struct obm_state *st, size_t n)
{
	(void)st;
	return malloc(n ? n : 1); /* as PyMem_RawMalloc: 0 becomes 1 */
}

void obm_raw_free(struct obm_state *st, void *p)
{
	(void)st;
	free(p);
}

void *obm_malloc(struct obm_state *st, size_t n)
{
	return generic_malloc(st, n);
}

int obm_free_owned(struct obm_state *st, void *p)
{
	return generic_free_owned(st, p);
}

int obm_address_in_range(const struct obm_state *st, const void *p)
{
	return generic_in_range(st, p);
}

void *obm_realloc(struct obm_state *st, void *p, size_t n)
{
	size_t size;
	void *bp;

	if (p == NULL)
		return obm_malloc(st, n);
	if (!obm_address_in_range(st, p))
		return realloc(p, n ? n : 1);
	size = st->classes[obm_pool_of(st, p)->szidx].size;
	if (n <= size) {
		/* Shrinking: copy to a smaller class only if that frees at least a
		 * quarter of the block; otherwise stay in place. */
		if (4 * n > 3 * size)
			return p;
		size = n;
	}
	bp = obm_malloc(st, n);
	if (bp != NULL) {
		memcpy(bp, p, size);
		obm_free_owned(st, p);
	}
	return bp;
}

size_t obm_usable_size(const struct obm_state *st, void *p)
{
	if (obm_address_in_range(st, p))
		return st->classes[obm_pool_of(st, p)->szidx].size;
	return malloc_usable_size(p);
}

/* Every arena, then every pool carved from it, in the walk the
 * statistics below make (so that the two agree). */
void obm_state_regions(const struct obm_state *st, alloclab_region_fn emit, void *arg)
{
	const struct obm_config *cfg = st->cfg;

	for (uint32_t i = 0; i < st->maxarenas; i++) {
		const struct obm_arena *a = &st->arenas[i];
		uintptr_t base = a->address;
		if (base == 0)
			continue;
		struct alloclab_region r = {sizeof r, ALLOCLAB_REGION_ARENA, base, cfg->arena_size, 0, 0, 0, 0};
		emit(arg, &r);
		if (base & (cfg->pool_size - 1))
			base = (base & ~(uintptr_t)(cfg->pool_size - 1)) + cfg->pool_size;
		/* Pools carved so far; those beyond pool_address were never used. */
		for (; base < (uintptr_t)a->pool_address; base += cfg->pool_size) {
			const struct obm_pool *p = (const struct obm_pool *)base;
			struct alloclab_region pr = {sizeof pr, ALLOCLAB_REGION_POOL, base, cfg->pool_size, 0, 0, 0, 0};
			if (p->count) {
				const struct obm_class *k = &st->classes[p->szidx];
				pr.block_size = k->size;
				pr.blocks_in_use = p->count;
				pr.bytes_in_use = (uint64_t)p->count * k->size;
				pr.blocks = k->blocks;
			}
			emit(arg, &pr);
		}
	}
}

/* What sys._debugmallocstats() reports, computed by walking every arena
 * and every pool carved from it. */
void obm_state_stats(const struct obm_state *st, alloclab_stat_fn emit, void *arg)
{
	const struct obm_config *cfg = st->cfg;
	uint64_t pools[OBM_NCLASSES] = {0}, used[OBM_NCLASSES] = {0}, avail[OBM_NCLASSES] = {0};
	uint64_t free_pools = 0, alignment_loss = 0, narenas = 0;
	uint64_t allocated_bytes = 0, available_bytes = 0, header_bytes = 0, page_header_bytes = 0, quantization = 0;
	char name[64];

	for (uint32_t i = 0; i < st->maxarenas; i++) {
		const struct obm_arena *a = &st->arenas[i];
		uintptr_t base = a->address;

		if (base == 0)
			continue;
		narenas++;
		if (base & (cfg->pool_size - 1)) {
			alignment_loss += cfg->pool_size;
			base = (base & ~(uintptr_t)(cfg->pool_size - 1)) + cfg->pool_size;
		}
		free_pools += a->nfreepools;
		for (; base < (uintptr_t)a->pool_address; base += cfg->pool_size) {
			const struct obm_pool *p = (const struct obm_pool *)base;
			if (p->count == 0)
				continue; /* empty: counted in nfreepools */
			pools[p->szidx]++;
			used[p->szidx] += p->count;
			avail[p->szidx] += st->classes[p->szidx].blocks - p->count;
		}
	}
	emit(arg, "config.small_threshold", OBM_SMALL_THRESHOLD);
	emit(arg, "config.size_classes", OBM_NCLASSES);
	emit(arg, "config.arena_size", cfg->arena_size);
	emit(arg, "config.pool_size", cfg->pool_size);
	emit(arg, "config.pool_header", cfg->first_offset); /* the header with its padding (header=line) */
	for (unsigned c = 0; c < OBM_NCLASSES; c++) {
		const struct obm_class *k = &st->classes[c];
		allocated_bytes += used[c] * k->size;
		available_bytes += avail[c] * k->size;
		header_bytes += pools[c] * cfg->first_offset;
		page_header_bytes += pools[c] * k->page_header_bytes;
		quantization += pools[c] * (cfg->pool_size - cfg->first_offset - k->page_header_bytes -
					    (uint64_t)k->blocks * k->size);
		if (pools[c] == 0)
			continue;
		snprintf(name, sizeof name, "class.%u.size", c);
		emit(arg, name, k->size);
		snprintf(name, sizeof name, "class.%u.pools", c);
		emit(arg, name, pools[c]);
		snprintf(name, sizeof name, "class.%u.blocks_in_use", c);
		emit(arg, name, used[c]);
		snprintf(name, sizeof name, "class.%u.blocks_available", c);
		emit(arg, name, avail[c]);
	}
	emit(arg, "arenas.allocated_total", st->arenas_allocated_total);
	emit(arg, "arenas.reclaimed", st->arenas_reclaimed);
	emit(arg, "arenas.highwater", st->arenas_highwater);
	emit(arg, "arenas.current", narenas);
	emit(arg, "bytes.allocated_blocks", allocated_bytes);
	emit(arg, "bytes.available_blocks", available_bytes);
	emit(arg, "pools.unused", free_pools);
	emit(arg, "bytes.unused_pools", free_pools * cfg->pool_size);
	emit(arg, "bytes.pool_headers", header_bytes);
	emit(arg, "bytes.page_headers", page_header_bytes);
	emit(arg, "bytes.quantization", quantization);
	emit(arg, "bytes.arena_alignment", alignment_loss);
	emit(arg, "bytes.total", allocated_bytes + available_bytes + free_pools * cfg->pool_size + header_bytes +
				      page_header_bytes + quantization + alignment_loss);
	emit(arg, "bytes.arenas", narenas * cfg->arena_size);
	obm_variant_stats(st, emit, arg);
}

/* Checks the pool and arena invariants of obmalloc.h over the whole state.
 * Walks everything, so it is for tests and debugging, not for hot paths.
 * Returns 0, or -1 with the first broken invariant described in why. */
#define CHECK(cond, ...)                                         \
	do {                                                     \
		if (!(cond)) {                                   \
			snprintf(why, why_len, __VA_ARGS__);     \
			return -1;                               \
		}                                                \
	} while (0)

int obm_state_check(const struct obm_state *st, char *why, size_t why_len)
{
	const struct obm_config *cfg = st->cfg;
	uint32_t prev_nf = 0;

	for (unsigned c = 0; c < OBM_NCLASSES; c++)
		for (const struct obm_pool *p = obm_usedpool(st, c)->nextpool; p != obm_usedpool(st, c); p = p->nextpool) {
			CHECK(p->szidx == c, "pool %p on usedpools[%u] has class %u", (void *)p, c, p->szidx);
			CHECK(p->count > 0 && p->freeblock != NULL, "pool %p on usedpools[%u] is empty or full", (void *)p, c);
			CHECK(p->nextpool->prevpool == p, "usedpools[%u] ring broken at %p", c, (void *)p);
			CHECK(obm_address_in_range(st, p->freeblock), "pool %p free list leaves the arenas", (void *)p);
		}
	for (const struct obm_arena *a = st->usable_arenas; a; a = a->nextarena) {
		CHECK(a->address != 0 && a->nfreepools > 0 && a->nfreepools <= a->ntotalpools,
		      "arena %p on usable_arenas with %u/%u free pools", (void *)a, a->nfreepools, a->ntotalpools);
		CHECK(a->nfreepools >= prev_nf, "usable_arenas not sorted: %u after %u", a->nfreepools, prev_nf);
		CHECK(a->nextarena == NULL || a->nextarena->prevarena == a, "usable_arenas links broken");
		if (a->nextarena == NULL || a->nextarena->nfreepools != a->nfreepools)
			CHECK(st->nfp2lasta[a->nfreepools] == a, "nfp2lasta[%u] is not the last arena with %u free pools",
			      a->nfreepools, a->nfreepools);
		prev_nf = a->nfreepools;
	}
	for (uint32_t n = 1; n <= cfg->pools_per_arena; n++)
		CHECK(st->nfp2lasta[n] == NULL || (st->nfp2lasta[n]->address != 0 && st->nfp2lasta[n]->nfreepools == n),
		      "nfp2lasta[%u] is stale (names %s arena)", n,
		      st->nfp2lasta[n] && st->nfp2lasta[n]->address == 0 ? "a released" : "another");
	for (uint32_t i = 0; i < st->maxarenas; i++) {
		const struct obm_arena *a = &st->arenas[i];
		uint32_t nfree = 0;
		if (a->address == 0)
			continue;
		for (const struct obm_pool *p = a->freepools; p; p = p->nextpool) {
			CHECK(p->count == 0 && p->arenaindex == i, "arena %u free pool %p in use or foreign", i, (void *)p);
			nfree++;
		}
		nfree += (uint32_t)((a->address + cfg->arena_size - (uintptr_t)a->pool_address) / cfg->pool_size);
		CHECK(nfree == a->nfreepools, "arena %u counts %u free pools, has %u", i, a->nfreepools, nfree);
	}
	return 0;
}

int obm_pool_valid(const struct obm_state *st, const struct obm_pool *pool)
{
	if (pool->szidx >= OBM_NCLASSES || pool->arenaindex >= st->maxarenas)
		return 0;
	const struct obm_arena *a = &st->arenas[pool->arenaindex];
	const struct obm_class *k = &st->classes[pool->szidx];
	uintptr_t at = (uintptr_t)pool;
	if (a->address == 0 || at < a->address || at >= a->address + st->cfg->arena_size)
		return 0;
	if (pool->count == 0 || pool->count > k->blocks || pool->maxnextoffset != k->maxnextoffset)
		return 0;
	/* Lazy carving stops one block past the last that fits. */
	if (pool->nextoffset > obm_next_offset(k->maxnextoffset, k->size))
		return 0;
	/* A full pool has no free block; any other has one, in the pool. */
	if (pool->freeblock == NULL)
		return pool->count == k->blocks;
	uintptr_t fb = (uintptr_t)pool->freeblock;
	return fb >= at + k->first_offset && fb < at + st->cfg->pool_size;
}

#if OBM_INVARIANTS_CHECKED
void obm_invariant_failed(const char *what, const char *file, int line)
{
	fprintf(stderr, "obmalloc: invariant broken: %s (%s:%d)\n", what, file, line);
	abort();
}
#endif

void obm_state_assert(const struct obm_state *st)
{
	char why[256];
	if (obm_state_check(st, why, sizeof why) != 0) {
		fprintf(stderr, "obmalloc: invariant broken: %s\n", why);
		abort();
	}
}
