/*
 * obmalloc-radix: ownership by a radix tree over arena addresses (CPython
 * 3.10+, bpo-37448), with the 64-bit key of 3.11+: the bits above the
 * arena bits are split 15 (root) / 15 (mid) / the rest (leaf), so every
 * address a 64-bit process can have is covered (5-level paging included).
 * With 1 MiB arenas that is 15/15/14: root 256 KiB, mid nodes 256 KiB,
 * leaves 128 KiB each covering 16 GiB. Mid and leaf nodes are allocated
 * zeroed on demand and kept until the state goes.
 *
 * An arena need not be arena-aligned, so a leaf holds two offsets per
 * arena-sized slot of address space: tail_hi, where an arena starting in
 * this slot begins, and tail_lo, where one that started in the slot below
 * ends. p is owned iff, with t = p mod arena_size, t < tail_lo or
 * (t >= tail_hi and tail_hi != 0); an arena-aligned arena sets tail_hi = -1.
 * The check never reads memory the allocator did not write, so pools may be
 * larger than a page.
 */
#include "obmalloc.h"

#include <stdlib.h>

#define ROOT_BITS 15
#define MID_BITS 15
#define ROOT_LEN (1u << ROOT_BITS)
#define MID_LEN (1u << MID_BITS)

struct radix_slot {
	int32_t tail_hi;
	int32_t tail_lo;
};

struct obm_radix_mid {
	struct radix_slot *leaves[MID_LEN];
};
_Static_assert(sizeof ((struct obm_state *)0)->radix_root == ROOT_LEN * sizeof(void *), "root size");

#ifdef OBM_FIXED_ARENA_SHIFT
const char obm_variant_name[] = "obmalloc-radix-fixed";
const char obm_variant_description[] =
	"obmalloc-radix with sizes fixed at build time (py310 only): measures what run-time sizes cost";
#else
const char obm_variant_name[] = "obmalloc-radix";
const char obm_variant_description[] =
	"CPython's obmalloc with the radix-tree ownership check (3.10+, 3.11 key layout)";
#endif

void obm_variant_classes(const struct obm_config *cfg, struct obm_class classes[OBM_NCLASSES])
{
	for (unsigned c = 0; c < OBM_NCLASSES; c++) {
		struct obm_class *k = &classes[c];
		k->size = (c + 1) << OBM_ALIGNMENT_SHIFT;
		k->first_offset = OBM_POOL_HEADER;
		k->blocks = (uint32_t)((cfg->pool_size - OBM_POOL_HEADER) / k->size);
		k->maxnextoffset = (uint32_t)(cfg->pool_size - k->size);
		k->page_header_bytes = 0;
	}
}

int obm_variant_init(struct obm_state *st)
{
	unsigned leaf_bits = 64 - ROOT_BITS - MID_BITS - st->cfg->arena_shift;

	st->radix_arena_shift = st->cfg->arena_shift;
	st->radix_branchless = st->cfg->branchless_check;
	st->radix_leaf_shift = st->cfg->arena_shift + leaf_bits;
	st->radix_leaf_mask = ((uintptr_t)1 << leaf_bits) - 1;
	st->radix_tail_mask = ((uintptr_t)1 << st->cfg->arena_shift) - 1;
	return 0;
}

void obm_variant_fini(struct obm_state *st)
{
	for (unsigned i = 0; i < ROOT_LEN; i++)
		if (st->radix_root[i]) {
			for (unsigned k = 0; k < MID_LEN; k++)
				free(st->radix_root[i]->leaves[k]);
			free(st->radix_root[i]);
			st->radix_root[i] = NULL;
		}
}

/* The slot of the arena-sized region holding address p; NULL when its
 * nodes do not exist (and `create` is 0, or allocation failed). */
static struct radix_slot *slot_of(struct obm_state *st, uintptr_t p, int create)
{
	unsigned top = (unsigned)(p >> (64 - ROOT_BITS));
	unsigned mid = (unsigned)((p >> st->radix_leaf_shift) & (MID_LEN - 1));
	uintptr_t leaf = (p >> st->radix_arena_shift) & st->radix_leaf_mask;
	struct obm_radix_mid *m = st->radix_root[top];
	struct radix_slot *l;

	if (m == NULL) {
		if (!create || (m = calloc(1, sizeof *m)) == NULL)
			return NULL;
		st->radix_root[top] = m;
		st->radix_nmid++;
	}
	l = m->leaves[mid];
	if (l == NULL) {
		if (!create || (l = calloc(st->radix_leaf_mask + 1, sizeof *l)) == NULL)
			return NULL;
		m->leaves[mid] = l;
		st->radix_nleaf++;
	}
	return &l[leaf];
}

int obm_address_in_range(const struct obm_state *st, const void *p)
{
	uintptr_t a = (uintptr_t)p;
	const struct obm_radix_mid *m = st->radix_root[a >> (64 - ROOT_BITS)];
	const struct radix_slot *l, *s;
	int32_t t;

	if (m == NULL)
		return 0;
#ifdef OBM_FIXED_ARENA_SHIFT
	l = m->leaves[(a >> (64 - ROOT_BITS - MID_BITS)) & (MID_LEN - 1)];
	if (l == NULL)
		return 0;
	s = &l[(a >> OBM_FIXED_ARENA_SHIFT) & (((uintptr_t)1 << (64 - ROOT_BITS - MID_BITS - OBM_FIXED_ARENA_SHIFT)) - 1)];
	t = (int32_t)(a & (((uintptr_t)1 << OBM_FIXED_ARENA_SHIFT) - 1));
#else
	l = m->leaves[(a >> st->radix_leaf_shift) & (MID_LEN - 1)];
	if (l == NULL)
		return 0;
	s = &l[(a >> st->radix_arena_shift) & st->radix_leaf_mask];
	t = (int32_t)(a & st->radix_tail_mask);
#endif
	{
		int32_t lo = s->tail_lo, hi = s->tail_hi;
		if (__builtin_expect(st->radix_branchless, 0)) {
			/* check=branchless, a proposed change: the same test with
			 * sign bits, so that no branch depends on which part of an
			 * arena p lies in. When an arena straddles two slots that
			 * is a coin toss, and the branches made of ||/&&
			 * mispredict half the time in processes whose arenas split
			 * evenly. t, lo and hi are in [-1, 2^30]: the differences
			 * cannot overflow. */
			uint32_t below_lo = (uint32_t)(t - lo) >> 31;
			uint32_t from_hi = (uint32_t)(hi - 1 - t) >> 31;
			uint32_t hi_set = (uint32_t)(hi | -hi) >> 31;
			return (int)(below_lo | (from_hi & hi_set));
		}
		/* CPython's own form (arena_map_is_used), branches and all. */
		return (t < lo) || (t >= hi && hi != 0);
	}
}

int obm_variant_arena_added(struct obm_state *st, struct obm_arena *a)
{
	int32_t tail = (int32_t)(a->address & st->radix_tail_mask);
	struct radix_slot *lo_slot, *hi_slot = slot_of(st, a->address, 1);

	if (hi_slot == NULL)
		return -1;
	if (tail == 0) {
		hi_slot->tail_hi = -1;
		return 0;
	}
	lo_slot = slot_of(st, a->address + st->cfg->arena_size, 1);
	if (lo_slot == NULL)
		return -1;
	hi_slot->tail_hi = tail;
	lo_slot->tail_lo = tail;
	return 0;
}

void obm_variant_arena_removed(struct obm_state *st, struct obm_arena *a)
{
	struct radix_slot *s = slot_of(st, a->address, 0);

	if (s)
		s->tail_hi = 0;
	if (a->address & (st->cfg->arena_size - 1)) {
		s = slot_of(st, a->address + st->cfg->arena_size, 0);
		if (s)
			s->tail_lo = 0;
	}
}

void obm_variant_pool_init(struct obm_state *st, struct obm_pool *pool)
{
	(void)st;
	(void)pool;
}

void obm_variant_stats(const struct obm_state *st, alloclab_stat_fn emit, void *arg)
{
	uint64_t root = sizeof st->radix_root, mid = st->radix_nmid * sizeof(struct obm_radix_mid),
		 leaf = st->radix_nleaf * sizeof(struct radix_slot) * (st->radix_leaf_mask + 1);

	emit(arg, "radix.mid_nodes", st->radix_nmid);
	emit(arg, "radix.leaf_nodes", st->radix_nleaf);
	emit(arg, "radix.bytes_root", root);
	emit(arg, "radix.bytes_mid", mid);
	emit(arg, "radix.bytes_leaf", leaf);
	emit(arg, "radix.bytes_total", root + mid + leaf);
}
