/* One cell measured in a worker process of its own. See worker.h. */
#define _GNU_SOURCE 1
#include "worker/worker.h"
#include "measure/measure.h"
#include "files/self_exe.h"
#include "process/child.h"
#include "results/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * A measuring worker is a freshly executed alloclab, not a bare fork of
 * this process: a fork would start with the parent's heap (for the system
 * plugin, the very allocator under test, already fragmented by the parent's
 * results) and would count the parent's pages in its resident set.
 */
static int measure_child(void *arg, int fd)
{
	const struct alloclab_cell_spec *cell = arg;
	char *spec = json_dumps(alloclab_cell_spec_to_json(cell), JSON_COMPACT);
	char *argv[] = {"alloclab", "__worker", spec, NULL};

	if (fd != 3) {
		if (dup2(fd, 3) < 0)
			return 3;
		close(fd);
	}
	if (cell->callgrind_dir) {
		struct alloclab_measure_argv vg;
		alloclab_measure_worker_argv(&vg, cell->callgrind_dir, cell->cache_sim, alloclab_self_path(), spec);
		execvp(vg.argv[0], vg.argv);
		return 3; /* checked at plan: valgrind was there */
	}
	if (cell->workload->exec_worker && cell->workload->exec_worker(&cell->params, spec) != 0)
		return 3;
	execv(alloclab_self_path(), argv);
	/* exec failed: measure in this forked process rather than not at all. */
	return alloclab_worker_send(arg, 3);
}

/* The worker's answer: one process, or a paired worker's one a plugin,
 * each checked as a results file's. 0, or -1 with err. */
static int read_answer(json_t *obj, const struct alloclab_cell_spec *spec, struct alloclab_process *out, char *err,
		       size_t err_len)
{
	const char *metric = alloclab_cell_spec_metric(spec);
	if (spec->npair < 2)
		return alloclab_process_from_json(obj, spec->threads, metric, "the worker's result", out, err, err_len);
	json_t *each = json_object_get(obj, "paired");
	if (!json_is_array(each) || json_array_size(each) != spec->npair) {
		snprintf(err, err_len, "the paired worker's result has no process for each of its %u plugins", spec->npair);
		return -1;
	}
	for (unsigned k = 0; k < spec->npair; k++) {
		char where[64];
		snprintf(where, sizeof where, "the paired worker's result %u", k);
		if (alloclab_process_from_json(json_array_get(each, k), spec->threads, metric, where, &out[k], err,
					       err_len) != 0) {
			while (k--)
				alloclab_process_clear(&out[k]);
			return -1;
		}
	}
	return 0;
}

/* Whose failure it was: in a paired worker, the member that was running
 * (the worker marks each member's steps, and leaves the one a failure it
 * reports belongs to); -1 when none is known. The plugin to name is that
 * member's, never the reference's by default. */
static int failed_member(const struct alloclab_cell_spec *spec, const struct alloclab_child_result *res,
			 const char **plugin)
{
	if (spec->npair < 2) {
		*plugin = spec->plugin;
		return -1;
	}
	if (res->member < 1 || (unsigned)res->member > spec->npair) {
		*plugin = NULL;
		return -1;
	}
	*plugin = alloclab_pair_member_name(&spec->pair[res->member - 1]);
	return res->member - 1;
}

int alloclab_measure_isolated(const struct alloclab_cell_spec *spec, double timeout_s, struct alloclab_process *out,
			      int *interrupted, char *err, size_t err_len)
{
	int culprit;
	return alloclab_measure_isolated_blame(spec, timeout_s, out, interrupted, &culprit, err, err_len);
}

int alloclab_measure_isolated_blame(const struct alloclab_cell_spec *spec, double timeout_s,
				    struct alloclab_process *out, int *interrupted, int *culprit, char *err,
				    size_t err_len)
{
	struct alloclab_child_result res;
	const char *plugin;
	json_t *obj;
	int rc = -1, not_applicable = 0;

	*interrupted = 0;
	*culprit = -1;
	memset(out, 0, (spec->npair >= 2 ? spec->npair : 1) * sizeof *out);
	if (alloclab_child_run_sampled(measure_child, (void *)spec, timeout_s, spec->sample_ms, &res, err, err_len) != 0)
		return -1;
	if (res.interrupted) {
		*interrupted = 1;
		snprintf(err, err_len, "interrupted");
		alloclab_child_result_free(&res);
		return -1;
	}
	int member = failed_member(spec, &res, &plugin);
	obj = alloclab_child_answer(&res, plugin, timeout_s, &not_applicable, err, err_len);
	/* The worker is a plugin's process: its answer is checked like a file. */
	if (obj && read_answer(obj, spec, out, err, err_len) == 0) {
		out->elapsed_s = res.elapsed_s;
		out->started_unix_s = res.started_unix_s;
		out->plugin_output = alloclab_child_printed(&res);
		out->memory = res.memory;
		res.memory = NULL;
		for (unsigned k = 1; k < spec->npair; k++)
			out[k].elapsed_s = res.elapsed_s, out[k].started_unix_s = res.started_unix_s;
		rc = 0;
	} else if (not_applicable) {
		rc = -2;
	} else {
		*culprit = member;
		alloclab_child_add_printed(&res, err, err_len);
		/* The samples up to the failure: the caller keeps them with the
		 * cell's error. */
		alloclab_process_clear(out);
		out->memory = res.memory;
		res.memory = NULL;
	}
	json_decref(obj);
	alloclab_child_result_free(&res);
	return rc;
}
