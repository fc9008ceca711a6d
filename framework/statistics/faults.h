/*
 * Page faults beside time. A time that includes the kernel's work for a
 * plugin (faulting in pages it gave back and takes again) measures the
 * machine's fault cost as much as the allocator: the same pair of
 * allocators can change order between a machine where a first touch costs
 * 0.5 us and a virtual machine where it costs 10. Every value keeps the
 * page faults and system time of its timed region (results.h); this is
 * their one reading: a cell's faults per 1,000 operations, and whether
 * two cells' differ by more than their own noise, with the share of the
 * time the difference explains at the run's measured fault cost.
 */
#ifndef ALLOCLAB_FAULTS_H
#define ALLOCLAB_FAULTS_H

#include "results/results.h"

#include <stddef.h>

/* A cell's page faults (minor and major) per 1,000 operations of its
 * measured values: the median over its processes. -1 when its values did
 * not count them (an older file). *sys_share, when not NULL: the median
 * over processes of the values' system CPU time over their timed time. */
double alloclab_cell_faults_per_kop(const struct alloclab_cell *c, double *sys_share);

struct alloclab_fault_difference {
	double base, other;     /* each cell's faults per 1,000 operations (the medians above) */
	double diff, lo, hi;    /* other's minus base's, and its 95% interval (paired: of the
				 * processes' differences; else Welch's) */
	size_t n;               /* processes (paired: pairs) it rests on */
	int resolved;           /* the interval leaves 0 out, by 0.005 per 1,000 or more */
};

/* Whether other's faults differ from base's beyond the noise. paired: the
 * two cells' processes are the same worker processes, matched by round.
 * 0 with *d filled; -1 when either cell has no counted faults or fewer
 * than two processes. */
int alloclab_fault_difference(const struct alloclab_cell *base, const struct alloclab_cell *other, int paired,
			      struct alloclab_fault_difference *d);

/* A count of faults for a sentence: three significant digits below 1,000
 * ("0.00515", "2.53", "146"), whole above ("11523"). Returns out. */
const char *alloclab_format_count(double v, char *out, size_t len);

#endif
