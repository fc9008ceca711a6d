/* Shared by the false-sharing workloads. See false_sharing.h. */
#include "false_sharing.h"

#include "placement.h"

#include <stdio.h>

json_t *fs_placement(struct alloclab_workload_thread *t, size_t size)
{
	void *obj = alloclab_malloc(t->alloc, size);
	uintptr_t addr = (uintptr_t)obj;
	json_t *report = t->placement(t, &addr, &size, obj ? 1 : 0);

	alloclab_free(t->alloc, obj);
	return report ? json_pack("{s:o}", "placement", report) : NULL;
}

int fs_check_report(int per_process, const json_t *report, char *err, size_t err_len)
{
	if (!per_process) {
		snprintf(err, err_len, "this workload makes no per-value reports");
		return -1;
	}
	return alloclab_placement_check(json_object_get(report, "placement"), err, err_len);
}
