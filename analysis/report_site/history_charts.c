/* A history's charts. See history_charts.h. */
#include "history_charts.h"

#include "history_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int uses_reference(const struct alloclab_history_series *s)
{
	for (size_t i = 0; s->metric == ALLOCLAB_AB_TIME && i < s->npoints; i++)
		if (s->points[i].has_reference)
			return 1;
	return 0;
}

static const char *y_label(const struct alloclab_history_view *v, const struct alloclab_history_series *s, char *out,
			   size_t len)
{
	if (uses_reference(s))
		snprintf(out, len, "time per operation over %.200s's, in the same processes (ratio; bars: 95%% interval)",
			 v->reference);
	else
		snprintf(out, len, "%s",
			 s->metric == ALLOCLAB_AB_INSTRUCTIONS ? "instructions per operation (exact counts)"
			 : s->metric == ALLOCLAB_AB_TIME	? "time per operation (ns)"
								: "peak resident memory net of the harness (KiB)");
	return out;
}

/* Which points are drawn: all, or every k-th with each change point, the
 * commit its step was taken from, and the last. Returns k (1: all). */
static size_t thin(const struct alloclab_history_series *s, char *keep)
{
	size_t k = (s->npoints + ALLOCLAB_HISTORY_CHART_POINTS - 1) / ALLOCLAB_HISTORY_CHART_POINTS;
	k = k ? k : 1;
	for (size_t i = 0; i < s->npoints; i++)
		keep[i] = i % k == 0 || i + 1 == s->npoints || s->points[i].change;
	for (size_t i = 0; i < s->npoints; i++)
		for (size_t j = 0; s->points[i].change && j < s->npoints; j++)
			if (s->points[j].commit == s->points[i].base)
				keep[j] = 1;
	return k;
}

/* The change points' marks, each named where there is room for its
 * name: the largest first, at most ALLOCLAB_HISTORY_CHART_LABELS, none
 * within a 60th of the axis of one named before (their lines are drawn
 * all the same). Returns how many are named, *n how many there are. */
static size_t marks(const struct alloclab_history_view *v, const struct alloclab_history_series *s,
		    struct alloclab_figure *f, size_t *n)
{
	size_t *order = calloc(s->npoints + 1, sizeof *order), named = 0;
	double *at = calloc(ALLOCLAB_HISTORY_CHART_LABELS + 1, sizeof *at), room = v->ncommits / 60.0;
	*n = 0;
	for (size_t i = 0; order && i < s->npoints; i++)
		if (s->points[i].change && s->points[i].ratio > 0)
			order[(*n)++] = i;
	/* Largest first (a selection: change points are few). */
	for (size_t a = 0; order && a < *n; a++)
		for (size_t b = a + 1; b < *n; b++)
			if (fabs(log(s->points[order[b]].ratio)) > fabs(log(s->points[order[a]].ratio))) {
				size_t t = order[a];
				order[a] = order[b];
				order[b] = t;
			}
	for (size_t a = 0; order && at && a < *n; a++) {
		const struct alloclab_history_point *p = &s->points[order[a]];
		double x = v->commits[p->commit].ordinal;
		char what[96], text[140] = "";
		int crowded = named >= ALLOCLAB_HISTORY_CHART_LABELS;
		for (size_t k = 0; k < named && !crowded; k++)
			crowded = fabs(at[k] - x) < room;
		if (!crowded) {
			alloclab_history_change_text(s->metric, p, alloclab_history_level_at(s, p->base), what, sizeof what);
			snprintf(text, sizeof text, "%.7s %s", v->commits[p->commit].commit, what);
			at[named++] = x;
		}
		alloclab_figure_mark(f, x, text);
	}
	free(order);
	free(at);
	return named;
}

/* The axis spans the points and 1 with room; a bar wider than that (a
 * step of two processes) is cut there. Returns whether one is. */
static int cut_bars(struct alloclab_figure *f, const struct alloclab_series *se)
{
	double lo = 1, hi = 1;
	int cut = 0;
	for (size_t i = 0; i < se->n; i++)
		if (isfinite(se->y[i]) && se->y[i] > 0) {
			lo = fmin(lo, se->y[i]);
			hi = fmax(hi, se->y[i]);
		}
	f->ymin = lo / 1.25;
	f->ymax = hi * 1.25;
	for (size_t i = 0; i < se->n; i++)
		cut |= isfinite(se->y[i]) && ((isfinite(se->lo[i]) && se->lo[i] < f->ymin) ||
					     (isfinite(se->hi[i]) && se->hi[i] > f->ymax));
	return cut;
}

static void chart(const struct alloclab_history_view *v, size_t index, struct alloclab_figure_list *out)
{
	const struct alloclab_history_series *s = &v->series[index];
	char name[64], title[1400], ylabel[400];
	int ref = uses_reference(s);
	char *keep = calloc(s->npoints + 1, 1);
	if (keep == NULL)
		return;
	size_t k = thin(s, keep);
	snprintf(name, sizeof name, "series-%zu", index);
	snprintf(title, sizeof title, "%s, %.600s: %s of each measured commit", alloclab_ab_metric_names[s->metric], s->row,
		 ref ? "its time over the reference's" : "the level");
	struct alloclab_figure *f = alloclab_figure_add(out, name, title, "commit (its place in the history, oldest 0)",
							y_label(v, s, ylabel, sizeof ylabel), ALLOCLAB_FIGURE_LINES);
	f->ymin_zero = !ref;
	f->hline = ref ? 1 : 0;
	f->x_whole = v->ncommits <= 20;
	struct alloclab_series *se = alloclab_figure_series(f, ref ? "against the reference, 95% interval" : "level",
							    s->npoints);
	if (ref)
		alloclab_figure_series_bars(se);
	for (size_t i = 0; i < s->npoints; i++) {
		const struct alloclab_history_point *p = &s->points[i];
		if (!keep[i] || (ref ? !p->has_reference : p->level < 0))
			continue;
		se->x[i] = v->commits[p->commit].ordinal;
		se->y[i] = ref ? p->ref_ratio : p->level;
		if (ref) {
			se->lo[i] = p->ref_lo;
			se->hi[i] = p->ref_hi;
		}
	}
	int cut = ref && cut_bars(f, se);
	size_t changes, named = marks(v, s, f, &changes);
	/* What the picture leaves out, said on it. */
	if (k > 1)
		snprintf(title + strlen(title), sizeof title - strlen(title),
			 " (thinned: every %zu%s of %zu commits drawn, and each change point)", k,
			 k == 2 ? "nd" : k == 3 ? "rd" : "th", s->npoints);
	if (named < changes)
		snprintf(title + strlen(title), sizeof title - strlen(title),
			 " (%zu of %zu change points named where there is room; the table lists them all)", named, changes);
	if (cut)
		snprintf(title + strlen(title), sizeof title - strlen(title), " (bars cut at the edges)");
	free(f->title);
	f->title = strdup(title);
	free(keep);
}

void alloclab_history_charts(const struct alloclab_history_view *v, struct alloclab_figure_list *out)
{
	for (size_t i = 0; i < v->nseries; i++)
		chart(v, i, out);
}
