/* What a results cell holds, as numbers. See cell_values.h. */
#include "figures/cell_values.h"
#include "figures/process_memory.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void alloclab_cell_label(const struct alloclab_cell *cell, char *out, size_t len)
{
	snprintf(out, len, "%s%s", cell->plugin, cell->cache_aligned ? " +align" : "");
}

int alloclab_cell_measured(const struct alloclab_cell *cell)
{
	return (cell->status == ALLOCLAB_CELL_OK || cell->status == ALLOCLAB_CELL_PENDING) && cell->nprocs > 0;
}

int alloclab_cell_crashed_part_way(const struct alloclab_cell *cell)
{
	return cell->status == ALLOCLAB_CELL_ERROR && cell->nprocs > 0;
}

void alloclab_crashed_after(const struct alloclab_cell *cell, char *out, size_t len)
{
	if (cell->planned > cell->nprocs)
		snprintf(out, len, "crashed after %u of %u processes", cell->nprocs, cell->planned);
	else
		snprintf(out, len, "crashed after %u process%s", cell->nprocs, cell->nprocs == 1 ? "" : "es");
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

double alloclab_mops(double ns_per_op, unsigned threads)
{
	return 1000.0 * threads / ns_per_op;
}

static double value_quantile(const struct alloclab_latency *l, const struct alloclab_cell_measure *m)
{
	struct alloclab_lat_hist all;
	double q;

	if (m->op >= 0)
		return alloclab_lat_quantile(&l->op[m->op], m->quantile);
	alloclab_latency_all_ops(l, &all);
	q = alloclab_lat_quantile(&all, m->quantile);
	alloclab_lat_hist_clear(&all);
	return q;
}

const char *const alloclab_memory_metric_names[ALLOCLAB_MEMORY_NMETRICS] = {"", "rss", "fragmentation", "kept",
										  "faults", "hwm"};
const char *const alloclab_memory_metric_keys[ALLOCLAB_MEMORY_NMETRICS] = {
	"", "rss_peak_kib", "fragmentation_at_peak", "kept_after_free_kib", "minor_faults_per_value", "high_water_net_kib"};

/* A process's memory figure; < 0 not known. */
static double process_memory_figure(const struct alloclab_process *p, enum alloclab_memory_metric which)
{
	struct alloclab_process_memory m;
	alloclab_process_memory(p, &m);
	switch (which) {
	case ALLOCLAB_MEMORY_RSS: return m.peak_net_kib;
	case ALLOCLAB_MEMORY_FRAGMENTATION: return m.frag_peak;
	case ALLOCLAB_MEMORY_KEPT: return m.kept_kib;
	case ALLOCLAB_MEMORY_FAULTS: return m.faults_per_value;
	case ALLOCLAB_MEMORY_HIGH_WATER:
		return p->peak_rss_kib > 0 && m.baseline_kib >= 0 ? fmax(0, (double)p->peak_rss_kib - m.baseline_kib) : -1;
	default: return -1;
	}
}

/* The memory figure of every process of the cell that m takes. */
static double *memory_figures(const struct alloclab_cell *cell, const struct alloclab_cell_measure *m, size_t *n)
{
	double *out = calloc(cell->nprocs + 1, sizeof *out);
	size_t count = 0;
	/* Under valgrind (counted metrics) the resident set is valgrind's. */
	for (unsigned i = 0; i < cell->nprocs && !alloclab_metric_deterministic(cell->metric); i++) {
		double f = alloclab_cell_measure_takes(m, &cell->procs[i]) ? process_memory_figure(&cell->procs[i], m->memory) : -1;
		if (f >= 0) /* 0 is a figure (nothing kept); < 0 is not known */
			out[count++] = f;
	}
	*n = count;
	return out;
}

int alloclab_cell_measure_takes(const struct alloclab_cell_measure *m, const struct alloclab_process *p)
{
	if (m == NULL || m->cpu_model == NULL)
		return 1;
	return strcmp(p->host_cpu_model ? p->host_cpu_model : "", m->cpu_model) == 0;
}

double *alloclab_cell_measure_values(const struct alloclab_cell *cell, const struct alloclab_cell_measure *m,
				     size_t *n)
{
	if (m && m->memory)
		return memory_figures(cell, m, n);
	double *out = alloclab_cell_values(cell, n);
	size_t count = 0;
	for (unsigned i = 0; i < cell->nprocs; i++) {
		if (!alloclab_cell_measure_takes(m, &cell->procs[i]))
			continue;
		for (unsigned k = 0; k < cell->procs[i].nvalues; k++) {
			const struct alloclab_latency *l = cell->procs[i].values[k].latency;
			double q = m == NULL || m->quantile <= 0 ? cell->procs[i].values[k].per_op : l ? value_quantile(l, m) : -1;
			if (q >= 0)
				out[count++] = q;
		}
	}
	*n = count;
	return out;
}

struct alloclab_latency *alloclab_cell_latency(const struct alloclab_cell *cell, int process)
{
	struct alloclab_latency *out = NULL;

	for (unsigned i = 0; i < cell->nprocs; i++) {
		if (process >= 0 && (unsigned)process != i)
			continue;
		for (unsigned k = 0; k < cell->procs[i].nvalues; k++) {
			const struct alloclab_latency *l = cell->procs[i].values[k].latency;
			if (l == NULL)
				continue;
			if (out == NULL && (out = alloclab_latency_new(l->every, l->overhead_ns)) != NULL)
				out->empty_mean_ns = l->empty_mean_ns;
			alloclab_latency_merge(out, l);
		}
	}
	return out;
}

double *alloclab_cell_measure_processes(const struct alloclab_cell *cell, const struct alloclab_cell_measure *m,
					size_t *n)
{
	if (m && m->memory)
		return memory_figures(cell, m, n);
	double *out = calloc(cell->nprocs + 1, sizeof *out);
	size_t count = 0;
	for (unsigned i = 0; i < cell->nprocs; i++) {
		if (!alloclab_cell_measure_takes(m, &cell->procs[i]))
			continue;
		if (m == NULL || m->quantile <= 0) {
			double sum = 0;
			for (unsigned k = 0; k < cell->procs[i].nvalues; k++)
				sum += cell->procs[i].values[k].per_op;
			if (cell->procs[i].nvalues)
				out[count++] = sum / cell->procs[i].nvalues;
			continue;
		}
		struct alloclab_latency *l = alloclab_cell_latency(cell, (int)i);
		double q = l ? value_quantile(l, m) : -1;
		if (q >= 0)
			out[count++] = q;
		alloclab_latency_free(l);
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
