/*
 * A repository's history as series (what `history show` prints and the
 * report's history pages draw): for each metric and workload row, every
 * measured commit with its level, its step (the commit over the one
 * before, measured side by side: history run's ab), its time against the
 * fixed reference, and whether the step is a change point (significance.h for
 * time and memory: resolved and kept by Benjamini-Hochberg over the
 * series; instructions: any difference larger than the counts' own
 * variation).
 *
 * Everything is computed again from the runs the store keeps, through the
 * results reader and the statistics room: the store holds measurements,
 * never conclusions.
 */
#ifndef ALLOCLAB_SERIES_H
#define ALLOCLAB_SERIES_H

#include "history/ab.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* One commit on one series. */
struct alloclab_history_point {
	size_t commit;        /* index into the view's commits */
	double level;         /* instructions per op, ns per op, or KiB; < 0 not measured */
	/* The step: this commit over the one before it that built. */
	int has_step;
	size_t base;          /* that commit's index */
	double ratio, lo, hi; /* the step's ratio and its interval (has_interval) */
	int has_interval;
	double p;             /* the step's p (time: t on the paired logarithms; memory: the rank test); < 0 none */
	enum alloclab_verdict verdict;
	int change;           /* a change point */
	/* time: the step in whole values (how much), where the step's time
	 * was decided in slices (ab.h's size_in_values); has_size 0: none. */
	int has_size;
	double size_ratio, size_lo, size_hi;
	/* time: this commit against the reference, in the same processes: in
	 * its own step (where it is HEAD), else in the next (a range's first
	 * commit, BASE there). */
	int has_reference;
	double ref_ratio, ref_lo, ref_hi;
	uint64_t ref_key;     /* which reference (a hash of its label): readings against two are not compared */
	/* time: against the reference again in the next step, where it is
	 * BASE (has_next_reference: it had its own step too). One build, one
	 * reference: the two agree unless the machine changed between the
	 * steps; level_moved when they differ beyond both intervals
	 * (ALLOCLAB_LEVEL_MOVED_Z). The drift over the chained steps is the
	 * product of these differences, so a moved level is where a guard
	 * that disagrees looks first. */
	int has_next_reference;
	double next_ratio, next_lo, next_hi;
	int level_moved;
	/* Its plugin loads the same code as base's (store.h's code_sha256)
	 * and was not measured: its step is 1 exactly (has_interval, lo = hi
	 * = 1, p = 1), its level and reference base's. */
	int same_code;
};

struct alloclab_history_series {
	enum alloclab_ab_metric metric;
	char *row;            /* the workload row (workload, parameters that vary, threads) */
	char *machine;        /* where its steps ran: runs of two machines are never one series */
	struct alloclab_history_point *points;
	size_t npoints;
	/* time with a reference: the last commit's ratio to the reference over
	 * the first's (their processes compared as samples: a slow drift that
	 * no single step resolves shows here). */
	int has_drift;
	double drift, drift_lo, drift_hi;
	int drift_resolved;
	/* The guard's check: the steps from the first commit with a
	 * reference to the last, multiplied (their intervals combined on the
	 * logarithms), and whether the drift agrees with them within the two
	 * intervals. They measure one thing two ways; when they disagree, a
	 * step or the reference is not what it seems (a reference of another
	 * allocator moves with the machine: 0.310 and 0.326 for two commits
	 * that built the same file). has_chain 0: a step between is missing. */
	int has_chain;
	double chain, chain_lo, chain_hi;
	int drift_agrees;
};

struct alloclab_history_view {
	char *repo;
	struct alloclab_commit *commits;
	size_t ncommits;
	char *machine;        /* where the steps ran ("host, CPU, N CPUs, kernel"); several: "several: ..." */
	char *reference;      /* the reference's label in the time runs, or NULL */
	struct alloclab_history_series *series;
	size_t nseries;
	/* Given by the caller: how rows are named, how workload reports are
	 * checked (the framework knows no workload). */
	alloclab_row_namer name_rows;
	alloclab_report_checker check;
};

/* Loads repository repo's history (NULL: the only one the store has). 0,
 * or -1 with err (no such repository, a run the reader refuses). */
int alloclab_history_view_load(struct alloclab_store *s, const char *repo, struct alloclab_history_view *v, char *err,
			       size_t err_len);
void alloclab_history_view_clear(struct alloclab_history_view *v);

/* How far apart (in standard errors of their difference, on the
 * logarithms) a commit's two readings against the reference are when it
 * "moved": p < 0.001, for a history checks every commit and row, and two
 * runs minutes apart read a level 0.2-0.3% apart more often than their
 * own intervals say (docs/measurements/plugin-history.md). */
#define ALLOCLAB_LEVEL_MOVED_Z 3.29

/* A commit's build against the reference in two time runs (its own step,
 * where it is HEAD, and the next step, where it is BASE), the row in which
 * the two readings differ most. */
struct alloclab_history_level {
	char row[256];
	double own, own_lo, own_hi;
	double next, next_lo, next_hi;
	double z; /* their difference over its standard error, on the logarithms */
};

/* Compares label's ratio to the reference (the runs' first paired plugin,
 * the same in both) in the two runs, row by row. 1 when some row moved
 * (*worst: that row), 0 when none did or the runs cannot be compared (no
 * common reference, no common row; *worst: the row that differs most, z
 * 0 when none). */
int alloclab_history_level_moved(const struct alloclab_results *own, const struct alloclab_results *next,
				 const char *label, alloclab_row_namer name_rows, struct alloclab_history_level *worst);

/* The label a commit's build has in its step's runs. */
void alloclab_history_commit_label(const char *commit, char *out, size_t len);

#endif
