/*
 * The workloads' random numbers: wyrand (Wang Yi's generator from wyhash).
 * Its state advances by one addition, so the dependency chain a workload's
 * loop carries is a single add, and the output costs one 64x64->128
 * multiply: about half the instructions of SplitMix64, which matters because
 * these run inside every measured operation.
 */
#ifndef ALLOCLAB_RNG_H
#define ALLOCLAB_RNG_H

#include <stdint.h>

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
