/* A worker process's entry. See worker.h. */
#include "worker/worker.h"
#include "base/lengths.h"
#include "process/child.h"

#include <stdio.h>

int alloclab_worker_main(const char *spec_text, const struct alloclab_workload *(*find)(const char *name))
{
	struct alloclab_cell_spec cell;
	char err[ALLOCLAB_ERR_LEN];
	json_t *spec;
	int rc;

	alloclab_phase_attach();
	spec = spec_text ? json_loads(spec_text, 0, NULL) : NULL;
	if (spec == NULL || alloclab_cell_spec_from_json(spec, find, &cell, err, sizeof err) != 0) {
		rc = alloclab_child_send_json(ALLOCLAB_WORKER_RESULT_FD,
					      json_pack("{s:s}", "error",
							spec ? err : "a worker takes one cell spec in JSON (alloclab runs it)"));
	} else {
		rc = alloclab_worker_send(&cell, ALLOCLAB_WORKER_RESULT_FD);
	}
	json_decref(spec);
	return rc;
}
