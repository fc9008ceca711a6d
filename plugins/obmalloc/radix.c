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

#define ROOT_BITS OBM_RADIX_ROOT_BITS
#define MID_BITS OBM_RADIX_MID_BITS
#define ROOT_LEN OBM_RADIX_ROOT_LEN
#define MID_LEN OBM_RADIX_MID_LEN

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
		k->first_offset = cfg->first_offset;
		k->blocks = (uint32_t)((cfg->pool_size - cfg->first_offset) / k->size);
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
static struct obm_radix_slot *slot_of(struct obm_state *st, uintptr_t p, int create)
{
	unsigned top = (unsigned)(p >> (64 - ROOT_BITS));
	unsigned mid = (unsigned)((p >> st->radix_leaf_shift) & (MID_LEN - 1));
	uintptr_t leaf = (p >> st->radix_arena_shift) & st->radix_leaf_mask;
	struct obm_radix_mid *m = st->radix_root[top];
	struct obm_radix_slot *l;

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

int obm_variant_arena_added(struct obm_state *st, struct obm_arena *a)
{
	int32_t tail = (int32_t)(a->address & st->radix_tail_mask);
	struct obm_radix_slot *lo_slot, *hi_slot = slot_of(st, a->address, 1);

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
	struct obm_radix_slot *s = slot_of(st, a->address, 0);

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
		 leaf = st->radix_nleaf * sizeof(struct obm_radix_slot) * (st->radix_leaf_mask + 1);

	/* Where the arenas sit in their arena-sized slots of address space:
	 * an arena at offset o of its slot puts the share o / arena_size of
	 * its pointers in the slot above. The ownership check's branch
	 * (CPython's (t < lo) || (t >= hi && hi != 0)) goes one way for one
	 * part and the other way for the rest: predictable when o is near 0
	 * or the arena's size, a coin toss per free when o is near the
	 * middle. balance_permille is min(o, size - o) / size, averaged over
	 * the arenas: 0 predictable, 500 a coin toss. */
	uint64_t straddling = 0, balance = 0, mapped = 0;
	for (uint32_t i = 0; i < st->maxarenas; i++)
		if (st->arenas[i].address) {
			uint64_t o = st->arenas[i].address & st->radix_tail_mask, size = st->radix_tail_mask + 1;
			mapped++;
			straddling += o != 0;
			balance += 1000 * (o < size - o ? o : size - o) / size;
		}
	emit(arg, "radix.arenas_straddling", straddling);
	emit(arg, "radix.straddle_balance_permille", mapped ? balance / mapped : 0);
	emit(arg, "radix.mid_nodes", st->radix_nmid);
	emit(arg, "radix.leaf_nodes", st->radix_nleaf);
	emit(arg, "radix.bytes_root", root);
	emit(arg, "radix.bytes_mid", mid);
	emit(arg, "radix.bytes_leaf", leaf);
	emit(arg, "radix.bytes_total", root + mid + leaf);
}
