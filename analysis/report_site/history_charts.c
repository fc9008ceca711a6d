/* A history's charts. See history_charts.h. */
#define _GNU_SOURCE 1
#include "history_charts.h"
#include "html.h"

#include "base/json_text.h"
#include "history_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The picture's frame, in its own units (it is scaled to the page's
 * width): the plot between the margins; below it the commits' names,
 * slanted. */
#define WIDTH 1100.0
#define HEIGHT 600.0
#define LEFT 110.0
#define RIGHT 16.0
#define TOP 40.0
#define BOTTOM 190.0
/* Two slanted names' feet at least this far apart: an 11-unit font's line
 * and a gap (closer, their letters touch). */
#define NAME_GAP 18.0
/* What a name on the axis shows of a subject, in characters; the whole
 * (up to SUBJECT_BYTES) is its tooltip. */
#define SUBJECT_CHARS 20
#define SUBJECT_BYTES 300

struct chart {
	const struct alloclab_history_view *v;
	const struct alloclab_history_index *x;
	size_t index;
	const struct alloclab_history_series *s;
	int ref;            /* drawn against the reference */
	double ylo, yhi;    /* the y axis */
	char *keep;         /* per point: drawn */
	double *y, *lo, *hi; /* per point: its value and bar (NaN none) */
};

static int uses_reference(const struct alloclab_history_series *s)
{
	for (size_t i = 0; s->metric == ALLOCLAB_AB_TIME && i < s->npoints; i++)
		if (s->points[i].has_reference)
			return 1;
	return 0;
}

static double px(const struct chart *c, double ordinal)
{
	double span = c->v->ncommits > 1 ? (double)(c->v->ncommits - 1) : 1;
	return LEFT + 6 + (WIDTH - LEFT - RIGHT - 12) * (c->v->ncommits > 1 ? ordinal / span : 0.5);
}

/* A value's height, held inside the plot (a bar past the axis is cut). */
static double py(const struct chart *c, double y)
{
	double t = (y - c->ylo) / (c->yhi - c->ylo);
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	return TOP + (HEIGHT - TOP - BOTTOM) * (1 - t);
}

static const char *y_label(const struct chart *c, char *out, size_t len)
{
	if (c->ref)
		snprintf(out, len, "time per operation over %.200s's, in the same processes (ratio)", c->v->reference);
	else
		snprintf(out, len, "%s",
			 c->s->metric == ALLOCLAB_AB_INSTRUCTIONS ? "instructions per operation (exact counts)"
			 : c->s->metric == ALLOCLAB_AB_TIME	   ? "time per operation (ns)"
								   : "peak resident memory net of the harness (KiB)");
	return out;
}

/* Which points are drawn: all, or every k-th with each change point, the
 * commit its step was taken from, and the last. Returns k (1: all). */
static size_t thin(struct chart *c)
{
	const struct alloclab_history_series *s = c->s;
	size_t k = (s->npoints + ALLOCLAB_HISTORY_CHART_POINTS - 1) / ALLOCLAB_HISTORY_CHART_POINTS;
	k = k ? k : 1;
	for (size_t i = 0; i < s->npoints; i++)
		c->keep[i] = i % k == 0 || i + 1 == s->npoints || s->points[i].change;
	for (size_t i = 0; i < s->npoints; i++) {
		const struct alloclab_history_point *b =
			s->points[i].change ? alloclab_history_index_point(c->x, c->index, s->points[i].base) : NULL;
		if (b)
			c->keep[b - s->points] = 1;
	}
	return k;
}

/* Each point's value and its bar: the interval against the reference, or
 * the step's drawn from the level before it (time and memory; the
 * instructions' counts are exact). */
static void values(struct chart *c)
{
	const struct alloclab_history_series *s = c->s;
	for (size_t i = 0; i < s->npoints; i++) {
		const struct alloclab_history_point *p = &s->points[i];
		c->y[i] = c->lo[i] = c->hi[i] = NAN;
		if (c->ref ? !p->has_reference : p->level < 0)
			continue;
		c->y[i] = c->ref ? p->ref_ratio : p->level;
		if (c->ref) {
			c->lo[i] = p->ref_lo;
			c->hi[i] = p->ref_hi;
			continue;
		}
		double before = p->has_step ? alloclab_history_index_level(c->x, c->index, p->base) : -1;
		if (s->metric != ALLOCLAB_AB_INSTRUCTIONS && p->has_interval && p->lo < p->hi && before > 0) {
			c->lo[i] = before * p->lo;
			c->hi[i] = before * p->hi;
		}
	}
}

/* The y axis: from 0 for a level, around 1 for a ratio; a quarter above
 * the highest value (and below the lowest ratio). A bar past that is cut
 * there: returns whether one is. */
static int y_axis(struct chart *c)
{
	double lo = c->ref ? 1 : 0, hi = c->ref ? 1 : 0;
	int cut = 0;
	for (size_t i = 0; i < c->s->npoints; i++)
		if (c->keep[i] && isfinite(c->y[i])) {
			lo = fmin(lo, c->y[i]);
			hi = fmax(hi, c->y[i]);
		}
	c->ylo = c->ref ? lo / 1.25 : 0;
	c->yhi = hi > c->ylo ? hi * 1.25 : c->ylo + 1;
	for (size_t i = 0; i < c->s->npoints; i++)
		if (c->keep[i] && isfinite(c->lo[i]) && isfinite(c->hi[i])) {
			cut |= c->lo[i] < c->ylo || c->hi[i] > c->yhi;
		}
	return cut;
}

/* A step of 1, 2 or 5 times a power of ten giving about six ticks. */
static double tick_step(double span)
{
	double raw = span / 6, ten = pow(10, floor(log10(raw))), f = raw / ten;
	return ten * (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10);
}

static void frame(FILE *f, const struct chart *c)
{
	char label[400];
	double step = tick_step(c->yhi - c->ylo), bottom = HEIGHT - BOTTOM;
	for (double t = ceil(c->ylo / step) * step; t <= c->yhi + step * 1e-9; t += step) {
		double y = py(c, t);
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", LEFT, y, WIDTH - RIGHT, y);
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.6g</text>\n", LEFT - 6, y + 4,
			fabs(t) < step * 1e-9 ? 0 : t);
	}
	fprintf(f, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", LEFT, TOP,
		WIDTH - LEFT - RIGHT, bottom - TOP);
	if (c->ref)
		fprintf(f, "<line class=\"one\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", LEFT, py(c, 1),
			WIDTH - RIGHT, py(c, 1));
	fprintf(f, "<text class=\"axis-title\" transform=\"translate(20 %.1f) rotate(-90)\" text-anchor=\"middle\">",
		(TOP + bottom) / 2);
	alloclab_html_text(f, y_label(c, label, sizeof label));
	fputs("</text>\n", f);
}

/* A subject's first SUBJECT_CHARS characters, cut at a character's end
 * ("…" where it was cut). */
static void short_subject(const char *subject, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)(subject ? subject : "");
	size_t used = 0, chars = 0;
	while (p[used] && chars < SUBJECT_CHARS) {
		size_t n = alloclab_utf8_char(p + used);
		used += n ? n : 1;
		chars++;
	}
	snprintf(out, len, "%.*s%s", (int)used, (const char *)p, p[used] ? "\xe2\x80\xa6" : "");
}

/* A commit's name under the axis: its short hash, its date where the
 * store has it and its subject, slanted, the whole subject its tooltip. */
static void commit_name(FILE *f, const struct chart *c, size_t i)
{
	const struct alloclab_commit *k = &c->v->commits[i];
	double x = px(c, k->ordinal), y = HEIGHT - BOTTOM + 12;
	char subject[SUBJECT_CHARS * 4 + 8];
	short_subject(k->subject, subject, sizeof subject);
	fprintf(f, "<line class=\"tick-mark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, y - 12, x, y - 7);
	fprintf(f, "<text class=\"commit\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" transform=\"rotate(-55 %.1f %.1f)\">"
		   "<title>",
		x, y, x, y);
	alloclab_html_printf(f, "%u: %.40s\n", k->ordinal, k->commit);
	if (k->date) {
		alloclab_html_text_max(f, k->date, 40);
		fputc('\n', f);
	}
	alloclab_html_text_max(f, k->subject, SUBJECT_BYTES);
	fputs("</title><tspan class=\"hash\">", f);
	alloclab_html_printf(f, "%.7s", k->commit);
	fputs("</tspan> ", f);
	if (k->date) {
		/* The day: the date's first ten characters, git's YYYY-MM-DD. */
		alloclab_html_printf(f, "%.10s ", k->date);
	}
	alloclab_html_text(f, subject);
	fputs("</text>\n", f);
}

/* The commits' names: every one where they fit apart, else every k-th
 * and the last (the one before the last left out when too close). */
static void commit_names(FILE *f, const struct chart *c)
{
	size_t n = c->v->ncommits;
	double apart = n > 1 ? (px(c, 1) - px(c, 0)) : WIDTH;
	size_t k = apart >= NAME_GAP ? 1 : (size_t)ceil(NAME_GAP / apart);
	for (size_t i = 0; i < n; i++)
		if ((i % k == 0 && (i + k / 2 + 1 < n || k == 1)) || i + 1 == n)
			commit_name(f, c, i);
	fprintf(f, "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (LEFT + WIDTH - RIGHT) / 2,
		HEIGHT - 6);
	if (k > 1)
		alloclab_html_printf(f, "commits, oldest first (every %zu named; a name's tooltip is its whole subject)", k);
	else
		alloclab_html_text(f, "commits, oldest first (a name's tooltip is its whole subject)");
	fputs("</text>\n", f);
}

static int by_size(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

/* The change points' marks, each named where there is room for its
 * name: the largest first, at most ALLOCLAB_HISTORY_CHART_LABELS, none
 * within a 60th of the axis of one named before (their lines are drawn
 * all the same). Returns how many are named, *n how many there are. */
static size_t marks(FILE *f, const struct chart *c, size_t *n)
{
	const struct alloclab_history_series *s = c->s;
	/* (size, point) pairs, sorted by size: n log n in the change points. */
	double *order = calloc(2 * s->npoints + 2, sizeof *order), at[ALLOCLAB_HISTORY_CHART_LABELS];
	double room = (WIDTH - LEFT - RIGHT) / 60.0;
	size_t named = 0;
	*n = 0;
	for (size_t i = 0; order && i < s->npoints; i++)
		if (s->points[i].change && s->points[i].ratio > 0) {
			order[2 * *n] = fabs(log(s->points[i].ratio));
			order[2 * (*n)++ + 1] = (double)i;
		}
	if (order)
		qsort(order, *n, 2 * sizeof *order, by_size);
	for (size_t a = 0; order && a < *n; a++) {
		const struct alloclab_history_point *p = &s->points[(size_t)order[2 * a + 1]];
		const struct alloclab_commit *k = &c->v->commits[p->commit];
		double x = px(c, k->ordinal);
		char what[96];
		int crowded = named >= ALLOCLAB_HISTORY_CHART_LABELS;
		for (size_t j = 0; j < named && !crowded; j++)
			crowded = fabs(at[j] - x) < room;
		alloclab_history_change_text(s->metric, p, alloclab_history_index_level(c->x, c->index, p->base), what,
					     sizeof what);
		fprintf(f, "<line class=\"mark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>", x, TOP, x,
			HEIGHT - BOTTOM);
		alloclab_html_printf(f, "change point at %.12s: %s", k->commit, what);
		fputs("</title></line>\n", f);
		if (crowded)
			continue;
		at[named++] = x;
		fprintf(f, "<text class=\"mark-name\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" transform=\"rotate(-90 %.1f "
			   "%.1f)\">",
			x - 4, TOP + 4, x - 4, TOP + 4);
		alloclab_html_printf(f, "%.7s %s", k->commit, what);
		fputs("</text>\n", f);
	}
	free(order);
	return named;
}

/* A point's tooltip: its commit, subject, value and interval. */
static void point_title(FILE *f, const struct chart *c, size_t i)
{
	const struct alloclab_history_point *p = &c->s->points[i];
	const struct alloclab_commit *k = &c->v->commits[p->commit];
	char level[64];
	fputs("<title>", f);
	alloclab_html_printf(f, "%u %.12s: ", k->ordinal, k->commit);
	alloclab_html_text_max(f, k->subject, SUBJECT_BYTES);
	if (k->date) {
		fputs(" (", f);
		alloclab_html_text_max(f, k->date, 40);
		fputc(')', f);
	}
	if (c->ref)
		alloclab_html_printf(f, "\n%.4f of the reference's time [%.4f .. %.4f]", c->y[i], c->lo[i], c->hi[i]);
	else {
		alloclab_history_level_text(c->s->metric, p->level, level, sizeof level);
		alloclab_html_printf(f, "\nlevel %s", level);
		if (isfinite(c->lo[i]))
			alloclab_html_printf(f, "; its step %.4f [%.4f .. %.4f] over the commit before", p->ratio, p->lo,
					     p->hi);
	}
	fputs("</title>", f);
}

/* The line through the drawn points, their bars and their dots. */
static void data(FILE *f, const struct chart *c)
{
	const struct alloclab_history_series *s = c->s;
	fputs("<polyline class=\"line\" points=\"", f);
	for (size_t i = 0; i < s->npoints; i++)
		if (c->keep[i] && isfinite(c->y[i]))
			fprintf(f, "%.1f,%.1f ", px(c, c->v->commits[s->points[i].commit].ordinal), py(c, c->y[i]));
	fputs("\"/>\n", f);
	for (size_t i = 0; i < s->npoints; i++) {
		if (!c->keep[i] || !isfinite(c->y[i]))
			continue;
		double x = px(c, c->v->commits[s->points[i].commit].ordinal);
		fputs("<g class=\"point\">", f);
		if (isfinite(c->lo[i]) && isfinite(c->hi[i])) {
			double a = py(c, c->lo[i]), b = py(c, c->hi[i]);
			fprintf(f, "<path class=\"bar\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\"/>", x, a, b, x - 3, a,
				x + 3, x - 3, b, x + 3);
		}
		fprintf(f, "<circle class=\"dot%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.2\">", s->points[i].change ? " change" : "",
			x, py(c, c->y[i]));
		point_title(f, c, i);
		fputs("</circle></g>\n", f);
	}
}

static void legend(FILE *f, const struct chart *c)
{
	int bars = 0;
	for (size_t i = 0; i < c->s->npoints && !bars; i++)
		bars = c->keep[i] && isfinite(c->lo[i]);
	fprintf(f, "<g class=\"legend\"><circle class=\"dot\" cx=\"%.1f\" cy=\"16\" r=\"3.2\"/>", LEFT + 8);
	fprintf(f, "<text x=\"%.1f\" y=\"20\">%s%s</text>", LEFT + 16,
		c->ref ? "against the reference" : "level",
		!bars ? "" : c->ref ? ", bars: its 95% interval" : ", bars: the step's 95% interval, from the commit before's level");
	fprintf(f, "<line class=\"mark\" x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" y2=\"24\"/><text x=\"%.1f\" y=\"20\">change "
		   "point</text></g>\n",
		WIDTH - RIGHT - 100, WIDTH - RIGHT - 100, WIDTH - RIGHT - 92);
}

static void caption(FILE *f, const struct chart *c, size_t k, size_t named, size_t changes, int cut)
{
	fprintf(f, "<figcaption id=\"series-%zu-caption\">", c->index);
	alloclab_html_printf(f, "%s, %.600s: %s of each measured commit", alloclab_ab_metric_names[c->s->metric],
			     c->s->row, c->ref ? "its time over the reference's" : "the level");
	/* What the picture leaves out, said under it. */
	if (k > 1)
		alloclab_html_printf(f, " (thinned: every %zu%s of %zu commits drawn, and each change point)", k,
				     k == 2 ? "nd" : k == 3 ? "rd" : "th", c->s->npoints);
	if (named < changes)
		alloclab_html_printf(f, " (%zu of %zu change points named where there is room; the table lists them all)",
				     named, changes);
	if (cut)
		alloclab_html_text(f, " (bars cut at the edges)");
	fputs("</figcaption>", f);
}

void alloclab_history_chart_write(FILE *f, const struct alloclab_history_index *x, size_t i)
{
	struct chart c = {.v = x->v, .x = x, .index = i, .s = &x->v->series[i]};
	size_t n = c.s->npoints + 1, changes = 0;
	c.ref = uses_reference(c.s);
	c.keep = calloc(n, 1);
	c.y = calloc(n, sizeof *c.y);
	c.lo = calloc(n, sizeof *c.lo);
	c.hi = calloc(n, sizeof *c.hi);
	if (c.keep && c.y && c.lo && c.hi) {
		size_t k = thin(&c);
		values(&c);
		int cut = y_axis(&c);
		fprintf(f, "<figure class=\"chart\" id=\"series-%zu\"><svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" "
			   "role=\"img\" aria-labelledby=\"series-%zu-caption\">\n",
			i, WIDTH, HEIGHT, i);
		frame(f, &c);
		legend(f, &c);
		commit_names(f, &c);
		size_t named = marks(f, &c, &changes);
		data(f, &c);
		fputs("</svg>", f);
		caption(f, &c, k, named, changes, cut);
		fputs("</figure>\n", f);
	}
	free(c.keep);
	free(c.y);
	free(c.lo);
	free(c.hi);
}
