/*
 * A sweep: one run split into shards (runner.h's --shard K/N) as a Slurm
 * job array, and their merge (results/merge.h) as a job that runs once
 * every task has succeeded. This is the one owner of a sweep's files in
 * its folder:
 *
 *   shards.sh      the array's batch script, a task per shard
 *   merge.sh       the merge's batch script
 *   sweep.json     what was submitted: the one record `alloclab slurm
 *                  status` reads back
 *
 * Every word from outside that goes into a script (paths, the run's
 * arguments) is quoted by base/shell_word.h; what goes into an #SBATCH
 * line is one plain word, checked by the caller (sbatch's own parser would
 * split or expand it). Files are written under the output policy
 * (files/output_path.h): never over something that is not alloclab's.
 */
#ifndef ALLOCLAB_SWEEP_H
#define ALLOCLAB_SWEEP_H

#include <stddef.h>
#include <stdint.h>

struct alloclab_sweep {
	unsigned shards;       /* array tasks, 1..ALLOCLAB_MAX_SHARDS */
	unsigned at_once;      /* at most this many tasks at a time; 0 no limit */
	const char *partition, *time_limit; /* NULL: sbatch's defaults */
	const char *cpu_bind;  /* srun's --cpu-bind type */
	const char *const *extra; /* further sbatch options, one #SBATCH line each */
	unsigned nextra;
	int shared;            /* no --exclusive: the nodes may run other jobs */
	char *const *run_args; /* alloclab run's arguments, as given */
	int nrun;
	int seed_given;        /* the run's arguments set --order-seed; else every shard gets seed */
	uint64_t seed;
	const char *dir;       /* the sweep's folder, absolute */
	const char *self;      /* alloclab, by the path every node runs it from */
	const char *cwd;       /* where the run's arguments were given (their paths are from there) */
	/* The TMPDIR alloclab slurm was given (NULL: none). sbatch passes its
	 * environment on to the jobs, and it runs as a supervised child whose
	 * TMPDIR is a scratch folder that goes when sbatch ends: the scripts
	 * set the user's back. */
	const char *tmpdir;
};

/* DIR/shards.sh and DIR/merge.sh, executable; *made_* say which were
 * written (for the caller to remove on a later failure). 0, or -1 with
 * err set. */
int alloclab_sweep_write_scripts(const struct alloclab_sweep *s, int *made_shards, int *made_merge, char *err,
				 size_t err_len);

/* DIR/sweep.json: the sweep and the jobs it was submitted as so far
 * (NULL: not yet), rewritten whole. 0, or -1 with err set. */
int alloclab_sweep_write_record(const struct alloclab_sweep *s, const char *shards_job, const char *merge_job,
				char *err, size_t err_len);

/* A sweep's record, read back and checked. */
struct alloclab_sweep_record {
	unsigned shards;
	char *self, *dir;      /* one line each */
	char **run_args;       /* with the seed every shard got */
	size_t nrun;
	char *shards_job, *merge_job; /* sbatch's job ids (digits), or NULL */
};

/* DIR/sweep.json into out. 0, or -1 with err set ("PATH: not a sweep
 * written by alloclab slurm", or why it could not be read). */
int alloclab_sweep_read_record(const char *dir, struct alloclab_sweep_record *out, char *err, size_t err_len);
void alloclab_sweep_record_clear(struct alloclab_sweep_record *r);

#endif
