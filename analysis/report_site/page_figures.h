/*
 * A page's pictures: figures as data (framework/figures/figure.h), made by
 * the code that owns what each shows (the plot code, the workloads, the
 * memory and latency reports, the history charts), drawn as SVG into the
 * site by the plot code (one gnuplot for the page), and placed in the
 * page beside the table each belongs to. A figure with nothing to draw,
 * or a site made where gnuplot is missing, says so in words.
 */
#ifndef ALLOCLAB_PAGE_FIGURES_H
#define ALLOCLAB_PAGE_FIGURES_H

#include "figures/figure.h"
#include "site.h"

#include <stdio.h>

struct alloclab_page_figures {
	struct alloclab_figure_list list;
	char folder[128]; /* "figures/STEM" */
	int drawn;        /* 1: drawn; 0: not (why says it) */
	char why[160];
};

/* Pictures to go under figures/STEM (STEM: a name of the site). */
void alloclab_page_figures_init(struct alloclab_page_figures *pf, const char *stem);
/* Draws every figure of the list into the site. 0, or -1 with err
 * (gnuplot failed); gnuplot missing is no error: the page says it. */
int alloclab_page_figures_draw(struct alloclab_site *s, struct alloclab_page_figures *pf, char *err, size_t err_len);
/* The figures [from, to) of the list, as a grid of pictures. */
void alloclab_page_figures_write(FILE *f, const struct alloclab_site *s, const struct alloclab_page_figures *pf,
				 size_t from, size_t to);
void alloclab_page_figures_free(struct alloclab_page_figures *pf);

#endif
