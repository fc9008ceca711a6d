/*
 * The table of built-in workloads (from workloads/meson.build through
 * workload_list.h) and what needs it: lookup by name, spec parsing, and the
 * results reader's report check. See registry.h.
 */
#include "registry.h"

#include <stdio.h>
#include <string.h>

#define X(name) extern const struct alloclab_workload alloclab_workload_##name;
#include "workload_list.h"
#undef X

#define X(name) &alloclab_workload_##name,
const struct alloclab_workload *const alloclab_workloads[] = {
#include "workload_list.h"
	NULL,
};
#undef X

const struct alloclab_workload *alloclab_workload_find(const char *name)
{
	for (size_t i = 0; alloclab_workloads[i]; i++)
		if (strcmp(alloclab_workloads[i]->name, name) == 0)
			return alloclab_workloads[i];
	return NULL;
}

int alloclab_workload_parse_list(const char *text, struct alloclab_workload_spec *out, unsigned max, unsigned *n,
				 char *err, size_t err_len)
{
	char name[64];
	const char *colon = strchr(text, ':');
	size_t name_len = colon ? (size_t)(colon - text) : strlen(text);
	const struct alloclab_workload *w = NULL;

	if (name_len < sizeof name) {
		memcpy(name, text, name_len);
		name[name_len] = '\0';
		w = alloclab_workload_find(name);
	} else {
		snprintf(name, sizeof name, "%.40s...", text);
	}
	if (w == NULL) {
		size_t used = (size_t)snprintf(err, err_len, "unknown workload '%s' (known:", name);
		for (size_t i = 0; alloclab_workloads[i] && used < err_len; i++)
			used += (size_t)snprintf(err + used, err_len - used, " %s", alloclab_workloads[i]->name);
		if (used < err_len)
			snprintf(err + used, err_len - used, "; see 'alloclab list')");
		return -1;
	}
	return alloclab_params_parse(w, colon ? colon + 1 : "", out, max, n, err, err_len);
}

int alloclab_workload_parse(const char *text, struct alloclab_workload_spec *out, char *err, size_t err_len)
{
	struct alloclab_workload_spec list[ALLOCLAB_MAX_EXPANSION];
	unsigned n;

	if (alloclab_workload_parse_list(text, list, ALLOCLAB_MAX_EXPANSION, &n, err, err_len) != 0)
		return -1;
	if (n != 1) {
		snprintf(err, err_len, "'%s' expands to %u workloads; give one here", text, n);
		return -1;
	}
	*out = list[0];
	return 0;
}

int alloclab_workload_check_report(const char *workload, int per_process, const json_t *report, char *err,
				   size_t err_len)
{
	const struct alloclab_workload *w = alloclab_workload_find(workload);

	if (w == NULL) {
		/* A workload this alloclab does not have: its numbers are still
		 * read, its reports are never interpreted. */
		return 0;
	}
	if (w->check_report == NULL) {
		snprintf(err, err_len, "workload '%s' makes no %s reports", workload, per_process ? "process" : "value");
		return -1;
	}
	return w->check_report(per_process, report, err, err_len);
}
