/*
 * The blocks an allocator has handed out, each with its requested size:
 * what the counting wrappers keep (the preload library's census,
 * census.h; python's census and allocation profile, workloads/python/
 * embed.c), so that what a program holds is known exactly. Open
 * addressing with linear probing; a freed block's entry is a tombstone
 * until the table is rebuilt. The tables are mapped, never malloc'd (under
 * a counting wrapper malloc may be what is counted). Not locked: its user
 * serialises.
 */
#ifndef ALLOCLAB_BLOCK_MAP_H
#define ALLOCLAB_BLOCK_MAP_H

#include <stddef.h>
#include <stdint.h>

/*
 * Invariants (alloclab_block_map_valid; debug builds check them whenever
 * the table is rebuilt, and cheap ones on every call):
 *   cap is 0 (not begun) or a power of two of at least 2^12 slots (small:
 *   the census keeps 64 tables, most of them small)
 *   used counts the slots whose key is not 0 (live entries and
 *   tombstones), and used <= cap / 2: probing always finds an empty slot
 *   live_blocks counts the live entries (key not 0, size not a tombstone)
 *   and live_bytes sums their sizes
 *   live_bytes <= peak_bytes, live_blocks <= peak_blocks
 */
struct alloclab_block_map {
	uintptr_t *keys;
	uint64_t *sizes; /* UINT64_MAX: a tombstone */
	size_t cap, used;
	/* Requested bytes and blocks live, the most of each, and frees of
	 * blocks the map never saw (allocated before it began). */
	uint64_t live_bytes, live_blocks, peak_bytes, peak_blocks, foreign_frees;
};

/* An empty map with its first table: 0, or -1 when it cannot be mapped. */
int alloclab_block_map_init(struct alloclab_block_map *m);
void alloclab_block_map_free(struct alloclab_block_map *m);

/* A block handed out (NULL: nothing). A block handed out again without
 * its free seen replaces its old entry. Where the table cannot grow the
 * block is not counted. */
void alloclab_block_map_alloc(struct alloclab_block_map *m, void *block, uint64_t size);
/* A block freed (NULL, or one the map never saw: counted as foreign). */
void alloclab_block_map_release(struct alloclab_block_map *m, void *block);

/* 1 when the invariants above hold (it walks the whole table), else 0. */
int alloclab_block_map_valid(const struct alloclab_block_map *m);

/* The resident bytes of its tables: the counter's own memory. */
uint64_t alloclab_block_map_resident(const struct alloclab_block_map *m);

#endif
