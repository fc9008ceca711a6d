/*
 * A history's points found by commit, for its pages and charts: each
 * series' point at a commit, and each commit's points on every series.
 * The pages ask both for every commit of the history; searching the
 * series each time made a history of 2,000 commits cost the square of
 * its points (issue 55). Built once, in time linear in the points.
 */
#ifndef ALLOCLAB_HISTORY_INDEX_H
#define ALLOCLAB_HISTORY_INDEX_H

#include "history/series.h"

#include <stddef.h>

/* A point as its series and its place there. */
struct alloclab_history_at {
	size_t series, point;
};

struct alloclab_history_index {
	const struct alloclab_history_view *v;
	long *point_of;  /* [series * ncommits + commit]: its point there, -1 none */
	/* Commit c's points: at[first[c] .. first[c + 1]), series by series
	 * in the view's order. */
	struct alloclab_history_at *at;
	size_t *first;
};

/* 0, or -1 out of memory (nothing then to free). */
int alloclab_history_index_build(struct alloclab_history_index *x, const struct alloclab_history_view *v);
void alloclab_history_index_free(struct alloclab_history_index *x);

/* Series s's point at commit c, or NULL. */
const struct alloclab_history_point *alloclab_history_index_point(const struct alloclab_history_index *x, size_t s,
								  size_t c);
/* Series s's level at commit c (< 0: none), as alloclab_history_level_at
 * says it. */
double alloclab_history_index_level(const struct alloclab_history_index *x, size_t s, size_t c);

#endif
