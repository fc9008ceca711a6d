/*
 * What the multithreaded workloads share: the hot loop of the two
 * false-sharing workloads (cache_thrash.c, cache_scratch.c), which writes a
 * small object over and over, and the report of where each thread's blocks
 * lie, through the framework's placement service, so the table shows the
 * lines two threads' blocks share.
 */
#ifndef ALLOCLAB_FALSE_SHARING_H
#define ALLOCLAB_FALSE_SHARING_H

#include "workload/workload.h"

#include <stddef.h>
#include <stdint.h>

/* Writes every byte of the object `writes` times; volatile, so the stores
 * happen (a line bouncing between cores is the point). */
static inline void fs_write(unsigned char *obj, size_t size, uint64_t writes)
{
	/* As Hoard's loop: each byte stored, then loaded into a local. */
	volatile unsigned char *v = obj;
	for (uint64_t w = 0; w < writes; w++)
		for (size_t i = 0; i < size; i++) {
			v[i] = (unsigned char)i;
			volatile unsigned char ch = v[i];
			ch++;
		}
}

/* A thread's share of a round's writes: the originals divide their
 * repetitions among the threads (at least one). */
static inline uint64_t fs_share(uint64_t writes, unsigned nthreads)
{
	return writes / nthreads ? writes / nthreads : 1;
}

/* In finish, every thread at once: the object it would work on, held while
 * the placement of all of them is measured. Returns the report (or NULL). */
json_t *fs_placement(struct alloclab_workload_thread *t, size_t size);

/* The same for n blocks of sizes drawn from [min, max] (seeded): what a
 * workload whose blocks do not outlive run() holds for the measure. */
json_t *fs_placement_of(struct alloclab_workload_thread *t, size_t n, size_t min, size_t max);


#endif
