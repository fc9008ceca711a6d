/* The services a worker gives its workload threads: waiting for one
 * another, and the cache-line placement of their blocks. See internal.h. */
#include "worker/internal.h"

void alloclab_worker_sync(struct alloclab_workload_thread *t)
{
	pthread_barrier_wait(((struct thread_host *)t->host)->barrier);
}

json_t *alloclab_worker_placement(struct alloclab_workload_thread *t, const uintptr_t *addr, const size_t *size,
				  size_t n)
{
	struct thread_host *h = t->host;
	size_t line = alloclab_cache_line_size();

	/* After a failure some threads may not call in (their prepare failed):
	 * nobody waits then. The flag cannot change between the barrier after
	 * run() and here, so every thread sees the same. */
	if (*h->failed)
		return NULL;
	h->lists[t->index] = (struct alloclab_block_list){addr, size, n};
	pthread_barrier_wait(h->barrier);
	if (t->index == 0 && t->nthreads > 1 &&
	    alloclab_shared_lines(h->lists, t->nthreads, line, &h->lines_total, &h->lines_shared) != 0)
		h->lines_total = h->lines_shared = 0;
	pthread_barrier_wait(h->barrier);
	/* Only thread 0 carries the cross-thread counts: they are the cell's,
	 * and a sum over threads must count them once. */
	return alloclab_placement_report(addr, size, n, line, t->index == 0 && t->nthreads > 1, h->lines_total,
					 h->lines_shared);
}
