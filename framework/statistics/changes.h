/*
 * Change points in a series of builds, found from the comparisons between
 * neighbours (each build against the one before it, measured side by side
 * in the same processes) rather than from a threshold on separate runs.
 *
 * Why: on a shared machine separate runs spread by several percent from
 * one to the next, so a threshold on them must sit above that spread and
 * still fires by chance as the series grows; a paired neighbour comparison
 * cancels the machine's drift, and each step then has a p-value of its
 * own. Over a series of n steps, testing each at 0.05 would call about
 * n/20 of the steps that changed nothing a change; the Benjamini-Hochberg
 * procedure keeps the expected share of false change points among those
 * called at q instead, however long the series (it holds for independent
 * tests, and for the positively dependent ones neighbour comparisons are:
 * each build takes part in two). A step is called a change when BH keeps
 * it and its own 95% interval leaves 1 out.
 */
#ifndef ALLOCLAB_CHANGES_H
#define ALLOCLAB_CHANGES_H

#include <stddef.h>

/* The false discovery rate change points are called at. */
#define ALLOCLAB_CHANGE_FDR 0.05

/* Marks which of n tests Benjamini-Hochberg keeps at level q: changed[i]
 * 1 or 0 (a p-value < 0, a step not measured, is never kept and does not
 * count among the tests). */
void alloclab_bh_keep(const double *p, size_t n, double q, int *changed);

#endif
