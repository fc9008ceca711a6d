/*
 * `alloclab __worker SPEC-JSON`: what the runner executes for every
 * measured process (framework/worker/isolated.c). The worker's own entry
 * (framework/worker/worker_main.c), with the workloads of this alloclab.
 */
#include "cli.h"
#include "registry.h"
#include "worker/worker.h"

int alloclab_cmd_worker(int argc, char **argv)
{
	return alloclab_worker_main(argc == 2 ? argv[1] : NULL, alloclab_workload_find);
}
