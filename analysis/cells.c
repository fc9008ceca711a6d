/* What is said about cells. See cells.h. */
#define _GNU_SOURCE 1
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

/* What varies of a set of cells' parameters, found in one pass: for each
 * workload and parameter name, the first value met, and whether another
 * cell of the workload has another value or none. (Each cell looked
 * through every other for each of its parameters: 20,000 cells took
 * minutes.) */
struct variation {
	const json_t *first;
	size_t holding;  /* cells of the workload that have the parameter */
	size_t workload; /* its workload's number in workloads */
	int differs;
};

struct alloclab_param_variation {
	struct alloclab_text_index *workloads, *names; /* names: "LENGTH:WORKLOADNAME" */
	size_t *cells_of;                              /* per workload */
	struct variation *v;
	size_t nv;
};

/* The variation's key of a workload's parameter: the length first, so
 * that no workload and name run into another pair's. */
static char *variation_key(const char *workload, const char *name)
{
	char *key = NULL;
	return asprintf(&key, "%zu:%s%s", strlen(workload), workload, name) < 0 ? NULL : key;
}

static int add_cell(struct alloclab_param_variation *pv, const struct alloclab_cell *c, size_t *cap)
{
	/* (cells_of has room for a workload a cell) */
	long w = alloclab_text_index_put(pv->workloads, c->workload, (long)alloclab_text_index_count(pv->workloads));
	if (w < 0)
		return -1;
	pv->cells_of[w]++;
	const char *name;
	json_t *value;
	json_object_foreach(c->params, name, value) {
		char *key = variation_key(c->workload, name);
		long k = key ? alloclab_text_index_put(pv->names, key, (long)pv->nv) : -1;
		free(key);
		if (k < 0)
			return -1;
		if ((size_t)k == pv->nv) {
			pv->v[pv->nv++] = (struct variation){.first = value, .workload = (size_t)w};
			if (pv->nv == *cap) {
				struct variation *grown = realloc(pv->v, 2 * *cap * sizeof *grown);
				if (grown == NULL)
					return -1;
				pv->v = grown;
				*cap *= 2;
			}
		}
		pv->v[k].holding++;
		pv->v[k].differs |= !json_equal(pv->v[k].first, value);
	}
	return 0;
}

struct alloclab_param_variation *alloclab_param_variation_new(const struct alloclab_cell *const *cells, size_t n)
{
	struct alloclab_param_variation *pv = calloc(1, sizeof *pv);
	size_t cap = 64;
	if (pv == NULL)
		return NULL;
	pv->workloads = alloclab_text_index_new();
	pv->names = alloclab_text_index_new();
	pv->cells_of = calloc(n + 1, sizeof *pv->cells_of);
	pv->v = calloc(cap, sizeof *pv->v);
	int ok = pv->workloads && pv->names && pv->cells_of && pv->v;
	for (size_t i = 0; ok && i < n; i++)
		ok = add_cell(pv, cells[i], &cap) == 0;
	if (!ok) {
		alloclab_param_variation_free(pv);
		return NULL;
	}
	/* A cell without the parameter has another value than the others. */
	for (size_t k = 0; k < pv->nv; k++)
		pv->v[k].differs |= pv->v[k].holding < pv->cells_of[pv->v[k].workload];
	return pv;
}

struct alloclab_param_variation *alloclab_param_variation_of(const struct alloclab_results *r)
{
	const struct alloclab_cell **cells = calloc(r->ncells + 1, sizeof *cells);
	if (cells == NULL)
		return NULL;
	for (unsigned i = 0; i < r->ncells; i++)
		cells[i] = &r->cells[i];
	struct alloclab_param_variation *pv = alloclab_param_variation_new(cells, r->ncells);
	free(cells);
	return pv;
}

void alloclab_param_variation_free(struct alloclab_param_variation *pv)
{
	if (pv == NULL)
		return;
	alloclab_text_index_free(pv->workloads);
	alloclab_text_index_free(pv->names);
	free(pv->cells_of);
	free(pv->v);
	free(pv);
}

int alloclab_param_varies(const struct alloclab_param_variation *pv, const char *workload, const char *name)
{
	char *key = pv ? variation_key(workload, name) : NULL;
	long k = key ? alloclab_text_index_get(pv->names, key) : -1;
	free(key);
	return k >= 0 && pv->v[k].differs;
}

void alloclab_cell_params_text(const struct alloclab_param_variation *pv, const struct alloclab_cell *cell, int varying,
			       char *out, size_t len)
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
		if (alloclab_param_varies(pv, cell->workload, key) != varying)
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
	struct alloclab_param_variation *pv = alloclab_param_variation_new(cells, n);

	for (size_t i = 0; i < n; i++) {
		threads_vary |= cells[i]->threads != cells[0]->threads;
		workloads_vary |= strcmp(cells[i]->workload, cells[0]->workload) != 0;
	}
	for (size_t i = 0; i < n; i++) {
		const struct alloclab_cell *c = cells[i];
		const struct alloclab_workload *w = alloclab_workload_find(c->workload);
		char name[2048], shown[ALLOCLAB_PRINTED_LEN];
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
				if (pv && alloclab_param_varies(pv, c->workload, key) && used < sizeof name) {
					char text[1024];
					param_value(value, 1, text, sizeof text);
					used += (size_t)snprintf(name + used, sizeof name - used, " %s=%s", key, text);
				}
			}
		}
		if ((threads_vary || c->threads != 1) && used < sizeof name)
			snprintf(name + used, sizeof name - used, " t=%u", c->threads);
		names[i] = strdup(alloclab_printable(name, shown, sizeof shown));
	}
	alloclab_param_variation_free(pv);
}

int alloclab_workload_groups(const struct alloclab_results *r, struct alloclab_text_groups *g)
{
	const char **names = calloc(r->ncells + 1, sizeof *names);
	if (names == NULL)
		return -1;
	for (unsigned i = 0; i < r->ncells; i++)
		names[i] = r->cells[i].workload;
	int rc = alloclab_text_groups_make(names, r->ncells, g);
	free(names);
	return rc;
}
