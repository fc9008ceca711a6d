/*
 * The built-in workloads: the table generated from workloads/meson.build
 * (adding a workload is its file plus its name there), lookup by name, and
 * parsing "name[:key=value,...]" specs.
 */
#ifndef ALLOCLAB_REGISTRY_H
#define ALLOCLAB_REGISTRY_H

#include "workload/workload.h"

/* NULL-terminated. */
extern const struct alloclab_workload *const alloclab_workloads[];

const struct alloclab_workload *alloclab_workload_find(const char *name);

/*
 * Parses "name[:key=value,...]" into the workload and its parameter
 * vectors (alloclab_params_parse: '+' lists expand, up to max). 0, or -1
 * with one line in err (an unknown workload lists the known ones).
 */
int alloclab_workload_parse_list(const char *text, struct alloclab_workload_spec *out, unsigned max, unsigned *n,
				 char *err, size_t err_len);

/* The same for a spec that must not expand (exactly one entry). */
int alloclab_workload_parse(const char *text, struct alloclab_workload_spec *out, char *err, size_t err_len);

/* The results reader's hook (results.h): a report checked by its
 * workload's check_report; reports of unknown workloads are refused. */
int alloclab_workload_check_report(const char *workload, int per_process, const json_t *report, char *err,
				   size_t err_len);

#endif
