/* Shared by the false-sharing workloads. See false_sharing.h. */
#include "false_sharing.h"

#include "measure/placement.h"

#include "base/rng.h"

#include <stdio.h>
#include <stdlib.h>

json_t *fs_placement(struct alloclab_workload_thread *t, size_t size)
{
	void *obj = alloclab_malloc(t->alloc, size);
	uintptr_t addr = (uintptr_t)obj;
	json_t *report = t->placement(t, &addr, &size, obj ? 1 : 0);

	alloclab_free(t->alloc, obj);
	return report ? json_pack("{s:o}", "placement", report) : NULL;
}

json_t *fs_placement_of(struct alloclab_workload_thread *t, size_t n, size_t min, size_t max)
{
	void **blocks = calloc(n ? n : 1, sizeof *blocks);
	uintptr_t *addr = calloc(n ? n : 1, sizeof *addr);
	size_t *size = calloc(n ? n : 1, sizeof *size), held = 0;
	struct alloclab_rng rng = {t->seed ^ ALLOCLAB_STREAM_PLACEMENT};
	json_t *report;

	for (size_t i = 0; blocks && addr && size && i < n; i++) {
		size_t s = min + alloclab_rng_below((uint32_t)alloclab_rng_next(&rng), (uint32_t)(max - min + 1));
		if ((blocks[held] = alloclab_malloc(t->alloc, s)) == NULL)
			break;
		addr[held] = (uintptr_t)blocks[held];
		size[held++] = s;
	}
	report = t->placement(t, addr, size, held);
	for (size_t i = 0; i < held; i++)
		alloclab_free(t->alloc, blocks[i]);
	free(blocks);
	free(addr);
	free(size);
	return report ? json_pack("{s:o}", "placement", report) : NULL;
}

