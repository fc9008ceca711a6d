/*
 * Comparisons of measurements, as typed data: two or more runs cell by
 * cell, or plugins within one run. A comparison has columns (a run, or a
 * plugin of one run) and rows (a workload, its parameters and thread
 * count; the plugin too where whole runs are compared); each row holds one
 * entry per column. An entry past the first column says how that column
 * compares with the first (the base): the ratio of their means, the test,
 * its p-value, and the verdict. Every output format (text tables, reST,
 * Markdown, CSV, JSON, the report pages) prints this struct, and nothing
 * recomputes what it holds.
 *
 * What is tested. Paired cells (run --paired: the two plugins measured
 * side by side in the same worker processes) are compared by the ratio of
 * their times process by process (pairs.h): its 95% interval decides.
 * Unpaired cells, with the rank test (the default), by the per-process
 * means: values within one worker process share its luck (address layout,
 * neighbours on a shared machine) and are not independent, so counting
 * each as a sample manufactures significance out of run-to-run drift.
 * ALLOCLAB_TEST_PYPERF reproduces pyperf's rule exactly: Student's t-test
 * on every value. Deterministic counts (instructions) are compared by
 * their ratio alone: any difference is real.
 *
 * A difference is significant when the test says so (p < alpha, or a
 * paired interval that leaves 1 out) and it is at least `min_speed`
 * percent. A cell that failed or was not applicable is never compared as
 * if measured, and a comparison the test cannot decide with the samples
 * it has is "cannot tell", never "not significant".
 */
#ifndef ALLOCLAB_COMPARISON_H
#define ALLOCLAB_COMPARISON_H

#include "figures/cell_values.h"
#include "statistics/verdict.h"
#include "results/results.h"

#include <stddef.h>

enum alloclab_test { ALLOCLAB_TEST_RANK, ALLOCLAB_TEST_PYPERF };

/* The significance level of every test of a comparison. */
#define ALLOCLAB_ALPHA 0.05

/* Names rows as people read them: names[i] gets cells[i]'s, malloc'd.
 * with_plugin: the plugin's label leads (whole runs compared). The
 * presentation owns naming (analysis/cells.h); a comparison stores the
 * names it is given. */
typedef void (*alloclab_row_namer)(const struct alloclab_cell *const *cells, size_t n, int with_plugin,
				   char **names);

struct alloclab_column {
	const char *name;      /* the header: file name, or plugin label */
	const struct alloclab_results *results; /* the run */
	const char *plugin;    /* NULL: every plugin of the run; else only cells of this label */
};

struct alloclab_compare_opts {
	enum alloclab_test test;
	double min_speed;      /* percent */
	/* What is compared: the cells' metric (the default, quantile 0), or a
	 * latency quantile (--metric p50|p90|p99|p999|p9999|max, --op): each
	 * value's and each process's, tested as times are, or a memory
	 * figure, one per process. Cells measured without --latency then have
	 * no samples ("no latency measured"). */
	struct alloclab_cell_measure measure;
	alloclab_row_namer name_rows;
};

/* What the compared numbers are, for their units. */
enum alloclab_quantity {
	ALLOCLAB_QUANTITY_TIME,   /* nanoseconds */
	ALLOCLAB_QUANTITY_COUNTS, /* instructions */
	ALLOCLAB_QUANTITY_KIB,    /* resident memory */
	ALLOCLAB_QUANTITY_RATIO,  /* fragmentation: a ratio of two sizes */
	ALLOCLAB_QUANTITY_FAULTS, /* page faults */
};

/* What a column's entry holds. */
enum alloclab_entry_status {
	ALLOCLAB_ENTRY_ABSENT,         /* the column has no cell for the row */
	ALLOCLAB_ENTRY_MEASURED,
	ALLOCLAB_ENTRY_ERROR,          /* the cell failed: message says how */
	ALLOCLAB_ENTRY_NOT_APPLICABLE, /* the plugin cannot run the workload */
	ALLOCLAB_ENTRY_NOT_MEASURED,   /* interrupted, or no samples of what is compared */
};


/* How an entry was tested against the base. */
enum alloclab_tested {
	ALLOCLAB_TESTED_NOTHING,      /* the base, or not compared */
	ALLOCLAB_TESTED_PAIRED,       /* paired processes: the interval of their ratios' geometric mean */
	ALLOCLAB_TESTED_PROCESSES,    /* the rank test on per-process means */
	ALLOCLAB_TESTED_VALUES,       /* pyperf's t-test on every value */
	ALLOCLAB_TESTED_ONE_PROCESS,  /* the rank test on the values of one process each (not independent) */
	ALLOCLAB_TESTED_COUNTS,       /* deterministic counts: by their ratio */
};

struct alloclab_comparison_entry {
	enum alloclab_entry_status status;
	const struct alloclab_cell *cell; /* the column's cell for the row; NULL when ABSENT */
	const char *message; /* ERROR, NOT_APPLICABLE, NOT_MEASURED: why; borrowed or owned (owned_message) */
	char *owned_message;
	/* MEASURED: the column's samples of what is compared. */
	double mean, median, stdev;
	size_t nvalues, nprocesses;
	/* Against the base (compared: past the first column, both measured). */
	int compared;
	double ratio;        /* this mean over the base's (paired: the geometric mean of the processes' ratios) */
	/* [lo, hi] holds the ratio: paired (two processes or more), its 95%
	 * interval (t on the processes' log ratios); tested by processes, the
	 * 95% interval of the ratio of means (significance.h); counts, the
	 * range their own variation allows. */
	int has_interval;
	double lo, hi;
	unsigned npairs;     /* paired: the processes whose ratios were taken */
	int has_p;           /* p and statistic mean something (not for deterministic counts) */
	double p, statistic;
	/* The p-value of the test whose interval [lo, hi] is (paired: t on the
	 * processes' log ratios, pairs.h's p_t), the one a series of
	 * comparisons is corrected on (significance.h, alloclab_bh_keep); tested by processes, the
	 * p of the ratio interval's test (significance.h); < 0 none. */
	double p_interval;
	enum alloclab_tested tested;
	int reachable;       /* the test could decide with these samples */
	/* Not reachable: the processes a side (paired: processes) at which
	 * the test could decide; 0 when reachable. Every format says it. */
	size_t processes_needed;
	int significant;     /* reachable, decided, and at least min_speed percent */
	enum alloclab_verdict verdict;
	char **warnings;     /* pyperf check's kind: few values, unstable, outliers; CPU models; reachability;
			      * page faults that differ from the base's beyond their noise (faults.h) */
	size_t nwarnings;
	/* Times compared: the cell's page faults per 1,000 operations
	 * (faults.h); has_faults 0 where its values did not count them. */
	int has_faults;
	double faults_per_kop;
};

struct alloclab_comparison_row {
	char *name;
	/* The first column's cell: the row's plugin, workload, parameters and
	 * thread count. */
	const struct alloclab_cell *cell;
	struct alloclab_comparison_entry *entries; /* ncols */
};

struct alloclab_comparison {
	size_t ncols;
	char **columns;        /* the columns' names */
	const char *metric;    /* the key of what is compared: a cell metric, latency_p99_ns, rss_peak_kib, ... */
	char metric_text[64];
	enum alloclab_quantity quantity;
	enum alloclab_test test;
	int deterministic;     /* counts, compared by their ratio alone */
	double alpha, min_speed;
	/* Some entry was compared as paired processes (said above a table). */
	int paired;
	size_t nrows;
	struct alloclab_comparison_row *rows;
	/* Per column: the geometric mean of its ratios over the rows that have
	 * one; has_geometric_mean[c] 0 for the base and a column with none. */
	double *geometric_mean;
	int *has_geometric_mean;
	/* About the runs as a whole, said above every table: runs whose
	 * environments set the allocators differently (MALLOC_PERTURB_,
	 * MALLOC_CONF, ...) measured other allocators than their names say. */
	char **notes;
	size_t nnotes;
};

/* Builds the comparison; NULL with err set when the columns have no row in
 * common. */
struct alloclab_comparison *alloclab_compare(const struct alloclab_column *cols, size_t ncols,
					     const struct alloclab_compare_opts *o, char *err, size_t err_len);
void alloclab_comparison_free(struct alloclab_comparison *cmp);

/* A paired run's comparison (run --paired): the group's reference, then
 * each other member of the group in the order of the run's cells, as
 * columns, every difference that its interval resolves called (min_speed
 * 0). The run table leads with it. NULL (err set) when the run is not
 * paired or nothing was compared. */
struct alloclab_comparison *alloclab_compare_paired_run(const struct alloclab_results *r, alloclab_row_namer namer,
							char *err, size_t err_len);

/* What was tested, in words ("Mann-Whitney U on per-process means"). */
const char *alloclab_comparison_test_text(const struct alloclab_comparison *cmp);
const char *alloclab_tested_text(enum alloclab_tested tested);

/* Whether any column past the first calls row r significant; whether
 * every compared entry of it could not reach a decision; whether one of
 * its columns was not measured. */
int alloclab_row_significant(const struct alloclab_comparison_row *row, size_t ncols);
int alloclab_row_unreachable(const struct alloclab_comparison_row *row, size_t ncols);
int alloclab_row_unmeasured(const struct alloclab_comparison_row *row, size_t ncols);

#endif
