/*
 * A map from block addresses to a 64-bit value: open addressing with
 * linear probing, deletion by shifting back, so it holds no tombstones and
 * stays as large as its live entries need. The recorder maps blocks to
 * their identities with it, and the preload library its aligned blocks to
 * the blocks under them. Not thread-safe: the caller locks. Its memory
 * comes from the functions given, so that the preload library can keep it
 * out of the allocator it serves.
 */
#ifndef ALLOCLAB_ADDR_MAP_H
#define ALLOCLAB_ADDR_MAP_H

#include <stddef.h>
#include <stdint.h>

struct alloclab_addr_map {
	uintptr_t *keys; /* 0: empty (no block has address 0) */
	uint64_t *vals;
	size_t cap, used; /* invariant: cap 0 or a power of two; used * 4 <= cap * 3 */
	void *(*calloc_fn)(size_t, size_t);
	void (*free_fn)(void *);
};

/* Sets k to v. 0, or -1 out of memory (the map unchanged). */
int alloclab_addr_map_put(struct alloclab_addr_map *m, uintptr_t k, uint64_t v);
/* 1 with *v when k is there (removed when take), else 0. */
int alloclab_addr_map_get(struct alloclab_addr_map *m, uintptr_t k, uint64_t *v, int take);
/* Frees its memory; the map is empty after. */
void alloclab_addr_map_clear(struct alloclab_addr_map *m);

#endif
