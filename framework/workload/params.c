/*
 * Workload parameters: defaults, parsing "key=value,..." with '+' lists,
 * checking a vector that arrived as numbers, and their JSON form.
 */
#include "workload/workload.h"
#include "base/lengths.h"

#include "base/numbers.h"
#include "base/json_text.h"

#include <alloclab/plugin_options.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static const char *intern(const char *s, size_t len);

/* Text values live as long as the process: parameter vectors are copied by
 * value and share them. Kept in one table, they stay reachable (and are
 * stored once each). */
const char *alloclab_params_intern(const char *s, size_t len) { return intern(s, len); }

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
	uint64_t v = 0;

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
		switch (alloclab_parse_u64(value, len, 1, &v)) {
		case ALLOCLAB_NUMBER_OK: break;
		case ALLOCLAB_NUMBER_OVERFLOW:
			snprintf(err, err_len, "workload '%s': %s='%.*s' is too large (more than 2^64 - 1)", w->name,
				 def->name, (int)len, value);
			return -1;
		default:
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

void alloclab_params_defaults(const struct alloclab_workload *w, struct alloclab_params *p)
{
	memset(p, 0, sizeof *p);
	for (unsigned i = 0; i < w->nparams; i++) {
		p->v[i] = w->params[i].def;
		p->text[i] = w->params[i].type == ALLOCLAB_PARAM_TEXT ? w->params[i].def_text : NULL;
	}
}

/* The members of the group `value` names, or NULL. */
static const char *group_members(const struct alloclab_param *def, const char *value, size_t len)
{
	if (def->type != ALLOCLAB_PARAM_CHOICE || def->groups == NULL)
		return NULL;
	for (unsigned g = 0; def->groups[g]; g += 2)
		if (strlen(def->groups[g]) == len && memcmp(def->groups[g], value, len) == 0)
			return def->groups[g + 1];
	return NULL;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder named by a TEXT parameter with folder_patterns: its matching
 * files, sorted, in *out (glob's list; globfree it). 1 when `value` is such
 * a folder, 0 when it is not, -1 with err when no file matches. */
static int folder_files(const struct alloclab_workload *w, const struct alloclab_param *def, const char *value,
			size_t len, glob_t *out, char *err, size_t err_len)
{
	char path[ALLOCLAB_PATH_LEN], pattern[ALLOCLAB_PATH_PLUS2_LEN];
	struct stat st;
	int flags = 0;

	if (def->type != ALLOCLAB_PARAM_TEXT || def->folder_patterns == NULL || len >= sizeof path)
		return 0;
	memcpy(path, value, len);
	path[len] = '\0';
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	memset(out, 0, sizeof *out);
	for (unsigned i = 0; def->folder_patterns[i]; i++) {
		snprintf(pattern, sizeof pattern, "%s/%s", path, def->folder_patterns[i]);
		if (glob(pattern, flags, NULL, out) == 0)
			flags = GLOB_APPEND;
	}
	/* One order over every pattern's matches: by path. */
	if (out->gl_pathc > 1)
		qsort(out->gl_pathv, out->gl_pathc, sizeof *out->gl_pathv, by_path);
	if (out->gl_pathc == 0) {
		size_t used = (size_t)snprintf(err, err_len, "workload '%s': %s=%s: a folder with no file matching", w->name,
					       def->name, path);
		for (unsigned i = 0; def->folder_patterns[i] && used < err_len; i++)
			used += (size_t)snprintf(err + used, err_len - used, "%s %s", i ? " or" : "", def->folder_patterns[i]);
		globfree(out);
		return -1;
	}
	return 1;
}

/* Sets parameter idx to `value` ("a+b+c", groups expanded; a folder its
 * files) in out[0..*count): every entry so far is repeated once per value.
 * 0 or -1 with err. */
static int expand_values(const struct alloclab_workload *w, unsigned idx, const char *value, size_t value_len,
			 struct alloclab_workload_spec *out, unsigned *count, unsigned max, char *err, size_t err_len)
{
	const struct alloclab_param *def = &w->params[idx];
	const char *end = value + value_len;
	const char *items[ALLOCLAB_MAX_EXPANSION + 1];
	size_t lens[ALLOCLAB_MAX_EXPANSION + 1];
	unsigned nitems = 0, base = *count;
	char expanded[ALLOCLAB_PATH_LEN];
	/* Where each expanded item came from: a group's members (1) or the
	 * user's own list (0), in expanded's order. */
	unsigned char from_group[ALLOCLAB_MAX_EXPANSION + 1] = {0}, origin[ALLOCLAB_PATH_LEN / 2] = {0};
	unsigned norigin = 0;
	glob_t files;
	int folder = folder_files(w, def, value, value_len, &files, err, err_len), rc = 0;

	if (folder < 0)
		return -1;
	if (folder) {
		for (size_t i = 0; i < files.gl_pathc && nitems <= ALLOCLAB_MAX_EXPANSION; i++) {
			items[nitems] = files.gl_pathv[i];
			lens[nitems++] = strlen(files.gl_pathv[i]);
		}
	} else {
		/* Groups first: "quick+nbody" becomes "nbody+float+...+nbody"
		 * (and then the second nbody goes, below). */
		if (def->groups) {
			size_t used = 0;
			for (const char *cur = value; cur <= end;) {
				const char *plus = memchr(cur, '+', (size_t)(end - cur));
				size_t len = plus ? (size_t)(plus - cur) : (size_t)(end - cur);
				const char *members = group_members(def, cur, len);
				for (const char *m = members ? members : cur; norigin < sizeof origin; ) {
					origin[norigin++] = members != NULL;
					const char *more = members ? strchr(m, '+') : NULL;
					if (more == NULL)
						break;
					m = more + 1;
				}
				int n = members ? snprintf(expanded + used, sizeof expanded - used, "%s%s", used ? "+" : "", members)
						: snprintf(expanded + used, sizeof expanded - used, "%s%.*s", used ? "+" : "", (int)len,
							   cur);
				if (n < 0 || (size_t)n >= sizeof expanded - used) {
					snprintf(err, err_len, "workload '%s': %s= is too long", w->name, def->name);
					return -1;
				}
				used += (size_t)n;
				if (plus == NULL)
					break;
				cur = plus + 1;
			}
			value = expanded;
			end = expanded + used;
		}
		for (const char *item = value; nitems <= ALLOCLAB_MAX_EXPANSION;) {
			const char *plus = def->type == ALLOCLAB_PARAM_TEXT ? NULL : memchr(item, '+', (size_t)(end - item));
			items[nitems] = item;
			from_group[nitems] = def->groups && nitems < norigin ? origin[nitems] : 0;
			lens[nitems++] = plus ? (size_t)(plus - item) : (size_t)(end - item);
			if (plus == NULL)
				break;
			item = plus + 1;
		}
		/* An item given twice is a slip, refused; one that a group also
		 * brings (quick+nbody) is measured once. */
		for (unsigned v = 1; v < nitems; v++)
			for (unsigned u = 0; u < v; u++) {
				if (lens[u] != lens[v] || memcmp(items[u], items[v], lens[v]) != 0)
					continue;
				if (!from_group[u] && !from_group[v]) {
					snprintf(err, err_len, "workload '%s': %s=%.*s is given twice", w->name, def->name,
						 (int)lens[v], items[v]);
					return -1;
				}
				memmove(&items[v], &items[v + 1], (nitems - v - 1) * sizeof *items);
				memmove(&lens[v], &lens[v + 1], (nitems - v - 1) * sizeof *lens);
				memmove(&from_group[v], &from_group[v + 1], nitems - v - 1);
				nitems--;
				v--;
				break;
			}
	}
	for (unsigned v = 0; v < nitems && rc == 0; v++) {
		if (v > 0) {
			if (*count + base > max || *count + base > ALLOCLAB_MAX_EXPANSION) {
				snprintf(err, err_len, "workload '%s': the '+' lists expand to more than %u workloads", w->name,
					 max < ALLOCLAB_MAX_EXPANSION ? max : ALLOCLAB_MAX_EXPANSION);
				rc = -1;
				break;
			}
			memcpy(&out[*count], &out[0], base * sizeof *out);
			*count += base;
		}
		for (unsigned e = *count - base; e < *count && rc == 0; e++)
			rc = parse_value(w, idx, items[v], lens[v], &out[e].params, err, err_len);
	}
	if (folder)
		globfree(&files); /* the values were interned */
	return rc;
}

int alloclab_params_parse(const struct alloclab_workload *w, const char *options, struct alloclab_workload_spec *out,
			  unsigned max, unsigned *n, char *err, size_t err_len)
{
	const char *cursor = options;
	struct alloclab_option opt;
	unsigned count = 1;
	uint64_t given = 0; /* bit i: parameter i was given */
	int rc;

	memset(&out[0], 0, sizeof out[0]);
	out[0].workload = w;
	alloclab_params_defaults(w, &out[0].params);
	while ((rc = alloclab_option_next(&cursor, &opt)) > 0) {
		char key[64];
		int idx;

		snprintf(key, sizeof key, "%.*s", (int)opt.key_len, opt.key);
		idx = alloclab_workload_param_index(w, key);
		if (idx < 0) {
			snprintf(err, err_len, "workload '%s' has no parameter '%s' (see 'alloclab list')", w->name, key);
			return -1;
		}
		if (given & (1ull << idx)) {
			snprintf(err, err_len, "workload '%s': %s is given twice (for several values write %s=a+b)",
				 w->name, key, key);
			return -1;
		}
		given |= 1ull << idx;
		if (expand_values(w, (unsigned)idx, opt.value, opt.value_len, out, &count, max, err, err_len) != 0)
			return -1;
	}
	if (rc < 0) {
		snprintf(err, err_len, "workload '%s': malformed parameter '%s' (expected key=value)", w->name, cursor);
		return -1;
	}
	for (unsigned i = 0; i < w->nparams; i++) {
		const struct alloclab_param *def = &w->params[i];
		int skip = (given >> i) & 1 || def->type != ALLOCLAB_PARAM_CHOICE || def->def_text == NULL;
		for (unsigned u = 0; !skip && def->def_unless && def->def_unless[u]; u++) {
			int other = alloclab_workload_param_index(w, def->def_unless[u]);
			skip = other >= 0 && ((given >> other) & 1);
		}
		if (!skip && expand_values(w, i, def->def_text, strlen(def->def_text), out, &count, max, err, err_len) != 0)
			return -1;
	}
	/* The workload's own splitting (a pyperf file into its benchmarks),
	 * each set in place, the ones after it moved along. */
	for (unsigned e = 0; w->expand && e < count; e++) {
		struct alloclab_params *split = calloc(max, sizeof *split);
		unsigned got = 0;
		if (split == NULL) {
			snprintf(err, err_len, "workload '%s': out of memory", w->name);
			return -1;
		}
		if (w->expand(&out[e].params, split, max - count + 1, &got, err, err_len) != 0) {
			free(split);
			return -1;
		}
		if (got == 0 || count - 1 + got > max) {
			snprintf(err, err_len, "workload '%s': it expands to more than %u cells", w->name, max);
			free(split);
			return -1;
		}
		memmove(&out[e + got], &out[e + 1], (count - e - 1) * sizeof *out);
		for (unsigned k = 0; k < got; k++) {
			out[e + k].workload = w;
			out[e + k].params = split[k];
		}
		count += got - 1;
		e += got - 1;
		free(split);
	}
	for (unsigned e = 0; e < count; e++)
		if (w->check_params && w->check_params(&out[e].params, err, err_len) != 0)
			return -1;
	*n = count;
	return 0;
}

int alloclab_params_check(const struct alloclab_workload *w, const struct alloclab_params *p, char *err,
			  size_t err_len)
{
	for (unsigned i = 0; i < w->nparams; i++) {
		const struct alloclab_param *def = &w->params[i];
		if (def->type == ALLOCLAB_PARAM_TEXT) {
			if (p->text[i] == NULL) {
				snprintf(err, err_len, "workload '%s': %s has no text", w->name, def->name);
				return -1;
			}
		} else if (p->v[i] < def->min || p->v[i] > def->max) {
			snprintf(err, err_len, "workload '%s': %s=%llu is out of range %llu..%llu", w->name, def->name,
				 (unsigned long long)p->v[i], (unsigned long long)def->min, (unsigned long long)def->max);
			return -1;
		}
	}
	return w->check_params ? w->check_params(p, err, err_len) : 0;
}

json_t *alloclab_params_json(const struct alloclab_workload *w, const struct alloclab_params *params)
{
	json_t *obj = json_object();
	for (unsigned i = 0; i < w->nparams; i++) {
		char text[ALLOCLAB_PATH_LEN];
		if (w->params[i].type == ALLOCLAB_PARAM_NUMBER) {
			json_object_set_new(obj, w->params[i].name, json_integer((json_int_t)params->v[i]));
		} else {
			alloclab_param_format(w, params, i, text, sizeof text);
			json_object_set_new(obj, w->params[i].name, alloclab_json_text(text));
		}
	}
	return obj;
}

int alloclab_workload_role_index(const struct alloclab_workload *w, enum alloclab_param_role role)
{
	for (unsigned i = 0; i < w->nparams; i++)
		if (w->params[i].role == role)
			return (int)i;
	return -1;
}

static double plan_step_timeout_s = ALLOCLAB_PLAN_STEP_TIMEOUT_S;

void alloclab_set_plan_step_timeout(double seconds)
{
	if (seconds > 0)
		plan_step_timeout_s = seconds;
}

double alloclab_plan_step_timeout(void) { return plan_step_timeout_s; }
