/*
 * Which event of a trace a remote release went wrong at. Validation
 * counts each object slot's releases by other threads and learns only at
 * the end that a slot's count does not add up: the count cannot say which
 * event is to blame, and a message naming the slot alone leaves the
 * reader of a trace of millions of events nothing to look at. This finds
 * the event again, by reading the trace once more, only when validation
 * has already failed: a trace that passes pays nothing.
 */
#ifndef ALLOCLAB_TRACE_BAD_RELEASE_H
#define ALLOCLAB_TRACE_BAD_RELEASE_H

#include "trace/trace.h"

#include <stddef.h>
#include <stdint.h>

/* Where a release is: its thread, its index in the thread (from 0, as the
 * reader's other messages count), the byte its chunk starts at; the
 * generation of the object it releases, and whether another thread's. */
struct alloclab_trace_event_at {
	unsigned thread;
	uint64_t event, chunk_offset, generation;
	int remote;
};

/* Thread owner's object in `slot`, of which the owner made `allocated`
 * allocations, is released by other threads wrongly. Finds the release to
 * blame: the first that names a generation never allocated, else the
 * second release of a generation released twice (the owner's own frees
 * included), else the last remote release of the slot. 1 with *at, 0 when
 * there is no remote release of the slot at all, -1 with err (the trace
 * could not be read again, or memory). ev: room for
 * ALLOCLAB_TRACE_CHUNK_EVENTS events. */
int alloclab_trace_find_bad_release(struct alloclab_trace *t, unsigned owner, uint32_t slot, uint64_t allocated,
				    struct alloclab_trace_event *ev, struct alloclab_trace_event_at *at, char *err,
				    size_t err_len);

#endif
