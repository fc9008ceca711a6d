/*
 * A/B of two builds of one plugin (`alloclab ab`, and each step of
 * `history run` and `history bisect`): BASE and HEAD measured on a suite
 * in three metrics, each by the design that answers it best, and one
 * verdict per metric and row.
 *
 *   instructions  callgrind's count of the timed region (deterministic:
 *                 fixed seeds, one process a cell), per operation; a
 *                 difference larger than the counts' own variation is real,
 *                 however small, and shown to the instruction
 *   time          the two builds side by side in the same worker processes
 *                 (run --paired): whole values alternated by default, the
 *                 design whose ratio is the real one; slices when asked
 *                 for (tighter, but shrinking a change toward 1:
 *                 docs/guides/plugin-history.md has the measurement); the
 *                 geometric mean of the processes' ratios and its 95%
 *                 interval
 *   memory        the peak resident set net of the harness, each build in
 *                 processes of its own (paired processes share one
 *                 resident set), by the rank test over processes, with the
 *                 95% interval of the ratio of means
 *
 * Every measurement is an ordinary results file kept in the plan's
 * folder (show, compare, plot and the store read it), made by the
 * runner called in a supervised child with a deadline (runner.h). A build that crashes or fails a cell is
 * an error naming its side (BASE or HEAD) and what it did.
 */
#ifndef ALLOCLAB_AB_H
#define ALLOCLAB_AB_H

#include "results/results.h"
#include "statistics/comparison.h"
#include "workload/workload.h"

#include <stddef.h>
#include <stdint.h>

enum alloclab_ab_metric { ALLOCLAB_AB_INSTRUCTIONS, ALLOCLAB_AB_TIME, ALLOCLAB_AB_MEMORY, ALLOCLAB_AB_NMETRICS };

/* "instructions", "time", "memory" (index: the enum). */
extern const char *const alloclab_ab_metric_names[ALLOCLAB_AB_NMETRICS];

/* One side: a plugin file, the options it runs with, and what it was
 * built from where known. */
struct alloclab_ab_build {
	const char *label;   /* how tables name it: "base", "head", a commit */
	const char *plugin;  /* the plugin file's path */
	const char *options; /* "" none */
	const char *source;  /* "COMMIT" or "COMMIT+dirty"; NULL unknown */
};

struct alloclab_ab_plan {
	struct alloclab_ab_build base, head;
	/* A fixed plugin measured beside both in the time runs (history's
	 * guard against a slow drift); NULL none. Its label in the runs:
	 * reference_label, or NULL for one made from its file's name. */
	const char *reference;
	const char *reference_label;
	/* The suite, parsed by the caller (the workloads' registry is a
	 * layer above the framework): each workload at every thread count. */
	const struct alloclab_workload_spec *workloads;
	size_t nworkloads;
	const unsigned *threads;
	unsigned nthreads;
	unsigned metrics;             /* 1 << enum alloclab_ab_metric, or'd */
	unsigned processes;           /* time: paired processes a cell */
	unsigned values;              /* time: values a process */
	unsigned memory_processes;    /* memory: processes a cell and build */
	uint64_t slice_ops;           /* time: 0 whole values, else slices of this many operations */
	uint64_t slice_warm;          /* time, slices: untimed operations before each slice's timed ones */
	/* time in slices: measured again in whole values, for how much (the
	 * slices answer whether, precisely; their ratio reads a change
	 * smaller than it is, by 1 to 14% of it, per workload). */
	int size_in_values;
	/* time: each build in processes of its own instead (what tools that
	 * cannot pair must do: the comparison's baseline). */
	int unpaired;
	double timeout_s;             /* a worker's deadline (run's --timeout) */
	const char *dir;              /* where the results files go (made) */
	/* How the presentation names rows and checks workload reports (the
	 * framework knows no workload). */
	alloclab_row_namer name_rows;
	alloclab_report_checker check;
	int progress;                 /* say on stderr what is being measured */
	/* A metric whose results file is already in dir, complete, is read
	 * rather than measured again (history run going on after an
	 * interruption, or after its shards). */
	int reuse;
	/* Everything asked that moves a figure (the suite's texts, threads,
	 * metrics, design, processes, values, reference, deadline), as one
	 * text the caller writes: a step's saved results are read again only
	 * under the same identity (history.c keys its step folders by it). */
	const char *identity;
	/* The command that asked (`alloclab ab ...`), recorded as each
	 * results file's command. */
	int argc;
	char **argv;
};

/* One metric on one row: HEAD over BASE. */
struct alloclab_ab_row {
	enum alloclab_ab_metric metric;
	char *name;          /* the row: workload, parameters that vary, threads */
	double base, head;   /* each build's level (instructions per op, ns per op, KiB) */
	double ratio;        /* head / base */
	int has_interval;
	double lo, hi;       /* instructions: the counts' range; time and memory: 95% interval */
	enum alloclab_verdict verdict;
	double p;            /* the p-value a series corrects on (comparison.h's p_interval); < 0 none */
	unsigned n;          /* processes (pairs for time) */
	char design[96];     /* how it was measured, in words */
	/* Time rows of a plan with size_in_values: how much, from whole
	 * values (the ratio a user of either build sees, with its interval);
	 * the verdict above is the slices' (whether). */
	int has_size;
	double size_ratio, size_lo, size_hi;
	char workload[64];   /* the workload the row measures ("churn"; "" unknown): a gate's own threshold */
	/* A row either build could not measure: why ("not applicable: the
	 * workload needs realloc"); NULL measured. Its figures mean nothing. */
	char *status;
	/* Time rows: each build's page faults per 1,000 operations in the
	 * timed region (statistics/faults.h; has_faults 0: not counted), and
	 * where HEAD's differ from BASE's beyond their noise, what that means
	 * for the time (NULL otherwise). */
	int has_faults;
	double base_faults, head_faults;
	char *fault_note;
	/* The two sides' cells in the metric's results file (index into its
	 * cells), -1 none; an instructions row's callgrind dumps are in
	 * DIR/ALLOCLAB_AB_DUMPS/cell-INDEX. */
	int base_cell, head_cell;
};

/* The store's kind of a plan's time in whole values beside its slices. */
#define ALLOCLAB_AB_TIME_SIZE "time-size"

/* Where the instruction run keeps its dumps, in the plan's folder. */
#define ALLOCLAB_AB_DUMPS "instructions-dumps"

struct alloclab_ab_result {
	struct alloclab_ab_row *rows;
	size_t nrows;
	char files[ALLOCLAB_AB_NMETRICS][4200]; /* the results file of each metric measured; "" not */
	char size_file[4200];                   /* time in whole values (size_in_values); "" not */
	/* Where measuring failed: which side ("BASE", "HEAD", "both"), and
	 * what happened, in one line. */
	char failed_side[8];
	/* BASE's and HEAD's plugins load the same code (files/code_hash.h),
	 * with the same options:
	 * measured all the same, but a difference in time or memory between
	 * them is chance and where they lie in memory, never what they do,
	 * so the gate fails no row of theirs (ab.c's alloclab_ab_row_fails
	 * is not asked). */
	int same_code;
};

/* Whether every run plan p asks for is in its folder, finished
 * (p->reuse: it is read again, nothing is measured). */
int alloclab_ab_reused(const struct alloclab_ab_plan *p);

/* Measures the plan. 0 with *out filled; -1 with err set: a run could not
 * be made (bad input: nothing about either build), or, with
 * out->failed_side set, a build failed a cell (err names it). */
int alloclab_ab_measure(const struct alloclab_ab_plan *p, struct alloclab_ab_result *out, char *err, size_t err_len);
void alloclab_ab_result_clear(struct alloclab_ab_result *r);

/* The rows of one results file of the plan (a metric's run, measured now
 * or before) as rows of out, for the plan's base and head labels. 0, or
 * -1 with err. */
int alloclab_ab_rows_of(const struct alloclab_ab_plan *p, enum alloclab_ab_metric metric,
			const struct alloclab_results *r, struct alloclab_ab_result *out, char *err, size_t err_len);

/* The gate: thresholds in percent per metric, and per workload and
 * metric (`--fail-above churn/time=3%`), the workload's own winning; a
 * negative threshold is no gate on it. */
#define ALLOCLAB_AB_GATE_OWN 32
struct alloclab_ab_gate {
	double metric[ALLOCLAB_AB_NMETRICS];
	struct alloclab_ab_gate_own {
		char workload[64]; /* a row's workload or its whole name */
		enum alloclab_ab_metric metric;
		double percent;
	} own[ALLOCLAB_AB_GATE_OWN];
	size_t nown;
};

/* The gate with no threshold on anything. */
void alloclab_ab_gate_init(struct alloclab_ab_gate *g);

/* The threshold that applies to row r: its workload's own for its metric,
 * else its metric's; < 0 none. */
double alloclab_ab_gate_threshold(const struct alloclab_ab_gate *g, const struct alloclab_ab_row *r);

/* Whether row r is a resolved regression larger than its threshold
 * (NULL gate: never): its verdict says more, and its size (how much, where
 * measured apart; else its ratio) is above the threshold. */
int alloclab_ab_row_fails(const struct alloclab_ab_row *r, const struct alloclab_ab_gate *g);

#endif
