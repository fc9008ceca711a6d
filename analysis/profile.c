/* Instructions per function from a callgrind dump. See profile.h. */
#define _GNU_SOURCE 1
#include "profile.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void alloclab_profile_clear(struct alloclab_profile *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->e[i].function);
	free(p->e);
	memset(p, 0, sizeof *p);
}

static void add(struct alloclab_profile *p, const char *function, uint64_t ir)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->e[i].function, function) == 0) {
			p->e[i].ir += ir;
			return;
		}
	struct alloclab_profile_entry *grown = realloc(p->e, (p->n + 1) * sizeof *grown);
	if (grown == NULL)
		return;
	p->e = grown;
	p->e[p->n].function = strdup(function);
	p->e[p->n++].ir = ir;
}

/* Callgrind's name compression: "(id) name" defines id, "(id)" uses it. */
struct names {
	char **v;
	size_t n;
};

static const char *name_of(struct names *t, const char *spec)
{
	char *end;
	if (spec[0] != '(')
		return spec;
	unsigned long id = strtoul(spec + 1, &end, 10);
	if (*end != ')' || id > 10000000)
		return "???";
	const char *name = end + 1;
	while (*name == ' ')
		name++;
	if (*name) {
		if (id >= t->n) {
			char **grown = realloc(t->v, (id + 1) * sizeof *grown);
			if (grown == NULL)
				return "???";
			memset(grown + t->n, 0, (id + 1 - t->n) * sizeof *grown);
			t->v = grown;
			t->n = id + 1;
		}
		free(t->v[id]);
		t->v[id] = strdup(name);
		return t->v[id];
	}
	return id < t->n && t->v[id] ? t->v[id] : "???";
}

static void names_clear(struct names *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
}

/*
 * The dump format: `ob=`, `fl=`, `fn=` set the object, file and function
 * the cost lines below belong to; a cost line is a position and the costs
 * of the events (Ir first here); a `calls=` line is followed by one cost
 * line of the call's inclusive cost, which is the callee's, not the
 * caller's own, and is skipped.
 */
int alloclab_profile_parse(const char *text, struct alloclab_profile *out, char *err, size_t err_len)
{
	struct names objects = {0}, functions = {0};
	const char *object = "???", *function = NULL, *line = text;
	int after_calls = 0, have_total = 0, ir_first = 0;

	memset(out, 0, sizeof *out);
	while (line && *line) {
		const char *next = strchr(line, '\n');
		size_t len = next ? (size_t)(next - line) : strlen(line);
		char buf[4096];
		snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
		line = next ? next + 1 : NULL;

		if (strncmp(buf, "events:", 7) == 0) {
			char first[16] = "";
			sscanf(buf + 7, "%15s", first);
			ir_first = strcmp(first, "Ir") == 0;
		} else if (strncmp(buf, "ob=", 3) == 0) {
			object = name_of(&objects, buf + 3);
		} else if (strncmp(buf, "fn=", 3) == 0) {
			const char *fn = name_of(&functions, buf + 3);
			const char *base = strrchr(object, '/');
			char key[1200];
			snprintf(key, sizeof key, "%.900s [%.250s]", fn, base ? base + 1 : object);
			free((char *)function);
			function = strdup(key);
		} else if (strncmp(buf, "cob=", 4) == 0) {
			name_of(&objects, buf + 4); /* defines names used later */
		} else if (strncmp(buf, "cfn=", 4) == 0 || strncmp(buf, "cfi=", 4) == 0 || strncmp(buf, "cfl=", 4) == 0) {
			if (buf[1] == 'f' && buf[2] == 'n')
				name_of(&functions, buf + 4);
		} else if (strncmp(buf, "calls=", 6) == 0) {
			after_calls = 1;
		} else if (strncmp(buf, "totals:", 7) == 0 || strncmp(buf, "summary:", 8) == 0) {
			out->total = strtoull(strchr(buf, ':') + 1, NULL, 10);
			have_total = 1;
		} else if ((buf[0] >= '0' && buf[0] <= '9') || buf[0] == '+' || buf[0] == '-' || buf[0] == '*') {
			/* "position Ir ...": the position may be "+3", "-2", "*". */
			char *p = buf, *end;
			while (*p && *p != ' ')
				p++;
			uint64_t ir = strtoull(p, &end, 10);
			if (after_calls)
				after_calls = 0;
			else if (function && end != p)
				add(out, function, ir);
		}
	}
	free((char *)function);
	names_clear(&objects);
	names_clear(&functions);
	if (!have_total || !ir_first) {
		snprintf(err, err_len, "not a callgrind dump of instructions (no %s)", have_total ? "Ir event" : "totals");
		alloclab_profile_clear(out);
		return -1;
	}
	return 0;
}

int alloclab_profile_read(const char *dump, struct alloclab_profile *out, char *err, size_t err_len)
{
	FILE *f = fopen(dump, "r");
	char *text = NULL;
	size_t len = 0;

	memset(out, 0, sizeof *out);
	if (f == NULL) {
		snprintf(err, err_len, "cannot read %s: %s", dump, strerror(errno));
		return -1;
	}
	FILE *m = open_memstream(&text, &len);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	fclose(m);
	int rc = alloclab_profile_parse(text, out, err, err_len);
	free(text);
	return rc;
}

uint64_t alloclab_profile_ir(const struct alloclab_profile *p, const char *function)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->e[i].function, function) == 0)
			return p->e[i].ir;
	return 0;
}

int alloclab_profile_last_dump(const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned best = 0;
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		long pid;
		unsigned n;
		if (sscanf(e->d_name, "cg.%ld.%u", &pid, &n) == 2 && n > best) {
			best = n;
			snprintf(out, len, "%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	return best ? 0 : -1;
}

void alloclab_profile_rename_object(struct alloclab_profile *p, const char *from, const char *to)
{
	char old[600];
	snprintf(old, sizeof old, " [%s]", from);
	size_t n = strlen(old);
	for (size_t i = 0; i < p->n; i++) {
		size_t len = strlen(p->e[i].function);
		if (len < n || strcmp(p->e[i].function + len - n, old) != 0)
			continue;
		char *renamed = NULL;
		if (asprintf(&renamed, "%.*s [%s]", (int)(len - n), p->e[i].function, to) < 0)
			continue;
		free(p->e[i].function);
		p->e[i].function = renamed;
	}
}

static int by_difference(const void *x, const void *y)
{
	const struct alloclab_function_change *p = x, *q = y;
	double dp = fabs(p->b - p->a), dq = fabs(q->b - q->a);
	return (dp < dq) - (dp > dq);
}

static int by_name(const void *x, const void *y)
{
	return strcmp(((const struct alloclab_function_change *)x)->function,
		      ((const struct alloclab_function_change *)y)->function);
}

int alloclab_profile_diff(const struct alloclab_profile *a, double a_ops, const struct alloclab_profile *b, double b_ops,
			  struct alloclab_function_change **rows, size_t *nrows)
{
	size_t n = a->n + b->n, k = 0;
	struct alloclab_function_change *r = calloc(n + 1, sizeof *r);
	*rows = NULL;
	*nrows = 0;
	if (r == NULL)
		return -1;
	/* Both sides' functions, sorted by name, then merged: n log n. */
	for (size_t i = 0; i < a->n; i++)
		r[k++] = (struct alloclab_function_change){a->e[i].function, (double)a->e[i].ir / a_ops, 0};
	for (size_t i = 0; i < b->n; i++)
		r[k++] = (struct alloclab_function_change){b->e[i].function, 0, (double)b->e[i].ir / b_ops};
	qsort(r, k, sizeof *r, by_name);
	size_t out = 0;
	for (size_t i = 0; i < k; i++) {
		if (out > 0 && strcmp(r[out - 1].function, r[i].function) == 0) {
			r[out - 1].a += r[i].a;
			r[out - 1].b += r[i].b;
		} else {
			r[out++] = r[i];
		}
	}
	qsort(r, out, sizeof *r, by_difference);
	*rows = r;
	*nrows = out;
	return 0;
}
