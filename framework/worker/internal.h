/*
 * The worker room's own: one worker process's state, shared by the
 * measurement's set-up and end (worker.c) and its threads' rounds
 * (rounds.c). Nothing outside the room uses it.
 *
 * The threads live for the whole worker: warm-ups then warm the allocator's
 * per-thread caches the way a long-running program's would, and thread
 * start-up stays out of every value. Each round (a warm-up or a value) goes:
 *   all threads: prepare -> barrier -> [t0 run t1] -> barrier -> finish
 * and its wall time is max(t1) - min(t0) over threads.
 */
#ifndef ALLOCLAB_WORKER_INTERNAL_H
#define ALLOCLAB_WORKER_INTERNAL_H

#include "worker/worker.h"
#include "base/lengths.h"
#include "measure/placement.h"
#include "memory/live.h"
#include "plugin/allocator.h"
#include "plugin/stats.h"

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>

struct alloclab_latency;

struct thread_slot {
	pthread_t tid;
	struct alloclab_workload_thread wt;
	uint64_t *start_ns, *end_ns, *ops; /* one entry per round */
	char error[ALLOCLAB_ERR_LEN];
	int cpu;                           /* -1: not pinned */
};

/* What a round leaves besides its time: the memory figures and the
 * plugin's standard statistics. */
struct round_memory {
	uint64_t minor_faults, major_faults; /* the process's, around run() */
	uint64_t sys_ns;                     /* and its system CPU time */
	long rss_end_of_run, anon_end_of_run; /* KiB, once every thread has ended run(); its anonymous part */
	long rss_after_finish;               /* KiB, once every thread has finished the round */
	uint64_t live_end;                   /* the bytes the threads said were live when run() ended */
	uint64_t live_peak;                  /* the sum of the most each thread said it held; 0 not said */
	uint64_t own;                        /* the workload's own tables outside the plugin */
	uint64_t anon_peak;                  /* KiB, its own reading at its peak; 0 not said */
	uint64_t program_rss;                /* KiB, the largest peak RSS of the programs its threads ran; 0 not said */
	uint64_t standard[ALLOCLAB_NSTANDARD_STATS]; /* the plugin's standard statistics after run() */
	unsigned standard_given;             /* which of them it gave (bits) */
};

/* What a workload thread's services (sync and placement, workload.h)
 * need: one per plugin instance the worker measures (t->host). */
struct thread_host {
	pthread_barrier_t *barrier;         /* every thread of the cell */
	struct alloclab_block_list *lists;  /* placement: each thread's blocks */
	uint64_t lines_total, lines_shared; /* placement: counted by thread 0 */
	_Atomic int *failed;                /* the worker's failure flag */
};

/* A stats callback putting every statistic into a JSON object (arg). */
void alloclab_worker_collect_stat(void *arg, const char *name, uint64_t value);

/* The services (thread_services.c). */
void alloclab_worker_sync(struct alloclab_workload_thread *t);
json_t *alloclab_worker_placement(struct alloclab_workload_thread *t, const uintptr_t *addr, const size_t *size,
				  size_t n);

struct worker {
	const struct alloclab_cell_spec *cell;
	uint64_t *instructions;     /* per round, --measure instructions */
	uint64_t *d1_misses, *ll_misses; /* per round, --measure cache */
	struct alloclab_latency **latency; /* per round, --latency */
	/* The memory figures of each round, in memory mapped for them: not
	 * from the C library's heap, which the system plugin shares with the
	 * harness, so that taking them leaves glibc's state (and what its
	 * malloc costs in the next value) as it would be without them. */
	struct round_memory *mem;
	struct alloclab_live *live; /* the threads' counters (memory/live.h) */
	unsigned dumps;             /* callgrind dumps written so far */
	struct alloclab_allocator alloc;
	pthread_barrier_t barrier;
	unsigned rounds;            /* warmups + values */
	struct thread_slot *slots;
	json_t **reports;           /* [round * threads + thread], from wt.report */
	json_t **process_reports;   /* [thread], from wt.process_report */
	/* The placement service's blocks, one list a thread, and the host
	 * the workload threads' services use. */
	struct alloclab_block_list *lists;
	struct thread_host host;
	/* The plugin's statistics at the end of the last value, before the
	 * threads free their working sets (taken by thread 0 while the others
	 * wait at a barrier, so no other op runs). */
	json_t *stats_live;
	/* Set by any thread that failed; every thread checks it after each
	 * barrier so all of them stop at the same round and none waits on a
	 * barrier the others have left. */
	_Atomic int failed;
	/* A prepare() that failed, kept apart from `failed` until every
	 * thread has prepared: a fast thread's failure must not be seen by a
	 * slower one still deciding, after the round's first barrier, whether
	 * to prepare at all (it would leave, and the others wait for it). */
	_Atomic int prepare_failed;
};

/* A workload thread's body: every round of the process (rounds.c). Its
 * argument is the thread's slot, whose wt.state borrows the worker until
 * the first prepare. */
void *alloclab_worker_thread(void *slot);

/* What the threads said of the round (memory/live.h): held when run()
 * ended, held at most, their own tables; summed into m and cleared for the
 * next round. */
void alloclab_worker_take_live(const struct worker *w, struct round_memory *m);

#endif
