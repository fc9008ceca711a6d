/* The reader's checked fields: one line naming the file, the field and
 * the problem. See internal.h. */
#define _GNU_SOURCE 1
#include "results/results.h"
#include "results/internal.h"
#include "results/results_keys.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int alloclab_results_bad(const struct alloclab_results_reader *rd, const char *where, const char *field, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(rd->err, rd->err_len, "%s: %s%s%s: %s", rd->name, where, where[0] && field[0] ? "." : "", field, what);
	return -1;
}

const char *alloclab_json_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "a whole number";
	case JSON_REAL: return "a fractional number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* An optional number field in [min, max]; *out untouched when absent. */
int alloclab_results_get_number(const struct alloclab_results_reader *rd, const json_t *obj, const char *where, const char *key, double min,
		      double max, double *out)
{
	json_t *v = json_object_get(obj, key);
	if (v == NULL)
		return 0;
	if (!json_is_number(v))
		return alloclab_results_bad(rd, where, key, "is %s, not a number", alloclab_json_type_name(v));
	if (!(json_number_value(v) >= min && json_number_value(v) <= max))
		return alloclab_results_bad(rd, where, key, "%.17g is out of range %.17g..%.17g", json_number_value(v), min, max);
	*out = json_number_value(v);
	return 0;
}

/* A string field: required, or optional (*out NULL when absent). Strings
 * are bounded so that a table or a label never has to truncate silently. */
int alloclab_results_get_string(const struct alloclab_results_reader *rd, const json_t *obj, const char *where, const char *key, int required,
		      char **out)
{
	json_t *v = json_object_get(obj, key);
	*out = NULL;
	if (v == NULL && !required)
		return 0;
	if (v == NULL)
		return alloclab_results_bad(rd, where, key, "missing");
	if (!json_is_string(v))
		return alloclab_results_bad(rd, where, key, "is %s, not a string", alloclab_json_type_name(v));
	if (json_string_length(v) > 4096)
		return alloclab_results_bad(rd, where, key, "is longer than 4096 bytes");
	if (strlen(json_string_value(v)) != json_string_length(v))
		return alloclab_results_bad(rd, where, key, "contains a NUL character");
	*out = strdup(json_string_value(v));
	/* Every string any command shows from a file comes through here: a
	 * control character (an escape sequence's ESC, a line break that
	 * would forge a line of alloclab's own, a C1 control in UTF-8) is
	 * shown as '?', never passed to a terminal. */
	for (unsigned char *c = (unsigned char *)*out; c && *c; c++)
		if ((*c < 0x20 && *c != '\t') || *c == 0x7f)
			*c = '?';
		else if (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f)
			c[0] = c[1] = '?';
	return 0;
}

int alloclab_results_get_uint(const struct alloclab_results_reader *rd, const json_t *obj, const char *where, const char *key, int required,
		    uint64_t min, uint64_t max, uint64_t *out)
{
	json_t *v = json_object_get(obj, key);
	if (v == NULL && !required)
		return 0;
	if (v == NULL)
		return alloclab_results_bad(rd, where, key, "missing");
	if (!json_is_integer(v))
		return alloclab_results_bad(rd, where, key, "is %s, not a whole number", alloclab_json_type_name(v));
	if (json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) < min || (uint64_t)json_integer_value(v) > max)
		return alloclab_results_bad(rd, where, key, "%lld is out of range %llu..%llu", (long long)json_integer_value(v),
			   (unsigned long long)min, (unsigned long long)max);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

int alloclab_results_get_bool(const struct alloclab_results_reader *rd, const json_t *obj, const char *where, const char *key, int *out)
{
	json_t *v = json_object_get(obj, key);
	*out = 0;
	if (v == NULL)
		return 0;
	if (!json_is_boolean(v))
		return alloclab_results_bad(rd, where, key, "is %s, not true or false", alloclab_json_type_name(v));
	*out = json_is_true(v);
	return 0;
}

int alloclab_results_get_array(const struct alloclab_results_reader *rd, const json_t *obj, const char *where, const char *key, int required,
		     size_t max, json_t **out)
{
	json_t *v = json_object_get(obj, key);
	*out = NULL;
	if (v == NULL && !required)
		return 0;
	if (v == NULL)
		return alloclab_results_bad(rd, where, key, "missing");
	if (!json_is_array(v))
		return alloclab_results_bad(rd, where, key, "is %s, not an array", alloclab_json_type_name(v));
	if (json_array_size(v) > max)
		return alloclab_results_bad(rd, where, key, "has %zu entries, more than the %zu allowed", json_array_size(v), max);
	*out = v;
	return 0;
}

int alloclab_results_parse_status(const char *s, enum alloclab_cell_status *out)
{
	static const char *const names[] = {S_PENDING, S_OK, S_ERROR, S_NOT_APPLICABLE};
	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum alloclab_cell_status)i;
			return 0;
		}
	return -1;
}
