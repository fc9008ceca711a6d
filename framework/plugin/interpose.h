/*
 * Interposition: the one way the framework puts itself between the
 * workloads and a plugin's ops. The global lock (`gil=1`) and the
 * recorder are both interposers, and any later one (a latency sampler, a
 * live-bytes counter) joins the same way instead of wrapping every op
 * once more.
 *
 * There is one interposition per process (the ABI promises one instance
 * per process). The first request captures the plugin's ops; later
 * requests widen what is wrapped but never wrap a wrapper, so asking for
 * the lock and for an observer in either order gives one lock and one
 * call through the plugin. Every wrapped call runs under one process-wide
 * lock, so an observer sees calls in the one order the plugin saw them.
 *
 * Invariant: an interposed allocator has no direct entry points (calls
 * through them would bypass the interposition).
 */
#ifndef ALLOCLAB_INTERPOSE_H
#define ALLOCLAB_INTERPOSE_H

#include "plugin/allocator.h"

#include <stddef.h>

enum alloclab_call_op {
	ALLOCLAB_CALL_MALLOC,
	ALLOCLAB_CALL_CALLOC,
	ALLOCLAB_CALL_REALLOC,
	ALLOCLAB_CALL_ALIGNED_ALLOC,
	ALLOCLAB_CALL_FREE,
	ALLOCLAB_CALL_FREE_SIZED,
};

/* One call as the plugin answered it. */
struct alloclab_call {
	enum alloclab_call_op op;
	void *block;  /* what the plugin returned (allocations), or the block freed */
	void *old;    /* realloc: the block given (NULL: a malloc) */
	size_t size;  /* the size asked for; FREE_SIZED: the size given */
	size_t arg;   /* CALLOC: nmemb; ALIGNED_ALLOC: the alignment */
};

/* Called with the lock held, after the plugin's call: for every
 * allocation that returned a block and every free of a non-NULL block. */
typedef void (*alloclab_call_observer)(const struct alloclab_call *call);

/* The lock around every op of the instance, thread hooks and statistics
 * included. */
void alloclab_interpose_lock(struct alloclab_allocator *a);

/* The lock around every allocation op and free, and `seen` after each. */
void alloclab_interpose_observe(struct alloclab_allocator *a, alloclab_call_observer seen);

/* The lock, for an observer that must exclude the calls (to finish what
 * it writes). */
void alloclab_interpose_acquire(void);
void alloclab_interpose_release(void);

/* In a forked child: the lock starts afresh (another thread of the parent
 * may have held it at the fork). */
void alloclab_interpose_after_fork(void);

/*
 * Wraps the instance in one process-wide lock taken around every call (the
 * framework's "gil=1"): a plugin that is not thread-safe can then run in
 * threads, its blocks freed by any of them, as CPython's allocator runs
 * under its GIL. A plugin that is thread-safe keeps its own capabilities
 * (a lock does not make per-thread state shareable). Call after create,
 * before cache_align.
 */
void alloclab_allocator_global_lock(struct alloclab_allocator *a);

#endif
