/*
 * Pictures of a run, drawn by gnuplot (Debian's gnuplot-nox), PNG and SVG.
 * For every workload: the plugins side by side normalised to a baseline
 * with error bars; thread scaling (with the CPUs the run had marked) when
 * the run has several thread counts; and whatever figures the workload
 * adds itself (figure.h; the unicode workload's cache-line offsets).
 *
 * A results file is untrusted: plot never lets its text become gnuplot
 * syntax (every string is quoted by one function, control characters
 * dropped) nor a path outside the output folder (figure names are reduced
 * to [a-z0-9_.-]).
 */
#ifndef ALLOCLAB_PLOT_H
#define ALLOCLAB_PLOT_H

#include "figures/figure.h"
#include "results/results.h"

#include <stddef.h>

/* Whether a gnuplot command is on the PATH. */
int alloclab_plot_available(void);

/* Every figure of the run. */
void alloclab_plot_figures(const struct alloclab_results *r, const char *baseline, struct alloclab_figure_list *out);

/* One workload's figures: its plugins against the baseline, its thread
 * scaling, its own pictures (what alloclab_plot_figures gives of it).
 * cells: the workload's, as places in r->cells (alloclab_workload_groups). */
void alloclab_plot_workload_figures(const struct alloclab_results *r, const size_t *cells, size_t n, const char *baseline,
				    struct alloclab_figure_list *out);

/* Draws figures into dir (created if needed) as NAME.png and NAME.svg. 0,
 * or -1 with err set. One gnuplot draws them all. */
int alloclab_plot_draw(const struct alloclab_figure_list *figures, const char *dir, char *err, size_t err_len);
/* The same as NAME.svg alone, into dir (which must exist): the vector
 * pictures a report's pages embed. */
int alloclab_plot_draw_svg(const struct alloclab_figure_list *figures, const char *dir, char *err, size_t err_len);

/* Both: 0, or -1 with err set (also when the run has nothing measured). */
int alloclab_plot(const struct alloclab_results *r, const char *dir, const char *baseline, char *err, size_t err_len);

/* Writes s as a gnuplot single-quoted string: quotes doubled, line breaks
 * and other control characters (C1 too) replaced by spaces (a line break
 * would end the command and start another), a bidirectional control as
 * its escape ("\u202e"). */
void alloclab_gnuplot_quote(FILE *f, const char *s);

/* A title quoted so, broken at spaces into lines of at most
 * ALLOCLAB_TITLE_WIDTH characters (pieces joined by gnuplot's "."): a
 * title is centred on the graph, and one wider than the picture loses both
 * ends. */
#define ALLOCLAB_TITLE_WIDTH 100
void alloclab_gnuplot_title(FILE *f, const char *s);

/* A figure name made safe as a file name: [a-z0-9_.-] kept, anything else
 * '_', no leading '.', at most 100 bytes. */
void alloclab_safe_file_name(const char *name, char *out, size_t len);

#endif
