/* See addr_map.h. */
#include "trace/addr_map.h"
#include "base/hash.h"

static size_t bucket(const struct alloclab_addr_map *m, uintptr_t k)
{
	return (size_t)(((uint64_t)k >> 4) * ALLOCLAB_GOLDEN_GAMMA >> 20) & (m->cap - 1);
}

static int grow(struct alloclab_addr_map *m)
{
	size_t old_cap = m->cap, cap = m->cap ? m->cap * 2 : 1u << 10;
	uintptr_t *ok = m->keys, *keys = m->calloc_fn(cap, sizeof *keys);
	uint64_t *ov = m->vals, *vals = m->calloc_fn(cap, sizeof *vals);

	if (!keys || !vals) {
		m->free_fn(keys);
		m->free_fn(vals);
		return -1;
	}
	m->keys = keys, m->vals = vals, m->cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (ok[i]) {
			size_t b = bucket(m, ok[i]);
			while (keys[b])
				b = (b + 1) & (cap - 1);
			keys[b] = ok[i];
			vals[b] = ov[i];
		}
	m->free_fn(ok);
	m->free_fn(ov);
	return 0;
}

int alloclab_addr_map_put(struct alloclab_addr_map *m, uintptr_t k, uint64_t v)
{
	size_t b;
	if ((m->used + 1) * 4 > m->cap * 3 && grow(m) != 0)
		return -1;
	b = bucket(m, k);
	while (m->keys[b] && m->keys[b] != k)
		b = (b + 1) & (m->cap - 1);
	m->used += m->keys[b] == 0;
	m->keys[b] = k;
	m->vals[b] = v;
	return 0;
}

int alloclab_addr_map_get(struct alloclab_addr_map *m, uintptr_t k, uint64_t *v, int take)
{
	size_t b, j, mask = m->cap - 1;
	if (m->cap == 0)
		return 0;
	b = bucket(m, k);
	while (m->keys[b] && m->keys[b] != k)
		b = (b + 1) & mask;
	if (m->keys[b] == 0)
		return 0;
	*v = m->vals[b];
	if (!take)
		return 1;
	m->keys[b] = 0;
	m->used--;
	/* Shift back the entries after it whose probe passed through b. */
	for (j = (b + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
		size_t home = bucket(m, m->keys[j]);
		if (((j - home) & mask) >= ((j - b) & mask)) {
			m->keys[b] = m->keys[j];
			m->vals[b] = m->vals[j];
			m->keys[j] = 0;
			b = j;
		}
	}
	return 1;
}

void alloclab_addr_map_clear(struct alloclab_addr_map *m)
{
	if (m->free_fn) {
		m->free_fn(m->keys);
		m->free_fn(m->vals);
	}
	m->keys = NULL, m->vals = NULL;
	m->cap = m->used = 0;
}
