/*
 * What the table, the comparisons and the pictures all say about a cell of
 * a results file (framework/results/results.h, already checked by its reader): how
 * its row is named and its parameters shown, beside its label and values
 * (cell_values.h, which workloads' own reports use too).
 */
#ifndef ALLOCLAB_CELLS_H
#define ALLOCLAB_CELLS_H

#include "figures/cell_index.h"
#include "figures/cell_values.h"
#include "results/results.h"

#include <stddef.h>

/*
 * Row names for a set of cells, as people read them: the workload's own
 * row_name when it has one; else the workload, then only the parameters
 * that vary between cells of the same workload in the set (a text file by
 * its base name), then "t=N" when thread counts vary or are not 1. With
 * with_plugin the plugin label leads. names[i] gets cells[i]'s (malloc'd),
 * as alloclab_printable shows it: a parameter's name or value from a file
 * is kept as the file has it (an escape sequence, a bidirectional
 * control), and every table, page and picture names rows from here.
 */
void alloclab_row_names(const struct alloclab_cell *const *cells, size_t n, int with_plugin, char **names);

/* Which parameters vary between cells of the same workload in a set of
 * cells, found in one pass over them (what tells rows apart). NULL out of
 * memory. _of: over every cell of a run. */
struct alloclab_param_variation;
struct alloclab_param_variation *alloclab_param_variation_new(const struct alloclab_cell *const *cells, size_t n);
struct alloclab_param_variation *alloclab_param_variation_of(const struct alloclab_results *r);
void alloclab_param_variation_free(struct alloclab_param_variation *pv);
/* Whether the parameter `name` has another value (or none) in one cell of
 * the workload than in another. */
int alloclab_param_varies(const struct alloclab_param_variation *pv, const char *workload, const char *name);

/* The parameters of cell c as "k=v,k=v" (as alloclab_printable shows
 * them), for the run table: with varying 1, only those whose value differs
 * between cells of c's workload in pv's cells (what tells its rows apart);
 * with varying 0, only those that are the same in all of them (said once,
 * above the table). */
void alloclab_cell_params_text(const struct alloclab_param_variation *pv, const struct alloclab_cell *c, int varying,
			       char *out, size_t len);

/* The run's cells by workload, in the order each workload first comes
 * (cell_index.h): a workload's cells found once, not by looking through
 * every cell for each workload's. 0, or -1 out of memory. */
int alloclab_workload_groups(const struct alloclab_results *r, struct alloclab_text_groups *g);

#endif
