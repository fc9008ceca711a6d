/*
 * A worker's memory over time, sampled from outside it (by the supervisor,
 * framework/process/child.c), so that the measured threads run not one instruction
 * for it: the resident set of it and what it started (a program under
 * exec) and its anonymous part from /proc/PID/statm at every sample, their
 * huge-page memory from /proc/PID/smaps_rollup (which costs far more to
 * read) at every tenth, and the step the worker had marked
 * (alloclab_phase: "load", "create", "prepare 2", "run 2", "finish 2",
 * ...). A long worker keeps at most `max` samples: when full, every other
 * sample is dropped and the interval doubles.
 *
 * The samples become the typed model below, part of the results model
 * (a process's memory, a failed cell's failed_memory); the results room
 * owns its JSON form and is its one reader and writer.
 */
#ifndef ALLOCLAB_MEMORY_TIMELINE_H
#define ALLOCLAB_MEMORY_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ALLOCLAB_TIMELINE_MAX_SAMPLES 2000
#define ALLOCLAB_TIMELINE_MAX_PHASES 512

struct alloclab_timeline;

/* Sampling every sample_ms (>= 1) from `start` (CLOCK_MONOTONIC seconds). */
struct alloclab_timeline *alloclab_timeline_new(unsigned sample_ms, double start);
void alloclab_timeline_free(struct alloclab_timeline *t);

/* When the next sample is due (seconds, the clock of `start`). */
double alloclab_timeline_due(const struct alloclab_timeline *t);

/* Takes a sample of process pid at `now`, in step `phase`, with the
 * bytes its workload holds live (-1: not known). */
void alloclab_timeline_sample(struct alloclab_timeline *t, pid_t pid, double now, const char *phase,
			      int64_t live_bytes);

/* ---- the model ---- */

/* One sample. */
struct alloclab_memory_sample {
	double t_ms;      /* from the worker's start */
	long rss_kib;     /* the resident set of the worker and what it started */
	long anon_kib;    /* its anonymous part (statm's resident less shared: the heap, not the code); -1 not read */
	long huge_kib;    /* AnonHugePages (smaps_rollup, every tenth sample); -1 not read */
	long live_kib;    /* the requested bytes the workload held (memory/live.h), rounded up; -1 not known */
	unsigned phase;   /* the step the worker had marked: an index into phases */
};

/*
 * A worker's memory over time. Invariants (alloclab_memory_timeline_valid,
 * which the results reader applies to every timeline from outside, and
 * debug builds to every one they make):
 *   1 <= requested_ms <= 3600000, requested_ms <= interval_ms
 *   nphases <= ALLOCLAB_TIMELINE_MAX_PHASES, each a name of 1 to 63 bytes
 *   1 <= nsamples <= ALLOCLAB_TIMELINE_MAX_SAMPLES
 *   samples[i].t_ms finite, not decreasing; phase < nphases
 *   0 <= rss_kib <= 2^40; anon, huge and live -1 or in [0, 2^40]
 */
struct alloclab_memory_timeline {
	unsigned requested_ms, interval_ms;
	char **phases;
	unsigned nphases;
	struct alloclab_memory_sample *samples;
	unsigned nsamples;
};

/* The sampler's samples as the model (a new timeline); NULL when there
 * are none. */
struct alloclab_memory_timeline *alloclab_timeline_take(const struct alloclab_timeline *t);

/* A new, separate copy (NULL: NULL). */
struct alloclab_memory_timeline *alloclab_memory_timeline_copy(const struct alloclab_memory_timeline *t);
void alloclab_memory_timeline_free(struct alloclab_memory_timeline *t);

/* 0 when the invariants above hold, else -1 with one line in why naming
 * the field ("samples[3]: ..."). */
int alloclab_memory_timeline_valid(const struct alloclab_memory_timeline *t, char *why, size_t why_len);

/* The index of phase `name`, or -1. */
int alloclab_memory_timeline_phase(const struct alloclab_memory_timeline *t, const char *name);

/* The name of sample i's phase. */
static inline const char *alloclab_memory_sample_phase(const struct alloclab_memory_timeline *t, unsigned i)
{
	return t->phases[t->samples[i].phase];
}

#endif
