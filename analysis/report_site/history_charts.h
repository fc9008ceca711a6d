/*
 * A history's charts, drawn into its index page as inline SVG (no
 * gnuplot: each commit's name on the axis carries its whole subject as a
 * tooltip, which a picture in an <img> cannot show). One per series: the
 * commits on x in their order, each named by its short hash and its
 * subject cut to fit (every k-th where they are too many to read); the
 * figure on y: the level (instructions: exact counts), or for time with
 * a reference its time over the reference's in the same processes. Each
 * point has its 95% interval as a bar where it has one: against the
 * reference that ratio's interval; for time and memory without one the
 * step's interval (the commit over the one before, measured side by
 * side) drawn from the commit before's level. Each change point is a
 * dashed line, named with its commit and its size where there is room.
 * A series of more commits than a chart can show apart is thinned (every
 * k-th commit, and every change point and the commit before it kept),
 * and its caption says so; so does one whose change points are too many
 * or too close to name them all, and one whose bars are cut at its edges.
 * All text from the store is escaped by html.c.
 */
#ifndef ALLOCLAB_HISTORY_CHARTS_H
#define ALLOCLAB_HISTORY_CHARTS_H

#include "history_index.h"

#include <stdio.h>

/* The most commits a chart draws, and change points it names. */
#define ALLOCLAB_HISTORY_CHART_POINTS 250
#define ALLOCLAB_HISTORY_CHART_LABELS 12

/* Series i's chart, a <figure id="series-I"> with its caption. */
void alloclab_history_chart_write(FILE *f, const struct alloclab_history_index *x, size_t i);

#endif
