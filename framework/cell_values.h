/*
 * A results cell (results.h) as numbers and a label: what the analysis and
 * the workloads' own reports say of a cell alike.
 */
#ifndef ALLOCLAB_CELL_VALUES_H
#define ALLOCLAB_CELL_VALUES_H

#include "results.h"

#include <stddef.h>

/* The cell's plugin label, with " +align" when measured through the
 * cache-line wrapper. */
void alloclab_cell_label(const struct alloclab_cell *cell, char *out, size_t len);

/* Measured: it has values to show. A cell whose status is error or not
 * applicable never is, whatever it holds; a pending cell (an interrupted
 * run) is, partially. */
int alloclab_cell_measured(const struct alloclab_cell *cell);

/* Every measured value of a cell (per op), malloc'd; *n its length. */
double *alloclab_cell_values(const struct alloclab_cell *cell, size_t *n);

/* The mean of each process's values, malloc'd; *n its length. */
double *alloclab_cell_process_means(const struct alloclab_cell *cell, size_t *n);

/* The largest peak RSS of the cell's processes, KiB (0 unknown). */
long alloclab_cell_peak_rss_kib(const struct alloclab_cell *cell);

#endif
