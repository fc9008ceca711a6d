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
 * The JSON form, a process's "memory" in a results file, is owned here:
 *   {"requested_ms": R, "interval_ms": I, "phases": ["load", ...],
 *    "samples": [[t_ms, rss_kib, anon_kib, huge_kib, phase, live_kib], ...]}
 * t_ms from the worker's start, not decreasing; anon_kib the anonymous
 * resident memory (statm's resident less shared: the heap, not the code),
 * huge_kib AnonHugePages (smaps_rollup, every tenth sample), each -1 where
 * not read; phase an index into phases; live_kib the requested
 * bytes the workload held (alloclab_live, workload.h), -1 not known.
 */
#ifndef ALLOCLAB_MEMORY_TIMELINE_H
#define ALLOCLAB_MEMORY_TIMELINE_H

#include <jansson.h>
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

/* The samples as JSON (a new reference); NULL when there are none. */
json_t *alloclab_timeline_json(const struct alloclab_timeline *t);

/* Checks a timeline read from outside: 0, or -1 with one line in why. */
int alloclab_timeline_check(const json_t *obj, char *why, size_t why_len);

/* The index of phase `name` in a checked timeline, or -1. */
int alloclab_timeline_phase(const json_t *timeline, const char *name);

#endif
