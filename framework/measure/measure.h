/*
 * The measurement back-ends: what a value of a run is, and the machinery
 * each needs on both sides of a worker process.
 *
 *   time          the clock around the timed region (worker.c); nothing here
 *   instructions  the worker runs under valgrind's callgrind with collection
 *                 off; it is switched on around each value's timed region,
 *                 and each value's count is read back from its dump
 *   cache         the same, with callgrind's cache simulation set to this
 *                 machine's data-cache geometry
 *   tlb           the same, with the simulated caches made data TLBs: lines
 *                 of a 4 KiB page, the first level and the second level
 *                 (STLB) at this machine's entries and ways (CPUID, where
 *                 it says; else a common geometry), so a "miss" is a page
 *                 not in the TLB: the page-level cost that pool and arena
 *                 sizes change
 *
 * The runner asks whether a back-end is available and how to start a
 * worker under it; the worker brackets each value with start and stop.
 */
#ifndef ALLOCLAB_MEASURE_H
#define ALLOCLAB_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "base/lengths.h"

enum alloclab_measure {
	ALLOCLAB_MEASURE_TIME,
	ALLOCLAB_MEASURE_INSTRUCTIONS,
	ALLOCLAB_MEASURE_CACHE,
	ALLOCLAB_MEASURE_TLB,
};

/* "time", "instructions", "cache", "tlb": 0 with *out set, or -1. */
int alloclab_measure_parse(const char *name, enum alloclab_measure *out);
const char *alloclab_measure_name(enum alloclab_measure m);

/* 0 when the back-end can run here; -1 with one line in err (valgrind is
 * not on PATH). */
int alloclab_measure_available(enum alloclab_measure m, char *err, size_t err_len);

/* valgrind's --D1= and --LL= options for this machine's first-level data
 * cache and last-level cache: the kernel's description of cpu0's caches
 * (sysfs), else sysconf. -1 when unknown. */
int alloclab_cache_geometry(char *d1, size_t d1_len, char *ll, size_t ll_len);

/* The data TLBs to simulate: entries and ways of the first level and of
 * the second (unified) level, for 4 KiB pages, and where they came from
 * ("cpuid" or "default": 64 entries 4-way, 1536 entries 12-way, a common
 * x86-64 geometry). ALLOCLAB_TLB=E1,W1,E2,W2 overrides them ("override"). */
struct alloclab_tlb_geometry {
	unsigned l1_entries, l1_ways, l2_entries, l2_ways;
	const char *source;
};
void alloclab_tlb_geometry(struct alloclab_tlb_geometry *g);
/* The same as valgrind's --D1= and --LL= options (lines of 4096 bytes). */
void alloclab_tlb_options(const struct alloclab_tlb_geometry *g, char *d1, size_t d1_len, char *ll, size_t ll_len);

/* Set in a worker whose dumps another reads after it (alloclab explain):
 * measure_stop then leaves each dump in place. */
extern int alloclab_measure_keep_dumps;

/* ---- the runner's side ---- */

/* The command line that runs a worker under a counting back-end: valgrind's
 * options, then `self __worker SPEC`. Strings point into the struct and
 * the arguments given. */
struct alloclab_measure_argv {
	char *argv[16];
	char out[ALLOCLAB_PATH_PLUS_LEN], log[ALLOCLAB_PATH_PLUS_LEN], d1[96], ll[96];
};
/* cache_sim: 0 none, 1 the data caches, 2 the data TLBs. */
void alloclab_measure_worker_argv(struct alloclab_measure_argv *a, const char *dumps_dir, int cache_sim,
				  const char *self, const char *spec);

/* ---- the worker's side ---- */

/* Whether this process runs under valgrind (the worker refuses to count
 * instructions otherwise). */
int alloclab_measure_under_valgrind(void);

/* Zeroes callgrind's counters and switches collection on. */
void alloclab_measure_start(void);

/* Switches collection off, dumps (the process's dump number *dumps, then
 * incremented), and reads the dump's totals back: the instructions of
 * every thread between start and stop (callgrind runs one thread at a time,
 * all of them counted) and, when caches are simulated, the data misses of
 * the first and last level (reads and writes). The dump is removed. 0 when
 * it cannot be read. */
uint64_t alloclab_measure_stop(const char *dumps_dir, unsigned *dumps, uint64_t *d1, uint64_t *ll);

#endif
