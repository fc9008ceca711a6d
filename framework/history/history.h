/*
 * `history run` and `history bisect`: a repository's commits built and
 * measured in order, each against the one before it (ab.h, side by side,
 * beside a fixed reference), everything kept in the store; and the search
 * for the commit where a metric changed.
 *
 * A run can be stopped at any moment and started again: a commit's state
 * is in the store (pending, measured, broken), its build is kept in the
 * run's folder (builds/COMMIT/plugin.so and build.log), and each step's
 * results files (steps/COMMIT/, a file a metric) are read again rather than measured
 * again; the store keeps a run once however often it is added. Shards
 * (--shard K/N) measure every Nth step into the folder without the store,
 * so that steps can run on several machines (a Slurm array); a run without
 * --shard afterwards adds what they measured.
 */
#ifndef ALLOCLAB_HISTORY_H
#define ALLOCLAB_HISTORY_H

#include "history/ab.h"
#include "history/plugin_build.h"
#include "store/store.h"

/* The longest folder a history works in (its builds and steps go below). */
#define ALLOCLAB_HISTORY_DIR_MAX 3000

struct alloclab_history_plan {
	struct alloclab_build_spec build; /* build.repo: the repository */
	const char *range;                /* "A..B" */
	const char *dir;                  /* builds/ and steps/ go here */
	/* How each step is measured: the suite, metrics, design, reference;
	 * its sides and folder are filled in for each step. */
	struct alloclab_ab_plan ab;
	/* The reference of every step is the range's first commit that
	 * builds (--reference first, history run's default): a build of the
	 * same allocator, so that commits that build the same code read the
	 * same against it whatever the machine does, and a commit's ratio to
	 * it is the drift since, measured in one run. ab.reference is then
	 * ignored. */
	int reference_first;
	unsigned shard_index, shard_count; /* --shard K/N; 0 of 0: every step */
	/* --steps N: only every N-th commit of the range (its first and its
	 * last always), each measured against the one before it that was;
	 * 0 or 1: every commit. */
	unsigned every;
	/* Measure a commit whose plugin loads the same code as the one
	 * before it (--measure-same-code). By default it is not measured:
	 * two builds of one code can differ only by chance (where their
	 * files land in memory), and its step is recorded as exactly 1
	 * (files/code_hash.h). */
	int measure_same_code;
	/* A line on stderr for each build and step, with how long the steps
	 * took and about how long the rest will (a CI job's log has no
	 * terminal). */
	int progress;
};

struct alloclab_history_outcome {
	size_t commits;  /* in the range */
	size_t measured; /* steps measured now */
	size_t known;    /* steps measured before (the store had them) */
	size_t broken;   /* commits that did not build or crashed */
	size_t same;     /* commits whose plugin loads the code of the one before: not measured */
	size_t elsewhere; /* steps left to other shards */
	/* Steps measured again, in time, because a commit read apart
	 * against the reference in its own step and the next (series.h's
	 * level_moved): the machine changed between the two. */
	size_t again;
	size_t failed_again; /* steps whose builds failed when measured again (their first measurements kept) */
	double step_seconds; /* the steps measured now, their time in all */
	size_t steps_timed;
};

/* Runs the plan; s NULL only for a shard. 0 with *out, or -1 with err
 * (bad input, the store). */
int alloclab_history_run(struct alloclab_store *s, const struct alloclab_history_plan *p,
			 struct alloclab_history_outcome *out, char *err, size_t err_len);

/* One step of a bisection, as it was measured. */
struct alloclab_bisect_step {
	char commit[65];
	double ratio, lo, hi; /* against good */
	int has_interval;
	int bad;              /* classed with bad (its change is bad's) */
	int broken;           /* did not build: skipped */
	int same_code;        /* its plugin loads good's code (1) or bad's (2): classed so, not measured */
};

struct alloclab_bisect_outcome {
	double change, change_lo, change_hi; /* bad against good, the metric's row */
	char row[200];
	struct alloclab_bisect_step *steps;
	size_t nsteps;
	char first_bad[65];   /* the answer; "" when good and bad do not differ */
	int same_code;        /* good and bad load the same code: nothing measured, nothing to find */
	size_t builds;        /* builds made */
};

/* Finds the first commit of good..bad where the plan's one metric (and
 * its first row) moved as it did from good to bad, measuring each probe
 * against good side by side. 0 with *out, or -1 with err. */
int alloclab_history_bisect(const struct alloclab_history_plan *p, const char *good, const char *bad,
			    enum alloclab_ab_metric metric, struct alloclab_bisect_outcome *out, char *err,
			    size_t err_len);
void alloclab_bisect_outcome_clear(struct alloclab_bisect_outcome *o);

#endif
