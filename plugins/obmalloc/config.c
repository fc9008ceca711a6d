/*
 * obmalloc configuration: presets and options. Invalid combinations are
 * refused here, at create(), with the reason: nothing downstream has to
 * cope with a pool that is not a power of two or an arena that is not a
 * whole number of pools.
 */
#include "obmalloc.h"

#include <alloclab/plugin_options.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

struct preset {
	const char *name;
	unsigned arena_shift, pool_shift;
	const char *what;
};

static const struct preset presets[] = {
	{"classic", 18, 12, "256 KiB arenas, 4 KiB pools: CPython 3.8/3.9"},
	{"py310", 20, 14, "1 MiB arenas, 16 KiB pools: CPython 3.10+ default"},
	{"table-16m-4k", 24, 12, "16 MiB arenas, 4 KiB pools: the radix-tree vs big-pool table's radix (4kB/16MB)"},
	{"table-64m-16k", 26, 14, "64 MiB arenas, 16 KiB pools: the radix-tree vs big-pool table's main configuration"},
	/* Older names of the two above, still accepted. */
	{"seed-16m-4k", 24, 12, "16 MiB arenas, 4 KiB pools (older name of table-16m-4k)"},
	{"seed-64m-16k", 26, 14, "64 MiB arenas, 16 KiB pools (older name of table-64m-16k)"},
};

const char obm_options_help[] =
	"preset=classic|py310|table-16m-4k|table-64m-16k: arena/pool sizes (default py310; docs/background/obmalloc.md)\n"
	"arena=SIZE: arena size, a power of two, 64K..1G (overrides the preset)\n"
	"pool=SIZE: pool size, a power of two, 4K..arena (overrides the preset)\n"
	"mode=none|gil|per-thread: no locking (1 thread), one global lock, or a state per thread (default gil)\n"
	"check=cpython|branchless: the radix ownership test as CPython writes it (default), or with sign bits "
	"(a proposed change; radix only)\n"
	"header=cpython|line: blocks start after the 48-byte pool header as in CPython (default), or after it "
	"padded to a 64-byte cache line (an experiment: the same classes and blocks, only their offsets change)";

static int shift_of(uint64_t v)
{
	int s = 0;
	if (v == 0 || (v & (v - 1)) != 0)
		return -1;
	while ((1ull << s) != v)
		s++;
	return s;
}

/* One option into cfg; arena= and pool= only noted, to be checked once
 * every option is read. 0, or the error of a bad one. */
static int take_option(const struct alloclab_option *opt, struct obm_config *cfg, uint64_t *arena, uint64_t *pool,
		       char *err, size_t err_len)
{
	if (alloclab_option_is(opt, "preset")) {
		size_t i;
		for (i = 0; i < sizeof presets / sizeof presets[0]; i++)
			if (alloclab_option_value_is(opt, presets[i].name))
				break;
		if (i == sizeof presets / sizeof presets[0])
			return alloclab_option_bad_value(opt, "classic, py310, table-16m-4k or table-64m-16k", err, err_len);
		cfg->preset = presets[i].name;
		cfg->arena_shift = presets[i].arena_shift;
		cfg->pool_shift = presets[i].pool_shift;
	} else if (alloclab_option_is(opt, "arena")) {
		if (alloclab_option_u64(opt, arena) != 0)
			return alloclab_option_bad_value(opt, "a size such as 1M", err, err_len);
	} else if (alloclab_option_is(opt, "pool")) {
		if (alloclab_option_u64(opt, pool) != 0)
			return alloclab_option_bad_value(opt, "a size such as 16K", err, err_len);
	} else if (alloclab_option_is(opt, "mode")) {
		if (alloclab_option_value_is(opt, "none"))
			cfg->mode = OBM_MODE_NONE;
		else if (alloclab_option_value_is(opt, "gil"))
			cfg->mode = OBM_MODE_GIL;
		else if (alloclab_option_value_is(opt, "per-thread"))
			cfg->mode = OBM_MODE_PER_THREAD;
		else
			return alloclab_option_bad_value(opt, "none, gil or per-thread", err, err_len);
	} else if (alloclab_option_is(opt, "check")) {
		if (alloclab_option_value_is(opt, "cpython"))
			cfg->branchless_check = 0;
		else if (alloclab_option_value_is(opt, "branchless"))
			cfg->branchless_check = 1;
		else
			return alloclab_option_bad_value(opt, "cpython or branchless", err, err_len);
	} else if (alloclab_option_is(opt, "header")) {
		if (alloclab_option_value_is(opt, "cpython"))
			cfg->first_offset = OBM_POOL_HEADER;
		else if (alloclab_option_value_is(opt, "line"))
			cfg->first_offset = OBM_LINE_HEADER;
		else
			return alloclab_option_bad_value(opt, "cpython or line", err, err_len);
	} else if (alloclab_option_is(opt, "test_misalign")) {
		/* Undocumented: the tests' way to get arenas that are not
		 * pool-aligned, whatever mmap happens to return. */
		cfg->misalign_arenas = alloclab_option_value_is(opt, "1") ? 1 : alloclab_option_value_is(opt, "2") ? 2 : 0;
	} else {
		return alloclab_option_unknown(opt, err, err_len);
	}
	return 0;
}

/* The arena and pool sizes, given or from the preset, checked against
 * each other, the layout's limits and this build's; the sizes derived
 * from them set. 0, or -EINVAL with err. */
static int settle_sizes(struct obm_config *cfg, uint64_t arena, uint64_t pool, char *err, size_t err_len)
{
	if (arena) {
		int s = shift_of(arena);
		if (s < 0) {
			snprintf(err, err_len, "arena=%llu is not a power of two", (unsigned long long)arena);
			return -EINVAL;
		}
		cfg->arena_shift = (unsigned)s;
		cfg->preset = "custom";
	}
	if (pool) {
		int s = shift_of(pool);
		if (s < 0) {
			snprintf(err, err_len, "pool=%llu is not a power of two", (unsigned long long)pool);
			return -EINVAL;
		}
		cfg->pool_shift = (unsigned)s;
		cfg->preset = "custom";
	}
	if (cfg->arena_shift < OBM_MIN_ARENA_SHIFT || cfg->arena_shift > OBM_MAX_ARENA_SHIFT) {
		snprintf(err, err_len, "arena size %llu is outside the supported 64K..1G",
			 1ull << cfg->arena_shift);
		return -EINVAL;
	}
	if (cfg->pool_shift < OBM_PAGE_SHIFT) {
		snprintf(err, err_len, "pool size %llu is below the 4K minimum (one page)", 1ull << cfg->pool_shift);
		return -EINVAL;
	}
	if (cfg->pool_shift > cfg->arena_shift) {
		snprintf(err, err_len, "arena size %llu is not a multiple of pool size %llu", 1ull << cfg->arena_shift,
			 1ull << cfg->pool_shift);
		return -EINVAL;
	}
	/* A pool must hold one 512-byte block behind its header, and the
	 * offsets in the pool header are 32-bit. */
	if (cfg->pool_shift > 24) {
		snprintf(err, err_len, "pool size %llu is above the 16M maximum", 1ull << cfg->pool_shift);
		return -EINVAL;
	}
#ifdef OBM_BIGPOOL
	if (cfg->branchless_check) {
		snprintf(err, err_len, "check=branchless is a variant of the radix tree's test; big pools read a page index");
		return -EINVAL;
	}
#endif
#ifdef OBM_FIXED_ARENA_SHIFT
	if (cfg->arena_shift != OBM_FIXED_ARENA_SHIFT || cfg->pool_shift != OBM_FIXED_POOL_SHIFT) {
		snprintf(err, err_len, "this build has sizes fixed at arena 2^%d, pool 2^%d (preset py310)",
			 OBM_FIXED_ARENA_SHIFT, OBM_FIXED_POOL_SHIFT);
		return -EINVAL;
	}
#endif
	cfg->arena_size = (size_t)1 << cfg->arena_shift;
	cfg->pool_size = (size_t)1 << cfg->pool_shift;
	cfg->pools_per_arena = (unsigned)(cfg->arena_size / cfg->pool_size);
	/* The unaligned-arena loss is one pool: an arena of one pool would
	 * hold nothing when misaligned. */
	if (cfg->pools_per_arena < 2) {
		snprintf(err, err_len, "arena size %zu holds only one %zu-byte pool; use an arena at least twice the pool",
			 cfg->arena_size, cfg->pool_size);
		return -EINVAL;
	}
	return 0;
}

int obm_config_parse(const char *options, struct obm_config *cfg, char *err, size_t err_len)
{
	const char *cursor = options;
	struct alloclab_option opt;
	uint64_t arena = 0, pool = 0;
	int rc;

	memset(cfg, 0, sizeof *cfg);
#if OBM_ALIGNMENT_SHIFT == 3
	cfg->preset = "classic"; /* 3.7: 256 KiB arenas, 4 KiB pools */
	cfg->arena_shift = 18;
	cfg->pool_shift = 12;
#else
	cfg->preset = "py310";
	cfg->arena_shift = 20;
	cfg->pool_shift = 14;
#endif
	cfg->mode = OBM_MODE_GIL;
	cfg->first_offset = OBM_POOL_HEADER;
	while ((rc = alloclab_option_next(&cursor, &opt)) > 0) {
		int bad = take_option(&opt, cfg, &arena, &pool, err, err_len);
		if (bad)
			return bad;
	}
	if (rc < 0)
		return alloclab_option_malformed(cursor, err, err_len);
	return settle_sizes(cfg, arena, pool, err, err_len);
}
