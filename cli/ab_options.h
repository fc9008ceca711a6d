/*
 * The options of `alloclab ab`, `history run` and `history bisect`, in one
 * table: how two builds are made (from files, folders or revisions) and
 * measured (the suite, the metrics, the design), which each of the three
 * commands takes its share of. ab_options.c parses them into one struct
 * and makes the measurement's plan (framework/history/ab.h) from it.
 */
#ifndef ALLOCLAB_AB_OPTIONS_H
#define ALLOCLAB_AB_OPTIONS_H

#include "history/ab.h"
#include "history/plugin_build.h"
#include "run/runner.h"

#include <stddef.h>
#include <stdint.h>

/* What a command takes beside the shared options. */
enum {
	ALLOCLAB_AB_TAKES_GATE = 1,   /* --fail-above, --format (ab) */
	ALLOCLAB_AB_TAKES_DB = 2,     /* --db (history) */
	ALLOCLAB_AB_TAKES_SHARD = 4,  /* --shard K/N (history run) */
	ALLOCLAB_AB_TAKES_BISECT = 8, /* --good, --bad, --metric (history bisect) */
};

struct alloclab_ab_args {
	struct alloclab_build_spec build;
	/* The -w texts as given, then parsed once into specs (a text with
	 * a list "a+b" is several); the -t list parsed. */
	const char *workloads[64];
	size_t nworkloads;
	struct alloclab_workload_spec specs[ALLOCLAB_MAX_MATRIX];
	unsigned nspecs;
	unsigned threads[ALLOCLAB_MAX_MATRIX];
	unsigned nthreads;
	const char *reference, *output, *format, *db, *good, *bad;
	unsigned metrics, processes, values, memory_processes;
	uint64_t slice_ops, slice_warm;
	int unpaired;
	int size_in_values; /* --design slices+values (the default) */
	double timeout_s;
	struct alloclab_ab_gate thresholds; /* --fail-above */
	int gate;                           /* --fail-above given */
	unsigned shard_index, shard_count;
	unsigned every; /* history run --steps N */
	int measure_same_code; /* history run --measure-same-code */
	enum alloclab_ab_metric metric;
	char identity[4096]; /* the plan's identity (ab.h), made by alloclab_ab_args_plan */
};

/* The defaults (reference: given default_reference, NULL none). */
void alloclab_ab_args_init(struct alloclab_ab_args *a, const char *default_reference);

/* The options of argv into a, for `command`, taking the shares in
 * `takes`; usage is printed for --help. -1 to go on (the operands at
 * argv[optind]), or the exit status. */
int alloclab_ab_args_parse(const char *command, int argc, char **argv, unsigned takes, const char *usage,
			   struct alloclab_ab_args *a);

/* The measurement's plan from a, its sides left to fill, its results in
 * dir; argc/argv: the command that asks, recorded with each results
 * file. */
void alloclab_ab_args_plan(struct alloclab_ab_args *a, const char *dir, int argc, char **argv,
			   struct alloclab_ab_plan *plan);

#endif
