/*
 * The invariants of obmalloc.h's pools and arenas, as checks: one pool
 * (obm_pool_valid, which the hot paths assert in debug builds) and the
 * whole state (obm_state_check, for tests and debugging). They read the
 * state and call nothing of the allocator's, so that the allocator's files
 * can assert them without the checks depending back on those files.
 */
#define _GNU_SOURCE 1
#include "obmalloc.h"

#include <stdio.h>
#include <stdlib.h>

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
			CHECK(obm_pool_valid(st, p), "pool %p on usedpools[%u] is not a valid pool (count %u, its free list "
			      "outside it, or its arena gone)", (void *)p, c, p->count);
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
