/*
 * Paired mode's slices (worker/paired.c): one plugin's run() on one
 * thread, on a stack of its own, handing control back every `budget`
 * timed operations; a record of every timed part; and the barrier the
 * threads meet at between slices.
 *
 * Preempted slices. A slice that the scheduler interrupted (the thread's
 * involuntary context switches moved while it ran) carries the time the
 * thread was off the CPU, milliseconds in a slice of tens of microseconds:
 * one of them made one plugin's value 20 to 90% slower. So does one whose
 * virtual CPU the host took away for a while: its wall time well above
 * the thread's CPU time, with no switch of its own (slice.c). Every timed part
 * is recorded with whether it was preempted, and a value drops the slice
 * rounds (every plugin's slice of that round, on every thread) in which
 * any was: the plugins lose the same rounds, so the pairing holds, and a
 * plugin's own slow slices (which are not preemptions) are all kept.
 */
#ifndef ALLOCLAB_WORKER_SLICE_H
#define ALLOCLAB_WORKER_SLICE_H

#include "workload/workload.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

/* What the kernel did for a thread in a timed part: the page faults it
 * took and its system CPU time (getrusage of the thread, read outside the
 * timed part). A plugin that returns memory to the kernel and takes it
 * back pays there, in time its ops are charged for. */
struct alloclab_slice_kernel {
	uint64_t minor_faults, major_faults, sys_ns;
};

/* One timed part of a slice. */
struct alloclab_slice_part {
	uint64_t ns, ops;
	int preempted; /* the thread was taken off the CPU while it ran (slice.c) */
	struct alloclab_slice_kernel kernel;
};

struct alloclab_slice {
	struct alloclab_slicer s;   /* first: the workload holds a pointer to it */
	uint64_t budget;            /* timed operations a slice */
	uint64_t warm;              /* untimed operations before them */
	int warming;                /* in the untimed part */
	uint64_t warm_ns, warm_ops; /* the value's untimed parts (a value all untimed) */
	uint64_t last_ops;          /* the operations of this thread's last value */
	uint64_t start_ns;          /* the current part's start ... */
	long start_switches;        /* ... and the thread's involuntary switches then, */
	long start_voluntary;       /* its voluntary ones, */
	uint64_t start_cpu_ns;      /* and its CPU time (stolen time left out), */
	struct alloclab_slice_kernel start_kernel; /* and its faults and system time */
	/* The value's timed parts, in order: part k is this plugin's part of
	 * slice round k. nparts <= cap; a part that could not be recorded
	 * (no memory) sets lost, and the value then keeps every round. */
	struct alloclab_slice_part *parts;
	size_t nparts, cap;
	int lost;
	ucontext_t self, *sched;
	void *stack;
	int done; /* run() returned */
	struct alloclab_workload_thread *wt;
	const struct alloclab_workload *wl;
	_Atomic unsigned *remaining; /* decremented when run() returns */
};

/* A fresh context for the value's run(): `budget` timed operations a
 * slice after `warm` untimed ones (both shrunk so that a value of few
 * operations still has 20 slices), its stack's top moved by a number of
 * cache lines drawn from `draw`. 0, or -1 (no stack). */
int alloclab_slice_begin(struct alloclab_slice *sl, ucontext_t *sched, uint64_t budget, uint64_t warm, uint64_t draw);
/* Runs one slice (nothing when run() is over). */
void alloclab_slice_run(struct alloclab_slice *sl, ucontext_t *sched);
void alloclab_slice_free(struct alloclab_slice *sl);
/* Adds a timed part by hand (a whole value, timed by its caller), with
 * what the kernel did for the thread in it. */
void alloclab_slice_record(struct alloclab_slice *sl, uint64_t ns, uint64_t ops, const struct alloclab_slice_kernel *k);
/* The calling thread's page faults and system time so far, and since a
 * reading of them (counts that did not move, or a reading that failed,
 * give 0). */
struct alloclab_slice_kernel alloclab_slice_kernel_now(void);
struct alloclab_slice_kernel alloclab_slice_kernel_since(const struct alloclab_slice_kernel *start);

/* The slice rounds to drop from a value: (*dropped)[k], k below the
 * returned number of rounds (the most parts of any of the n slices), is
 * set when any slice's part k was preempted; *ndropped counts them. None
 * is dropped when that would leave a slice none of its timed operations,
 * or when a slice lost a part: so *ndropped < the rounds, and every slice
 * keeps the same rounds. *dropped is malloc'd (NULL when there are no
 * rounds). -1: no memory. */
long alloclab_slices_preempted(struct alloclab_slice *const *sl, size_t n, unsigned char **dropped,
			       size_t *ndropped);
/* One slice's value: its timed parts' time, operations and kernel
 * figures, less the dropped rounds (all of them kept when that would leave none, or when a
 * part was lost); a value that ended inside its first untimed part counts
 * that part. */
void alloclab_slice_sum(const struct alloclab_slice *sl, const unsigned char *dropped, size_t nrounds, uint64_t *ns,
			uint64_t *ops, struct alloclab_slice_kernel *kernel);

/*
 * The barrier between slices. A slice's timed parts run from each
 * thread's own start, but the threads should run them together:
 * pthread_barrier_wait sleeps on a futex, and the sleepers it wakes start
 * tens of microseconds after the thread that woke them on a virtual
 * machine, a large part of a slice of tens of microseconds. A waiting
 * thread here spins (with a pause) for about a millisecond, so that every
 * thread leaves within a few hundred nanoseconds, and only then sleeps on
 * the futex, so that a machine with more threads than CPUs is not burned.
 */
struct alloclab_slice_barrier {
	unsigned n;                /* threads that meet; at least 1 */
	_Atomic unsigned arrived;  /* at the current phase; < n between phases */
	_Atomic unsigned phase;    /* bumped by the last to arrive: the futex word */
	_Atomic unsigned sleepers; /* threads asleep (or about to be) on phase */
};

void alloclab_slice_barrier_init(struct alloclab_slice_barrier *b, unsigned n);
/* Returns once all n threads called it for this phase. */
void alloclab_slice_barrier_wait(struct alloclab_slice_barrier *b);

#endif
