/*
 * The obmalloc core (built once per variant: OBM_BIGPOOL or not), driven
 * directly: random operation sequences against a shadow model, the
 * ownership check against foreign pointers, arena release and reuse,
 * misaligned arenas, the statistics identities, configuration refusals.
 */
#define _GNU_SOURCE 1
#include "obmalloc.h"
#include "aborts.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fixture {
	struct obm_config cfg;
	struct obm_class classes[OBM_NCLASSES];
	struct obm_state st;
};

static struct fixture *fixture_new(const char *options)
{
	struct fixture *f = calloc(1, sizeof *f);
	char err[256];
	cr_assert_eq(obm_config_parse(options, &f->cfg, err, sizeof err), 0, "%s: %s", options, err);
	obm_variant_classes(&f->cfg, f->classes);
	cr_assert_eq(obm_state_init(&f->st, &f->cfg, f->classes), 0);
	return f;
}

static void fixture_free(struct fixture *f)
{
	obm_state_fini(&f->st);
	free(f);
}

static void obm_free(struct obm_state *st, void *p)
{
	if (p && !obm_free_owned(st, p))
		free(p);
}

static void expect_valid(const struct obm_state *st)
{
	char why[256];
	cr_assert_eq(obm_state_check(st, why, sizeof why), 0, "invariant broken: %s", why);
}

/* --- statistics identities --- */

/* Room for every statistic: four per class, 64 classes before 3.8. */
struct stats {
	char names[400][48];
	uint64_t values[400];
	int n;
};

static void collect(void *arg, const char *name, uint64_t value)
{
	struct stats *s = arg;
	cr_assert_lt(s->n, 400, "more statistics than the test holds");
	snprintf(s->names[s->n], sizeof s->names[0], "%s", name);
	s->values[s->n++] = value;
}

static uint64_t stat(const struct stats *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->names[i], name) == 0)
			return s->values[i];
	cr_assert_fail("no statistic %s", name);
	return 0;
}

static void expect_stats_identities(const struct obm_state *st)
{
	struct stats s = {.n = 0};
	uint64_t pools = 0, quant = 0;
	char name[64];

	obm_state_stats(st, collect, &s);
	cr_expect_eq(stat(&s, "bytes.total"), stat(&s, "arenas.current") * st->cfg->arena_size,
		     "the parts do not add up to arenas x arena size");
	for (unsigned c = 0; c < OBM_NCLASSES; c++) {
		snprintf(name, sizeof name, "class.%u.pools", c);
		for (int i = 0; i < s.n; i++)
			if (strcmp(s.names[i], name) == 0) {
				const struct obm_class *k = &st->classes[c];
				pools += s.values[i];
				quant += s.values[i] * ((st->cfg->pool_size - st->cfg->first_offset - k->page_header_bytes) % k->size);
			}
	}
	cr_expect_eq(stat(&s, "bytes.pool_headers"), pools * st->cfg->first_offset);
#ifndef OBM_BIGPOOL
	/* Radix pools are contiguous: quantization is (pool - header) mod size. */
	cr_expect_eq(stat(&s, "bytes.quantization"), quant);
#else
	/* Big pools are split into pages, each with its own remainder. */
	(void)quant;
#endif
	cr_expect_eq(stat(&s, "bytes.arena_alignment") % st->cfg->pool_size, 0);
}

/* --- random operations against a shadow model --- */

struct shadow {
	unsigned char *p;
	size_t size;
	unsigned char fill;
};

static void check_block(const struct shadow *b)
{
	for (size_t i = 0; i < b->size; i++)
		if (b->p[i] != b->fill)
			cr_assert_fail("block %p (%zu bytes) byte %zu is %#x, expected %#x: overlap or corruption",
				       (void *)b->p, b->size, i, b->p[i], b->fill);
}

static int cmp_ptr(const void *a, const void *b)
{
	const struct shadow *x = a, *y = b;
	return (x->p > y->p) - (x->p < y->p);
}

static void random_sequence(const char *options, unsigned steps, unsigned live_max)
{
	struct fixture *f = fixture_new(options);
	struct shadow *live = calloc(live_max, sizeof *live);
	uint64_t rng = 12345;

	for (unsigned step = 0; step < steps; step++) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		unsigned slot = (unsigned)(rng >> 33) % live_max;
		unsigned op = (unsigned)(rng >> 20) % 10;
		size_t size = (rng >> 40) % 600; /* beyond 512: raw blocks too */
		struct shadow *b = &live[slot];

		if (b->p && op < 3) { /* realloc: the prefix survives */
			size_t keep = b->size < size ? b->size : size;
			size_t n = size ? size : 1;
			check_block(b);
			unsigned char *q = obm_realloc(&f->st, b->p, n);
			cr_assert_not_null(q);
			for (size_t i = 0; i < keep; i++)
				cr_assert_eq(q[i], b->fill, "realloc lost byte %zu", i);
			b->p = q;
			b->size = n;
			memset(b->p, b->fill, b->size);
		} else if (b->p) {
			check_block(b);
			obm_free(&f->st, b->p);
			b->p = NULL;
		} else {
			b->p = obm_malloc(&f->st, size);
			cr_assert_not_null(b->p);
			cr_assert_eq((uintptr_t)b->p % OBM_ALIGNMENT, 0, "malloc(%zu) misaligned", size);
			b->size = size;
			b->fill = (unsigned char)(step | 1);
			memset(b->p, b->fill, size);
		}
		if (step % 20000 == 0) {
			expect_valid(&f->st);
			expect_stats_identities(&f->st);
		}
	}
	/* No two live blocks overlap. */
	qsort(live, live_max, sizeof *live, cmp_ptr);
	for (unsigned i = 0; i + 1 < live_max; i++)
		if (live[i].p && live[i + 1].p)
			cr_assert(live[i].p + live[i].size <= live[i + 1].p, "blocks %p and %p overlap",
				  (void *)live[i].p, (void *)live[i + 1].p);
	for (unsigned i = 0; i < live_max; i++)
		if (live[i].p) {
			check_block(&live[i]);
			obm_free(&f->st, live[i].p);
		}
	expect_valid(&f->st);
	expect_stats_identities(&f->st);
	free(live);
	fixture_free(f);
}

Test(obmalloc, shadow_model_py310, .timeout = 60) { random_sequence("preset=py310", 200000, 3000); }
Test(obmalloc, shadow_model_classic, .timeout = 60) { random_sequence("preset=classic", 200000, 3000); }
Test(obmalloc, shadow_model_table_16m_4k, .timeout = 60) { random_sequence("preset=table-16m-4k", 100000, 2000); }
Test(obmalloc, shadow_model_table_64m_16k, .timeout = 60) { random_sequence("preset=table-64m-16k", 100000, 2000); }
Test(obmalloc, shadow_model_header_line, .timeout = 60) { random_sequence("preset=py310,header=line", 100000, 2000); }
Test(obmalloc, shadow_model_misaligned_arenas, .timeout = 60)
{
	random_sequence("preset=classic,test_misalign=1", 200000, 4000);
}

/* Aligned and misaligned arenas together: their pool counts differ, so a
 * wholly free misaligned arena can sit before an aligned one with more free
 * pools (a case that once left nfp2lasta naming a released arena). */
Test(obmalloc, shadow_model_mixed_alignment, .timeout = 60)
{
	random_sequence("preset=classic,test_misalign=2", 300000, 20000);
}

static void churn_arenas(const char *options)
{
	struct fixture *f = fixture_new(options);
	enum { N = 30000 };
	void **b = calloc(N, sizeof *b);
	uint64_t rng = 99;
	for (int round = 0; round < 6; round++) {
		for (int i = 0; i < N; i++)
			if (b[i] == NULL)
				b[i] = obm_malloc(&f->st, 16 + (size_t)(i % 31) * 16);
		/* Free runs of blocks so that whole arenas drain. */
		for (int i = 0; i < N; i++) {
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			if ((rng >> 60) < (uint64_t)(round % 2 ? 12 : 3) || (i / 2000) % 3 == round % 3) {
				obm_free(&f->st, b[i]);
				b[i] = NULL;
			}
		}
		expect_valid(&f->st);
		expect_stats_identities(&f->st);
	}
	for (int i = 0; i < N; i++)
		obm_free(&f->st, b[i]);
	expect_valid(&f->st);
	free(b);
	fixture_free(f);
}

Test(obmalloc, arenas_drain_and_refill_mixed_alignment, .timeout = 60) { churn_arenas("preset=classic,test_misalign=2"); }
Test(obmalloc, arenas_drain_and_refill_py310, .timeout = 60) { churn_arenas("preset=py310,test_misalign=2"); }

Test(obmalloc, misaligned_arena_loses_one_pool)
{
	struct fixture *f = fixture_new("preset=classic,test_misalign=1");
	void *p = obm_malloc(&f->st, 100);
	const struct obm_arena *a = &f->st.arenas[obm_pool_of(&f->st, p)->arenaindex];
	struct stats s = {.n = 0};

	cr_expect_neq(a->address % f->cfg.pool_size, 0, "the test arena is pool-aligned");
	cr_expect_eq(a->ntotalpools, f->cfg.pools_per_arena - 1);
	cr_expect_eq((uintptr_t)a->pool_address % f->cfg.pool_size, 0, "pools are not pool-aligned");
	obm_state_stats(&f->st, collect, &s);
	cr_expect_eq(stat(&s, "bytes.arena_alignment"), f->cfg.pool_size);
	expect_stats_identities(&f->st);
	obm_free(&f->st, p);
	fixture_free(f);
}

/* --- ownership --- */

/* Whether the page start of p can be read: a pipe write copies from it and
 * fails with EFAULT where it cannot (unmapped or PROT_NONE guard pages). */
static int page_readable(const void *p)
{
	const void *page = (const void *)((uintptr_t)p & ~(uintptr_t)(OBM_PAGE_SIZE - 1));
	int fds[2], ok;
	if (pipe(fds) != 0)
		return 0;
	ok = write(fds[1], page, 4) == 4;
	close(fds[0]);
	close(fds[1]);
	return ok;
}

static int in_some_arena(const struct obm_state *st, uintptr_t p)
{
	for (uint32_t i = 0; i < st->maxarenas; i++)
		if (st->arenas[i].address && p - st->arenas[i].address < st->cfg->arena_size)
			return 1;
	return 0;
}

static char static_byte;

static void ownership_never_misclassifies(const char *options)
{
	struct fixture *f = fixture_new(options);
	void *mine[2000];
	char stack_byte;

	for (int i = 0; i < 2000; i++) {
		mine[i] = obm_malloc(&f->st, (size_t)(i % OBM_SMALL_THRESHOLD) + 1);
		cr_assert(obm_address_in_range(&f->st, mine[i]), "own block %p not recognised", mine[i]);
	}
	/* Foreign memory: the C library's blocks of every size, the stack,
	 * static data, code. */
	for (size_t size = 1; size < 300000; size = size * 3 + 1) {
		void *q = malloc(size);
		cr_expect_not(obm_address_in_range(&f->st, q), "malloc(%zu) block taken for ours", size);
		free(q);
	}
	cr_expect_not(obm_address_in_range(&f->st, &stack_byte));
	cr_expect_not(obm_address_in_range(&f->st, &static_byte));
	cr_expect_not(obm_address_in_range(&f->st, (void *)fixture_new));
	/* Around every arena: the byte before and the byte just past the end
	 * are someone else's (unless another arena is there), the first and
	 * last bytes are ours. */
	for (uint32_t i = 0; i < f->st.maxarenas; i++) {
		uintptr_t base = f->st.arenas[i].address;
		if (base == 0)
			continue;
		uintptr_t probes[] = {base - 1, base - OBM_PAGE_SIZE, base + f->cfg.arena_size,
				      base + f->cfg.arena_size + 4097, base, base + f->cfg.arena_size - 1};
		for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++) {
#ifdef OBM_BIGPOOL
			/* The big-pool (and classic) check reads the pointer's page:
			 * it is only defined for pointers into mapped memory, and
			 * for a page of a pool never carved (so holding no block)
			 * it may say "not ours". What it must never do is call a
			 * foreign address its own. */
			if (!page_readable((void *)probes[k]))
				continue;
			if (obm_address_in_range(&f->st, (void *)probes[k]))
				cr_expect(in_some_arena(&f->st, probes[k]), "foreign address %#lx next to arena %u taken for ours",
					  (unsigned long)probes[k], i);
			continue;
#endif
			cr_expect_eq(obm_address_in_range(&f->st, (void *)probes[k]), in_some_arena(&f->st, probes[k]),
				     "address %#lx next to arena %u misclassified", (unsigned long)probes[k], i);
		}
	}
	for (int i = 0; i < 2000; i++)
		obm_free(&f->st, mine[i]);
	(void)page_readable;
	fixture_free(f);
}

Test(obmalloc, ownership_never_misclassifies) { ownership_never_misclassifies("preset=py310"); }
Test(obmalloc, ownership_never_misclassifies_misaligned)
{
	ownership_never_misclassifies("preset=py310,test_misalign=1");
}

#ifndef OBM_BIGPOOL
Test(obmalloc, ownership_branchless_option_never_misclassifies)
{
	ownership_never_misclassifies("preset=py310,check=branchless,test_misalign=1");
}

/* The proposed branch-free test and CPython's form agree on every address
 * around every (misaligned, so straddling) arena, page by page. */
Test(obmalloc, both_ownership_forms_agree)
{
	struct fixture *f = fixture_new("preset=py310,test_misalign=1");
	void *mine[3000];

	for (int i = 0; i < 3000; i++)
		mine[i] = obm_malloc(&f->st, (size_t)(i % OBM_SMALL_THRESHOLD) + 1);
	for (uint32_t i = 0; i < f->st.maxarenas; i++) {
		uintptr_t base = f->st.arenas[i].address;
		if (base == 0)
			continue;
		for (uintptr_t a = base - f->cfg.arena_size; a < base + 2 * f->cfg.arena_size; a += 4093) {
			f->st.radix_branchless = 0;
			int cpython = obm_address_in_range(&f->st, (void *)a);
			f->st.radix_branchless = 1;
			int branchless = obm_address_in_range(&f->st, (void *)a);
			cr_assert_eq(cpython, branchless, "forms disagree at %#lx", (unsigned long)a);
			cr_assert_eq(cpython, in_some_arena(&f->st, a), "wrong at %#lx", (unsigned long)a);
		}
	}
	f->st.radix_branchless = 0;
	for (int i = 0; i < 3000; i++)
		obm_free(&f->st, mine[i]);
	fixture_free(f);
}
#else
Test(obmalloc, branchless_is_refused_for_big_pools)
{
	struct obm_config cfg;
	char err[256];
	cr_expect_neq(obm_config_parse("check=branchless", &cfg, err, sizeof err), 0);
	cr_expect(strstr(err, "variant of the radix tree's test") != NULL, "%s", err);
}
#endif

/* --- arenas --- */

static uint64_t stat_of(const struct obm_state *st, const char *name)
{
	struct stats s = {.n = 0};
	obm_state_stats(st, collect, &s);
	return stat(&s, name);
}

Test(obmalloc, arenas_are_released_and_reused)
{
	struct fixture *f = fixture_new("preset=classic");
	enum { N = 40000 };
	void **blocks = calloc(N, sizeof *blocks);

	for (int i = 0; i < N; i++)
		blocks[i] = obm_malloc(&f->st, 256);
	uint64_t peak = stat_of(&f->st, "arenas.current");
	cr_assert_geq(peak, 20, "40000 x 256 B should need dozens of 256 KiB arenas, got %llu",
		      (unsigned long long)peak);
	uint32_t objects = f->st.maxarenas;
	for (int i = 0; i < N; i++)
		obm_free(&f->st, blocks[i]);
	expect_valid(&f->st);
	/* All released but one wholly empty arena, kept against thrashing. */
	cr_expect_eq(stat_of(&f->st, "arenas.current"), 1);
	cr_expect_eq(stat_of(&f->st, "arenas.reclaimed"), peak - 1);
	cr_expect_eq(stat_of(&f->st, "arenas.highwater"), peak);
	for (int i = 0; i < N; i++)
		blocks[i] = obm_malloc(&f->st, 256);
	/* Arena objects are recycled: the vector did not grow. */
	cr_expect_eq(f->st.maxarenas, objects);
	cr_expect_eq(stat_of(&f->st, "arenas.allocated_total"), peak + peak - 1);
	expect_valid(&f->st);
	for (int i = 0; i < N; i++)
		obm_free(&f->st, blocks[i]);
	free(blocks);
	fixture_free(f);
}

Test(obmalloc, allocation_prefers_the_fullest_arena)
{
	struct fixture *f = fixture_new("preset=classic");
	enum { N = 20000 };
	void **blocks = calloc(N, sizeof *blocks);

	for (int i = 0; i < N; i++)
		blocks[i] = obm_malloc(&f->st, OBM_SMALL_THRESHOLD);
	/* Free every other block of every pool: all arenas stay partly used. */
	for (int i = 0; i < N; i += 2)
		obm_free(&f->st, blocks[i]);
	expect_valid(&f->st);
	/* Free whole pools from the last arenas: they drift to the tail. */
	for (int i = N - 1; i >= N / 2; i -= 2)
		obm_free(&f->st, blocks[i]);
	expect_valid(&f->st);
	const struct obm_arena *head = f->st.usable_arenas;
	for (const struct obm_arena *a = head; a; a = a->nextarena)
		cr_expect_leq(head->nfreepools, a->nfreepools);
	for (int i = 1; i < N / 2; i += 2)
		obm_free(&f->st, blocks[i]);
	expect_valid(&f->st);
	free(blocks);
	fixture_free(f);
}

/* --- block geometry --- */

Test(obmalloc, size_classes_and_raw_requests)
{
	struct fixture *f = fixture_new("preset=py310");
	for (size_t n = 1; n <= OBM_SMALL_THRESHOLD; n++) {
		void *p = obm_malloc(&f->st, n);
		cr_expect(obm_address_in_range(&f->st, p), "malloc(%zu) not from a pool", n);
		cr_expect_eq(obm_pool_of(&f->st, p)->szidx, (n - 1) >> OBM_ALIGNMENT_SHIFT);
		cr_expect_eq(obm_usable_size(&f->st, p), ((n - 1) / OBM_ALIGNMENT + 1) * OBM_ALIGNMENT);
		obm_free(&f->st, p);
	}
	void *zero = obm_malloc(&f->st, 0), *big = obm_malloc(&f->st, OBM_SMALL_THRESHOLD + 1);
	cr_expect_not(obm_address_in_range(&f->st, zero), "malloc(0) must go to the raw allocator");
	cr_expect_not(obm_address_in_range(&f->st, big), "malloc(threshold + 1) must go to the raw allocator");
	obm_free(&f->st, zero);
	obm_free(&f->st, big);
	fixture_free(f);
}

/* header=line changes where blocks start and nothing else: the classes
 * are the same, blocks of a line's size start on a line, and a pool holds
 * at most one block fewer. */
Test(obmalloc, a_line_header_moves_blocks_onto_lines)
{
	struct fixture *f = fixture_new("preset=py310"), *g = fixture_new("preset=py310,header=line");
	for (size_t n = 16; n <= OBM_SMALL_THRESHOLD; n += 16) {
		unsigned char *p = obm_malloc(&f->st, n), *q = obm_malloc(&g->st, n);
		cr_expect_eq(obm_usable_size(&f->st, p), obm_usable_size(&g->st, q));
		cr_expect_eq((uintptr_t)p - (uintptr_t)obm_pool_of(&f->st, p), OBM_POOL_HEADER);
		cr_expect_eq((uintptr_t)q - (uintptr_t)obm_pool_of(&g->st, q), OBM_LINE_HEADER);
		unsigned c = (unsigned)((n - 1) >> OBM_ALIGNMENT_SHIFT);
		cr_expect(f->classes[c].blocks - g->classes[c].blocks <= 1, "class %u: %u against %u blocks", c,
			  f->classes[c].blocks, g->classes[c].blocks);
		if (n % 64 == 0) {
			unsigned char *r = obm_malloc(&g->st, n);
			cr_expect_eq((uintptr_t)r % 64, 0, "a %zu-byte block at %p is off its line", n, (void *)r);
			obm_free(&g->st, r);
		}
		obm_free(&f->st, p);
		obm_free(&g->st, q);
	}
	fixture_free(f);
	fixture_free(g);
}

/* CPython before 3.8: 8-byte blocks in their own class, 64 classes. */
Test(obmalloc, alignment_and_classes_follow_the_version)
{
	struct fixture *f = fixture_new("preset=classic");
	void *p = obm_malloc(&f->st, 8), *q = obm_malloc(&f->st, 9);
	cr_expect_eq(OBM_NCLASSES, OBM_SMALL_THRESHOLD >> OBM_ALIGNMENT_SHIFT);
	cr_expect_eq(obm_usable_size(&f->st, p), OBM_ALIGNMENT == 8 ? 8u : 16u);
	cr_expect_eq(obm_usable_size(&f->st, q), 16u);
	cr_expect_eq((uintptr_t)p % OBM_ALIGNMENT, 0);
	obm_free(&f->st, p);
	obm_free(&f->st, q);
	fixture_free(f);
}

Test(obmalloc, blocks_per_pool)
{
	struct fixture *f = fixture_new("preset=py310");
#ifdef OBM_BIGPOOL
	/* 16 KiB pool = 4 pages; pages 2-4 lose 16 bytes each to the index
	 * and blocks never cross a page. 16-byte blocks: 253 in page 1
	 * ((4096-48)/16), 255 in each later page ((4096-16)/16). */
	cr_expect_eq(f->classes[(16 >> OBM_ALIGNMENT_SHIFT) - 1].blocks, 253 + 3 * 255);
	cr_expect_eq(f->classes[OBM_NCLASSES - 1].blocks,
		     (4096 - 48) / OBM_SMALL_THRESHOLD + 3 * ((4096 - 16) / OBM_SMALL_THRESHOLD));
#else
	cr_expect_eq(f->classes[(16 >> OBM_ALIGNMENT_SHIFT) - 1].blocks, 1021);
	cr_expect_eq(f->classes[OBM_NCLASSES - 1].blocks, (16384 - 48) / OBM_SMALL_THRESHOLD);
#endif
	/* Every block of a full pool is distinct, aligned, inside the pool
	 * and (big pools) within one page, clear of the page indexes. */
	for (unsigned c = 0; c < OBM_NCLASSES; c++) {
		uint32_t n = f->classes[c].blocks, size = f->classes[c].size;
		unsigned char **b = calloc(n, sizeof *b);
		for (uint32_t i = 0; i < n; i++) {
			b[i] = obm_malloc(&f->st, size);
			struct obm_pool *pool = obm_pool_of(&f->st, b[i]);
			uintptr_t off = (uintptr_t)(b[i] - (unsigned char *)pool);
			cr_assert(off >= OBM_POOL_HEADER && off + size <= f->cfg.pool_size);
#ifdef OBM_BIGPOOL
			cr_assert_eq(off / OBM_PAGE_SIZE, (off + size - 1) / OBM_PAGE_SIZE, "block crosses a page");
			cr_assert(off % OBM_PAGE_SIZE >= (off < OBM_PAGE_SIZE ? OBM_POOL_HEADER : OBM_PAGE_HEADER));
#endif
			memset(b[i], 0xee, size);
		}
		cr_expect_eq(obm_pool_of(&f->st, b[0]), obm_pool_of(&f->st, b[n - 1]), "class %u: one pool", c);
		cr_expect_eq(obm_pool_of(&f->st, b[0])->freeblock, NULL, "class %u pool not full", c);
		expect_valid(&f->st);
		for (uint32_t i = 0; i < n; i++)
			obm_free(&f->st, b[i]);
		free(b);
	}
	fixture_free(f);
}

Test(obmalloc, realloc_shrinks_in_place_only_above_three_quarters)
{
	struct fixture *f = fixture_new("preset=py310");
	/* With the threshold T (512, or 256 in 2.x): 25/32 T stays, 19/32 T moves. */
	const size_t t = OBM_SMALL_THRESHOLD, stay = t * 25 / 32, move = t * 19 / 32;
	void *p = obm_malloc(&f->st, t);
	cr_expect_eq(obm_realloc(&f->st, p, stay), p, "4*%zu > 3*%zu: stays in place", stay, t);
	void *q = obm_realloc(&f->st, p, move);
	cr_expect_neq(q, p, "4*%zu <= 3*%zu: moves to a smaller class", move, t);
	cr_expect_eq(obm_pool_of(&f->st, q)->szidx, (move - 1) >> OBM_ALIGNMENT_SHIFT);
	void *r = obm_realloc(&f->st, q, 1000);
	cr_expect_not(obm_address_in_range(&f->st, r), "growing past the threshold goes raw");
	obm_free(&f->st, r);
	fixture_free(f);
}

/* --- configuration --- */

Test(obmalloc, invalid_configurations_are_refused)
{
	static const char *const bad[][2] = {
		{"pool=3000", "pool=3000 is not a power of two"},
		{"arena=100K", "arena=102400 is not a power of two"},
		{"arena=256K,pool=1M", "is not a multiple of pool size"},
		{"arena=2G", "outside the supported 64K..1G"},
		{"pool=2K", "below the 4K minimum"},
		{"arena=64K,pool=64K", "holds only one"},
		{"preset=huge", "bad value for 'preset'"},
		{"mode=fast", "bad value for 'mode'"},
		{"colour=red", "unknown option 'colour'"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct obm_config cfg;
		char err[256] = "";
		cr_expect_eq(obm_config_parse(bad[i][0], &cfg, err, sizeof err), -EINVAL, "%s accepted", bad[i][0]);
		cr_expect(strstr(err, bad[i][1]) != NULL, "%s: '%s' not in: %s", bad[i][0], bad[i][1], err);
	}
}

Test(obmalloc, presets_match_the_comparison_table_and_cpython)
{
	static const struct {
		const char *preset;
		size_t arena, pool;
	} want[] = {
		{"classic", 256 << 10, 4 << 10}, {"py310", 1 << 20, 16 << 10},
		{"table-16m-4k", 16 << 20, 4 << 10}, {"table-64m-16k", 64 << 20, 16 << 10}, {"seed-64m-16k", 64 << 20, 16 << 10},
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		struct obm_config cfg;
		char opt[64], err[256];
		snprintf(opt, sizeof opt, "preset=%s", want[i].preset);
		cr_assert_eq(obm_config_parse(opt, &cfg, err, sizeof err), 0, "%s", err);
		cr_expect_eq(cfg.arena_size, want[i].arena);
		cr_expect_eq(cfg.pool_size, want[i].pool);
	}
}

/* --- the invariants are checked as the state changes --- */

/* A pool whose count was broken behind obmalloc's back is caught at the
 * next free of one of its blocks, in a build that checks invariants. */
static void break_a_pool_and_free(void)
{
	struct fixture *f = fixture_new("preset=py310");
	void *a = obm_malloc(&f->st, 32), *b = obm_malloc(&f->st, 32);
	struct obm_pool *pool = (struct obm_pool *)((uintptr_t)a & ~(uintptr_t)(f->cfg.pool_size - 1));
	pool->count = f->classes[pool->szidx].blocks + 1; /* more blocks in use than the pool has */
	obm_free(&f->st, b); /* aborts here in a checked build */
}

Test(obmalloc, a_broken_pool_is_caught_where_it_is_used)
{
	struct fixture *f = fixture_new("preset=py310");
	void *a = obm_malloc(&f->st, 32);
	struct obm_pool *pool = (struct obm_pool *)((uintptr_t)a & ~(uintptr_t)(f->cfg.pool_size - 1));
	cr_assert(obm_pool_valid(&f->st, pool));
	pool->count = f->classes[pool->szidx].blocks + 1;
	cr_expect_not(obm_pool_valid(&f->st, pool), "a pool with more blocks in use than it holds passes");
	pool->count = 1;
	fixture_free(f);
	if (!OBM_INVARIANTS_CHECKED)
		cr_skip_test("a release build does not check invariants as it runs (-Dinvariants=true does)");
	cr_expect(aborts(break_a_pool_and_free), "a broken pool went unnoticed at the next free");
}

/* The pool check knows a healthy pool through its life: carved, full,
 * drained. */
Test(obmalloc, every_pool_in_use_keeps_its_invariants)
{
	struct fixture *f = fixture_new("preset=py310");
	void *blocks[600];
	for (int i = 0; i < 600; i++) {
		blocks[i] = obm_malloc(&f->st, 128);
		struct obm_pool *pool = (struct obm_pool *)((uintptr_t)blocks[i] & ~(uintptr_t)(f->cfg.pool_size - 1));
		cr_assert(obm_pool_valid(&f->st, pool), "block %d", i);
	}
	expect_valid(&f->st);
	for (int i = 0; i < 600; i += 2)
		obm_free(&f->st, blocks[i]);
	for (int i = 1; i < 600; i += 2) {
		struct obm_pool *pool = (struct obm_pool *)((uintptr_t)blocks[i] & ~(uintptr_t)(f->cfg.pool_size - 1));
		cr_assert(obm_pool_valid(&f->st, pool), "block %d", i);
	}
	expect_valid(&f->st);
	fixture_free(f);
}
