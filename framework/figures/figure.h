/*
 * A picture as data: what a workload (or the analysis) wants drawn, with no
 * drawing syntax in it. analysis/plot.c renders figures with gnuplot, and
 * is the only place where text becomes gnuplot input: every string here
 * (titles, labels, series names, all of which may come from an untrusted
 * results file) is quoted there by one function, and `name` is checked
 * before it becomes a file name. A workload adds figures without knowing
 * gnuplot exists.
 */
#ifndef ALLOCLAB_FIGURE_H
#define ALLOCLAB_FIGURE_H

#include <stddef.h>

enum alloclab_figure_kind {
	/* Lines through (x, y) points, one line per series. */
	ALLOCLAB_FIGURE_LINES,
	/* Clustered bars: one cluster per category, one bar per series, with
	 * error bars (y[i] for category i; err may be NULL). */
	ALLOCLAB_FIGURE_BARS,
};

struct alloclab_series {
	char *title;
	double *x, *y, *err; /* n entries; x unused for BARS; NaN: no point */
	double *lo, *hi;     /* LINES: NULL, or n entries: each point's bar (NaN: none) */
	size_t n;
	/* 1: drawn from a cell that crashed part way (some of its processes
	 * only): its bars hatched, its points hollow, so that no one reads
	 * them as a whole measurement. Its title says so in words too. */
	int partial;
};

struct alloclab_figure {
	char *name;               /* file name stem, made of [a-z0-9_.-] */
	char *title, *xlabel, *ylabel;
	enum alloclab_figure_kind kind;
	char **categories;        /* BARS: ncategories names */
	size_t ncategories;
	struct alloclab_series *series;
	size_t nseries;
	double xmin, xmax;        /* LINES: used when xmin < xmax */
	double ymin, ymax;        /* used when ymin < ymax (what lies outside, bars too, is cut) */
	int ymin_zero;            /* 1: the y axis starts at 0 */
	double vline;             /* > 0: a dashed vertical line at x = vline... */
	char *vline_title;        /* ...with this title (the machine's cores) */
	double hline;             /* > 0: a dashed horizontal line at y = hline (a ratio's 1) */
	int xlog, ylog;           /* 1: that axis is logarithmic (latencies); values must be > 0 */
	int x_whole;              /* LINES: x ticks at whole numbers only (thread counts) */
	/* LINES: stretches of x shaded behind the lines (the measured runs
	 * of a memory timeline), and the legend entry that names them. */
	double *band_from, *band_to;
	size_t nbands;
	char *band_title;
	/* LINES: places on x named on the picture (a history's change
	 * points): a dotted line at each and its text ("" none) beside it. */
	double *mark_x;
	char **mark_text;
	size_t nmarks;
};

struct alloclab_figure_list {
	struct alloclab_figure *items;
	size_t n;
};

/* Building. Strings are copied; arrays are allocated with n entries. */
struct alloclab_figure *alloclab_figure_add(struct alloclab_figure_list *list, const char *name, const char *title,
					    const char *xlabel, const char *ylabel, enum alloclab_figure_kind kind);
struct alloclab_series *alloclab_figure_series(struct alloclab_figure *f, const char *title, size_t n);
void alloclab_figure_category(struct alloclab_figure *f, const char *name);
/* Gives a LINES series bars (lo, hi), every one NaN until set. */
void alloclab_figure_series_bars(struct alloclab_series *s);
/* A shaded stretch [from, to] of x (LINES); the first call's title names
 * them all in the legend. */
void alloclab_figure_band(struct alloclab_figure *f, double from, double to, const char *title);
/* A named place on x (LINES). */
void alloclab_figure_mark(struct alloclab_figure *f, double x, const char *text);
void alloclab_figure_list_free(struct alloclab_figure_list *list);

#endif
