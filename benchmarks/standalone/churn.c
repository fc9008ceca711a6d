/*
 * The churn workload's loop with no framework around it: the same random
 * numbers (the same per-thread seed), the same slots and sizes, the same two
 * touching writes, calling one allocator's entry points directly. Built
 * once per allocator (benchmarks/standalone/meson.build); run under
 * callgrind it counts the instructions of the loop alone, so `alloclab run
 * --measure instructions` against it gives the harness's own share per
 * operation (benchmarks/harness-ratio.sh).
 *
 *   churn-standalone-ALLOCATOR OPS [SLOTS [MIN_SIZE [MAX_SIZE [SEED]]]]
 */
#include "entry.h"
#include "base/rng.h"
#include "worker/worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <valgrind/callgrind.h>

int main(int argc, char **argv)
{
	uint64_t ops = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	uint32_t nslots = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 4096;
	uint32_t min_size = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 1;
	uint32_t max_size = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 512;
	uint64_t seed = argc > 5 ? strtoull(argv[5], NULL, 10) : 1;
	uint32_t span = max_size - min_size + 1;
	struct alloclab_rng rng = {alloclab_thread_seed(seed, 0)};
	unsigned char **slots = calloc(nslots, sizeof *slots);

	if (slots == NULL || nslots == 0 || max_size < min_size)
		return 2;
	for (uint32_t i = 0; i < nslots; i++) {
		size_t size = min_size + alloclab_rng_below((uint32_t)(alloclab_rng_next(&rng) >> 32), span);
		slots[i] = ALLOC(size);
		if (slots[i] == NULL)
			return 1;
		if (size) {
			slots[i][0] = 1;
			slots[i][size - 1] = 1;
		}
	}
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
	for (uint64_t i = 0; i < ops; i++) {
		uint64_t r = alloclab_rng_next(&rng);
		uint32_t slot = alloclab_rng_below((uint32_t)r, nslots);
		size_t size = min_size + alloclab_rng_below((uint32_t)(r >> 32), span);
		FREE(slots[slot]);
		unsigned char *b = ALLOC(size);
		slots[slot] = b;
		/* The workload's own checks, so that the two loops do the same
		 * work: a NULL ends the run, a 0-byte block is not written. */
		if (b == NULL)
			return 1;
		if (size) {
			b[0] = 1;
			b[size - 1] = 1;
		}
	}
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("churn loop");
	for (uint32_t i = 0; i < nslots; i++)
		FREE(slots[i]);
	free(slots);
	printf("%llu\n", (unsigned long long)ops);
	return 0;
}
