/* Resident pages of a range. See resident.h. */
#define _GNU_SOURCE 1
#include "memory/resident.h"

#include <sys/mman.h>
#include <unistd.h>

uint64_t alloclab_resident_bytes(const void *p, size_t len)
{
	if (p == NULL || len == 0)
		return 0;
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)p & ~(page - 1), end = ((uintptr_t)p + len + page - 1) & ~(page - 1);
	/* A vector on the stack, a window at a time: no allocation (the
	 * system plugin shares the C library's heap with the harness). */
	unsigned char vec[4096];
	uint64_t resident = 0;
	for (uintptr_t at = start; at < end;) {
		size_t pages = (end - at) / page;
		if (pages > sizeof vec)
			pages = sizeof vec;
		if (mincore((void *)at, pages * page, vec) != 0)
			return resident;
		for (size_t i = 0; i < pages; i++)
			resident += (vec[i] & 1) * page;
		at += pages * page;
	}
	return resident;
}
