/* Blocks and their sizes. See block_map.h. */
#define _GNU_SOURCE 1
#include "memory/block_map.h"
#include "base/hash.h"
#include "base/invariant.h"
#include "memory/resident.h"

#include <string.h>
#include <sys/mman.h>

#define TOMB UINT64_MAX

static void *pages(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static size_t slot_of(const struct alloclab_block_map *m, uintptr_t key)
{
	size_t s = (size_t)(((uint64_t)key * ALLOCLAB_GOLDEN_GAMMA) >> 20) & (m->cap - 1);
	while (m->keys[s] && m->keys[s] != key)
		s = (s + 1) & (m->cap - 1);
	return s;
}

/* A table twice the size with the live entries: 0, or -1 (as it was). */
static int grow(struct alloclab_block_map *m)
{
	uintptr_t *keys = m->keys;
	uint64_t *sizes = m->sizes;
	size_t cap = m->cap, ncap = cap ? cap * 2 : 1u << 12;
	uintptr_t *nkeys = pages(ncap * sizeof *nkeys);
	uint64_t *nsizes = pages(ncap * sizeof *nsizes);
	if (nkeys == NULL || nsizes == NULL) {
		if (nkeys)
			munmap(nkeys, ncap * sizeof *nkeys);
		if (nsizes)
			munmap(nsizes, ncap * sizeof *nsizes);
		return -1;
	}
	m->keys = nkeys, m->sizes = nsizes, m->cap = ncap, m->used = 0;
	for (size_t i = 0; i < cap; i++)
		if (keys[i] && sizes[i] != TOMB) {
			size_t s = slot_of(m, keys[i]);
			m->keys[s] = keys[i];
			m->sizes[s] = sizes[i];
			m->used++;
		}
	if (cap) {
		munmap(keys, cap * sizeof *keys);
		munmap(sizes, cap * sizeof *sizes);
	}
	ALLOCLAB_CHECK_INVARIANT(alloclab_block_map_valid(m));
	return 0;
}

int alloclab_block_map_valid(const struct alloclab_block_map *m)
{
	size_t used = 0;
	uint64_t blocks = 0, bytes = 0;

	if (m->cap == 0)
		return m->used == 0 && m->live_blocks == 0 && m->live_bytes == 0;
	if ((m->cap & (m->cap - 1)) != 0 || m->cap < (1u << 12) || m->used > m->cap / 2)
		return 0;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->keys[i] == 0)
			continue;
		used++;
		if (m->sizes[i] != TOMB) {
			blocks++;
			bytes += m->sizes[i];
		}
	}
	return used == m->used && blocks == m->live_blocks && bytes == m->live_bytes && m->live_bytes <= m->peak_bytes &&
	       m->live_blocks <= m->peak_blocks;
}

int alloclab_block_map_init(struct alloclab_block_map *m)
{
	memset(m, 0, sizeof *m);
	return grow(m);
}

void alloclab_block_map_free(struct alloclab_block_map *m)
{
	if (m->cap) {
		munmap(m->keys, m->cap * sizeof *m->keys);
		munmap(m->sizes, m->cap * sizeof *m->sizes);
	}
	memset(m, 0, sizeof *m);
}

void alloclab_block_map_alloc(struct alloclab_block_map *m, void *block, uint64_t size)
{
	if (block == NULL || m->cap == 0 || ((m->used + 1) * 2 > m->cap && grow(m) != 0))
		return;
	size_t s = slot_of(m, (uintptr_t)block);
	if (m->keys[s] == 0) {
		m->used++;
	} else if (m->sizes[s] != TOMB) {
		m->live_bytes -= m->sizes[s];
		m->live_blocks--;
	}
	m->keys[s] = (uintptr_t)block;
	m->sizes[s] = size;
	m->live_bytes += size;
	m->live_blocks++;
	if (m->live_bytes > m->peak_bytes)
		m->peak_bytes = m->live_bytes;
	if (m->live_blocks > m->peak_blocks)
		m->peak_blocks = m->live_blocks;
	ALLOCLAB_CHECK_INVARIANT(m->live_blocks <= m->used && m->used <= m->cap / 2);
}

void alloclab_block_map_release(struct alloclab_block_map *m, void *block)
{
	if (block == NULL || m->cap == 0)
		return;
	size_t s = slot_of(m, (uintptr_t)block);
	if (m->keys[s] == 0 || m->sizes[s] == TOMB) {
		m->foreign_frees++;
		return;
	}
	ALLOCLAB_CHECK_INVARIANT(m->live_blocks > 0 && m->live_bytes >= m->sizes[s]);
	m->live_bytes -= m->sizes[s];
	m->live_blocks--;
	m->sizes[s] = TOMB;
}

uint64_t alloclab_block_map_resident(const struct alloclab_block_map *m)
{
	return alloclab_resident_bytes(m->keys, m->cap * sizeof *m->keys) +
	       alloclab_resident_bytes(m->sizes, m->cap * sizeof *m->sizes);
}
