/*
 * alloc-loop: the allocation-heavy single-threaded program of the exec
 * workload, for the preload path's cost against native LD_PRELOAD (a
 * program whose time is nearly all malloc and free, as mimalloc-bench's
 * glibc-simple is). A ring of 1000 live blocks: each step frees the oldest
 * and allocates a new one of a size drawn from a mix like a program's (most
 * under 128 bytes, some up to 1 KiB, a few of 4 to 16 KiB), touching its
 * first and last byte.
 *   alloc-loop [MILLIONS]     (default 10 million steps)
 * Prints a checksum of the sizes, the same under every allocator.
 */
#include "mixed_sizes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define RING 1000

int main(int argc, char **argv)
{
	uint64_t steps = (argc > 1 ? strtoull(argv[1], NULL, 10) : 10) * 1000000ull, x = 88172645463325252ull, sum = 0;
	static unsigned char *ring[RING];

	for (uint64_t i = 0; i < steps; i++) {
		unsigned k = (unsigned)(i % RING);
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t n = mixed_size(x);
		free(ring[k]);
		if ((ring[k] = malloc(n)) == NULL)
			return 1;
		ring[k][0] = (unsigned char)n;
		ring[k][n - 1] = (unsigned char)i;
		sum += n;
	}
	for (unsigned k = 0; k < RING; k++)
		free(ring[k]);
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
