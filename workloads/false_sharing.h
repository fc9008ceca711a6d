/*
 * What the two false-sharing workloads (cache_thrash.c, cache_scratch.c)
 * share: the hot loop that writes a small object over and over, and the
 * report of where each thread's object lies, through the framework's
 * placement service, so the table shows the lines two threads' objects
 * share.
 */
#ifndef ALLOCLAB_FALSE_SHARING_H
#define ALLOCLAB_FALSE_SHARING_H

#include "workload.h"

#include <stddef.h>
#include <stdint.h>

/* Writes every byte of the object `writes` times; volatile, so the stores
 * happen (a line bouncing between cores is the point). */
static inline void fs_write(unsigned char *obj, size_t size, uint64_t writes)
{
	volatile unsigned char *v = obj;
	for (uint64_t w = 0; w < writes; w++)
		for (size_t i = 0; i < size; i++)
			v[i] = (unsigned char)(v[i] + 1);
}

/* In finish, every thread at once: the object it would work on, held while
 * the placement of all of them is measured. Returns the report (or NULL). */
json_t *fs_placement(struct alloclab_workload_thread *t, size_t size);

int fs_check_report(int per_process, const json_t *report, char *err, size_t err_len);

#endif
