/*
 * The workloads' random numbers: wyrand (Wang Yi's generator from wyhash).
 * Its state advances by one addition, so the dependency chain a workload's
 * loop carries is a single add, and the output costs one 64x64->128
 * multiply: about half the instructions of SplitMix64, which matters because
 * these run inside every measured operation.
 */
#ifndef ALLOCLAB_RNG_H
#define ALLOCLAB_RNG_H

#include "base/hash.h"

#include <stdint.h>

/* Streams drawn from one seed for different purposes are kept apart by
 * xoring the seed with a constant of their own (any constant: these are
 * the ones the figures were measured with). */
#define ALLOCLAB_STREAM_PLACEMENT 0xc0ffeeull        /* the placement pass's sizes (false_sharing.c) */
#define ALLOCLAB_STREAM_LARSON_SIZES 0x5deece66dull  /* larson's slots and sizes */
/* The seed of inputs that are the same in every run and every build
 * (exec's generated inputs): the first 64 fractional bits of pi. */
#define ALLOCLAB_SEED_FIXED_INPUTS 0x243f6a8885a308d3ull

struct alloclab_rng {
	uint64_t state;
};

static inline uint64_t alloclab_rng_next(struct alloclab_rng *r)
{
	uint64_t s = (r->state += 0xa0761d6478bd642full);
	__uint128_t m = (__uint128_t)s * (s ^ 0xe7037ed1a0b428dbull);
	return (uint64_t)(m >> 64) ^ (uint64_t)m;
}

/* A value in [0, n) from 32 random bits, by multiply-shift (no division). */
static inline uint32_t alloclab_rng_below(uint32_t random32, uint32_t n)
{
	return (uint32_t)(((uint64_t)random32 * n) >> 32);
}

#endif
