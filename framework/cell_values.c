/* What a results cell holds, as numbers. See cell_values.h. */
#include "cell_values.h"

#include <stdio.h>
#include <stdlib.h>

void alloclab_cell_label(const struct alloclab_cell *cell, char *out, size_t len)
{
	snprintf(out, len, "%s%s", cell->plugin, cell->cache_aligned ? " +align" : "");
}

int alloclab_cell_measured(const struct alloclab_cell *cell)
{
	return (cell->status == ALLOCLAB_CELL_OK || cell->status == ALLOCLAB_CELL_PENDING) && cell->nprocs > 0;
}

double *alloclab_cell_values(const struct alloclab_cell *cell, size_t *n)
{
	size_t count = 0;
	double *out;

	for (unsigned i = 0; i < cell->nprocs; i++)
		count += cell->procs[i].nvalues;
	out = calloc(count + 1, sizeof *out);
	count = 0;
	for (unsigned i = 0; i < cell->nprocs; i++)
		for (unsigned k = 0; k < cell->procs[i].nvalues; k++)
			out[count++] = cell->procs[i].values[k].per_op;
	*n = count;
	return out;
}

double *alloclab_cell_process_means(const struct alloclab_cell *cell, size_t *n)
{
	double *out = calloc(cell->nprocs + 1, sizeof *out);
	size_t count = 0;

	for (unsigned i = 0; i < cell->nprocs; i++) {
		double sum = 0;
		for (unsigned k = 0; k < cell->procs[i].nvalues; k++)
			sum += cell->procs[i].values[k].per_op;
		if (cell->procs[i].nvalues)
			out[count++] = sum / cell->procs[i].nvalues;
	}
	*n = count;
	return out;
}

long alloclab_cell_peak_rss_kib(const struct alloclab_cell *cell)
{
	long peak = 0;
	for (unsigned i = 0; i < cell->nprocs; i++)
		if (cell->procs[i].peak_rss_kib > peak)
			peak = cell->procs[i].peak_rss_kib;
	return peak;
}
