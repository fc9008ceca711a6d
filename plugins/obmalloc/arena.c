/*
 * Arenas: mapping and releasing them, handing out pools, and keeping
 * usable_arenas sorted by free pools with the nfp2lasta index. See the arena
 * states in obmalloc.h.
 */
#define _GNU_SOURCE 1
#include "obmalloc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define INITIAL_ARENA_OBJECTS 16

/* Grows the arena-object vector (16, then doubling) and threads the new
 * objects onto unused_arena_objects. 0 or -1. */
static int grow_arena_objects(struct obm_state *st)
{
	uint32_t old = st->maxarenas, grown = old ? old * 2 : INITIAL_ARENA_OBJECTS;
	struct obm_arena *v;

	if (grown <= old)
		return -1; /* overflow */
	v = realloc(st->arenas, (size_t)grown * sizeof *v);
	if (v == NULL)
		return -1;
	/* The vector moved: the list links between arena objects must be
	 * rebuilt relative to the new base. Only usable_arenas and nfp2lasta
	 * hold such pointers (unused_arena_objects is empty here). */
	if (v != st->arenas && st->arenas != NULL) {
		ptrdiff_t delta = (char *)v - (char *)st->arenas;
		for (uint32_t i = 0; i < old; i++) {
			if (v[i].nextarena)
				v[i].nextarena = (struct obm_arena *)((char *)v[i].nextarena + delta);
			if (v[i].prevarena)
				v[i].prevarena = (struct obm_arena *)((char *)v[i].prevarena + delta);
		}
		if (st->usable_arenas)
			st->usable_arenas = (struct obm_arena *)((char *)st->usable_arenas + delta);
		for (uint32_t n = 0; n <= st->cfg->pools_per_arena; n++)
			if (st->nfp2lasta[n])
				st->nfp2lasta[n] = (struct obm_arena *)((char *)st->nfp2lasta[n] + delta);
	}
	memset(v + old, 0, (size_t)(grown - old) * sizeof *v);
	for (uint32_t i = old; i < grown; i++)
		v[i].nextarena = i + 1 < grown ? &v[i + 1] : NULL;
	st->arenas = v;
	st->maxarenas = grown;
	st->unused_arena_objects = &v[old];
	return 0;
}

/* Maps a new arena; it becomes the only member of usable_arenas (this is
 * only called when that list is empty). */
static struct obm_arena *new_arena(struct obm_state *st)
{
	const struct obm_config *cfg = st->cfg;
	struct obm_arena *a;
	size_t map_len = cfg->arena_size;
	uintptr_t base, excess;
	void *m;

	if (st->unused_arena_objects == NULL && grow_arena_objects(st) != 0)
		return NULL;
	/* Tests: 1 misaligns every arena, 2 every other one, so that aligned
	 * and misaligned arenas (different pool counts) share the list. */
	int misalign = cfg->misalign_arenas == 1 || (cfg->misalign_arenas == 2 && (st->arenas_allocated_total & 1));
	if (cfg->misalign_arenas)
		map_len += cfg->pool_size;
	m = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	base = (uintptr_t)m;
	if (cfg->misalign_arenas && !misalign) {
		base = (base + cfg->pool_size - 1) & ~(uintptr_t)(cfg->pool_size - 1);
	} else if (misalign) {
		/* Half a pool past a pool boundary: never pool-aligned, even
		 * with 4 KiB pools, which mmap alone always aligns. */
		base = ((base + cfg->pool_size - 1) & ~(uintptr_t)(cfg->pool_size - 1)) + cfg->pool_size / 2;
		if (base + cfg->arena_size > (uintptr_t)m + map_len)
			base -= cfg->pool_size;
	}
	a = st->unused_arena_objects;
	st->unused_arena_objects = a->nextarena;
	a->address = base;
	a->mapping = (uintptr_t)m;
	a->nextarena = a->prevarena = NULL;
	a->freepools = NULL;
	a->ntotalpools = cfg->pools_per_arena;
	a->pool_address = (uint8_t *)base;
	excess = base & (cfg->pool_size - 1);
	if (excess != 0) {
		/* Not pool-aligned: the first pool starts at the next boundary and
		 * the last one would run past the end, so one pool is lost. */
		a->ntotalpools--;
		a->pool_address += cfg->pool_size - excess;
	}
	a->nfreepools = a->ntotalpools;
	if (obm_variant_arena_added(st, a) != 0) {
		munmap(m, map_len);
		a->address = 0;
		a->nextarena = st->unused_arena_objects;
		st->unused_arena_objects = a;
		return NULL;
	}
	if (st->arena_hook)
		st->arena_hook(st, a->address, cfg->arena_size, 1);
	st->arenas_allocated_total++;
	if (++st->arenas_current > st->arenas_highwater)
		st->arenas_highwater = st->arenas_current;
	st->usable_arenas = a;
	st->nfp2lasta[a->nfreepools] = a;
	return a;
}

static void release_arena(struct obm_state *st, struct obm_arena *a)
{
	if (st->arena_hook)
		st->arena_hook(st, a->address, st->cfg->arena_size, 0);
	obm_variant_arena_removed(st, a);
	munmap((void *)a->mapping, st->cfg->arena_size + (st->cfg->misalign_arenas ? st->cfg->pool_size : 0));
	a->address = 0;
	a->mapping = 0;
	a->nextarena = st->unused_arena_objects;
	a->prevarena = NULL;
	st->unused_arena_objects = a;
	st->arenas_reclaimed++;
	st->arenas_current--;
}

/* Takes one pool from the head of usable_arenas (the arena with the fewest
 * free pools) and keeps the list and its index right. */
static struct obm_pool *take_pool(struct obm_state *st)
{
	struct obm_arena *a = st->usable_arenas;
	struct obm_pool *pool;
	uint32_t nf;

	if (a == NULL && (a = new_arena(st)) == NULL)
		return NULL;
	OBM_CHECK(a->nfreepools > 0 && a->prevarena == NULL);
	nf = a->nfreepools;
	/* a is first in its run of arenas with nf free pools; if it is also
	 * the last, the run becomes empty. */
	if (st->nfp2lasta[nf] == a)
		st->nfp2lasta[nf] = NULL;
	a->nfreepools = --nf;
	if (nf == 0) {
		/* Full: off the list. */
		st->usable_arenas = a->nextarena;
		if (st->usable_arenas)
			st->usable_arenas->prevarena = NULL;
		a->nextarena = NULL;
	} else if (st->nfp2lasta[nf] == NULL) {
		/* Still the head (it has the fewest free pools), and now the only
		 * arena with nf. */
		st->nfp2lasta[nf] = a;
	}
	if (a->freepools) {
		pool = a->freepools;
		a->freepools = pool->nextpool;
		return pool;
	}
	/* Carve a never-used pool. */
	pool = (struct obm_pool *)a->pool_address;
	a->pool_address += st->cfg->pool_size;
	pool->arenaindex = (uint32_t)(a - st->arenas);
	pool->szidx = UINT32_MAX; /* never used: any class must initialise it */
	return pool;
}

void *obm_pool_allocate(struct obm_state *st, unsigned c)
{
#if OBM_INVARIANTS_CHECKED
	uint64_t arenas_before = st->arenas_allocated_total;
#endif
	struct obm_pool *pool = take_pool(st), *head = obm_usedpool(st, c);
	const struct obm_class *k = &st->classes[c];
	void *bp;

	if (pool == NULL)
		return NULL;
	pool->count = 1;
	if (pool->szidx == c) {
		/* Reused for its old class: every block it ever carved is on its
		 * free list, and nextoffset still marks the virgin part. */
		bp = pool->freeblock;
		OBM_CHECK(bp != NULL);
		pool->freeblock = *(void **)bp;
		if (pool->freeblock == NULL && pool->nextoffset <= pool->maxnextoffset) {
			pool->freeblock = (uint8_t *)pool + pool->nextoffset;
			*(void **)pool->freeblock = NULL;
			pool->nextoffset = obm_next_offset(pool->nextoffset, k->size);
		}
	} else {
		pool->szidx = c;
		pool->maxnextoffset = k->maxnextoffset;
		obm_variant_pool_init(st, pool);
		bp = (uint8_t *)pool + k->first_offset;
		if (k->blocks > 1) {
			uint32_t second = obm_next_offset(k->first_offset, k->size);
			pool->freeblock = (uint8_t *)pool + second;
			*(void **)pool->freeblock = NULL;
			pool->nextoffset = obm_next_offset(second, k->size);
		} else {
			pool->freeblock = NULL;
			pool->nextoffset = pool->maxnextoffset + 1;
		}
	}
	if (pool->freeblock != NULL) {
		/* Used: link it at the front of its class ring. */
		pool->nextpool = head->nextpool;
		pool->prevpool = head;
		head->nextpool->prevpool = pool;
		head->nextpool = pool;
	}
	OBM_CHECK(obm_pool_valid(st, pool));
#if OBM_INVARIANTS_CHECKED
	if (st->arenas_allocated_total != arenas_before)
		obm_state_assert(st); /* a new arena: the whole state, once */
#endif
	return bp;
}

void obm_pool_release(struct obm_state *st, struct obm_pool *pool)
{
	struct obm_arena *a = &st->arenas[pool->arenaindex], *last_of_old;
	uint32_t nf;

	pool->nextpool = a->freepools;
	a->freepools = pool;
	nf = ++a->nfreepools;

	if (nf == 1) {
		/* It was full, so on no list: it has the fewest free pools of all,
		 * so it goes first. */
		a->prevarena = NULL;
		a->nextarena = st->usable_arenas;
		if (st->usable_arenas)
			st->usable_arenas->prevarena = a;
		st->usable_arenas = a;
		if (st->nfp2lasta[1] == NULL)
			st->nfp2lasta[1] = a;
		return;
	}

	/* a leaves the run of arenas with nf-1 free pools: if it was that
	 * run's last, the one before it (if of the same run) is now. */
	last_of_old = st->nfp2lasta[nf - 1];
	OBM_CHECK(last_of_old != NULL);
	if (last_of_old == a)
		st->nfp2lasta[nf - 1] =
			a->prevarena && a->prevarena->nfreepools == nf - 1 ? a->prevarena : NULL;

	/* Wholly free and not the last arena on the list: release it, before
	 * it joins the run with nf (nfp2lasta must never name a released
	 * arena). Arenas after it have at least as many free pools, so one
	 * wholly empty arena is kept, at the tail (bpo-37257). */
	if (nf == a->ntotalpools && a->nextarena != NULL) {
		if (a->prevarena)
			a->prevarena->nextarena = a->nextarena;
		else
			st->usable_arenas = a->nextarena;
		a->nextarena->prevarena = a->prevarena;
		release_arena(st, a);
#if OBM_INVARIANTS_CHECKED
		obm_state_assert(st); /* an arena gone: the whole state, once */
#endif
		return;
	}

	/* a joins the run with nf: its place is right after the last arena
	 * of the old run, which is where the new run starts. */
	if (last_of_old != a) {
		/* Unlink a ... */
		if (a->prevarena)
			a->prevarena->nextarena = a->nextarena;
		else
			st->usable_arenas = a->nextarena;
		if (a->nextarena)
			a->nextarena->prevarena = a->prevarena;
		/* ... and insert it after last_of_old. */
		a->prevarena = last_of_old;
		a->nextarena = last_of_old->nextarena;
		if (a->nextarena)
			a->nextarena->prevarena = a;
		last_of_old->nextarena = a;
	}
	if (st->nfp2lasta[nf] == NULL)
		st->nfp2lasta[nf] = a;
}

void obm_arenas_free_all(struct obm_state *st)
{
	for (uint32_t i = 0; i < st->maxarenas; i++)
		if (st->arenas[i].address != 0) {
			if (st->arena_hook)
				st->arena_hook(st, st->arenas[i].address, st->cfg->arena_size, 0);
			obm_variant_arena_removed(st, &st->arenas[i]);
			munmap((void *)st->arenas[i].mapping,
			       st->cfg->arena_size + (st->cfg->misalign_arenas ? st->cfg->pool_size : 0));
		}
	free(st->arenas);
	st->arenas = NULL;
	st->maxarenas = 0;
}
