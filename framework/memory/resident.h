/*
 * How much of a range of this process's memory is resident, from the
 * kernel's page table (mincore): for a workload's own tables, which it
 * reports so that fragmentation takes them off (workload.h,
 * alloclab_live_own). Whole pages: a page the range shares with other
 * memory counts whole.
 */
#ifndef ALLOCLAB_RESIDENT_H
#define ALLOCLAB_RESIDENT_H

#include <stddef.h>
#include <stdint.h>

/* Resident bytes of the pages that [p, p + len) touches; 0 for NULL or
 * 0 bytes, or where the kernel does not say. */
uint64_t alloclab_resident_bytes(const void *p, size_t len);

#endif
