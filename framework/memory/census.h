/*
 * A census of what an allocator has handed out: a wrapper around an
 * instance's ops that keeps every live block's requested size, so that
 * what a program holds is known exactly (requested bytes live, and the
 * most), for a program that cannot say it itself: one run under the
 * preload library (the exec workload's warm-ups). It costs a lock (one of
 * 64 stripes, by address), a hash lookup and an atomic add a call, so it
 * runs only where nothing is timed. Its tables are mapped, never malloc'd
 * (under the preload library malloc is what is counted). One per process.
 */
#ifndef ALLOCLAB_CENSUS_H
#define ALLOCLAB_CENSUS_H

#include "plugin/allocator.h"

#include <stdint.h>

/* Wraps a's ops; forgets the shortcuts (calls through them would not be
 * counted). on_peak, if not NULL, is called (on the calling thread, no
 * lock held) each time the most held has grown by a sixteenth since the
 * last call: where to read what the process has resident at its peak.
 * 0, or -1 when its table cannot be mapped (a left as it was). One
 * census a process: its tables and counts are the process's. */
int alloclab_census_install(struct alloclab_allocator *a, void (*on_peak)(void));

/* Requested bytes live now, and the most live at once since install. */
void alloclab_census_read(uint64_t *live_bytes, uint64_t *peak_bytes);

#endif
