/*
 * The conformance cases of `alloclab check`. Each runs in its own child
 * process (check_run.c), on a thread of its own that is attached to the
 * plugin as a workload thread would be, and says pass, fail or skip with a
 * reason a plugin author can act on.
 */
#define _GNU_SOURCE 1
#include "check/check.h"
#include "base/hash.h"

#include "process/child.h"
#include "measure/heapmap.h"
#include "base/rng.h"
#include "memory/self_memory.h"

#include <errno.h>
#include <malloc.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every call a case makes to the plugin is marked on the worker's phase
 * page first (alloclab_phase): a crash or a hang inside the plugin is then
 * reported with the op, the call's number in the case (per thread) and its
 * arguments, "killed by signal 11 (Segmentation fault) in free #31 of
 * 0x55d1c2a3b4c0", which a student can find in the case. */
static _Thread_local unsigned long case_calls;

static void mark_call(const char *op, const void *block, size_t size, size_t arg)
{
	char step[64];
	unsigned long n = ++case_calls;
	if (strcmp(op, "free") == 0)
		snprintf(step, sizeof step, "free #%lu of %p", n, block);
	else if (strcmp(op, "free_sized") == 0 || strcmp(op, "usable_size") == 0)
		snprintf(step, sizeof step, "%s #%lu of %p", op, n, block);
	else if (strcmp(op, "realloc") == 0)
		snprintf(step, sizeof step, "realloc #%lu of %p to %zu B", n, block, size);
	else if (strcmp(op, "calloc") == 0)
		snprintf(step, sizeof step, "calloc #%lu of %zu x %zu B", n, arg, size);
	else if (strcmp(op, "aligned_alloc") == 0)
		snprintf(step, sizeof step, "aligned_alloc #%lu of %zu B at %zu", n, size, arg);
	else
		snprintf(step, sizeof step, "%s #%lu of %zu B", op, n, size);
	alloclab_phase(step);
}

static void *ck_malloc(const struct alloclab_allocator *a, size_t size)
{
	mark_call("malloc", NULL, size, 0);
	return alloclab_malloc(a, size);
}

static void ck_free(const struct alloclab_allocator *a, void *block)
{
	mark_call("free", block, 0, 0);
	alloclab_free(a, block);
}

static void *ck_calloc(const struct alloclab_allocator *a, size_t nmemb, size_t size)
{
	mark_call("calloc", NULL, size, nmemb);
	return alloclab_calloc(a, nmemb, size);
}

static void ck_free_sized(const struct alloclab_allocator *a, void *block, size_t size)
{
	mark_call("free_sized", block, size, 0);
	alloclab_free_sized(a, block, size);
}

static void *ck_realloc(const struct alloclab_allocator *a, void *block, size_t size)
{
	mark_call("realloc", block, size, 0);
	return a->ops.realloc(a->instance, block, size);
}

static void *ck_aligned_alloc(const struct alloclab_allocator *a, size_t alignment, size_t size)
{
	mark_call("aligned_alloc", NULL, size, alignment);
	return a->ops.aligned_alloc(a->instance, alignment, size);
}

static size_t ck_usable_size(const struct alloclab_allocator *a, void *block)
{
	mark_call("usable_size", block, 0, 0);
	return a->ops.usable_size(a->instance, block);
}

#define FAIL(...)                                         \
	do {                                              \
		snprintf(r->why, sizeof r->why, __VA_ARGS__); \
		r->status = ALLOCLAB_CHECK_FAIL;          \
		return;                                   \
	} while (0)

#define SKIP(...)                                         \
	do {                                              \
		snprintf(r->why, sizeof r->why, __VA_ARGS__); \
		r->status = ALLOCLAB_CHECK_SKIP;          \
		return;                                   \
	} while (0)

/* Under valgrind (the test setup sets ALLOCLAB_UNDER_VALGRIND) every case
 * does a tenth of its work: the same checks, at a pace valgrind allows. */
static unsigned scale = 1; /* set before any case thread starts */

static unsigned work(unsigned n)
{
	return n / scale ? n / scale : 1;
}

struct block {
	unsigned char *p;
	size_t size;
	unsigned thread;
};

static int by_address(const void *x, const void *y)
{
	const struct block *a = x, *b = y;
	return (a->p > b->p) - (a->p < b->p);
}

/* 0 when no two blocks overlap; else the index of the first of a pair. */
static long find_overlap(struct block *b, size_t n)
{
	qsort(b, n, sizeof *b, by_address);
	for (size_t i = 0; i + 1 < n; i++)
		if (b[i].p + (b[i].size ? b[i].size : 1) > b[i + 1].p)
			return (long)i;
	return -1;
}

static unsigned char fill_of(const void *p, size_t size)
{
	uintptr_t x = (uintptr_t)p ^ (size * ALLOCLAB_GOLDEN_GAMMA);
	return (unsigned char)((x >> 4) ^ (x >> 13) ^ (x >> 21) ^ 0x5a) | 1;
}

/* ---- alignment ---- */

static void check_alignment(const struct alloclab_allocator *a, struct alloclab_check_result *r)
{
	static const size_t large[] = {100000, 1u << 20, 3u << 20, 16u << 20};

	for (size_t size = 1; size <= 65536; size += size < 256 ? 1 : size / 7) {
		void *p = ck_malloc(a, size);
		if (p == NULL)
			FAIL("malloc(%zu) returned NULL", size);
		if ((uintptr_t)p % a->min_align)
			FAIL("malloc(%zu) returned %p, not aligned to the declared minimum of %zu bytes", size, p,
			     a->min_align);
		ck_free(a, p);
	}
	for (size_t i = 0; i < sizeof large / sizeof large[0]; i++) {
		void *p = ck_malloc(a, large[i]);
		if (p == NULL)
			FAIL("malloc(%zu) returned NULL", large[i]);
		if ((uintptr_t)p % a->min_align)
			FAIL("malloc(%zu) returned %p, not aligned to %zu bytes", large[i], p, a->min_align);
		ck_free(a, p);
	}
	/* Sizes that are multiples of the alignment too, with a plain block of
	 * the size and earlier aligned ones still live: an allocator whose
	 * size class "naturally" aligns its blocks may be wrong once its page
	 * is in use (mimalloc 2.0.9's blocks of 256 aligned to 256 are at 128). */
	if (a->ops.aligned_alloc)
		for (size_t align = 16; align <= (2u << 20); align <<= 1) {
			const size_t sizes[] = {1, 3, align - 1, align, align + 1, 2 * align, 3 * align + 5, 4 * align};
			for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
				size_t size = sizes[k];
				void *plain = ck_malloc(a, size), *live[3];
				for (int i = 0; i < 3; i++) {
					void *p = live[i] = ck_aligned_alloc(a, align, size);
					if (p == NULL)
						FAIL("aligned_alloc(%zu, %zu) returned NULL", align, size);
					if ((uintptr_t)p % align)
						FAIL("aligned_alloc(%zu, %zu) returned %p, not aligned to %zu", align, size, p,
						     align);
				}
				for (int i = 0; i < 3; i++)
					ck_free(a, live[i]);
				ck_free(a, plain);
			}
		}
	snprintf(r->why, sizeof r->why, "malloc 1 B..16 MiB aligned to %zu%s", a->min_align,
		 a->ops.aligned_alloc ? "; aligned_alloc 16 B..2 MiB" : "");
}

/* ---- no overlap ---- */

static void check_no_overlap(const struct alloclab_allocator *a, struct alloclab_check_result *r)
{
	const size_t N = work(20000);
	struct block *b = calloc(N, sizeof *b);
	struct alloclab_rng rng = {42};
	long bad;

	for (size_t i = 0; i < N; i++) {
		b[i].size = 1 + alloclab_rng_next(&rng) % 2048;
		b[i].p = ck_malloc(a, b[i].size);
		if (b[i].p == NULL)
			FAIL("malloc(%zu) returned NULL", b[i].size);
	}
	/* Free every other block and allocate again into the holes. */
	for (size_t i = 0; i < N; i += 2) {
		ck_free(a, b[i].p);
		b[i].size = 1 + alloclab_rng_next(&rng) % 600;
		b[i].p = ck_malloc(a, b[i].size);
		if (b[i].p == NULL)
			FAIL("malloc(%zu) returned NULL", b[i].size);
	}
	bad = find_overlap(b, N);
	if (bad >= 0)
		FAIL("blocks overlap: %p (%zu bytes) runs into %p (%zu bytes)", (void *)b[bad].p, b[bad].size,
		     (void *)b[bad + 1].p, b[bad + 1].size);
	for (size_t i = 0; i < N; i++)
		ck_free(a, b[i].p);
	free(b);
	snprintf(r->why, sizeof r->why, "%zu live blocks of 1..2048 bytes, half replaced: disjoint", N);
}

/* ---- contents ---- */

static void check_contents(const struct alloclab_allocator *a, struct alloclab_check_result *r)
{
	const size_t N = work(4000);
	struct block *b = calloc(N, sizeof *b);
	struct alloclab_rng rng = {7};

	for (size_t i = 0; i < N; i++) {
		b[i].size = 1 + alloclab_rng_next(&rng) % 1000;
		b[i].p = ck_malloc(a, b[i].size);
		if (b[i].p == NULL)
			FAIL("malloc(%zu) returned NULL", b[i].size);
		memset(b[i].p, fill_of(b[i].p, b[i].size), b[i].size);
	}
	/* realloc some blocks bigger and smaller: the prefix stays, and no
	 * other block is touched. */
	if (a->ops.realloc)
		for (size_t i = 0; i < N; i += 3) {
			size_t old = b[i].size, size = i % 2 ? old * 3 + 17 : old / 2 + 1, keep = old < size ? old : size;
			unsigned char fill = fill_of(b[i].p, old);
			unsigned char *q = ck_realloc(a, b[i].p, size);
			if (q == NULL)
				FAIL("realloc(%zu -> %zu) returned NULL", old, size);
			for (size_t k = 0; k < keep; k++)
				if (q[k] != fill)
					FAIL("realloc(%zu -> %zu) lost byte %zu of the old contents", old, size, k);
			b[i].p = q;
			b[i].size = size;
			memset(q, fill_of(q, size), size);
		}
	for (size_t i = 0; i < N; i++) {
		unsigned char fill = fill_of(b[i].p, b[i].size);
		for (size_t k = 0; k < b[i].size; k++)
			if (b[i].p[k] != fill)
				FAIL("block %p (%zu bytes): byte %zu changed while it was live (%s)", (void *)b[i].p,
				     b[i].size, k, a->ops.realloc ? "a neighbour's malloc or realloc wrote into it" : "overlap");
	}
	for (size_t i = 0; i < N; i++)
		ck_free(a, b[i].p);
	/* calloc returns zeros, also on memory just freed dirty. */
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < N; i++) {
			size_t nmemb = 1 + i % 17, size = 1 + (i * 7) % 61;
			unsigned char *p = ck_calloc(a, nmemb, size);
			if (p == NULL)
				FAIL("calloc(%zu, %zu) returned NULL", nmemb, size);
			for (size_t k = 0; k < nmemb * size; k++)
				if (p[k] != 0)
					FAIL("calloc(%zu, %zu) byte %zu is %#x, not zero%s", nmemb, size, k, p[k],
					     round ? " (on recycled memory)" : "");
			memset(p, 0xff, nmemb * size);
			ck_free(a, p);
		}
	free(b);
	snprintf(r->why, sizeof r->why, "fill patterns kept%s; calloc zeroed, also on recycled memory",
		 a->ops.realloc ? ", realloc kept prefixes and neighbours" : "");
}

/* ---- guards ---- */

/*
 * Every block the test keeps is asked for GUARD bytes longer at each end;
 * those bytes hold a pattern only this test writes. After every operation
 * (malloc, realloc, free, in one thread, interleaved) every live
 * block's guards and contents are checked, so an allocator that writes into
 * memory it handed out (its neighbour's, a header before the block, slack
 * after it) is caught at the operation that did it.
 */
#define GUARD 16
#define GUARD_BYTE 0xa7

struct guarded {
	unsigned char *p; /* the plugin's block: GUARD + size + GUARD bytes */
	size_t size;
	unsigned char fill;
};

static void guard_fill(struct guarded *g)
{
	memset(g->p, GUARD_BYTE, GUARD);
	memset(g->p + GUARD, g->fill, g->size);
	memset(g->p + GUARD + g->size, GUARD_BYTE, GUARD);
}

/* "" when intact; else what was hit. */
static const char *guard_damage(const struct guarded *g, size_t *at)
{
	for (size_t k = 0; k < GUARD; k++)
		if (g->p[k] != GUARD_BYTE) {
			*at = k;
			return "the guard before";
		}
	for (size_t k = 0; k < g->size; k++)
		if (g->p[GUARD + k] != g->fill) {
			*at = k;
			return "the contents of";
		}
	for (size_t k = 0; k < GUARD; k++)
		if (g->p[GUARD + g->size + k] != GUARD_BYTE) {
			*at = k;
			return "the guard after";
		}
	return "";
}

static void check_guards(const struct alloclab_allocator *a, struct alloclab_check_result *r)
{
	const size_t LIVE = 256, OPS = work(20000);
	struct guarded *g = calloc(LIVE, sizeof *g);
	struct alloclab_rng rng = {99};
	const char *op = "malloc";

	for (size_t i = 0; i < OPS; i++) {
		size_t k = alloclab_rng_next(&rng) % LIVE, size = alloclab_rng_next(&rng) % 300, at = 0;
		unsigned kind = (unsigned)(alloclab_rng_next(&rng) % 8);

		if (g[k].p && kind == 0 && a->ops.realloc) {
			op = "realloc";
			unsigned char *q = ck_realloc(a, g[k].p, GUARD + size + GUARD);
			if (q == NULL)
				FAIL("realloc(%zu) returned NULL", GUARD + size + GUARD);
			g[k].p = q;
			/* The prefix moved with it; the new guard after is ours to write. */
			g[k].size = size < g[k].size ? size : g[k].size;
			memset(q + GUARD + g[k].size, g[k].fill, size - g[k].size);
			g[k].size = size;
			memset(q + GUARD + size, GUARD_BYTE, GUARD);
		} else if (g[k].p) {
			op = "free";
			ck_free(a, g[k].p);
			g[k].p = NULL;
		} else {
			op = "malloc";
			g[k].p = ck_malloc(a, GUARD + size + GUARD);
			if (g[k].p == NULL)
				FAIL("%s(%zu) returned NULL", op, GUARD + size + GUARD);
			g[k].size = size;
			g[k].fill = (unsigned char)(1 + i % 200);
			guard_fill(&g[k]);
		}
		for (size_t j = 0; j < LIVE; j++) {
			const char *hit;
			if (g[j].p == NULL || *(hit = guard_damage(&g[j], &at)) == '\0')
				continue;
			FAIL("operation %zu, a %s, wrote into %s a live block (%zu bytes at %p, byte %zu): the allocator "
			     "writes into memory it has handed out",
			     i + 1, op, hit, g[j].size, (void *)(g[j].p + GUARD), at);
		}
	}
	for (size_t j = 0; j < LIVE; j++)
		if (g[j].p)
			ck_free(a, g[j].p);
	free(g);
	snprintf(r->why, sizeof r->why, "%zu interleaved malloc/%sfree with %d-byte guards: every live block "
		 "intact after every operation", OPS, a->ops.realloc ? "realloc/" : "", GUARD);
}

/* ---- footprint ---- */

static long rss_kib(void)
{
	return alloclab_status_kib("VmRSS");
}

/*
 * A steady state: a fixed live set whose blocks are all replaced, cycle
 * after cycle. An allocator that reuses what is freed stops growing after
 * the first cycles; one that never reuses (a bump allocator) grows by the
 * live set every cycle. The resident set is compared between cycle WARM
 * and the last.
 */
static void check_footprint(const struct alloclab_allocator *a, struct alloclab_check_result *r)
{
	const size_t N = 8192, CYCLES = 24, WARM = 8;

	/* Under valgrind or AddressSanitizer the C library's malloc is theirs,
	 * and it keeps freed memory in quarantine on purpose: a plugin built
	 * on it would look like one that never reuses. */
	if (getenv("ALLOCLAB_UNDER_VALGRIND") || getenv("ALLOCLAB_UNDER_SANITIZER"))
		SKIP("under valgrind or a sanitizer freed memory is quarantined, not reused: the footprint means nothing");
	void **b = calloc(N, sizeof *b);
	size_t *sizes = calloc(N, sizeof *sizes), live = 0;
	struct alloclab_rng rng = {5};
	long start = rss_kib(), warm = 0, end;

	for (size_t c = 0; c < CYCLES; c++) {
		for (size_t i = 0; i < N; i++) {
			size_t size = 16 + alloclab_rng_next(&rng) % 496;
			if (b[i]) {
				ck_free(a, b[i]);
				live -= sizes[i];
			}
			b[i] = ck_malloc(a, size);
			if (b[i] == NULL)
				FAIL("malloc(%zu) returned NULL in cycle %zu", size, c + 1);
			memset(b[i], 1, size);
			sizes[i] = size;
			live += size;
		}
		if (c + 1 == WARM)
			warm = rss_kib();
	}
	end = rss_kib();
	for (size_t i = 0; i < N; i++)
		ck_free(a, b[i]);
	free(b);
	free(sizes);
	if (start < 0 || warm < 0 || end < 0)
		SKIP("cannot read the resident set (/proc/self/status)");
	/* A cycle allocates about the live set anew: growing by as much as
	 * the live set over the last cycles is not reuse. */
	if ((size_t)(end - warm) * 1024 > live)
		FAIL("resident set grew by %ld KiB over the last %zu cycles of a steady %zu KiB live set (%zu KiB "
		     "allocated in all): freed memory is not reused",
		     end - warm, CYCLES - WARM, live / 1024, live * CYCLES / 1024);
	snprintf(r->why, sizeof r->why, "steady state: %zu KiB live, footprint %ld KiB (%.2fx), %+ld KiB over the last "
		 "%zu cycles", live / 1024, end - start, (double)(end - start) * 1024 / (double)live, end - warm,
		 CYCLES - WARM);
}

/* ---- edge sizes ---- */

static void check_edge_sizes(const struct alloclab_allocator *a, struct alloclab_check_result *r)
{
	static const size_t huge[] = {SIZE_MAX, SIZE_MAX / 2, SIZE_MAX - 4096, (size_t)1 << 50};
	void *z1 = ck_malloc(a, 0), *z2 = ck_malloc(a, 0);

	if (z1 == NULL || z2 == NULL)
		FAIL("malloc(0) returned NULL; the ABI wants a unique block that can be freed");
	if (z1 == z2)
		FAIL("malloc(0) returned the same block twice (%p); the ABI wants unique blocks", z1);
	ck_free(a, z1);
	ck_free(a, z2);
	ck_free(a, NULL);
	for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
		void *p = ck_malloc(a, huge[i]);
		if (p != NULL)
			FAIL("malloc(%zu) did not return NULL, though no machine has that much", huge[i]);
	}
	if (ck_calloc(a, SIZE_MAX / 2, 4) != NULL)
		FAIL("calloc(SIZE_MAX/2, 4) did not return NULL: nmemb x size overflows");
	if (ck_calloc(a, (size_t)1 << 33, (size_t)1 << 33) != NULL)
		FAIL("calloc(2^33, 2^33) did not return NULL: nmemb x size overflows");
	r->ndiffers = alloclab_check_glibc_edges(a, r->differs);
	snprintf(r->why, sizeof r->why, "malloc(0) unique; free(NULL) harmless; huge and overflowing requests NULL; "
		 "calloc's and realloc's edges %s", r->ndiffers ? "allowed, some not glibc's" : "as glibc's where asked");
}

/* ---- usable size ---- */

static void check_usable_size(const struct alloclab_allocator *a, struct alloclab_check_result *r)
{
	if (a->ops.usable_size == NULL)
		SKIP("no usable_size op declared");
	for (size_t size = 1; size <= (1u << 20); size = size * 3 / 2 + 1) {
		unsigned char *p = ck_malloc(a, size);
		size_t usable;
		if (p == NULL)
			FAIL("malloc(%zu) returned NULL", size);
		usable = ck_usable_size(a, p);
		if (usable < size)
			FAIL("usable_size of a malloc(%zu) block is %zu, below the size requested", size, usable);
		memset(p, 0x11, usable); /* all of it must really be usable */
		ck_free(a, p);
	}
	snprintf(r->why, sizeof r->why, "usable_size >= requested for 1 B..1 MiB, all of it writable");
}

/* ---- regions ---- */

#define REGION_BLOCKS 2000

/* One look at the regions with the check's blocks live: every region
 * valid (heapmap.h), regions nested or apart, and where the plugin counts
 * blocks, each innermost region's blocks in use those of the live blocks
 * that start in it. Returns NULL, or why not; *counted whether it counts. */
static const char *regions_agree(const struct alloclab_allocator *a, void *const *live, size_t n, int *counted,
				 size_t *nregions, char *why, size_t why_len)
{
	struct alloclab_region_set set;
	if (alloclab_region_set_take(a->ops.regions, a->instance, &set, why, why_len) != 0)
		return why;
	const char *bad = NULL;
	uint64_t *ours = calloc(set.ninner + 1, sizeof *ours);
	*nregions = set.n;
	for (size_t i = 0; i < set.n && !bad; i++) {
		uint64_t end = set.r[i].address + set.r[i].bytes;
		for (size_t j = i + 1; j < set.n && set.r[j].address < end && !bad; j++)
			if (set.r[j].address + set.r[j].bytes > end) {
				snprintf(why, why_len, "the regions at 0x%" PRIx64 " and 0x%" PRIx64 " overlap, neither holding the other",
					 set.r[i].address, set.r[j].address);
				bad = why;
			}
	}
	for (size_t i = 0; i < n && !bad; i++) {
		long k = alloclab_region_set_find(&set, (uintptr_t)live[i]);
		if (k >= 0)
			ours[k]++;
	}
	*counted = 0;
	for (size_t k = 0; k < set.ninner; k++)
		if (set.r[set.inner[k]].blocks_in_use)
			*counted = 1;
	for (size_t k = 0; k < set.ninner && *counted && !bad; k++) {
		const struct alloclab_region *g = &set.r[set.inner[k]];
		if (g->blocks_in_use != ours[k]) {
			snprintf(why, why_len,
				 "the region at 0x%" PRIx64 " says %" PRIu64 " blocks in use; %" PRIu64
				 " of the check's live blocks start in it",
				 g->address, g->blocks_in_use, ours[k]);
			bad = why;
		}
	}
	free(ours);
	alloclab_region_set_clear(&set);
	return bad;
}

static void check_regions(const struct alloclab_allocator *a, struct alloclab_check_result *r)
{
	static void *live[REGION_BLOCKS];
	struct alloclab_rng rng = {11};
	char why[400];
	size_t n = REGION_BLOCKS, nregions[2];
	int counted = 0;

	if (a->ops.regions == NULL)
		SKIP("no regions op declared");
	for (size_t i = 0; i < n; i++) {
		size_t size = 1 + alloclab_rng_next(&rng) % 600;
		if ((live[i] = ck_malloc(a, size)) == NULL)
			FAIL("malloc(%zu) returned NULL", size);
		memset(live[i], 0x5a, size);
	}
	/* With all of them live, then with every other one freed. */
	for (int pass = 0; pass < 2; pass++) {
		if (regions_agree(a, live, n, &counted, &nregions[pass], why, sizeof why))
			FAIL("%s (%zu blocks live)", why, n);
		if (pass == 0) {
			size_t kept = 0;
			for (size_t i = 0; i < n; i++) {
				if (i % 2)
					ck_free(a, live[i]);
				else
					live[kept++] = live[i];
			}
			n = kept;
		}
	}
	for (size_t i = 0; i < n; i++)
		ck_free(a, live[i]);
	snprintf(r->why, sizeof r->why, "%zu then %zu regions, valid and nested, %s", nregions[0], nregions[1],
		 counted ? "each innermost one's blocks in use those of the live blocks in it"
			 : "no blocks counted in them (the plugin does not count them)");
}

/* ---- threads ---- */

#define STRESS_THREADS 4
#define HANDOFF 256

struct stress {
	const struct alloclab_allocator *a;
	int cross;
	pthread_mutex_t lock;
	struct block handoff[HANDOFF]; /* blocks passed between threads */
	char why[256];
	_Atomic int failed; /* read by every thread while others may set it */
};

static void put_cookie(unsigned char *p, size_t size)
{
	unsigned char c = fill_of(p, size);
	p[0] = c;
	p[size - 1] = c;
	if (size > 8)
		p[size / 2] = c;
}

static int cookie_ok(const unsigned char *p, size_t size)
{
	unsigned char c = fill_of(p, size);
	return p[0] == c && p[size - 1] == c && (size <= 8 || p[size / 2] == c);
}

struct stress_thread {
	struct stress *s;
	unsigned index;
};

static void *stress_main(void *arg)
{
	struct stress_thread *t = arg;
	struct stress *s = t->s;
	const struct alloclab_allocator *a = s->a;
	struct block live[512] = {{0}};
	struct alloclab_rng rng = {t->index * 7919 + 1};

	if (a->ops.thread_attach && a->ops.thread_attach(a->instance) != 0) {
		snprintf(s->why, sizeof s->why, "thread_attach failed");
		s->failed = 1;
		return NULL;
	}
	for (unsigned op = 0, ops = work(200000); op < ops && !s->failed; op++) {
		uint64_t x = alloclab_rng_next(&rng);
		struct block *b = &live[x % 512];
		if (b->p) {
			if (!cookie_ok(b->p, b->size)) {
				snprintf(s->why, sizeof s->why, "thread %u: block %p (%zu bytes) changed while live", t->index,
					 (void *)b->p, b->size);
				s->failed = 1;
				break;
			}
			if (s->cross && (x >> 20) % 4 == 0) {
				/* Swap the block with one another thread left. */
				pthread_mutex_lock(&s->lock);
				struct block *h = &s->handoff[(x >> 30) % HANDOFF], mine = *b;
				*b = *h;
				*h = mine;
				pthread_mutex_unlock(&s->lock);
				if (b->p && !cookie_ok(b->p, b->size)) {
					snprintf(s->why, sizeof s->why, "a block handed between threads changed (%p, %zu bytes)",
						 (void *)b->p, b->size);
					s->failed = 1;
					break;
				}
				if (b->p)
					ck_free(a, b->p); /* often allocated by another thread */
			} else {
				ck_free(a, b->p);
			}
			b->p = NULL;
		} else {
			b->size = 1 + (x >> 8) % ((x >> 40) % 16 == 0 ? 20000 : 600);
			b->p = ck_malloc(a, b->size);
			if (b->p == NULL) {
				snprintf(s->why, sizeof s->why, "malloc(%zu) returned NULL under threads", b->size);
				s->failed = 1;
				break;
			}
			put_cookie(b->p, b->size);
		}
	}
	/* free(NULL) is the edge-sizes case's business, not this one's. */
	for (size_t i = 0; i < 512; i++)
		if (live[i].p)
			ck_free(a, live[i].p);
	if (a->ops.thread_detach)
		a->ops.thread_detach(a->instance);
	return NULL;
}

static void check_threads(const struct alloclab_allocator *a, struct alloclab_check_result *r)
{
	struct stress s = {.a = a, .cross = (a->caps & ALLOCLAB_CAP_CROSS_THREAD_FREE) != 0};
	struct stress_thread ts[STRESS_THREADS];
	pthread_t tid[STRESS_THREADS];

	if (!(a->caps & ALLOCLAB_CAP_THREAD_SAFE))
		SKIP("the plugin does not declare thread-safe");
	pthread_mutex_init(&s.lock, NULL);
	for (unsigned i = 0; i < STRESS_THREADS; i++) {
		ts[i] = (struct stress_thread){&s, i};
		pthread_create(&tid[i], NULL, stress_main, &ts[i]);
	}
	for (unsigned i = 0; i < STRESS_THREADS; i++)
		pthread_join(tid[i], NULL);
	for (size_t i = 0; i < HANDOFF; i++)
		if (s.handoff[i].p)
			ck_free(a, s.handoff[i].p);
	if (s.failed)
		FAIL("%s", s.why);
	snprintf(r->why, sizeof r->why, "%d threads x %u random ops, cookies intact%s", STRESS_THREADS, work(200000),
		 s.cross ? ", blocks freed across threads" : " (no cross-thread frees: not declared)");
}

static void *churn_thread(void *arg)
{
	const struct alloclab_allocator *a = arg;
	void *p[64];

	if (a->ops.thread_attach && a->ops.thread_attach(a->instance) != 0)
		return (void *)1;
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 64; i++)
			if ((p[i] = ck_malloc(a, (size_t)(16 + i * 8))) == NULL)
				return (void *)1;
		for (int i = 0; i < 64; i++)
			ck_free(a, p[i]);
	}
	if (a->ops.thread_detach)
		a->ops.thread_detach(a->instance);
	return NULL;
}

static void check_thread_lifecycle(const struct alloclab_allocator *a, struct alloclab_check_result *r)
{
	/* Not thread-safe plugins: threads one after another. */
	int together = (a->caps & ALLOCLAB_CAP_THREAD_SAFE) ? 2 : 1;
	for (int i = 0; i < (int)work(200); i++) {
		pthread_t t[2];
		void *ret;
		for (int k = 0; k < together; k++)
			pthread_create(&t[k], NULL, churn_thread, (void *)a);
		for (int k = 0; k < together; k++) {
			pthread_join(t[k], &ret);
			if (ret != NULL)
				FAIL("a thread failed to attach or allocate (generation %d)", i);
		}
	}
	snprintf(r->why, sizeof r->why, "%u generations of %d thread%s created, used and torn down", work(200), together,
		 together > 1 ? "s" : "");
}

/* ---- the course's later steps ---- */

/* Blocks made in some threads and freed in others, and nothing else: the
 * traffic a per-thread cache must hand back to its owner (step 4). */
#define PASS_THREADS 4
#define PASS_RING 1024

struct pass {
	const struct alloclab_allocator *a;
	pthread_mutex_t lock;
	struct block ring[PASS_RING];
	size_t head, tail;
	unsigned producers_left;
	char why[256];
	_Atomic int failed;
};

static void *pass_producer(void *arg)
{
	struct pass *s = arg;
	struct alloclab_rng rng = {(uint64_t)(uintptr_t)&rng | 1};
	if (s->a->ops.thread_attach && s->a->ops.thread_attach(s->a->instance) != 0)
		s->failed = 1;
	for (unsigned i = 0; i < work(100000) && !s->failed;) {
		size_t size = 1 + alloclab_rng_next(&rng) % 700;
		unsigned char *p = ck_malloc(s->a, size);
		if (p == NULL) {
			snprintf(s->why, sizeof s->why, "malloc(%zu) returned NULL", size);
			s->failed = 1;
			break;
		}
		put_cookie(p, size);
		pthread_mutex_lock(&s->lock);
		if (s->head - s->tail < PASS_RING) {
			s->ring[s->head++ % PASS_RING] = (struct block){p, size, 0};
			i++;
			p = NULL;
		}
		pthread_mutex_unlock(&s->lock);
		if (p)
			ck_free(s->a, p); /* the ring is full: this one stays home */
	}
	pthread_mutex_lock(&s->lock);
	s->producers_left--;
	pthread_mutex_unlock(&s->lock);
	if (s->a->ops.thread_detach)
		s->a->ops.thread_detach(s->a->instance);
	return NULL;
}

static void *pass_consumer(void *arg)
{
	struct pass *s = arg;
	if (s->a->ops.thread_attach && s->a->ops.thread_attach(s->a->instance) != 0)
		s->failed = 1;
	for (;;) {
		struct block b = {NULL, 0, 0};
		int done;
		pthread_mutex_lock(&s->lock);
		if (s->head != s->tail)
			b = s->ring[s->tail++ % PASS_RING];
		done = s->producers_left == 0 && s->head == s->tail;
		pthread_mutex_unlock(&s->lock);
		if (b.p) {
			if (!cookie_ok(b.p, b.size) && !s->failed) {
				snprintf(s->why, sizeof s->why,
					 "a block of %zu bytes made in another thread was changed before this one freed it", b.size);
				s->failed = 1;
			}
			ck_free(s->a, b.p);
		} else if (done || s->failed) {
			break;
		}
	}
	if (s->a->ops.thread_detach)
		s->a->ops.thread_detach(s->a->instance);
	return NULL;
}

static void check_cross_thread(const struct alloclab_allocator *a, struct alloclab_check_result *r)
{
	static struct pass s;
	pthread_t tid[PASS_THREADS];

	if ((a->caps & (ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE)) !=
	    (ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE))
		SKIP("the plugin does not declare thread-safe and cross-thread free");
	memset(&s, 0, sizeof s);
	s.a = a;
	s.producers_left = PASS_THREADS / 2;
	pthread_mutex_init(&s.lock, NULL);
	for (unsigned i = 0; i < PASS_THREADS; i++)
		pthread_create(&tid[i], NULL, i % 2 ? pass_consumer : pass_producer, &s);
	for (unsigned i = 0; i < PASS_THREADS; i++)
		pthread_join(tid[i], NULL);
	while (s.tail != s.head)
		ck_free(a, s.ring[s.tail++ % PASS_RING].p);
	if (s.failed)
		FAIL("%s", s.why[0] ? s.why : "a thread failed to attach");
	snprintf(r->why, sizeof r->why, "%d threads made %u blocks each that %d others freed, cookies intact",
		 PASS_THREADS / 2, work(100000), PASS_THREADS / 2);
}

/* Arenas that hold pools (step 5): at the peak, an arena with pools in
 * it; once every block is freed (and trim, if offered, has run), at most
 * one arena kept, as obmalloc keeps none that is empty. */
#define ARENA_BLOCKS 40000

static void count_kinds(const struct alloclab_region_set *set, size_t *arenas, size_t *nested_pools)
{
	*arenas = *nested_pools = 0;
	for (size_t i = 0; i < set->n; i++) {
		if (set->r[i].kind == ALLOCLAB_REGION_ARENA)
			(*arenas)++;
		if (set->r[i].kind != ALLOCLAB_REGION_POOL)
			continue;
		for (size_t k = 0; k < set->n; k++)
			if (set->r[k].kind == ALLOCLAB_REGION_ARENA && set->r[k].address <= set->r[i].address &&
			    set->r[i].address + set->r[i].bytes <= set->r[k].address + set->r[k].bytes) {
				(*nested_pools)++;
				break;
			}
	}
}

static void check_arenas(const struct alloclab_allocator *a, struct alloclab_check_result *r)
{
	static void *live[ARENA_BLOCKS];
	struct alloclab_region_set set;
	struct alloclab_rng rng = {5};
	char err[300];
	size_t peak_arenas, pools, after_arenas, after_pools;

	if (a->ops.regions == NULL)
		SKIP("no regions op declared");
	for (size_t i = 0; i < ARENA_BLOCKS; i++)
		if ((live[i] = ck_malloc(a, 8 + alloclab_rng_next(&rng) % 500)) == NULL)
			FAIL("malloc returned NULL");
	if (alloclab_region_set_take(a->ops.regions, a->instance, &set, err, sizeof err) != 0)
		FAIL("%s", err);
	count_kinds(&set, &peak_arenas, &pools);
	alloclab_region_set_clear(&set);
	for (size_t i = 0; i < ARENA_BLOCKS; i++)
		ck_free(a, live[i]);
	if (peak_arenas == 0 || pools == 0)
		FAIL("with %d blocks live the regions are %zu arenas and %zu pools inside them: pools are carved "
		     "from arenas", ARENA_BLOCKS, peak_arenas, pools);
	if (a->ops.trim)
		a->ops.trim(a->instance);
	if (alloclab_region_set_take(a->ops.regions, a->instance, &set, err, sizeof err) != 0)
		FAIL("%s", err);
	count_kinds(&set, &after_arenas, &after_pools);
	alloclab_region_set_clear(&set);
	if (after_arenas > 1)
		FAIL("every block freed, %zu of its %zu arenas are still held: an arena whose pools are all empty goes "
		     "back to the system", after_arenas, peak_arenas);
	snprintf(r->why, sizeof r->why, "%zu arenas holding %zu pools at the peak, %zu once every block was freed",
		 peak_arenas, pools, after_arenas);
}

/* The ownership test (step 5): free() given a block of the C library's
 * malloc hands it back to the C library, as obmalloc's address_in_range
 * lets CPython's free do. Course-only: the ABI gives a plugin's free only
 * its own blocks. */
#define FOREIGN_BLOCKS 2000

static void check_ownership(const struct alloclab_allocator *a, struct alloclab_check_result *r)
{
	static void *foreign[FOREIGN_BLOCKS];
	struct mallinfo2 before = mallinfo2();
	for (size_t i = 0; i < FOREIGN_BLOCKS; i++)
		if ((foreign[i] = malloc(64 + i % 200)) == NULL)
			FAIL("the C library's malloc returned NULL");
	struct mallinfo2 held = mallinfo2();
	for (size_t i = 0; i < FOREIGN_BLOCKS; i++)
		ck_free(a, foreign[i]);
	struct mallinfo2 after = mallinfo2();
	size_t given = held.uordblks - before.uordblks, back = held.uordblks - after.uordblks;
	if (back < given * 9 / 10)
		FAIL("free() was given %d blocks of the C library's malloc (%zu bytes) and handed back %zu bytes of them: "
		     "test whether an address is yours, and pass what is not to the C library's free",
		     FOREIGN_BLOCKS, given, back);
	snprintf(r->why, sizeof r->why, "%d blocks of the C library's malloc handed back to it by free()", FOREIGN_BLOCKS);
}

/* ---- honesty ---- */

static int stat_count;
static void count_stat(void *arg, const char *name, uint64_t value)
{
	(void)arg;
	(void)name;
	(void)value;
	stat_count++;
}

/* The program API against the ops: each block of one released by the
 * other, calloc zero, realloc keeping its prefix, aligned_alloc aligned,
 * usable_size at least the size. why stays "" when all of it holds. */
struct program_check {
	const struct alloclab_allocator *a;
	char why[256];
};

static void program_api_works(struct program_check *pc)
{
	const struct alloclab_allocator *a = pc->a;
	const struct alloclab_program_api *api = &a->program;
	for (size_t size = 0; size < 70000; size = size * 2 + 1) {
		unsigned char *p = api->malloc(size), *q = ck_malloc(a, size);
		if (p == NULL || q == NULL) {
			snprintf(pc->why, sizeof pc->why, "malloc(%zu) returned NULL", size);
			return;
		}
		memset(p, 0x5a, size);
		memset(q, 0xa5, size);
		if (api->usable_size && api->usable_size(p) < size) {
			snprintf(pc->why, sizeof pc->why, "usable_size of a %zu-byte block is %zu", size, api->usable_size(p));
			return;
		}
		if (api->realloc) {
			unsigned char *g = api->realloc(p, size * 2 + 8);
			if (g == NULL || (size && (g[0] != 0x5a || g[size - 1] != 0x5a))) {
				snprintf(pc->why, sizeof pc->why, "realloc of a %zu-byte block lost its contents", size);
				return;
			}
			p = g;
		}
		ck_free(a, p);
		api->free(q);
		if (api->calloc) {
			unsigned char *c = api->calloc(1, size + 1);
			for (size_t i = 0; c && i <= size; i++)
				if (c[i]) {
					snprintf(pc->why, sizeof pc->why, "calloc(1, %zu) is not zero at %zu", size + 1, i);
					return;
				}
			if (c == NULL) {
				snprintf(pc->why, sizeof pc->why, "calloc(1, %zu) returned NULL", size + 1);
				return;
			}
			ck_free(a, c);
		}
		if (api->aligned_alloc) {
			size_t align = (size_t)1 << (3 + size % 10);
			void *al = api->aligned_alloc(align, size + 1);
			if (al == NULL || (uintptr_t)al % align) {
				snprintf(pc->why, sizeof pc->why, "aligned_alloc(%zu, %zu) gave %p", align, size + 1, al);
				return;
			}
			ck_free(a, al);
		}
	}
}

static void *program_api_thread(void *arg)
{
	program_api_works(arg);
	return NULL;
}

/* Appends ", WHAT" (or WHAT first) to the list in done, as much as fits. */
static void note(char *done, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(char *done, size_t len, const char *fmt, ...)
{
	size_t used = strlen(done);
	va_list ap;
	if (used + 3 >= len)
		return;
	if (used) {
		memcpy(done + used, ", ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(done + used, len - used, fmt, ap);
	va_end(ap);
}

/* The honesty case in parts, each a group of declared ops tried; a part
 * that fails says why in r and returns (FAIL), and the case stops there. */
static void honest_ops(const struct alloclab_allocator *a, struct alloclab_check_result *r, char *done, size_t len)
{
	if (a->ops.stats) {
		stat_count = 0;
		int rc = a->ops.stats(a->instance, count_stat, NULL);
		if (rc != 0)
			FAIL("declares stats, but stats() returned %d", rc);
		if (stat_count == 0)
			FAIL("declares stats, but stats() reported no value");
		note(done, len, "stats (%d values)", stat_count);
	}
	if (a->ops.free_sized && (a->caps & ALLOCLAB_CAP_SIZED_FREE)) {
		for (size_t size = 1; size < 5000; size = size * 2 + 1) {
			void *p = ck_malloc(a, size);
			ck_free_sized(a, p, size);
		}
		note(done, len, "free_sized");
	}
	if (a->ops.aligned_alloc) {
		void *p = ck_aligned_alloc(a, 4096, 10);
		if (p == NULL || (uintptr_t)p % 4096)
			FAIL("declares aligned allocation, but aligned_alloc(4096, 10) gave %p", p);
		ck_free(a, p);
		note(done, len, "aligned_alloc");
	}
	if (a->ops.realloc) {
		unsigned char *p = ck_realloc(a, NULL, 40);
		if (p == NULL)
			FAIL("declares realloc, but realloc(NULL, 40) returned NULL (it must act as malloc)");
		ck_free(a, p);
		note(done, len, "realloc(NULL)");
	}
}

static void honest_entries(const struct alloclab_allocator *a, struct alloclab_check_result *r, char *done,
			   size_t len)
{
	if (a->direct_malloc) {
		/* The entry points stand for malloc and free: each block of one
		 * is freed by the other, written in full, and aligned. */
		for (size_t size = 0; size < 70000; size = size * 2 + 1) {
			unsigned char *p = a->direct_malloc(size), *q = ck_malloc(a, size);
			if (p == NULL || q == NULL)
				FAIL("malloc(%zu) through %s returned NULL", size, p ? "the malloc op" : "the entry point");
			if ((uintptr_t)p % a->min_align)
				FAIL("the malloc entry point's block of %zu bytes is not %zu-aligned", size, a->min_align);
			memset(p, 0x5a, size);
			memset(q, 0xa5, size);
			ck_free(a, p);
			a->direct_free(q);
		}
		note(done, len, "entry_points");
	}
	if (a->program.malloc) {
		/* The program API, on this thread and on one never attached. */
		struct program_check pc = {a, ""};
		pthread_t t;
		program_api_works(&pc);
		if (pc.why[0] == '\0' && pthread_create(&t, NULL, program_api_thread, &pc) == 0)
			pthread_join(t, NULL);
		if (pc.why[0])
			FAIL("program_api: %s", pc.why);
		note(done, len, "program_api");
	}
}

/* trim gives back what is free; what is live stays as it was. */
static void honest_trim(const struct alloclab_allocator *a, struct alloclab_check_result *r, char *done, size_t len)
{
	enum { N = 256 };
	unsigned char *b[N];
	if (!a->ops.trim)
		return;
	for (unsigned i = 0; i < N; i++) {
		size_t size = 16 + (i * 977) % 70000;
		if ((b[i] = ck_malloc(a, size)) == NULL)
			FAIL("malloc(%zu) returned NULL", size);
		memset(b[i], (int)(i & 0xff), size);
	}
	for (unsigned i = 0; i < N; i += 2)
		ck_free(a, b[i]);
	int rc = a->ops.trim(a->instance);
	if (rc != 0 && rc != -ENOTSUP)
		FAIL("trim() returned %d", rc);
	for (unsigned i = 1; i < N; i += 2) {
		size_t size = 16 + (i * 977) % 70000;
		for (size_t k = 0; k < size; k += 61)
			if (b[i][k] != (unsigned char)(i & 0xff))
				FAIL("after trim(), a live block of %zu bytes no longer holds what was written at offset %zu", size,
				     k);
		ck_free(a, b[i]);
	}
	note(done, len, "trim");
}

/* calloc and usable_size rest on malloc: where malloc itself gives
 * nothing (a template not done yet), the other cases say so. */
static void honest_on_malloc(const struct alloclab_allocator *a, struct alloclab_check_result *r, char *done,
			     size_t len)
{
	/* ops.calloc is never NULL (the loader's fallback stands in for a
	 * plugin without one): the capability says whether it is the
	 * plugin's own. */
	const int calloc_declared = (a->caps & ALLOCLAB_CAP_CALLOC) != 0;
	void *m = ck_malloc(a, 300);
	if (calloc_declared && m) {
		unsigned char *p = ck_calloc(a, 100, 3);
		if (p == NULL)
			FAIL("declares calloc, but calloc(100, 3) returned NULL where malloc(300) did not");
		for (size_t i = 0; i < 300; i++)
			if (p[i] != 0)
				FAIL("declares calloc, but calloc(100, 3)'s block is not zeroed at byte %zu", i);
		ck_free(a, p);
		note(done, len, "calloc");
	}
	if (a->ops.usable_size && m) {
		size_t usable = ck_usable_size(a, m);
		if (usable < 300)
			FAIL("declares usable_size, but usable_size gave %zu for a block of 300 bytes", usable);
		note(done, len, "usable_size");
	}
	if (m)
		ck_free(a, m);
	else if (calloc_declared || a->ops.usable_size)
		note(done, len, "%s%s%s not tried: malloc(300) returned NULL", calloc_declared ? "calloc" : "",
		     calloc_declared && a->ops.usable_size ? " and " : "", a->ops.usable_size ? "usable_size" : "");
}

static void check_honesty(const struct alloclab_allocator *a, struct alloclab_check_result *r)
{
	void (*const parts[])(const struct alloclab_allocator *, struct alloclab_check_result *, char *, size_t) = {
		honest_ops, honest_entries, honest_trim, honest_on_malloc};
	char done[400] = "";

	for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
		parts[k](a, r, done, sizeof done);
		if (r->status == ALLOCLAB_CHECK_FAIL)
			return;
	}
	if (a->ops.thread_attach)
		note(done, sizeof done, "thread hooks (called on every thread)");
	if (a->caps & ALLOCLAB_CAP_THREAD_SAFE)
		note(done, sizeof done, "thread safety (the cases threads%s test it)",
		     a->caps & ALLOCLAB_CAP_CROSS_THREAD_FREE ? " and cross-thread" : "");
	snprintf(r->why, sizeof r->why, "declared ops work: %s", done[0] ? done : "none declared beyond malloc and free");
}

const struct alloclab_check_case alloclab_check_cases[] = {
	{"alignment", "every block aligned to the declared minimum; aligned_alloc to its alignment", check_alignment, 0},
	{"no-overlap", "live blocks never overlap", check_no_overlap, 0},
	{"contents", "fill patterns survive; realloc keeps the prefix; calloc zeroes", check_contents, 0},
	{"guards", "no operation writes into live blocks' guards or contents (one thread, interleaved)", check_guards, 0},
	{"footprint", "freed memory is reused: the resident set stops growing in a steady state", check_footprint, 0},
	{"edge-sizes", "malloc(0), free(NULL), overflowing calloc, impossible sizes", check_edge_sizes, 0},
	{"usable-size", "usable_size at least the size requested", check_usable_size, 0},
	{"threads", "random operations in threads with cookies; cross-thread frees if declared", check_threads, 0},
	{"thread-lifecycle", "threads created and torn down many times", check_thread_lifecycle, 0},
	{"honesty", "every declared capability works", check_honesty, 0},
	{"regions", "the regions op's regions valid, nested, and their blocks in use the live blocks in them", check_regions, 0},
	{"cross-thread", "blocks made in some threads and freed in others", check_cross_thread, 0},
	{"arenas", "pools carved from arenas, and an empty arena given back (the course's step 5)", check_arenas, 1},
	{"ownership", "free() hands a block of the C library's malloc back to it (the course's step 5)", check_ownership, 1},
	{NULL, NULL, NULL, 0},
};

const char *const *alloclab_check_level(unsigned level)
{
	static const char *const one[] = {"alignment", "no-overlap", "contents", "edge-sizes", "honesty", NULL};
	static const char *const two[] = {"alignment", "no-overlap", "contents", "edge-sizes", "honesty",
					  "guards", "footprint", "usable-size", NULL};
	static const char *const four[] = {"alignment", "no-overlap", "contents",         "edge-sizes",  "honesty",
					   "guards",    "footprint",  "usable-size",      "threads",     "thread-lifecycle",
					   "cross-thread", NULL};
	static const char *const five[] = {"alignment",   "no-overlap", "contents",     "edge-sizes", "honesty",
					   "guards",      "footprint",  "usable-size",  "threads",    "thread-lifecycle",
					   "cross-thread", "regions",   "arenas",       "ownership",  NULL};
	static const char *const *const levels[] = {NULL, one, two, two, four, five};
	return level >= 1 && level <= ALLOCLAB_CHECK_LEVELS ? levels[level] : NULL;
}

const char *const *alloclab_check_level_required(unsigned level)
{
	static const char *const none[] = {NULL};
	static const char *const four[] = {"threads", "cross-thread", NULL};
	static const char *const five[] = {"threads", "cross-thread", "regions", "arenas", NULL};
	return level == 4 ? four : level == 5 ? five : level >= 1 && level <= ALLOCLAB_CHECK_LEVELS ? none : NULL;
}

/* Runs a case on a thread attached to the plugin, as a workload would. */
struct case_run {
	const struct alloclab_check_case *c;
	const struct alloclab_allocator *a;
	struct alloclab_check_result *r;
};

static void *case_thread(void *arg)
{
	struct case_run *cr = arg;
	int attached = 0;

	if (cr->a->ops.thread_attach) {
		alloclab_phase("thread_attach");
		if (cr->a->ops.thread_attach(cr->a->instance) != 0) {
			cr->r->status = ALLOCLAB_CHECK_FAIL;
			snprintf(cr->r->why, sizeof cr->r->why, "thread_attach failed");
			return NULL;
		}
		attached = 1;
	}
	cr->r->status = ALLOCLAB_CHECK_PASS;
	alloclab_phase("case");
	cr->c->run(cr->a, cr->r);
	if (attached) {
		alloclab_phase("thread_detach");
		cr->a->ops.thread_detach(cr->a->instance);
	}
	alloclab_phase("case done");
	return NULL;
}

void alloclab_check_run_case(const struct alloclab_check_case *c, const struct alloclab_allocator *a,
			     struct alloclab_check_result *r)
{
	struct case_run cr = {c, a, r};
	pthread_t t;

	memset(r, 0, sizeof *r);
	scale = getenv("ALLOCLAB_UNDER_VALGRIND") ? 10 : 1;
	pthread_create(&t, NULL, case_thread, &cr);
	pthread_join(t, NULL);
}
