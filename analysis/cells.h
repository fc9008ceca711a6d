/*
 * What the table, the comparisons and the pictures all say about a cell of
 * a results file (framework/results.h, already checked by its reader): its
 * label, its values, whether it was measured, how its row is named.
 */
#ifndef ALLOCLAB_CELLS_H
#define ALLOCLAB_CELLS_H

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

/*
 * Row names for a set of cells, as people read them: the workload's own
 * row_name when it has one; else the workload, then only the parameters
 * that vary between cells of the same workload in the set (a text file by
 * its base name), then "t=N" when thread counts vary or are not 1. With
 * with_plugin the plugin label leads. names[i] gets cells[i]'s (malloc'd).
 */
void alloclab_row_names(const struct alloclab_cell *const *cells, size_t n, int with_plugin, char **names);

/* The parameters of a cell as "k=v,k=v" (every one), for the run table. */
void alloclab_cell_params_text(const struct alloclab_cell *cell, char *out, size_t len);

#endif
