/* Building figures. See figure.h. */
#include "figures/figure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct alloclab_figure *alloclab_figure_add(struct alloclab_figure_list *list, const char *name, const char *title,
					    const char *xlabel, const char *ylabel, enum alloclab_figure_kind kind)
{
	struct alloclab_figure *f;

	list->items = realloc(list->items, (list->n + 1) * sizeof *list->items);
	f = &list->items[list->n++];
	memset(f, 0, sizeof *f);
	f->name = strdup(name);
	f->title = strdup(title);
	f->xlabel = strdup(xlabel);
	f->ylabel = strdup(ylabel);
	f->kind = kind;
	f->ymin_zero = 1;
	return f;
}

struct alloclab_series *alloclab_figure_series(struct alloclab_figure *f, const char *title, size_t n)
{
	struct alloclab_series *s;

	f->series = realloc(f->series, (f->nseries + 1) * sizeof *f->series);
	s = &f->series[f->nseries++];
	s->title = strdup(title);
	s->n = n;
	s->x = calloc(n + 1, sizeof *s->x);
	s->y = calloc(n + 1, sizeof *s->y);
	s->err = calloc(n + 1, sizeof *s->err);
	s->lo = s->hi = NULL;
	s->partial = 0;
	for (size_t i = 0; i < n; i++)
		s->x[i] = s->y[i] = NAN;
	return s;
}

void alloclab_figure_series_bars(struct alloclab_series *s)
{
	if (s->lo)
		return;
	s->lo = calloc(s->n + 1, sizeof *s->lo);
	s->hi = calloc(s->n + 1, sizeof *s->hi);
	for (size_t i = 0; s->lo && s->hi && i < s->n; i++)
		s->lo[i] = s->hi[i] = NAN;
}

void alloclab_figure_category(struct alloclab_figure *f, const char *name)
{
	f->categories = realloc(f->categories, (f->ncategories + 1) * sizeof *f->categories);
	f->categories[f->ncategories++] = strdup(name);
}

void alloclab_figure_band(struct alloclab_figure *f, double from, double to, const char *title)
{
	f->band_from = realloc(f->band_from, (f->nbands + 1) * sizeof *f->band_from);
	f->band_to = realloc(f->band_to, (f->nbands + 1) * sizeof *f->band_to);
	f->band_from[f->nbands] = from;
	f->band_to[f->nbands++] = to;
	if (f->band_title == NULL)
		f->band_title = strdup(title);
}

void alloclab_figure_mark(struct alloclab_figure *f, double x, const char *text)
{
	double *xs = realloc(f->mark_x, (f->nmarks + 1) * sizeof *xs);
	if (xs == NULL)
		return;
	f->mark_x = xs;
	char **texts = realloc(f->mark_text, (f->nmarks + 1) * sizeof *texts);
	if (texts == NULL)
		return;
	f->mark_text = texts;
	f->mark_x[f->nmarks] = x;
	f->mark_text[f->nmarks++] = strdup(text);
}

void alloclab_figure_list_free(struct alloclab_figure_list *list)
{
	for (size_t i = 0; i < list->n; i++) {
		struct alloclab_figure *f = &list->items[i];
		for (size_t s = 0; s < f->nseries; s++) {
			free(f->series[s].title);
			free(f->series[s].x);
			free(f->series[s].y);
			free(f->series[s].err);
			free(f->series[s].lo);
			free(f->series[s].hi);
		}
		for (size_t c = 0; c < f->ncategories; c++)
			free(f->categories[c]);
		free(f->series);
		free(f->categories);
		free(f->name);
		free(f->title);
		free(f->xlabel);
		free(f->ylabel);
		free(f->vline_title);
		free(f->band_from);
		free(f->band_to);
		free(f->band_title);
		for (size_t m = 0; m < f->nmarks; m++)
			free(f->mark_text[m]);
		free(f->mark_x);
		free(f->mark_text);
	}
	free(list->items);
	list->items = NULL;
	list->n = 0;
}
