/* What is said about cells. See cells.h. */
#include "cells.h"
#include "base/lengths.h"
#include "base/shell_word.h"

#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* A parameter's value as shown: numbers as they are, a path by its base
 * name (a row needs to tell texts apart, not locate them). */
static void param_value(const json_t *v, int short_paths, char *out, size_t len)
{
	if (json_is_string(v)) {
		const char *s = json_string_value(v), *slash = strrchr(s, '/');
		snprintf(out, len, "%s", short_paths && slash && slash[1] ? slash + 1 : s);
	} else {
		snprintf(out, len, "%lld", (long long)json_integer_value(v));
	}
}

/* Whether a parameter's value differs between cells of c's workload. */
static int param_varies(const struct alloclab_results *r, const struct alloclab_cell *c, const char *key,
			const json_t *value)
{
	for (unsigned k = 0; k < r->ncells; k++)
		if (strcmp(r->cells[k].workload, c->workload) == 0 && !json_equal(json_object_get(r->cells[k].params, key), value))
			return 1;
	return 0;
}

void alloclab_cell_params_text(const struct alloclab_results *r, const struct alloclab_cell *cell, int varying, char *out,
			       size_t len)
{
	const char *key;
	json_t *value;
	size_t used = 0;

	char *all = malloc(len);
	if (all == NULL) {
		out[0] = '\0';
		return;
	}
	all[0] = '\0';
	json_object_foreach(cell->params, key, value)
	{
		char text[ALLOCLAB_PATH_PLUS_LEN];
		if (used >= len)
			break;
		/* An empty text is a parameter not given (python's script=). */
		if (json_is_string(value) && json_string_length(value) == 0)
			continue;
		if (param_varies(r, cell, key, value) != varying)
			continue;
		param_value(value, 0, text, sizeof text);
		used += (size_t)snprintf(all + used, len - used, "%s%s=%s", used ? "," : "", key, text);
	}
	alloclab_printable(all, out, len);
	free(all);
}

void alloclab_row_names(const struct alloclab_cell *const *cells, size_t n, int with_plugin, char **names)
{
	int threads_vary = 0, workloads_vary = 0;

	for (size_t i = 0; i < n; i++) {
		threads_vary |= cells[i]->threads != cells[0]->threads;
		workloads_vary |= strcmp(cells[i]->workload, cells[0]->workload) != 0;
	}
	for (size_t i = 0; i < n; i++) {
		const struct alloclab_cell *c = cells[i];
		const struct alloclab_workload *w = alloclab_workload_find(c->workload);
		char name[2048];
		size_t used = 0;
		const char *key;
		json_t *value;

		name[0] = '\0';
		if (with_plugin) {
			alloclab_cell_label(c, name, sizeof name);
			used = strlen(name);
		}
		if (w && w->row_name) {
			char own[1024];
			w->row_name(c, own, sizeof own);
			used += (size_t)snprintf(name + used, sizeof name - used, "%s%s", used ? " " : "", own);
		} else {
			if (workloads_vary || !with_plugin || used == 0)
				used += (size_t)snprintf(name + used, sizeof name - used, "%s%s", used ? " " : "",
							 c->workload);
			/* Only what tells this row from another of its workload. */
			json_object_foreach(c->params, key, value)
			{
				int varies = 0;
				for (size_t k = 0; k < n && !varies; k++)
					varies = strcmp(cells[k]->workload, c->workload) == 0 &&
						 !json_equal(json_object_get(cells[k]->params, key), value);
				if (varies && used < sizeof name) {
					char text[1024];
					param_value(value, 1, text, sizeof text);
					used += (size_t)snprintf(name + used, sizeof name - used, " %s=%s", key, text);
				}
			}
		}
		if ((threads_vary || c->threads != 1) && used < sizeof name)
			snprintf(name + used, sizeof name - used, " t=%u", c->threads);
		char shown[ALLOCLAB_PRINTED_LEN];
		names[i] = strdup(alloclab_printable(name, shown, sizeof shown));
	}
}
