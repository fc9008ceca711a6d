/*
 * What a workload holds live, thread by thread: counters the workload
 * keeps (workload.h's alloclab_live_* helpers write them) and the
 * supervisor reads from outside the worker at every sample of the memory
 * timeline (process/child.c maps them shared), so that fragmentation
 * (resident over live) costs the measured threads nothing but a store.
 */
#ifndef ALLOCLAB_LIVE_H
#define ALLOCLAB_LIVE_H

#include <stdint.h>

/* One thread's live counters, a cache line each so that no two threads
 * share one. */
struct alloclab_live {
	_Atomic uint64_t bytes, blocks;
	/* The bytes live when run() ended (alloclab_live_end), for the
	 * value's fragmentation: 0 not said. */
	_Atomic uint64_t end_bytes;
	/* The most this thread held at once in the run, where the workload
	 * tracks it exactly (alloclab_live_peak): samples of `bytes` miss a
	 * peak shorter than the sampling interval. 0 not said. */
	_Atomic uint64_t peak_bytes;
	/* The workload's own memory outside the plugin, resident while it
	 * runs (a decoded trace, its tables: alloclab_live_own), taken off
	 * the resident set with the harness's baseline. 0 none. */
	_Atomic uint64_t own_bytes;
	/* The anonymous resident memory at the workload's peak by its own
	 * reading, in KiB, where the worker's cannot see it (a program under
	 * exec: its processes', summed): fragmentation at the peak is then
	 * (this - own) / the most held (alloclab_live_resident). 0 not said. */
	_Atomic uint64_t anon_peak_kib;
	/* The peak resident set of the program the workload ran, by wait4 (a
	 * program under exec: its own and its children's, exact), in KiB: the
	 * program's peak with nothing of the harness in it
	 * (alloclab_live_program_rss). 0 not said. */
	_Atomic uint64_t program_rss_kib;
	char pad[8];
};
_Static_assert(sizeof(struct alloclab_live) == 64, "one cache line per thread's counters");

#endif
