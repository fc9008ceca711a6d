/*
 * `alloclab __worker SPEC-JSON`: what the runner executes for every
 * measured process (framework/run/runner.c). It reads the cell spec (checked:
 * the runner's own output, but a command line all the same), measures,
 * and writes the result object to file descriptor 3.
 */
#include "process/child.h"
#include "cli.h"
#include "registry.h"
#include "worker/worker.h"

#include <stdio.h>

int alloclab_cmd_worker(int argc, char **argv)
{
	struct alloclab_cell_spec cell;
	char err[ALLOCLAB_ERR_LEN];
	json_t *spec;
	int rc;

	alloclab_phase_attach();
	spec = argc == 2 ? json_loads(argv[1], 0, NULL) : NULL;
	if (spec == NULL || alloclab_cell_spec_from_json(spec, alloclab_workload_find, &cell, err, sizeof err) != 0) {
		rc = alloclab_child_send_json(3, json_pack("{s:s}", "error",
							   spec ? err : "alloclab __worker is internal: it takes one cell spec in JSON"));
	} else {
		rc = alloclab_worker_send(&cell, 3);
	}
	json_decref(spec);
	return rc;
}
