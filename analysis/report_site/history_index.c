/* A history's points found by commit. See history_index.h. */
#include "history_index.h"

#include <stdlib.h>
#include <string.h>

int alloclab_history_index_build(struct alloclab_history_index *x, const struct alloclab_history_view *v)
{
	size_t n = 0, nc = v->ncommits;
	memset(x, 0, sizeof *x);
	x->v = v;
	for (size_t s = 0; s < v->nseries; s++)
		n += v->series[s].npoints;
	x->point_of = malloc((v->nseries * nc + 1) * sizeof *x->point_of);
	x->at = malloc((n + 1) * sizeof *x->at);
	x->first = calloc(nc + 2, sizeof *x->first);
	if (x->point_of == NULL || x->at == NULL || x->first == NULL) {
		alloclab_history_index_free(x);
		return -1;
	}
	for (size_t i = 0; i < v->nseries * nc; i++)
		x->point_of[i] = -1;
	/* A counting sort by commit: counts, their sums, then each point in
	 * the view's order (so a commit's points keep the series' order). */
	for (size_t s = 0; s < v->nseries; s++)
		for (size_t k = 0; k < v->series[s].npoints; k++)
			if (v->series[s].points[k].commit < nc)
				x->first[v->series[s].points[k].commit + 2]++;
	for (size_t c = 2; c < nc + 2; c++)
		x->first[c] += x->first[c - 1];
	for (size_t s = 0; s < v->nseries; s++)
		for (size_t k = 0; k < v->series[s].npoints; k++) {
			size_t c = v->series[s].points[k].commit;
			if (c >= nc)
				continue;
			x->at[x->first[c + 1]++] = (struct alloclab_history_at){s, k};
			x->point_of[s * nc + c] = (long)k;
		}
	return 0;
}

void alloclab_history_index_free(struct alloclab_history_index *x)
{
	free(x->point_of);
	free(x->at);
	free(x->first);
	memset(x, 0, sizeof *x);
}

const struct alloclab_history_point *alloclab_history_index_point(const struct alloclab_history_index *x, size_t s,
								  size_t c)
{
	if (s >= x->v->nseries || c >= x->v->ncommits || x->point_of[s * x->v->ncommits + c] < 0)
		return NULL;
	return &x->v->series[s].points[x->point_of[s * x->v->ncommits + c]];
}

double alloclab_history_index_level(const struct alloclab_history_index *x, size_t s, size_t c)
{
	const struct alloclab_history_point *p = alloclab_history_index_point(x, s, c);
	return p ? p->level : -1;
}
