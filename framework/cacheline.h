/*
 * Where blocks fall on cache lines: the arithmetic behind the unicode
 * workload's placement report, kept apart so that any workload can use it
 * and the tests can check it on synthetic addresses.
 *
 * A block [addr, addr + size) straddles a line boundary when its first and
 * last bytes lie on different lines. A line is shared when blocks of two or
 * more threads (live at the same time) lie on it: the exposure to false
 * sharing (Hoard's "active" false sharing when the allocator hands pieces of
 * one line to different threads).
 */
#ifndef ALLOCLAB_CACHELINE_H
#define ALLOCLAB_CACHELINE_H

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

#endif
