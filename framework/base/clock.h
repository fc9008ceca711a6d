/*
 * The monotonic clock, read in one way: every duration the framework and
 * the workloads measure (rounds, slices, deadlines, progress) comes from
 * CLOCK_MONOTONIC, so no two of them disagree on what elapsed. Inline
 * because measured loops read it: a call into another file would add to
 * what they measure. Dates (CLOCK_REALTIME) and a thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID) are other clocks, read where they are needed.
 */
#ifndef ALLOCLAB_CLOCK_H
#define ALLOCLAB_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t alloclab_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Seconds, for deadlines and durations people read. */
static inline double alloclab_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
