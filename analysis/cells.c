/* Reading cells. See cells.h. */
#include "cells.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void alloclab_cell_label(const json_t *cell, char *out, size_t len)
{
	const char *options = json_string_value(json_object_get(cell, "plugin_options"));
	snprintf(out, len, "%s%s%s%s", json_string_value(json_object_get(cell, "plugin")),
		 options && *options ? ":" : "", options ? options : "",
		 json_is_true(json_object_get(cell, "cache_aligned")) ? " +align" : "");
}

double *alloclab_cell_values(const json_t *cell, size_t *n)
{
	json_t *run, *v;
	size_t i, k, count = 0;
	double *out;

	json_array_foreach(json_object_get(cell, "runs"), i, run)
		count += json_array_size(json_object_get(run, "values"));
	out = calloc(count ? count : 1, sizeof *out);
	count = 0;
	json_array_foreach(json_object_get(cell, "runs"), i, run)
		json_array_foreach(json_object_get(run, "values"), k, v)
			out[count++] = json_number_value(json_object_get(v, "ns_per_op"));
	*n = count;
	return out;
}

json_t *alloclab_varying_params(const json_t *items)
{
	json_t *varying = json_object(), *first = NULL, *item;
	size_t i;

	json_array_foreach(items, i, item)
	{
		json_t *params = json_object_get(item, "params"), *value;
		const char *key;
		if (first == NULL) {
			first = params;
			continue;
		}
		json_object_foreach(params, key, value)
			if (!json_equal(value, json_object_get(first, key)))
				json_object_set(varying, key, json_true());
	}
	return varying;
}

void alloclab_append_params(const json_t *params, const json_t *varying, char *out, size_t len)
{
	size_t used = strlen(out);
	const char *key;
	json_t *flag;

	json_object_foreach((json_t *)varying, key, flag)
	{
		json_t *v = json_object_get(params, key);
		if (used >= len)
			break;
		if (json_is_string(v))
			used += (size_t)snprintf(out + used, len - used, " %s=%s", key, json_string_value(v));
		else
			used += (size_t)snprintf(out + used, len - used, " %s=%lld", key, (long long)json_integer_value(v));
	}
}
