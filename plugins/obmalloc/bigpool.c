/*
 * obmalloc-bigpool: pools larger than a page with the classic ownership
 * check made safe (Tim Peters' big-pools branch, bpo-37211). The classic
 * check reads the arena index from the pointer's pool header; with pools
 * over a page that header may sit on another page, not even mapped for a
 * foreign pointer. So every 4 KiB page of a pool starts with the arena
 * index (in the first page it is the pool header's first field) and the
 * check reads the index of the pointer's own page, which is mapped because
 * the pointer is. A block never crosses a page inside a pool; carving jumps
 * past each page's index (obm_next_offset).
 *
 * p is owned iff idx = *(uint32_t *)page_of(p) names an arena object that
 * holds an arena and p lies within it. For a foreign pointer that read is of
 * memory obmalloc never wrote (hence the sanitizer and valgrind
 * suppressions), but garbage cannot pass: an index that passes names an
 * arena that really contains p.
 */
#include "obmalloc.h"

#if OBM_ALIGNMENT_SHIFT == 3 && OBM_SMALL_THRESHOLD == 256
/* CPython 2.6's pymalloc (the era of the 2008 Unicode/Bytes benchmark):
 * 8-byte alignment, requests up to 256 bytes in 32 classes, the classic
 * check, 4 KiB pools in 256 KiB arenas (preset classic by default). */
const char obm_variant_name[] = "obmalloc-py26";
const char obm_variant_description[] =
	"CPython 2.6's obmalloc: 8-byte alignment, requests up to 256 bytes, the classic ownership check";
#elif OBM_ALIGNMENT_SHIFT == 3
/* With one-page pools the per-page index is the pool header's: this is
 * the classic check of CPython 3.7 and before, with its 8-byte alignment
 * and 64 classes (preset classic by default). */
const char obm_variant_name[] = "obmalloc-py37";
const char obm_variant_description[] =
	"CPython 3.7's obmalloc: 8-byte alignment, 64 size classes, the classic ownership check";
#else
const char obm_variant_name[] = "obmalloc-bigpool";
const char obm_variant_description[] =
	"CPython's obmalloc with big pools and a per-page arena index (bpo-37211 branch)";
#endif

void obm_variant_classes(const struct obm_config *cfg, struct obm_class classes[OBM_NCLASSES])
{
	uint32_t pages = (uint32_t)(cfg->pool_size >> OBM_PAGE_SHIFT);

	for (unsigned c = 0; c < OBM_NCLASSES; c++) {
		struct obm_class *k = &classes[c];
		uint32_t off = cfg->first_offset, last = off, blocks = 0;

		k->size = (c + 1) << OBM_ALIGNMENT_SHIFT;
		k->first_offset = cfg->first_offset;
		while (off + k->size <= cfg->pool_size) {
			blocks++;
			last = off;
			off = obm_next_offset(off, k->size);
		}
		k->blocks = blocks;
		k->maxnextoffset = last;
		k->page_header_bytes = (pages - 1) * OBM_PAGE_HEADER;
	}
}

int obm_variant_init(struct obm_state *st)
{
	(void)st;
	return 0;
}

void obm_variant_fini(struct obm_state *st) { (void)st; }

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* Reads memory obmalloc may not own (the start of a foreign block's page,
 * possibly inside a freed heap chunk): by design, so the sanitizers are
 * told not to instrument it. */
#if defined(__SANITIZE_ADDRESS__)
__attribute__((no_sanitize_address))
#endif
#if defined(__SANITIZE_THREAD__)
__attribute__((no_sanitize_thread))
#endif
uint32_t obm_page_index(const void *p)
{
	return *(const volatile uint32_t *)((uintptr_t)p & ~(uintptr_t)(OBM_PAGE_SIZE - 1));
}
#endif

int obm_variant_arena_added(struct obm_state *st, struct obm_arena *a)
{
	(void)st;
	(void)a;
	return 0;
}

void obm_variant_arena_removed(struct obm_state *st, struct obm_arena *a)
{
	(void)st;
	(void)a;
}

void obm_variant_pool_init(struct obm_state *st, struct obm_pool *pool)
{
	for (size_t page = OBM_PAGE_SIZE; page < st->cfg->pool_size; page += OBM_PAGE_SIZE)
		*(uint32_t *)((uint8_t *)pool + page) = pool->arenaindex;
}

void obm_variant_stats(const struct obm_state *st, alloclab_stat_fn emit, void *arg)
{
	(void)st;
	(void)emit;
	(void)arg;
}
