/* Pictures of a run through gnuplot. See plot.h. */
#define _GNU_SOURCE 1
#include "plot.h"
#include "files/output_path.h"
#include "base/lengths.h"
#include "base/json_text.h"

#include "cells.h"
#include "latency_report.h"
#include "memory_report.h"
#include "files/self_exe.h"
#include "registry.h"
#include "files/scratch.h"
#include "process/program.h"
#include "statistics/summary.h"
#include "statistics/pairs.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void quote_n(FILE *f, const char *s, size_t n)
{
	fputc('\'', f);
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t k = c >= 0x80 ? alloclab_utf8_char((const unsigned char *)s + i) : 1;
		/* A bidirectional control would turn the picture's own words
		 * around: its escape, as on a terminal and a page. */
		unsigned bidi = k > 1 && i + k <= n ? alloclab_bidi_control((const unsigned char *)s + i, k) : 0;
		if (bidi) {
			fprintf(f, "\\u%04x", bidi);
			i += k - 1;
			continue;
		}
		if (k == 2 && i + k <= n && alloclab_control_char((const unsigned char *)s + i, k)) {
			fputc(' ', f);
			i++;
			continue;
		}
		if (c == '\'')
			fputc('\'', f);
		fputc(c < 0x20 || c == 0x7f ? ' ' : c, f);
	}
	fputc('\'', f);
}

void alloclab_gnuplot_quote(FILE *f, const char *s) { quote_n(f, s, strlen(s)); }

void alloclab_gnuplot_title(FILE *f, const char *s)
{
	size_t n = strlen(s);
	while (n > ALLOCLAB_TITLE_WIDTH) {
		size_t cut = ALLOCLAB_TITLE_WIDTH;
		while (cut > 0 && s[cut] != ' ')
			cut--;
		if (cut == 0) /* one word wider than a line: a line of its own */
			for (cut = ALLOCLAB_TITLE_WIDTH; cut < n && s[cut] != ' '; cut++)
				;
		if (cut == n)
			break;
		quote_n(f, s, cut);
		fputs(".\"\\n\".", f);
		s += cut + 1;
		n -= cut + 1;
	}
	quote_n(f, s, n);
}

void alloclab_safe_file_name(const char *name, char *out, size_t len)
{
	size_t k = 0;
	for (const char *c = name; *c && k + 1 < len && k < 100; c++) {
		char ch = (char)tolower((unsigned char)*c);
		int keep = ((unsigned char)ch < 0x80 && isalnum((unsigned char)ch)) || ch == '-' || ch == '_' ||
			   (ch == '.' && k > 0);
		out[k++] = keep ? ch : '_';
	}
	if (k == 0)
		out[k++] = '_';
	out[k] = '\0';
}

int alloclab_plot_available(void)
{
	return alloclab_program_on_path("gnuplot");
}

/* ---- rendering ---- */

static void data_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		fputc(c == '"' ? '\'' : c < 0x20 || c == 0x7f ? ' ' : c, f);
	}
	fputc('"', f);
}

/* The data file of a figure: BARS, one line per category with y and err
 * of every series; LINES, one block per series. */
static int write_data(const struct alloclab_figure *fig, const char *path, char *err, size_t err_len)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	if (fig->kind == ALLOCLAB_FIGURE_BARS) {
		for (size_t c = 0; c < fig->ncategories; c++) {
			data_string(f, fig->categories[c]);
			for (size_t s = 0; s < fig->nseries; s++) {
				const struct alloclab_series *se = &fig->series[s];
				if (c < se->n && isfinite(se->y[c]))
					fprintf(f, " %.6g %.6g", se->y[c], isfinite(se->err[c]) ? se->err[c] : 0.0);
				else
					fputs(" NaN NaN", f);
			}
			fputc('\n', f);
		}
	} else {
		for (size_t s = 0; s < fig->nseries; s++) {
			const struct alloclab_series *se = &fig->series[s];
			for (size_t i = 0; i < se->n; i++)
				if (isfinite(se->x[i]) && isfinite(se->y[i])) {
					if (se->lo)
						fprintf(f, "%.6g %.6g %.6g %.6g\n", se->x[i], se->y[i],
							isfinite(se->lo[i]) ? se->lo[i] : se->y[i],
							isfinite(se->hi[i]) ? se->hi[i] : se->y[i]);
					else
						fprintf(f, "%.6g %.6g\n", se->x[i], se->y[i]);
				}
			fputs("\n\n", f);
		}
	}
	if (fclose(f) != 0) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* gnuplot cannot scale an axis for data that are all 0 (a figure of
 * "no lines shared" is a real answer), and says so on stderr. */
static int all_zero(const struct alloclab_figure *fig)
{
	for (size_t s = 0; s < fig->nseries; s++)
		for (size_t i = 0; i < fig->series[s].n; i++)
			if (isfinite(fig->series[s].y[i]) && fig->series[s].y[i] != 0)
				return 0;
	return 1;
}

/* The named places on x (a history's change points): a dotted line
 * each, its text up beside it. */
static void write_marks(FILE *p, const struct alloclab_figure *fig)
{
	for (size_t m = 0; m < fig->nmarks; m++) {
		if (!isfinite(fig->mark_x[m]))
			continue;
		fprintf(p, "set arrow from %.6g, graph 0 to %.6g, graph 1 nohead dashtype 3 lc rgb '#5b3fc4'\n",
			fig->mark_x[m], fig->mark_x[m]);
		if (fig->mark_text[m] && fig->mark_text[m][0]) {
			fprintf(p, "set label %zu ", m + 1);
			alloclab_gnuplot_quote(p, fig->mark_text[m]);
			fprintf(p, " at %.6g, graph 0.98 rotate by 90 right offset -0.7,0 tc rgb '#5b3fc4' noenhanced front\n",
				fig->mark_x[m]);
		}
	}
}

static void write_script(FILE *p, const struct alloclab_figure *fig, const char *data)
{
	fputs("set title ", p);
	alloclab_gnuplot_title(p, fig->title);
	fputs(" noenhanced\nset xlabel ", p);
	alloclab_gnuplot_quote(p, fig->xlabel);
	fputs(" noenhanced\nset ylabel ", p);
	alloclab_gnuplot_quote(p, fig->ylabel);
	/* The legend beside the plot, never over the data. */
	fputs(" noenhanced\nset key outside right top vertical Left reverse noenhanced\n", p);
	if (fig->hline > 0)
		fprintf(p, "set arrow from graph 0, first %.6g to graph 1, first %.6g nohead dashtype 2 lc rgb 'gray40'\n",
			fig->hline, fig->hline);
	if (fig->xlog)
		fputs("set logscale x 10\n", p);
	if (fig->ylog)
		fputs("set logscale y 10\nset format y '%g'\n", p);
	if (fig->ymin < fig->ymax)
		fprintf(p, "set yrange [%.6g:%.6g]\n", fig->ymin, fig->ymax);
	else if (fig->ymin_zero && !fig->ylog)
		fputs(all_zero(fig) ? "set yrange [0:1]\n" : "set yrange [0:*]\n", p);
	if (fig->kind == ALLOCLAB_FIGURE_BARS) {
		fputs("set style data histogram\nset style histogram errorbars gap 2 lw 1\n"
		      "set style fill solid 0.6 border -1\nset grid ytics\nset xtics rotate by -25 noenhanced\n"
		      "set bmargin 8\nplot ",
		      p);
		for (size_t s = 0; s < fig->nseries; s++) {
			fputs(s ? ", " : "", p);
			alloclab_gnuplot_quote(p, data);
			fprintf(p, " using %zu:%zu%s%s title ", 2 + 2 * s, 3 + 2 * s, s == 0 ? ":xtic(1)" : "",
				fig->series[s].partial ? " fillstyle pattern 4 border" : "");
			alloclab_gnuplot_quote(p, fig->series[s].title);
		}
		fputc('\n', p);
		return;
	}
	fputs(fig->xlog ? "set grid\n" : "set grid\nset offsets 0.15, 0.15, 0, 0\n", p);
	double lo = INFINITY, hi = -INFINITY;
	for (size_t s = 0; s < fig->nseries; s++)
		for (size_t i = 0; i < fig->series[s].n; i++)
			if (isfinite(fig->series[s].x[i]) && isfinite(fig->series[s].y[i])) {
				lo = fmin(lo, fig->series[s].x[i]);
				hi = fmax(hi, fig->series[s].x[i]);
			}
	if (fig->xmin < fig->xmax)
		fprintf(p, "set xrange [%.6g:%.6g]\n", fig->xmin, fig->xmax);
	else if (lo == hi && !fig->xlog) /* one x (a single thread count): gnuplot cannot scale it */
		fprintf(p, "set xrange [%.6g:%.6g]\n", lo - 1, hi + 1);
	else
		fputs("set autoscale xfix\n", p);
	if (fig->x_whole && !fig->xlog)
		fputs("set xtics 1\n", p); /* thread counts: no tick at 1.5 threads */
	if (fig->vline > 0)
		fprintf(p, "set arrow from %.6g, graph 0 to %.6g, graph 1 nohead dashtype 2 lc rgb 'gray40'\n", fig->vline,
			fig->vline);
	for (size_t b = 0; b < fig->nbands; b++)
		if (isfinite(fig->band_from[b]) && isfinite(fig->band_to[b]) && fig->band_from[b] < fig->band_to[b])
			fprintf(p, "set object %zu rect from %.6g, graph 0 to %.6g, graph 1 behind fc rgb '#e4e9f2' "
				   "fillstyle solid 1.0 noborder\n",
				b + 1, fig->band_from[b], fig->band_to[b]);
	write_marks(p, fig);
	fputs("plot ", p);
	for (size_t s = 0; s < fig->nseries; s++) {
		fputs(s ? ", " : "", p);
		alloclab_gnuplot_quote(p, data);
		/* A crashed cell's points hollow (point type 6), its line dashed. */
		const char *hollow = fig->series[s].partial ? " pt 6 ps 1.5 dashtype 3" : "";
		if (fig->series[s].lo)
			fprintf(p, " index %zu using 1:2:3:4 with yerrorlines%s title ", s, hollow);
		else
			fprintf(p, " index %zu using 1:2 with %s%s title ", s, fig->xlog ? "steps" : "linespoints", hollow);
		alloclab_gnuplot_quote(p, fig->series[s].title);
	}
	if (fig->vline > 0 && fig->vline_title) {
		/* The marker's legend entry: an empty curve in its style. */
		fputs(", NaN with lines dashtype 2 lc rgb 'gray40' title ", p);
		alloclab_gnuplot_quote(p, fig->vline_title);
	}
	if (fig->nbands && fig->band_title) {
		fputs(", NaN with boxes fc rgb '#e4e9f2' fillstyle solid 1.0 noborder title ", p);
		alloclab_gnuplot_quote(p, fig->band_title);
	}
	fputc('\n', p);
}

/* How long gnuplot may take over one picture. */
#define GNUPLOT_TIMEOUT_S 120

/* gnuplot on a script file, supervised (a deadline, ended whole); its
 * complaint, if any, summed up in one line naming the picture. */
static int run_gnuplot(const char *script, const char *out, char *err, size_t err_len)
{
	char *const argv[] = {"gnuplot", (char *)script, NULL};
	char why[ALLOCLAB_ERR_LEN], said[600], *printed = NULL;
	int status = alloclab_capture(argv, NULL, GNUPLOT_TIMEOUT_S, 1 << 16, &printed, why, sizeof why, said,
				      sizeof said);
	free(printed);
	if (status == 0)
		return 0;
	if (status < 0)
		snprintf(err, err_len, "cannot draw %s: %s", out, why);
	else
		snprintf(err, err_len, "gnuplot could not draw %s (exit %d)%s%.300s", out, status, said[0] ? ": " : "",
			 said);
	return -1;
}

/* Whether a figure has a point to draw: with none, gnuplot has nothing
 * to scale and fails; the figure is left out, and said. */
static int has_points(const struct alloclab_figure *fig)
{
	for (size_t s = 0; s < fig->nseries; s++)
		for (size_t i = 0; i < fig->series[s].n; i++)
			if (isfinite(fig->series[s].y[i]) &&
			    (fig->kind == ALLOCLAB_FIGURE_BARS || isfinite(fig->series[s].x[i])))
				return 1;
	return 0;
}

/* The formats a picture is drawn in (bit t of a mask: terms[t]). */
static const char *const terms[][2] = {
	{"pngcairo size 1100,650 font 'sans,10'", "png"},
	{"svg size 1100,650 dynamic font 'sans,10'", "svg"},
};

/* Figures [from, to) in the formats of the mask, by one gnuplot (its
 * start is most of what a small picture costs), drawn in the scratch
 * folder; each picture then reaches the user's folder under the output
 * policy (output_path.h), so that a link or a file of another kind there
 * is never written through. */
static int draw_range(const struct alloclab_figure_list *figures, size_t from, size_t to, unsigned formats,
		      const char *dir, const char *tmp, char *err, size_t err_len)
{
	char script[ALLOCLAB_PATH_PLUS_LEN], first[ALLOCLAB_PATH_PLUS_LEN] = "";
	snprintf(script, sizeof script, "%s/figures-%zu.gp", tmp, from);
	FILE *p = fopen(script, "w");
	if (p == NULL) {
		snprintf(err, err_len, "cannot write %s: %s", script, strerror(errno));
		return -1;
	}
	for (size_t i = from; i < to; i++) {
		const struct alloclab_figure *fig = &figures->items[i];
		char name[128], data[ALLOCLAB_PATH_PLUS_LEN];
		if (fig->nseries == 0)
			continue;
		alloclab_safe_file_name(fig->name, name, sizeof name);
		if (!has_points(fig)) {
			if (to - from == figures->n) /* said once, not again when drawn one by one */
				fprintf(stderr, "alloclab: %s left out: no value to draw\n", name);
			continue;
		}
		snprintf(data, sizeof data, "%s/%s.dat", tmp, name);
		if (write_data(fig, data, err, err_len) != 0) {
			fclose(p);
			return -1;
		}
		for (size_t t = 0; t < 2; t++) {
			char drawn[ALLOCLAB_PATH_PLUS_LEN];
			if (!(formats & (1u << t)))
				continue;
			snprintf(drawn, sizeof drawn, "%s/%s.%s", tmp, name, terms[t][1]);
			if (first[0] == '\0')
				snprintf(first, sizeof first, "%s/%s.%s", dir, name, terms[t][1]);
			fprintf(p, "reset\nset terminal %s\nset output ", terms[t][0]);
			alloclab_gnuplot_quote(p, drawn);
			fputc('\n', p);
			write_script(p, fig, data);
			fputs("set output\n", p);
		}
	}
	if (fclose(p) != 0) {
		snprintf(err, err_len, "cannot write %s: %s", script, strerror(errno));
		return -1;
	}
	if (first[0] && run_gnuplot(script, to - from == 1 ? first : "the pictures", err, err_len) != 0)
		return -1;
	for (size_t i = from; i < to; i++)
		for (size_t t = 0; t < 2; t++) {
			char name[128], drawn[ALLOCLAB_PATH_PLUS_LEN], out[ALLOCLAB_PATH_PLUS_LEN];
			alloclab_safe_file_name(figures->items[i].name, name, sizeof name);
			snprintf(drawn, sizeof drawn, "%s/%s.%s", tmp, name, terms[t][1]);
			snprintf(out, sizeof out, "%s/%s.%s", dir, name, terms[t][1]);
			if ((formats & (1u << t)) && figures->items[i].nseries && has_points(&figures->items[i]) &&
			    alloclab_output_copy(drawn, out, ALLOCLAB_OUTPUT_PICTURE, err, err_len) != 0)
				return -1;
		}
	return 0;
}

/* Every figure at once; when gnuplot fails on that, each on its own, so
 * that the message names the picture it could not draw. */
static int draw_all(const struct alloclab_figure_list *figures, const char *dir, unsigned formats, char *err,
		    size_t err_len)
{
	char tmp[ALLOCLAB_PATH_LEN];
	if (alloclab_scratch_make("plot", tmp, sizeof tmp) != 0) {
		snprintf(err, err_len, "cannot create a temporary folder: %s", strerror(errno));
		return -1;
	}
	int rc = draw_range(figures, 0, figures->n, formats, dir, tmp, err, err_len);
	if (rc != 0 && figures->n > 1) {
		rc = 0;
		for (size_t i = 0; rc == 0 && i < figures->n; i++)
			rc = draw_range(figures, i, i + 1, formats, dir, tmp, err, err_len);
	}
	alloclab_scratch_remove(tmp);
	return rc;
}

int alloclab_plot_draw(const struct alloclab_figure_list *figures, const char *dir, char *err, size_t err_len)
{
	{
		/* The folder and its parents, as `-o a/b` asks. */
		char path[ALLOCLAB_PATH_LEN];
		snprintf(path, sizeof path, "%s", dir);
		for (char *p = path + 1; *p; p++)
			if (*p == '/') {
				*p = '\0';
				mkdir(path, 0777);
				*p = '/';
			}
		if (mkdir(path, 0777) != 0 && errno != EEXIST) {
			snprintf(err, err_len, "cannot create %s: %s", dir, strerror(errno));
			return -1;
		}
	}
	return draw_all(figures, dir, 3, err, err_len);
}

int alloclab_plot_draw_svg(const struct alloclab_figure_list *figures, const char *dir, char *err, size_t err_len)
{
	return draw_all(figures, dir, 2, err, err_len);
}

/* ---- the run's figures ---- */

/* v's place in items (x finds it): a new one's at the end. */
static size_t index_of(struct alloclab_text_index *x, char **items, size_t *n, const char *v)
{
	long k = x ? alloclab_text_index_put(x, v, (long)*n) : -1;
	if (k >= 0 && (size_t)k < *n)
		return (size_t)k;
	items[*n] = strdup(v);
	return (*n)++;
}

/* A workload's cells laid out as plugin x group x threads (see
 * workload_figures), with the mean and deviation of each. */
struct layout {
	const char *workload;
	const struct alloclab_cell **cells;
	size_t n;
	char **groups_of; /* cell i's group */
	char **plugins, **groups;
	size_t *pi, *gi, *ti; /* cell i's plugin, group and thread count, by their places */
	unsigned *threads;
	size_t np, ng, nt;
	double *mean, *sd; /* at(): 0 where no cell */
	double *median, *min, *max; /* at(): the values' median and range; 0 where no cell */
	const struct alloclab_cell **cell; /* at(): NULL where none */
	size_t base;       /* the baseline plugin's index */
	char (*legend)[700]; /* each plugin's, saying when it is partial */
	unsigned *crashed;   /* each plugin's cells that crashed part way (drawn, marked) */
	size_t left_plugins, left_groups, left_threads; /* beyond the bounds: not drawn */
};

/* What one picture draws at most: a run of thousands of plugins or
 * parameter sets would make a grid (plugins x groups x thread counts) of
 * gigabytes and a picture no one can read. The rest is left out, and the
 * pictures say so. */
#define PLOT_MAX_PLUGINS 32
#define PLOT_MAX_GROUPS 64
#define PLOT_MAX_THREADS 64

static size_t at(const struct layout *l, size_t p, size_t g, size_t t) { return (p * l->ng + g) * l->nt + t; }

/* The plugins, groups and thread counts of the workload's cells, in order
 * of first appearance. */
static void lay_out(struct layout *l)
{
	struct alloclab_text_index *plugins = alloclab_text_index_new(), *groups = alloclab_text_index_new();
	alloclab_row_names(l->cells, l->n, 0, l->groups_of);
	for (size_t i = 0; i < l->n; i++) {
		char label[512];
		size_t t;
		char *tt = strstr(l->groups_of[i], " t=");
		if (tt && strspn(tt + 3, "0123456789") == strlen(tt + 3))
			*tt = '\0';
		if (strcmp(l->groups_of[i], l->workload) == 0)
			l->groups_of[i][0] = '\0'; /* nothing tells the rows apart but the plugin */
		alloclab_cell_label(l->cells[i], label, sizeof label);
		l->pi[i] = index_of(plugins, l->plugins, &l->np, label);
		l->gi[i] = index_of(groups, l->groups, &l->ng, l->groups_of[i]);
		/* (at most 1024 thread counts, the reader's bound) */
		for (t = 0; t < l->nt && l->threads[t] != l->cells[i]->threads; t++)
			;
		if (t == l->nt)
			l->threads[l->nt++] = l->cells[i]->threads;
		l->ti[i] = t;
	}
	alloclab_text_index_free(plugins);
	alloclab_text_index_free(groups);
}

/* Keeps the first plugins (the baseline among them), then the first
 * groups and thread counts of their cells, up to the bounds, and the
 * cells of those only, renumbered in place; counts what is left out. */
static void bound_layout(struct layout *l, const char *baseline)
{
	size_t base = 0, none = (size_t)-1;
	for (size_t k = 0; baseline && k < l->np; k++)
		if (strcmp(l->plugins[k], baseline) == 0 || (strncmp(l->plugins[k], baseline, strlen(baseline)) == 0 &&
							       l->plugins[k][strlen(baseline)] == ' ')) {
			base = k;
			break;
		}
	if (l->np <= PLOT_MAX_PLUGINS && l->ng <= PLOT_MAX_GROUPS && l->nt <= PLOT_MAX_THREADS)
		return;
	/* Each plugin's, group's and thread count's new place, or none. */
	size_t *pnew = malloc((l->np + 1) * sizeof *pnew), *gnew = malloc((l->ng + 1) * sizeof *gnew),
	       tnew[1025], np = 0, ng = 0, nt = 0;
	char **groups = calloc(PLOT_MAX_GROUPS, sizeof *groups);
	if (pnew == NULL || gnew == NULL || groups == NULL || l->nt > 1024) {
		free(pnew);
		free(gnew);
		free(groups);
		return;
	}
	for (size_t k = 0; k < l->np; k++)
		pnew[k] = k == base || np < PLOT_MAX_PLUGINS - (base >= PLOT_MAX_PLUGINS) ? np++ : none;
	for (size_t g = 0; g < l->ng; g++)
		gnew[g] = none;
	for (size_t t = 0; t < l->nt; t++)
		tnew[t] = none;
	for (size_t i = 0; i < l->n; i++) {
		if (pnew[l->pi[i]] == none)
			continue;
		if (gnew[l->gi[i]] == none && ng < PLOT_MAX_GROUPS)
			gnew[l->gi[i]] = ng++;
		if (tnew[l->ti[i]] == none && nt < PLOT_MAX_THREADS)
			tnew[l->ti[i]] = nt++;
	}
	for (size_t k = 0; k < l->np; k++)
		if (pnew[k] != none)
			l->plugins[pnew[k]] = l->plugins[k];
		else
			free(l->plugins[k]);
	for (size_t g = 0; g < l->ng; g++)
		if (gnew[g] != none)
			groups[gnew[g]] = l->groups[g];
		else
			free(l->groups[g]);
	memcpy(l->groups, groups, ng * sizeof *groups);
	free(groups);
	unsigned threads[1024];
	for (size_t t = 0; t < l->nt; t++)
		if (tnew[t] != none)
			threads[tnew[t]] = l->threads[t];
	memcpy(l->threads, threads, nt * sizeof *threads);
	l->left_plugins = l->np - np;
	l->left_groups = l->ng - ng;
	l->left_threads = l->nt - nt;
	l->np = np;
	l->ng = ng;
	l->nt = nt;
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (pnew[l->pi[i]] == none || gnew[l->gi[i]] == none || tnew[l->ti[i]] == none) {
			free(l->groups_of[i]);
			continue;
		}
		l->cells[n] = l->cells[i];
		l->groups_of[n] = l->groups_of[i];
		l->pi[n] = pnew[l->pi[i]];
		l->gi[n] = gnew[l->gi[i]];
		l->ti[n++] = tnew[l->ti[i]];
	}
	l->n = n;
	free(pnew);
	free(gnew);
}

/* The pictures [from, out->n) say what bound_layout left out. */
static void say_left_out(const struct layout *l, struct alloclab_figure_list *out, size_t from)
{
	char note[400];
	int k = 0;
	if (!l->left_plugins && !l->left_groups && !l->left_threads)
		return;
	const struct {
		size_t left, kept;
		const char *what;
	} parts[] = {{l->left_plugins, l->np, "plugins"},
		     {l->left_groups, l->ng, "parameter sets"},
		     {l->left_threads, l->nt, "thread counts"}};
	k += snprintf(note + k, sizeof note - (size_t)k, "; NOT DRAWN:");
	for (size_t i = 0, said = 0; i < 3; i++)
		if (parts[i].left)
			k += snprintf(note + k, sizeof note - (size_t)k, "%s %zu of %zu %s", said++ ? "," : "",
				      parts[i].left, parts[i].left + parts[i].kept, parts[i].what);
	snprintf(note + k, sizeof note - (size_t)k,
		 " (a picture draws at most %d plugins, %d parameter sets and %d thread counts: alloclab compare "
		 "--plugins compares the others)",
		 PLOT_MAX_PLUGINS, PLOT_MAX_GROUPS, PLOT_MAX_THREADS);
	for (size_t i = from; i < out->n; i++) {
		size_t used = strlen(out->items[i].title);
		char *t = realloc(out->items[i].title, used + strlen(note) + 1);
		if (t) {
			memcpy(t + used, note, strlen(note) + 1);
			out->items[i].title = t;
		}
	}
}

/* Each cell's mean and standard deviation, in its place. */
static void summarize_cells(struct layout *l)
{
	l->mean = calloc(l->np * l->ng * l->nt + 1, sizeof *l->mean);
	l->sd = calloc(l->np * l->ng * l->nt + 1, sizeof *l->sd);
	l->median = calloc(l->np * l->ng * l->nt + 1, sizeof *l->median);
	l->min = calloc(l->np * l->ng * l->nt + 1, sizeof *l->min);
	l->max = calloc(l->np * l->ng * l->nt + 1, sizeof *l->max);
	l->cell = calloc(l->np * l->ng * l->nt + 1, sizeof *l->cell);
	for (size_t i = 0; i < l->n; i++) {
		size_t nv;
		double *v = alloclab_cell_values(l->cells[i], &nv);
		struct alloclab_summary s;
		alloclab_summarize(v, nv, &s);
		free(v);
		size_t k = at(l, l->pi[i], l->gi[i], l->ti[i]);
		l->mean[k] = s.mean;
		l->sd[k] = s.stdev;
		l->median[k] = s.median;
		l->min[k] = s.min;
		l->max[k] = s.max;
		l->cell[k] = l->cells[i];
	}
}

/* Partial or uncertain results are never shown plainly: a plugin with a
 * cell measured by fewer processes than planned (an interrupted run) says
 * so in its legend, and one with a cell that crashed after some of its
 * processes had finished says how many (alloclab_crashed_after), its bars
 * hatched and its points hollow (l->crashed). */
static void write_legends(struct layout *l)
{
	l->legend = calloc(l->np + 1, sizeof *l->legend);
	l->crashed = calloc(l->np + 1, sizeof *l->crashed);
	unsigned *partial = calloc(l->np + 1, sizeof *partial);
	const struct alloclab_cell **one_crash = calloc(l->np + 1, sizeof *one_crash);
	for (size_t i = 0; partial && l->crashed && one_crash && i < l->n; i++) {
		const struct alloclab_cell *c = l->cells[i];
		if (c->status == ALLOCLAB_CELL_ERROR) {
			l->crashed[l->pi[i]]++;
			one_crash[l->pi[i]] = c;
		} else {
			partial[l->pi[i]] += c->status == ALLOCLAB_CELL_PENDING || c->nprocs < c->planned;
		}
	}
	for (size_t p = 0; p < l->np; p++) {
		char crash[160] = "";
		if (l->crashed && l->crashed[p] == 1)
			alloclab_crashed_after(one_crash[p], crash, sizeof crash);
		else if (l->crashed && l->crashed[p] > 1)
			snprintf(crash, sizeof crash, "%u cells crashed after some of their processes", l->crashed[p]);
		snprintf(l->legend[p], sizeof l->legend[p], "%s%s%s%s%s", l->plugins[p],
			 partial && partial[p] ? " (PARTIAL: fewer processes than planned)" : "", crash[0] ? " (PARTIAL: " : "",
			 crash, crash[0] ? ")" : "");
	}
	free(partial);
	free(one_crash);
}

/* The bars: each plugin's time (or instructions) per operation over the
 * baseline's, per group and thread count; cells that failed are not drawn
 * but counted in the title. */
static void ratio_figure(const struct layout *l, int counts, unsigned failed, struct alloclab_figure_list *out)
{
	char name[200], title[1200], ylabel[1200];
	snprintf(name, sizeof name, "%s-plugins", l->workload);
	snprintf(ylabel, sizeof ylabel, "%s per operation / %s's (ratio)", counts ? "instructions" : "time",
		 l->plugins[l->base]);
	/* The x axis: what the groups are (a workload that names its rows
	 * names benchmarks), and the thread count beside each when it varies. */
	const struct alloclab_workload *wl = alloclab_workload_find(l->workload);
	const char *group_kind = wl && wl->row_name ? "benchmark" : "parameters";
	char xlabel[64];
	snprintf(xlabel, sizeof xlabel, "%s%s", l->ng > 1 ? group_kind : "threads",
		 l->ng > 1 && l->nt > 1 ? " (threads)" : "");
	snprintf(title, sizeof title, "%s: %s per operation relative to %s's at the same %s%s (lower is better)",
		 l->workload, counts ? "instructions" : "time", l->plugins[l->base], l->ng > 1 ? group_kind : "threads",
		 l->ng > 1 ? " and threads" : "");
	struct alloclab_figure *f = alloclab_figure_add(out, name, title, xlabel, ylabel, ALLOCLAB_FIGURE_BARS);
	f->ymin_zero = 1;
	f->hline = 1;
	/* Categories: group x threads, grouped by group. */
	for (size_t g = 0; g < l->ng; g++)
		for (size_t t = 0; t < l->nt; t++) {
			char cat[600];
			if (l->groups[g][0] && l->nt > 1)
				snprintf(cat, sizeof cat, "%s (%u)", l->groups[g], l->threads[t]);
			else if (l->groups[g][0])
				snprintf(cat, sizeof cat, "%s", l->groups[g]);
			else
				snprintf(cat, sizeof cat, "%u thread%s", l->threads[t], l->threads[t] == 1 ? "" : "s");
			alloclab_figure_category(f, cat);
		}
	if (failed) {
		size_t used = strlen(f->title);
		char *t = realloc(f->title, used + 80);
		if (t) {
			snprintf(t + used, 80, "; %u failed cell%s not drawn", failed, failed == 1 ? "" : "s");
			f->title = t;
		}
	}
	int paired = 0;
	for (size_t p = 0; p < l->np; p++) {
		struct alloclab_series *se = alloclab_figure_series(f, l->legend[p], l->ng * l->nt);
		se->partial = l->crashed && l->crashed[p];
		for (size_t g = 0; g < l->ng; g++)
			for (size_t t = 0; t < l->nt; t++)
				if (l->mean[at(l, p, g, t)] > 0 && l->mean[at(l, l->base, g, t)] > 0) {
					struct alloclab_pair_stat st;
					const struct alloclab_cell *b = l->cell[at(l, l->base, g, t)], *c = l->cell[at(l, p, g, t)];
					if (b && c && p != l->base && alloclab_pair_stat_between(b, c, &st) == 0 && st.n >= 2) {
						/* Paired: the ratio of the same processes' times,
						 * its bar the 95% interval's half-width. */
						se->y[g * l->nt + t] = st.ratio;
						se->err[g * l->nt + t] = (st.hi - st.lo) / 2;
						paired = 1;
						continue;
					}
					se->y[g * l->nt + t] = l->mean[at(l, p, g, t)] / l->mean[at(l, l->base, g, t)];
					/* The paired reference is 1 by definition. */
					se->err[g * l->nt + t] = p == l->base && b && b->pair_design
									 ? 0
									 : l->sd[at(l, p, g, t)] / l->mean[at(l, l->base, g, t)];
				}
	}
	if (paired) {
		/* Say what the bars are: the run measured them side by side. */
		size_t used = strlen(f->title);
		char *t = realloc(f->title, used + 120);
		if (t) {
			snprintf(t + used, 120, " (paired: 95%% intervals)");
			f->title = t;
		}
	}
}

/* The lines: throughput against the thread count, a line per plugin and
 * group, with the CPUs the run was allowed marked. */
static void scaling_figure(const struct layout *l, int cpus, double others, unsigned failed,
			   struct alloclab_figure_list *out)
{
	char name[200], title[1200];
	unsigned tmax = 0;
	for (size_t t = 0; t < l->nt; t++)
		tmax = l->threads[t] > tmax ? l->threads[t] : tmax;
	snprintf(name, sizeof name, "%s-scaling", l->workload);
	/* A machine that other work kept busier than the run's threads allow
	 * shows no scaling it could give: said on the picture, as the table
	 * says it. "Other": what other processes (and the host) took while
	 * the run ran, never a load average, which counts the run's own
	 * workers; unknown (an older file, others < 0): nothing said. */
	if (cpus > 0 && others >= 0 && (double)cpus - others < (double)tmax - 0.5)
		snprintf(title, sizeof title,
			 "%s: thread scaling (higher is better) - LOADED MACHINE: other processes kept up to %.1f of "
			 "%d CPUs busy, so not the scaling it could give",
			 l->workload, others, cpus);
	else
		snprintf(title, sizeof title, "%s: thread scaling (higher is better)", l->workload);
	/* A cell that failed is not drawn (its processes before the failure
	 * are no line's points): said, as the bars' picture says it. */
	if (failed) {
		size_t used = strlen(title);
		snprintf(title + used, sizeof title - used, "; %u failed cell%s not drawn", failed, failed == 1 ? "" : "s");
	}
	struct alloclab_figure *f = alloclab_figure_add(out, name, title, "threads",
							"throughput (million operations per second, all threads): median "
							"value, bars its values' range",
							ALLOCLAB_FIGURE_LINES);
	f->x_whole = 1;
	for (size_t p = 0; p < l->np; p++)
		for (size_t g = 0; g < l->ng; g++) {
			char line[1200];
			snprintf(line, sizeof line, "%s%s%s", l->legend[p], l->groups[g][0] ? " " : "", l->groups[g]);
			struct alloclab_series *se = alloclab_figure_series(f, line, l->nt);
			se->partial = l->crashed && l->crashed[p];
			alloclab_figure_series_bars(se);
			for (size_t t = 0; t < l->nt; t++) {
				size_t k = at(l, p, g, t);
				if (l->median[k] > 0) {
					se->x[t] = l->threads[t];
					se->y[t] = alloclab_mops(l->median[k], l->threads[t]);
					/* The slowest value gives the least throughput. */
					if (se->lo && l->max[k] > 0 && l->min[k] > 0) {
						se->lo[t] = alloclab_mops(l->max[k], l->threads[t]);
						se->hi[t] = alloclab_mops(l->min[k], l->threads[t]);
					}
				}
			}
		}
	if (cpus > 0) {
		char vt[96];
		f->vline = (double)cpus;
		snprintf(vt, sizeof vt, "%d CPUs allowed", cpus);
		f->vline_title = strdup(vt);
		f->xmin = 0.5;
		f->xmax = (f->vline > tmax ? f->vline : tmax) + 0.5;
	}
}

/*
 * A workload's time (or instruction) pictures. Its cells are laid out as
 * plugin x group x threads, a group being what tells the workload's rows
 * apart besides the plugin (a Python benchmark, the parameters that vary).
 * Every bar is a ratio to the baseline plugin in the same group at the
 * same thread count, so each benchmark is compared with its own baseline.
 */
static void workload_figures(const struct alloclab_results *r, const size_t *cells, size_t n, const char *baseline,
			     struct alloclab_figure_list *out)
{
	struct layout l = {.workload = n ? r->cells[cells[0]].workload : ""};

	l.cells = calloc(n + 1, sizeof *l.cells);
	l.groups_of = calloc(n + 1, sizeof *l.groups_of);
	l.plugins = calloc(n + 1, sizeof *l.plugins);
	l.groups = calloc(n + 1, sizeof *l.groups);
	l.threads = calloc(n + 1, sizeof *l.threads);
	l.pi = calloc(n + 1, sizeof *l.pi);
	l.gi = calloc(n + 1, sizeof *l.gi);
	l.ti = calloc(n + 1, sizeof *l.ti);
	unsigned failed = 0;
	/* A cell that crashed after some of its processes finished is drawn
	 * from those, marked (write_legends); one with none is counted. */
	for (size_t i = 0; l.cells && i < n; i++)
		if (alloclab_cell_measured(&r->cells[cells[i]]) || alloclab_cell_crashed_part_way(&r->cells[cells[i]]))
			l.cells[l.n++] = &r->cells[cells[i]];
		else if (r->cells[cells[i]].status == ALLOCLAB_CELL_ERROR)
			failed++;
	if (l.n == 0 || !l.groups_of || !l.plugins || !l.groups || !l.threads || !l.pi || !l.gi || !l.ti)
		goto out;
	lay_out(&l);
	bound_layout(&l, baseline);
	size_t first_figure = out->n;
	summarize_cells(&l);
	for (size_t k = 0; baseline && k < l.np; k++)
		if (strncmp(l.plugins[k], baseline, strlen(baseline)) == 0 &&
		    (l.plugins[k][strlen(baseline)] == '\0' || l.plugins[k][strlen(baseline)] == ' ')) {
			l.base = k;
			break;
		}
	int counts = alloclab_metric_deterministic(l.cells[0]->metric);
	write_legends(&l);
	ratio_figure(&l, counts, failed, out);
	if (l.nt >= 2 && !counts)
		scaling_figure(&l, r->facts.cpus_allowed, r->facts.other_cpus_peak, failed, out);
	free(l.legend);
	free(l.crashed);
	free(l.mean);
	free(l.sd);
	free(l.median);
	free(l.min);
	free(l.max);
	free(l.cell);
	/* The workload's own pictures. */
	const struct alloclab_workload *w = alloclab_workload_find(l.workload);
	if (w && w->figures) {
		/* Its own pictures know nothing of a crash: they get the whole cells. */
		const struct alloclab_cell **whole = calloc(l.n + 1, sizeof *whole);
		size_t nwhole = 0;
		for (size_t i = 0; whole && i < l.n; i++)
			if (!alloclab_cell_crashed_part_way(l.cells[i]))
				whole[nwhole++] = l.cells[i];
		if (whole && nwhole)
			w->figures(whole, nwhole, out);
		free(whole);
	}
	say_left_out(&l, out, first_figure);
out:
	for (size_t i = 0; i < l.n; i++)
		free(l.groups_of[i]);
	for (size_t i = 0; i < l.np; i++)
		free(l.plugins[i]);
	for (size_t i = 0; i < l.ng; i++)
		free(l.groups[i]);
	free(l.groups_of);
	free(l.plugins);
	free(l.groups);
	free(l.threads);
	free(l.pi);
	free(l.gi);
	free(l.ti);
	free(l.cells);
}

void alloclab_plot_workload_figures(const struct alloclab_results *r, const size_t *cells, size_t n, const char *baseline,
				    struct alloclab_figure_list *out)
{
	workload_figures(r, cells, n, baseline, out);
}

void alloclab_plot_figures(const struct alloclab_results *r, const char *baseline, struct alloclab_figure_list *out)
{
	struct alloclab_text_groups g;
	if (alloclab_workload_groups(r, &g) == 0) {
		/* (a workload none of whose cells was measured draws nothing) */
		for (size_t k = 0; k < g.n; k++)
			workload_figures(r, g.member + g.start[k], g.start[k + 1] - g.start[k], baseline, out);
		alloclab_text_groups_free(&g);
	}
	alloclab_memory_figures(r, out);
	alloclab_latency_figures(r, out);
}

int alloclab_plot(const struct alloclab_results *r, const char *dir, const char *baseline, char *err, size_t err_len)
{
	struct alloclab_figure_list figures = {0};
	int rc;

	alloclab_plot_figures(r, baseline, &figures);
	if (figures.n == 0) {
		snprintf(err, err_len, "the run has no measured cell to draw");
		return -1;
	}
	rc = alloclab_plot_draw(&figures, dir, err, err_len);
	alloclab_figure_list_free(&figures);
	return rc;
}
