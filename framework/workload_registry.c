/*
 * The table of built-in workloads and the parsing of workload specs. The
 * list comes from workloads/meson.build (workload_list.h), so adding a
 * workload is adding its file and its name there.
 */
#include "workload.h"

#include <alloclab/plugin_options.h>
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

int alloclab_workload_param_index(const struct alloclab_workload *w, const char *name)
{
	for (unsigned i = 0; i < w->nparams; i++)
		if (strcmp(w->params[i].name, name) == 0)
			return (int)i;
	return -1;
}

int alloclab_workload_parse(const char *text, const struct alloclab_workload **out,
			    uint64_t params[ALLOCLAB_MAX_PARAMS], char *err, size_t err_len)
{
	char name[64];
	const char *colon = strchr(text, ':');
	size_t name_len = colon ? (size_t)(colon - text) : strlen(text);
	const struct alloclab_workload *w;
	const char *cursor = colon ? colon + 1 : "";
	struct alloclab_option opt;
	int rc;

	if (name_len >= sizeof name)
		name_len = sizeof name - 1;
	memcpy(name, text, name_len);
	name[name_len] = '\0';
	w = alloclab_workload_find(name);
	if (w == NULL) {
		size_t used = (size_t)snprintf(err, err_len, "unknown workload '%s' (known:", name);
		for (size_t i = 0; alloclab_workloads[i] && used < err_len; i++)
			used += (size_t)snprintf(err + used, err_len - used, " %s", alloclab_workloads[i]->name);
		if (used < err_len)
			snprintf(err + used, err_len - used, "; see 'alloclab list')");
		return -1;
	}
	for (unsigned i = 0; i < w->nparams; i++)
		params[i] = w->params[i].def;
	while ((rc = alloclab_option_next(&cursor, &opt)) > 0) {
		char key[64];
		uint64_t value;
		int idx;

		snprintf(key, sizeof key, "%.*s", (int)opt.key_len, opt.key);
		idx = alloclab_workload_param_index(w, key);
		if (idx < 0) {
			snprintf(err, err_len, "workload '%s' has no parameter '%s' (see 'alloclab list')", w->name, key);
			return -1;
		}
		if (alloclab_option_u64(&opt, &value) != 0) {
			snprintf(err, err_len, "workload '%s': %s='%.*s' is not a whole number (e.g. 4096 or 64K)",
				 w->name, key, (int)opt.value_len, opt.value);
			return -1;
		}
		if (value < w->params[idx].min || value > w->params[idx].max) {
			snprintf(err, err_len, "workload '%s': %s=%llu is out of range %llu..%llu", w->name, key,
				 (unsigned long long)value, (unsigned long long)w->params[idx].min,
				 (unsigned long long)w->params[idx].max);
			return -1;
		}
		params[idx] = value;
	}
	if (rc < 0) {
		snprintf(err, err_len, "workload '%s': malformed parameter '%s' (expected key=value)", w->name, cursor);
		return -1;
	}
	if (w->check_params && w->check_params(params, err, err_len) != 0)
		return -1;
	*out = w;
	return 0;
}
