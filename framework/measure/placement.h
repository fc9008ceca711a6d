/*
 * Where blocks fall on cache lines: a framework service every workload can
 * call (alloclab_workload_thread.placement, run by the worker across its
 * threads), its report's one format, and the arithmetic behind it, kept
 * apart so that the tests can check it on synthetic addresses.
 *
 * A block [addr, addr + size) straddles a line boundary when its first and
 * last bytes lie on different lines. A line is shared when blocks of two or
 * more threads (live at the same time) lie on it: the exposure to false
 * sharing (Hoard's "active" false sharing when the allocator hands pieces of
 * one line to different threads).
 */
#ifndef ALLOCLAB_CACHELINE_H
#define ALLOCLAB_CACHELINE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The machine's cache-line size (sysconf), 64 if it cannot be read. */
size_t alloclab_cache_line_size(void);

static inline int alloclab_straddles(uintptr_t addr, size_t size, size_t line)
{
	return size > 1 && addr / line != (addr + size - 1) / line;
}

struct alloclab_block_list {
	const uintptr_t *addr;
	const size_t *size;
	size_t n;
};

/*
 * Counts the distinct lines the blocks of all threads cover, and those
 * covered by blocks of two or more threads. lists[t] are thread t's blocks.
 * Returns 0, or -1 when out of memory.
 */
int alloclab_shared_lines(const struct alloclab_block_list *lists, unsigned nthreads, size_t line,
			  uint64_t *lines_total, uint64_t *lines_shared);

/*
 * One thread's placement report, a JSON object:
 *   line_size      the cache-line size used
 *   blocks         blocks given
 *   straddling     blocks whose first and last byte lie on different lines
 *   offsets        [line_size] blocks starting at each offset within a line
 *   sizes          {"size": count}: the commonest sizes given (at most
 *                  ALLOCLAB_PLACEMENT_SIZES)
 *   distinct_sizes how many different sizes there were
 *   pages          the 4 KiB pages the blocks cover (what a TLB must map to
 *                  reach them all: the page spread)
 *   lines_total, lines_shared   (several threads) lines holding live
 *                  blocks of any thread, and of two or more threads
 */
#define ALLOCLAB_PLACEMENT_SIZES 16
#define ALLOCLAB_PAGE_SHIFT 12

/* The distinct 4 KiB pages that blocks [addr[i], addr[i] + size[i]) cover;
 * 0 when out of memory. */
uint64_t alloclab_pages_spanned(const uintptr_t *addr, const size_t *size, size_t n);

json_t *alloclab_placement_report(const uintptr_t *addr, const size_t *size, size_t n, size_t line,
				  int threads_counted, uint64_t lines_total, uint64_t lines_shared);

/* Checks a report read from a file. 0, or -1 with a reason. */
int alloclab_placement_check(const json_t *report, char *err, size_t err_len);

/* A workload's check_report hook for the common case: no per-value
 * reports, and a per-process report {"placement": REPORT}. */
int alloclab_placement_check_report(int per_process, const json_t *report, char *err, size_t err_len);

/* Reports added up (after alloclab_placement_check). */
struct alloclab_placement_sum {
	uint64_t line_size, blocks, straddling, lines_total, lines_shared, pages;
	int threads_counted;
	uint64_t offsets[256];
};
void alloclab_placement_add(struct alloclab_placement_sum *sum, const json_t *report);

#endif
