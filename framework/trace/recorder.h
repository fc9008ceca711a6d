/*
 * Recording: a wrapper around an allocator instance that writes every
 * call reaching the plugin to a trace (trace.h), so that any workload, in
 * any number of threads, can be replayed later against any plugin.
 *
 * Each call is made and written under one lock, so the trace's per-thread
 * streams are consistent with one order of the whole run (a replay that
 * keeps each object's events in that order cannot deadlock). Recording
 * costs that lock and a hash lookup per call: a recorded run measures
 * nothing. Requests that fail (NULL) are not recorded; blocks the recorder
 * never saw allocated are freed but not recorded (counted in the end
 * record as "unknown_frees").
 */
#ifndef ALLOCLAB_RECORDER_H
#define ALLOCLAB_RECORDER_H

#include "plugin/allocator.h"

#include <jansson.h>

/* Starts recording a's calls to a new file at path (never an existing
 * one), with meta (reference taken) in its header. Threads 0 to named - 1
 * are the ones that will name themselves. Once per process, after create
 * and before any other wrapper. 0, or -1 with err. */
int alloclab_recorder_start(struct alloclab_allocator *a, const char *path, json_t *meta, unsigned named,
			    char *err, size_t err_len);

/* The calling thread's events go to trace thread `index` (< named): the
 * worker names its workload threads so. A thread that never says gets the
 * next index from `named` up on its first call. */
void alloclab_recorder_thread(unsigned index);

/* Opens (begin 1) or closes (0) a window of the trace (trace.h): the
 * workload's timed region. Call it while no workload thread makes a
 * call (the worker does, between barriers, around a measured value's
 * run). Nothing when not recording. */
void alloclab_recorder_window(int begin);

/* Stops recording (later calls pass straight through) and finishes the
 * file with end_extra (a JSON object or NULL, reference taken) in its end
 * record. 0, or -1 with err (the file is removed). */
int alloclab_recorder_finish(json_t *end_extra, char *err, size_t err_len);

/* In a forked child of a recording process: stops recording without
 * touching the file (the parent still writes it). */
void alloclab_recorder_forget(void);

#endif
