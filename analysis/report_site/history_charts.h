/*
 * A history's charts as figures (figures/figure.h, drawn by the plot
 * code): one per series, the commits on x (their place in the history),
 * the figure on y with its interval where it has one (time against the
 * fixed reference, measured in the same processes), each change point
 * marked with its commit and its size. A series of more commits than a
 * chart can show apart is thinned (every k-th commit, and every change
 * point and the commit before it kept), and its title says so; so does
 * one whose change points are too many or too close to name them all.
 */
#ifndef ALLOCLAB_HISTORY_CHARTS_H
#define ALLOCLAB_HISTORY_CHARTS_H

#include "figures/figure.h"
#include "history/series.h"

/* The most commits a chart draws, and change points it names. */
#define ALLOCLAB_HISTORY_CHART_POINTS 250
#define ALLOCLAB_HISTORY_CHART_LABELS 12

/* Series i's chart is named "series-I". */
void alloclab_history_charts(const struct alloclab_history_view *v, struct alloclab_figure_list *out);

#endif
