/*
 * obmalloc: CPython's small-object allocator, rebuilt from its description
 * in docs/background/obmalloc.md as two alloclab plugins that share this core:
 *
 *   obmalloc-radix    ownership decided by a radix tree over arena addresses
 *                     (CPython 3.10+, 64-bit key layout of 3.11+): radix.c
 *   obmalloc-bigpool  pools larger than a page, the arena index written at
 *                     the start of every 4 KiB page, ownership read from the
 *                     pointer's page (Tim Peters' big-pools branch): bigpool.c
 *
 * Glossary
 *   block   what malloc returns: a slot of one size class inside a pool.
 *   pool    pool_size bytes, pool-aligned, holding blocks of one class
 *           behind a 48-byte header (struct obm_pool).
 *   arena   arena_size bytes from mmap, carved into pools. If the mapping is
 *           not pool-aligned, the part before the first aligned pool and the
 *           tail are lost: one pool's worth.
 *   class   requests of n bytes, 1 <= n <= 512, go to class (n-1) >> 4, whose
 *           blocks are (class+1) * 16 bytes: 32 classes of 16..512 bytes.
 *   raw     everything else (0 and > 512 bytes, and allocation failures)
 *           goes to the C library, as CPython's PyMem_RawMalloc does; the
 *           raw allocator turns 0 into 1.
 *   state   one complete allocator: arenas, usedpools, the radix tree. One
 *           per process in modes none and gil, one per thread in per-thread
 *           mode (CPython 3.12's per-interpreter obmalloc).
 *
 * Pool states (which list a pool is on):
 *   used   some blocks free, some in use: on usedpools[class], a circular
 *          list headed by a sentinel. A pool is on usedpools[c] if and only
 *          if it has class c, count > 0 and freeblock != NULL.
 *   full   no free block (freeblock == NULL): on no list. Its first free
 *          relinks it at the front of usedpools.
 *   empty  count == 0: on its arena's freepools (LIFO). Reused for the same
 *          class without re-initialisation.
 *
 * Arena states:
 *   usable  has free pools (free + never used): on usable_arenas, a doubly
 *           linked list sorted by nfreepools ascending, so that allocation
 *           takes pools from the fullest arena and nearly empty ones can
 *           drain. nfp2lasta[n] is the last arena in the list with n free
 *           pools (NULL if none), which makes keeping it sorted O(1)
 *           (bpo-37029).
 *   full    no free pool: on no list.
 *   unused  address == 0: the arena object is on unused_arena_objects.
 *   An arena whose pools are all free is unmapped, unless it is the last
 *   one on usable_arenas: one wholly empty arena is kept (bpo-37257).
 */
#ifndef OBMALLOC_H
#define OBMALLOC_H

#include <alloclab/plugin.h>

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The pool and arena invariants below are checked as the state changes,
 * as CPython's debug build and mimalloc's mi_page_is_valid do: in debug
 * builds (NDEBUG not defined) and in builds configured with
 * -Dinvariants=true (ALLOCLAB_INVARIANTS); a release build compiles them
 * out, so the measured paths are CPython's instruction for instruction.
 * A broken one is a bug of the plugin's: it says which and aborts. */
#if !defined(NDEBUG) || defined(ALLOCLAB_INVARIANTS)
#define OBM_INVARIANTS_CHECKED 1
void obm_invariant_failed(const char *what, const char *file, int line) __attribute__((noreturn));
#define OBM_CHECK(cond) ((cond) ? (void)0 : obm_invariant_failed(#cond, __FILE__, __LINE__))
#else
#define OBM_INVARIANTS_CHECKED 0
#define OBM_CHECK(cond) ((void)0)
#endif

/* ---- Tunable settings ---------------------------------------------------
 * Alignment, threshold and class count are fixed (they are the same in
 * every CPython since 3.8 on 64-bit). Arena and pool sizes are chosen per
 * run (struct obm_config). The benchmark-only build with
 * OBM_FIXED_ARENA_SHIFT/OBM_FIXED_POOL_SHIFT turns them into constants
 * (plugin obmalloc-radix-fixed); docs/measurements/obmalloc-vs-cpython.md gives what run-time sizes cost
 * against it, measured, and why they were kept.
 */
#ifndef OBM_ALIGNMENT_SHIFT
#define OBM_ALIGNMENT_SHIFT 4 /* 16 bytes, 32 classes: CPython 3.8 and later; 3 (8, 64) before */
#endif
#define OBM_ALIGNMENT (1u << OBM_ALIGNMENT_SHIFT)
#ifndef OBM_SMALL_THRESHOLD
#define OBM_SMALL_THRESHOLD 512u /* 256 in CPython 2.x (obmalloc-py26) */
#endif
#define OBM_NCLASSES (OBM_SMALL_THRESHOLD >> OBM_ALIGNMENT_SHIFT)
#define OBM_POOL_HEADER 48u
/* header=line: the first block one cache line into the pool instead. */
#define OBM_LINE_HEADER 64u
/* The page the big-pool ownership check reads; also the smallest pool. */
#define OBM_PAGE_SHIFT 12
#define OBM_PAGE_SIZE (1u << OBM_PAGE_SHIFT)
/* Every page of a big pool after the first starts with its arena index,
 * padded to keep blocks 16-byte aligned. */
#define OBM_PAGE_HEADER 16u
/* Arena sizes the radix key layout supports: 64 KiB .. 1 GiB. */
#define OBM_MIN_ARENA_SHIFT 16
#define OBM_MAX_ARENA_SHIFT 30

_Static_assert(OBM_ALIGNMENT_SHIFT == 3 || OBM_ALIGNMENT_SHIFT == 4,
	       "CPython's alignment is 8 bytes (64 classes, before 3.8) or 16 (32 classes)");
_Static_assert(OBM_SMALL_THRESHOLD % OBM_ALIGNMENT == 0, "threshold is a multiple of the alignment");
_Static_assert(OBM_SMALL_THRESHOLD == 256 || OBM_SMALL_THRESHOLD == 512, "CPython's thresholds: 256 (2.x), 512 (3.x)");
_Static_assert(OBM_POOL_HEADER % OBM_ALIGNMENT == 0, "the first block must be aligned");
_Static_assert(OBM_LINE_HEADER % OBM_ALIGNMENT == 0 && OBM_LINE_HEADER >= OBM_POOL_HEADER, "a padded header");
_Static_assert(OBM_PAGE_HEADER % OBM_ALIGNMENT == 0, "blocks after a page header must be aligned");
/* ---- end of tunable settings -------------------------------------------- */

enum obm_mode {
	OBM_MODE_NONE,       /* no locking: one thread only (CPython's calls under the GIL, without its cost) */
	OBM_MODE_GIL,        /* one process-wide lock around every call */
	OBM_MODE_PER_THREAD, /* an independent state per thread (per-interpreter obmalloc) */
};

struct obm_config {
	unsigned pool_shift, arena_shift;
	size_t pool_size, arena_size;   /* 1 << shift */
	unsigned pools_per_arena;       /* arena_size / pool_size */
	enum obm_mode mode;
	int misalign_arenas;            /* test only: 1 maps every arena off pool alignment, 2 every other */
	const char *preset;             /* name, or "custom" */
	/* check=branchless (radix only): a proposed change, off by default.
	 * CPython writes the radix ownership test with || and &&; computed
	 * with sign bits instead, no branch depends on which half of a
	 * straddling arena a pointer is in (docs/measurements/obmalloc-vs-cpython.md). */
	int branchless_check;
	/* Where a pool's first block starts: OBM_POOL_HEADER, as CPython, or
	 * OBM_LINE_HEADER (header=line), so that blocks of 64 bytes start on
	 * cache lines: an experiment on placement alone, off by default. */
	uint32_t first_offset;
};

/*
 * Pool header: 48 bytes on LP64, at the start of every pool. arenaindex is
 * first so that the big-pool check finds an arena index at offset 0 of
 * every page of a pool, the first page included.
 */
struct obm_pool {
	uint32_t arenaindex;         /* index into state->arenas */
	uint32_t szidx;              /* size class */
	uint32_t count;              /* blocks in use */
	uint32_t nextoffset;         /* offset of the next never-used block */
	void *freeblock;             /* head of the free-block list; NULL iff full */
	struct obm_pool *nextpool;   /* usedpools ring, or arena freepools (singly) */
	struct obm_pool *prevpool;   /* usedpools ring only */
	uint32_t maxnextoffset;      /* the last offset a block fits at */
	uint32_t reserved;
};
_Static_assert(sizeof(struct obm_pool) == OBM_POOL_HEADER, "pool header is 48 bytes on LP64");
_Static_assert(offsetof(struct obm_pool, arenaindex) == 0, "big pools read the index at offset 0");

struct obm_arena {
	uintptr_t address;           /* the mapping; 0: this object holds no arena */
	uintptr_t mapping;           /* what munmap gets (differs when misaligned for tests) */
	uint8_t *pool_address;       /* the next never-used pool */
	uint32_t nfreepools;         /* free + never-used pools */
	uint32_t ntotalpools;
	struct obm_pool *freepools;  /* empty pools, LIFO through nextpool */
	struct obm_arena *nextarena; /* usable_arenas, or unused_arena_objects (singly) */
	struct obm_arena *prevarena; /* usable_arenas only */
};

/* Per-class constants, computed once per configuration. */
struct obm_class {
	uint32_t size;               /* block size */
	uint32_t first_offset;       /* of the first block in a pool */
	uint32_t maxnextoffset;      /* of the last block that fits */
	uint32_t blocks;             /* blocks per pool */
	uint32_t page_header_bytes;  /* bytes per pool lost to per-page indexes (big pools) */
};

/* The radix tree's 64-bit key layout (CPython 3.11+): 15 bits of root, 15
 * of mid, then the leaf's bits down to the arena bits. radix.c describes
 * the slots. */
#define OBM_RADIX_ROOT_BITS 15
#define OBM_RADIX_MID_BITS 15
#define OBM_RADIX_ROOT_LEN (1u << OBM_RADIX_ROOT_BITS)
#define OBM_RADIX_MID_LEN (1u << OBM_RADIX_MID_BITS)
#define OBM_RADIX_LEAF_SHIFT (64 - OBM_RADIX_ROOT_BITS - OBM_RADIX_MID_BITS)

struct obm_radix_slot {
	int32_t tail_hi;
	int32_t tail_lo;
};

struct obm_radix_mid {
	struct obm_radix_slot *leaves[OBM_RADIX_MID_LEN];
};

struct obm_state {
	uintptr_t pool_mask;         /* pool_size - 1, copied here for the hot paths */
	uintptr_t arena_size;        /* cfg->arena_size, likewise */
	const struct obm_config *cfg;
	const struct obm_class *classes;
	/* The used rings' heads, laid out as CPython lays out its usedpools:
	 * two pointers per class, the nextpool and prevpool of a pool header
	 * that would end there (obm_usedpool). A head costs one index
	 * computation, not a 48-byte header of its own; only its nextpool and
	 * prevpool are ever read or written. */
	struct obm_pool *usedpools[2 * OBM_NCLASSES];

	struct obm_arena *arenas;    /* vector; starts at 16 and doubles */
	uint32_t maxarenas;
	struct obm_arena *unused_arena_objects;
	struct obm_arena *usable_arenas;
	struct obm_arena **nfp2lasta; /* [0 .. pools_per_arena] */

	/* Counters reported by stats. */
	uint64_t arenas_allocated_total, arenas_reclaimed, arenas_highwater, arenas_current;

	/* Told of every arena mapped (added = 1) or unmapped (0); NULL when
	 * nobody needs to know (per-thread mode keeps a registry with it). */
	void (*arena_hook)(struct obm_state *st, uintptr_t base, size_t size, int added);
	void *hook_arg;

#ifndef OBM_BIGPOOL
	/* obmalloc-radix: the tree's shape and root live in the state itself,
	 * so a lookup costs three dependent loads, as with CPython's static
	 * root, not four (measured: a separately allocated root cost ~20%). */
	unsigned radix_arena_shift, radix_leaf_shift;
	int radix_branchless;        /* cfg->branchless_check, beside what the check reads */
	uintptr_t radix_leaf_mask, radix_tail_mask;
	uint64_t radix_nmid, radix_nleaf;
	struct obm_radix_mid *radix_root[OBM_RADIX_ROOT_LEN];
#endif
};

/* ---- config.c ---- */
/* Parses the option string; 0, or -EINVAL with a one-line reason in err. */
int obm_config_parse(const char *options, struct obm_config *cfg, char *err, size_t err_len);
extern const char obm_options_help[];

/* ---- the variant (radix.c or bigpool.c) ---- */
extern const char obm_variant_name[];
extern const char obm_variant_description[];
/* Fills classes[] for cfg: block positions depend on the pool layout. */
void obm_variant_classes(const struct obm_config *cfg, struct obm_class classes[OBM_NCLASSES]);
/* 0, or -1 when the state's ownership structure cannot be set up. */
int obm_variant_init(struct obm_state *st);
void obm_variant_fini(struct obm_state *st);
/* Called when an arena is mapped / before it is unmapped. 0 or -1. */
int obm_variant_arena_added(struct obm_state *st, struct obm_arena *a);
void obm_variant_arena_removed(struct obm_state *st, struct obm_arena *a);
/* Called when a pool is (re)initialised for a class. */
void obm_variant_pool_init(struct obm_state *st, struct obm_pool *pool);
/* Emits the variant's own statistics. */
void obm_variant_stats(const struct obm_state *st, alloclab_stat_fn emit, void *arg);
/* Is p in one of st's arenas? Never faults, never misclassifies. */
int obm_address_in_range(const struct obm_state *st, const void *p);

/* ---- arena.c ---- */
/* A pool for class c from the usable arenas (mapping a new arena if
 * needed), initialised, with its first block handed out; NULL when out of
 * memory. */
/* Out of line, as in CPython (allocate_from_new_pool and
 * insert_to_freepool are not inlined into the fast paths): inlined, their
 * registers made every malloc and free save and restore callee-saved
 * registers they do not use (measured: about 14 instructions per
 * malloc+free on churn). */
__attribute__((noinline)) void *obm_pool_allocate(struct obm_state *st, unsigned c);
/* The raw allocator, for what the pools do not serve (0 and > 512 bytes,
 * and requests when no arena can be had): the C library's, as CPython's
 * PyMem_RawMalloc and PyMem_RawFree. Out of line: off the fast paths.
 * CPython's raw_allocated_blocks counter is not kept: nothing reads it. */
__attribute__((noinline)) void *obm_raw_malloc(struct obm_state *st, size_t n);
__attribute__((noinline)) void obm_raw_free(struct obm_state *st, void *p);
/* An empty pool goes back to its arena, which may be released. */
__attribute__((noinline)) void obm_pool_release(struct obm_state *st, struct obm_pool *pool);
void obm_arenas_free_all(struct obm_state *st);

/* ---- alloc.c ---- */
int obm_state_init(struct obm_state *st, const struct obm_config *cfg, const struct obm_class *classes);
void obm_state_fini(struct obm_state *st);
void *obm_malloc(struct obm_state *st, size_t n);
/* Frees p if st owns it and returns 1; returns 0 (and does nothing) if not. */
int obm_free_owned(struct obm_state *st, void *p);
void *obm_realloc(struct obm_state *st, void *p, size_t n);
size_t obm_usable_size(const struct obm_state *st, void *p);
/* Walks every arena; emits the sys._debugmallocstats() figures. */
void obm_state_stats(const struct obm_state *st, alloclab_stat_fn emit, void *arg);
/* Every arena, then its pools (empty ones without a class), as regions. */
void obm_state_regions(const struct obm_state *st, alloclab_region_fn emit, void *arg);
/* Checks every invariant above on the whole state (tests, and debug
 * builds whenever an arena is mapped or released). 0, or -1 with the first
 * broken one described in why. */
int obm_state_check(const struct obm_state *st, char *why, size_t why_len);
/* A pool in use's own invariants, cheap enough for every call in a debug
 * build: its class and arena exist and hold it; 1 to a pool's worth of
 * blocks are in use; lazy carving has gone at most one block past the
 * last that fits; freeblock is NULL exactly when every block is in use,
 * and otherwise points into the pool. 1 when they hold. */
int obm_pool_valid(const struct obm_state *st, const struct obm_pool *pool);
/* The whole state, as obm_state_check, aborting with why when broken
 * (debug builds only). */
void obm_state_assert(const struct obm_state *st);

/* Big pools: the arena index at the start of p's page. For a foreign
 * pointer that is memory obmalloc never wrote, read by design; under the
 * address and thread sanitizers the read is a function of its own that
 * they do not instrument (bigpool.c), as CPython does for its classic
 * check; valgrind has a suppression. */
#ifdef OBM_BIGPOOL
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
uint32_t obm_page_index(const void *p);
#define OBM_PAGE_INDEX(p) obm_page_index(p)
#else
#define OBM_PAGE_INDEX(p) (*(const volatile uint32_t *)((uintptr_t)(p) & ~(uintptr_t)(OBM_PAGE_SIZE - 1)))
#endif
#endif

#ifdef OBM_FIXED_POOL_SHIFT
#define OBM_POOL_MASK(st) (((uintptr_t)1 << OBM_FIXED_POOL_SHIFT) - 1)
#define OBM_ARENA_SHIFT(st) OBM_FIXED_ARENA_SHIFT
#else
#define OBM_POOL_MASK(st) ((st)->pool_mask)
#define OBM_ARENA_SHIFT(st) ((st)->radix_arena_shift)
#endif

_Static_assert(offsetof(struct obm_pool, prevpool) == offsetof(struct obm_pool, nextpool) + sizeof(void *),
	       "a used ring's head is two adjacent pointers");

/* The head of class c's used ring: a pool header whose nextpool and
 * prevpool are usedpools[2c] and usedpools[2c + 1] (CPython's PT(c)). */
static inline struct obm_pool *obm_usedpool(const struct obm_state *st, unsigned c)
{
	return (struct obm_pool *)((uintptr_t)&st->usedpools[2 * c] - offsetof(struct obm_pool, nextpool));
}

static inline struct obm_pool *obm_pool_of(const struct obm_state *st, const void *p)
{
	return (struct obm_pool *)((uintptr_t)p & ~OBM_POOL_MASK(st));
}

/*
 * The next never-used block after `off` in a pool. In a radix pool blocks
 * are contiguous; in a big pool a block never crosses a page, and every page
 * after the first starts with its arena index, so carving jumps past it.
 */
static inline uint32_t obm_next_offset(uint32_t off, uint32_t size)
{
	uint32_t next = off + size;
#ifdef OBM_BIGPOOL
	uint32_t in_page = next & (OBM_PAGE_SIZE - 1);
	if (in_page == 0 || in_page + size > OBM_PAGE_SIZE)
		next = ((next + OBM_PAGE_SIZE - 1) & ~(OBM_PAGE_SIZE - 1)) + OBM_PAGE_HEADER;
#endif
	return next;
}

#endif
