/*
 * The table of built-in workloads and the parsing of workload specs. The
 * list comes from workloads/meson.build (workload_list.h), so adding a
 * workload is adding its file and its name there.
 */
#include "workload.h"

#include <alloclab/plugin_options.h>
#include <stdio.h>
#include <stdlib.h>
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

void alloclab_param_format(const struct alloclab_workload *w, const struct alloclab_params *p, unsigned i,
			   char *out, size_t len)
{
	switch (w->params[i].type) {
	case ALLOCLAB_PARAM_CHOICE: snprintf(out, len, "%s", w->params[i].choices[p->v[i]]); break;
	case ALLOCLAB_PARAM_TEXT: snprintf(out, len, "%s", p->text[i] ? p->text[i] : ""); break;
	default: snprintf(out, len, "%llu", (unsigned long long)p->v[i]); break;
	}
}

/* Text values live as long as the process: parameter vectors are copied by
 * value and share them. Kept in one table, they stay reachable (and are
 * stored once each). */
static const char *intern(const char *s, size_t len)
{
	static char **table;
	static size_t n, cap;

	for (size_t i = 0; i < n; i++)
		if (strlen(table[i]) == len && memcmp(table[i], s, len) == 0)
			return table[i];
	if (n == cap) {
		char **grown = realloc(table, (cap ? cap * 2 : 8) * sizeof *table);
		if (grown == NULL)
			return NULL;
		table = grown;
		cap = cap ? cap * 2 : 8;
	}
	table[n] = strndup(s, len);
	return table[n++];
}

/* Parses one value (no '+') of parameter idx into p. 0 or -1 with err. */
static int parse_value(const struct alloclab_workload *w, unsigned idx, const char *value, size_t len,
		       struct alloclab_params *p, char *err, size_t err_len)
{
	const struct alloclab_param *def = &w->params[idx];
	struct alloclab_option opt = {def->name, strlen(def->name), value, len};
	uint64_t v;

	switch (def->type) {
	case ALLOCLAB_PARAM_CHOICE:
		for (unsigned c = 0; def->choices[c]; c++)
			if (alloclab_option_value_is(&opt, def->choices[c])) {
				p->v[idx] = c;
				return 0;
			}
		{
			size_t used = (size_t)snprintf(err, err_len, "workload '%s': %s='%.*s' is not one of", w->name,
						       def->name, (int)len, value);
			for (unsigned c = 0; def->choices[c] && used < err_len; c++)
				used += (size_t)snprintf(err + used, err_len - used, "%s %s", c ? "," : "",
							 def->choices[c]);
		}
		return -1;
	case ALLOCLAB_PARAM_TEXT:
		p->text[idx] = intern(value, len);
		return p->text[idx] ? 0 : -1;
	default:
		if (alloclab_option_u64(&opt, &v) != 0) {
			snprintf(err, err_len, "workload '%s': %s='%.*s' is not a whole number (e.g. 4096 or 64K)",
				 w->name, def->name, (int)len, value);
			return -1;
		}
		if (v < def->min || v > def->max) {
			snprintf(err, err_len, "workload '%s': %s=%llu is out of range %llu..%llu", w->name, def->name,
				 (unsigned long long)v, (unsigned long long)def->min, (unsigned long long)def->max);
			return -1;
		}
		p->v[idx] = v;
		return 0;
	}
}

int alloclab_workload_parse_list(const char *text, struct alloclab_workload_spec *out, unsigned max, unsigned *n,
				 char *err, size_t err_len)
{
	char name[64];
	const char *colon = strchr(text, ':');
	size_t name_len = colon ? (size_t)(colon - text) : strlen(text);
	const struct alloclab_workload *w;
	const char *cursor = colon ? colon + 1 : "";
	struct alloclab_option opt;
	unsigned count = 1;
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
	memset(&out[0], 0, sizeof out[0]);
	out[0].workload = w;
	for (unsigned i = 0; i < w->nparams; i++) {
		out[0].params.v[i] = w->params[i].def;
		out[0].params.text[i] = w->params[i].type == ALLOCLAB_PARAM_TEXT ? w->params[i].def_text : NULL;
	}
	while ((rc = alloclab_option_next(&cursor, &opt)) > 0) {
		char key[64];
		const char *item = opt.value, *end = opt.value + opt.value_len;
		unsigned nvalues = 0, base = count;
		int idx;

		snprintf(key, sizeof key, "%.*s", (int)opt.key_len, opt.key);
		idx = alloclab_workload_param_index(w, key);
		if (idx < 0) {
			snprintf(err, err_len, "workload '%s' has no parameter '%s' (see 'alloclab list')", w->name, key);
			return -1;
		}
		/* "a+b+c": every entry so far is repeated once per value. */
		for (;;) {
			const char *plus = w->params[idx].type == ALLOCLAB_PARAM_TEXT ? NULL : memchr(item, '+', (size_t)(end - item));
			size_t len = plus ? (size_t)(plus - item) : (size_t)(end - item);
			if (nvalues > 0) {
				if (count + base > max || count + base > ALLOCLAB_MAX_EXPANSION) {
					snprintf(err, err_len, "workload '%s': the '+' lists expand to more than %u workloads",
						 w->name, max < ALLOCLAB_MAX_EXPANSION ? max : ALLOCLAB_MAX_EXPANSION);
					return -1;
				}
				memcpy(&out[count], &out[0], base * sizeof *out);
				count += base;
			}
			for (unsigned e = count - base; e < count; e++)
				if (parse_value(w, (unsigned)idx, item, len, &out[e].params, err, err_len) != 0)
					return -1;
			nvalues++;
			if (plus == NULL)
				break;
			item = plus + 1;
		}
	}
	if (rc < 0) {
		snprintf(err, err_len, "workload '%s': malformed parameter '%s' (expected key=value)", w->name, cursor);
		return -1;
	}
	for (unsigned e = 0; e < count; e++)
		if (w->check_params && w->check_params(&out[e].params, err, err_len) != 0)
			return -1;
	*n = count;
	return 0;
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
