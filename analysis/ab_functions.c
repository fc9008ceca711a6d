/* Where an A/B's instructions went. See ab_functions.h. */
#define _GNU_SOURCE 1
#include "ab_functions.h"
#include "profile.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A side's cell: its last value's profile, named as of "plugin", and its
 * operations (the dump's total over the value's instructions per op). */
static int side_profile(const struct alloclab_results *r, int cell, const char *dir, struct alloclab_profile *p,
			double *ops, char *why, size_t why_len)
{
	char cells[4400], dump[4600];
	if (cell < 0 || (unsigned)cell >= r->ncells) {
		snprintf(why, why_len, "no cell");
		return -1;
	}
	const struct alloclab_cell *c = &r->cells[cell];
	if (c->nprocs == 0 || c->procs[0].nvalues == 0) {
		snprintf(why, why_len, "%s measured no value", c->plugin);
		return -1;
	}
	double per_op = c->procs[0].values[c->procs[0].nvalues - 1].per_op;
	snprintf(cells, sizeof cells, "%s/%s/cell-%d", dir, ALLOCLAB_AB_DUMPS, cell);
	if (alloclab_profile_last_dump(cells, dump, sizeof dump) != 0) {
		snprintf(why, why_len, "no callgrind dump of %.100s's cell in %.400s", c->plugin, cells);
		return -1;
	}
	if (alloclab_profile_read(dump, p, why, why_len) != 0)
		return -1;
	if (!(per_op > 0) || p->total == 0) {
		snprintf(why, why_len, "%s's dump counted nothing", c->plugin);
		return -1;
	}
	*ops = (double)p->total / per_op;
	const char *path = r->plugins[c->plugin_index].path;
	if (path) {
		char *copy = strdup(path);
		if (copy)
			alloclab_profile_rename_object(p, basename(copy), "plugin");
		free(copy);
	}
	return 0;
}

/* The row's functions into f. */
static void row_functions(const struct alloclab_results *r, const struct alloclab_ab_row *row, const char *dir,
			  unsigned top, struct alloclab_ab_functions *f)
{
	struct alloclab_profile p[2];
	double ops[2];
	char why[600] = "";
	memset(p, 0, sizeof p);
	if (side_profile(r, row->base_cell, dir, &p[0], &ops[0], why, sizeof why) == 0 &&
	    side_profile(r, row->head_cell, dir, &p[1], &ops[1], why, sizeof why) == 0) {
		struct alloclab_function_change *rows;
		size_t n;
		if (alloclab_profile_diff(&p[0], ops[0], &p[1], ops[1], &rows, &n) == 0) {
			f->top = calloc(top, sizeof *f->top);
			for (size_t i = 0; f->top && i < n && f->ntop < top; i++) {
				/* Below a thousandth of an instruction an operation
				 * is the counts' rounding, not a change. */
				if (rows[i].b - rows[i].a < 0.001 && rows[i].a - rows[i].b < 0.001)
					break;
				f->top[f->ntop++] = (struct alloclab_ab_function){strdup(rows[i].function), rows[i].a, rows[i].b};
			}
			free(rows);
		}
	} else {
		f->why = strdup(why);
	}
	alloclab_profile_clear(&p[0]);
	alloclab_profile_clear(&p[1]);
}

int alloclab_ab_functions_of(const struct alloclab_ab_result *res, const char *dir, unsigned top,
			     struct alloclab_ab_functions **out, size_t *n)
{
	char err[1200];
	*out = NULL;
	*n = 0;
	if (!res->files[ALLOCLAB_AB_INSTRUCTIONS][0])
		return 0;
	struct alloclab_results *r = alloclab_results_load(res->files[ALLOCLAB_AB_INSTRUCTIONS], NULL, err, sizeof err);
	if (r == NULL)
		return 0; /* the table already says what the run did */
	for (size_t i = 0; i < res->nrows; i++) {
		const struct alloclab_ab_row *row = &res->rows[i];
		if (row->metric != ALLOCLAB_AB_INSTRUCTIONS || row->status ||
		    (row->verdict != ALLOCLAB_VERDICT_MORE && row->verdict != ALLOCLAB_VERDICT_LESS))
			continue;
		struct alloclab_ab_functions *grown = realloc(*out, (*n + 1) * sizeof *grown);
		if (grown == NULL) {
			alloclab_results_free(r);
			return -1;
		}
		*out = grown;
		struct alloclab_ab_functions *f = &(*out)[(*n)++];
		memset(f, 0, sizeof *f);
		f->row = i;
		row_functions(r, row, dir, top, f);
	}
	alloclab_results_free(r);
	return 0;
}

void alloclab_ab_functions_free(struct alloclab_ab_functions *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < f[i].ntop; k++)
			free(f[i].top[k].function);
		free(f[i].top);
		free(f[i].why);
	}
	free(f);
}
