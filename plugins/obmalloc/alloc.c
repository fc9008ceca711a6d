/*
 * The allocator proper: small requests from pools, everything else raw;
 * free and realloc by ownership; statistics in sys._debugmallocstats()
 * terms. The invariant checks are invariants.c's.
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
