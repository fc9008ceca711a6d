/*
 * A run page's tables, printed from what the rest of alloclab computes:
 * the comparison (statistics/comparison.h: a paired run's as the
 * terminal's table shows it, or each plugin against the baseline as
 * `compare --plugins` makes it), and every cell of a workload with its
 * level, ±95%, throughput, peak memory and status (as the run table
 * says them, through the statistics room). A verdict is always in words
 * ("not resolved", never a colour alone); every number carries its value
 * for sorting, and every row the words it is filtered by.
 */
#ifndef ALLOCLAB_RUN_TABLES_H
#define ALLOCLAB_RUN_TABLES_H

#include "cells.h"
#include "results/results.h"
#include "statistics/comparison.h"

#include <stdio.h>

/* The comparison's table; paired: the run's own paired comparison. */
void alloclab_run_comparison_table(FILE *f, const struct alloclab_results *r, const struct alloclab_comparison *cmp,
				   int paired);

/* Every cell of a workload, cells[0..n) its places in r->cells
 * (alloclab_workload_groups), each row's parameters those pv says vary;
 * data: the site folder its raw values are in (data/STEM), cell-N.json
 * for r->cells[N]. */
void alloclab_run_cells_table(FILE *f, const struct alloclab_results *r, const struct alloclab_param_variation *pv,
			      const size_t *cells, size_t n, const char *data);

#endif
