/*
 * `--latency`: the time of every allocator call (or every k-th), into
 * per-thread histograms (latency_hist.h) merged per value.
 *
 * It is a wrapper around the instance's ops, installed only when asked
 * for: without --latency the ops table is the plugin's own and the
 * measured path has not one instruction more. With it, each call is
 * timed with the time-stamp counter (lfence; rdtsc before, rdtscp; lfence
 * after; calibrated against CLOCK_MONOTONIC once per process), the cost
 * of an empty measurement (the fastest of many, taken at install) is
 * subtracted and recorded, and the call is counted in its thread's
 * histogram of its op kind. Only calls made between start and stop count:
 * the worker starts it at the barrier before a value's run() and stops it
 * after the barrier that follows, so set-up and clean-up stay out as they
 * do of the time.
 *
 * Threads enrol on their first measured call (any thread: the workload's
 * own, an embedded interpreter's, one the workload starts); their counts
 * live in memory mapped for them (never malloc: under the preload library
 * malloc is what is being measured) and are reused after a thread exits.
 * Like the instance, there is one of these per process.
 */
#ifndef ALLOCLAB_LATENCY_H
#define ALLOCLAB_LATENCY_H

#include "plugin/allocator.h"
#include "measure/latency_hist.h"

#include <stdint.h>

/* The most a k of --latency-every may be. */
#define ALLOCLAB_LATENCY_MAX_EVERY 1000000

/* Wraps a's ops so that calls are timed (every `every`-th of each thread,
 * every >= 1) once started; forgets the shortcuts (calls through them
 * would not be timed). Calibrates the clock (about 10 ms). Call after
 * every other wrapper, so that what is timed is what the workload calls. */
void alloclab_latency_install(struct alloclab_allocator *a, unsigned every);

/* 0 when not installed; else k. */
unsigned alloclab_latency_every(void);

/* The workload thread index this thread's slow calls are reported under
 * (threads that never call it: -1). */
void alloclab_latency_thread(int index);

/* The replay's event index for this thread's next calls (-1: none). Set
 * only where latency is on: it is not free. */
void alloclab_latency_event(int64_t index);

/* Counting on, for every thread. */
void alloclab_latency_start(void);

/* Counting off; every thread's counts since start, and what was absorbed,
 * in one new latency (NULL when not installed), the threads' counts
 * cleared. Call when the workload's threads have stopped calling. */
struct alloclab_latency *alloclab_latency_stop(void);

/* Adds counts measured elsewhere (a program run under the preload
 * library) to those the next stop returns. */
void alloclab_latency_absorb(const struct alloclab_latency *l);

#endif
