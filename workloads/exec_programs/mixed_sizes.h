/*
 * The request sizes alloc-loop and alloc-threads draw, a mix like a
 * program's: most under 128 bytes, some up to 1 KiB, a few of 4 to 16 KiB.
 */
#ifndef ALLOCLAB_MIXED_SIZES_H
#define ALLOCLAB_MIXED_SIZES_H

#include <stddef.h>
#include <stdint.h>

static inline size_t mixed_size(uint64_t r)
{
	unsigned pick = (unsigned)(r % 100);
	r >>= 8;
	if (pick < 70)
		return 8 + r % 120;
	if (pick < 97)
		return 128 + r % 896;
	return 4096 + r % 12288;
}

#endif
