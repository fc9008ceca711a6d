/*
 * The hashing constants and functions the framework shares, named once.
 */
#ifndef ALLOCLAB_HASH_H
#define ALLOCLAB_HASH_H

#include <stddef.h>
#include <stdint.h>

/* 2^64 divided by the golden ratio, made odd. Multiplying by it spreads
 * consecutive keys over the whole word (Fibonacci hashing: addresses in
 * hash tables), and adding it is the Weyl step that keeps consecutive
 * seeds apart (SplitMix64's increment: thread indices, generations). */
#define ALLOCLAB_GOLDEN_GAMMA 0x9e3779b97f4a7c15ull

/* FNV-1a, 64 bits: a cheap, stable hash of bytes (output hashes, cache
 * keys). Start from ALLOCLAB_FNV_OFFSET; chain calls to hash pieces. */
#define ALLOCLAB_FNV_OFFSET 0xcbf29ce484222325ull
#define ALLOCLAB_FNV_PRIME 0x100000001b3ull

static inline uint64_t alloclab_fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * ALLOCLAB_FNV_PRIME;
	return h;
}

#endif
