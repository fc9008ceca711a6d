/*
 * blowup: Hoard's producer/consumer pattern. Threads work in pairs: the
 * even one allocates batches of `batch` blocks of `size` bytes and hands
 * each to its partner through a ring of `depth` batches; the odd one frees
 * them. At most depth x batch blocks are ever live, so the ideal footprint
 * is depth x batch x size; an allocator that cannot reuse, in the
 * producer, what the consumer freed grows past it ("blowup", Berger et
 * al., ASPLOS 2000). The figures are the memory section's: the resident
 * set's peak over what was live (docs/guides/memory.md). One op is one block
 * allocated and freed. Needs an even thread count and frees across
 * threads.
 */
#include "workload/workload.h"
#include "worker/worker.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P_BATCHES, P_BATCH, P_SIZE, P_DEPTH };

static const struct alloclab_param blowup_params[] = {
	[P_BATCHES] = {.name = "batches", .help = "batches each producer hands over per value", .def = 200, .min = 1,
		       .max = 1u << 30},
	[P_BATCH] = {.name = "batch", .help = "blocks in a batch", .def = 10000, .min = 1, .max = 1u << 20},
	[P_SIZE] = {.name = "size", .help = "block size, bytes", .def = 256, .min = 1, .max = 1u << 24},
	[P_DEPTH] = {.name = "depth", .help = "batches in flight between a producer and its consumer", .def = 4,
		     .min = 1, .max = 1024},
};

/* One ring slot: full 1 while a batch waits for the consumer. Its own
 * cache line, so that the two threads meet only where they hand over. */
struct slot {
	_Alignas(64) _Atomic int full;
	void **blocks;
};

struct pair {
	struct slot *ring;
	_Atomic int ready; /* the producer made the ring */
};

struct blowup_shared {
	struct pair pairs[ALLOCLAB_MAX_THREADS / 2];
};

static int blowup_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	struct blowup_shared *sh = t->shared;
	const struct alloclab_params *p = t->params;

	if (t->nthreads % 2) {
		snprintf(err, err_len, "blowup pairs a producer with a consumer: it needs an even thread count, not %u",
			 t->nthreads);
		t->not_applicable = 1;
		return -1;
	}
	struct pair *pr = &sh->pairs[t->index / 2];
	if (t->index % 2 == 0) {
		size_t depth = p->v[P_DEPTH];
		pr->ring = calloc(depth, sizeof *pr->ring);
		for (size_t d = 0; pr->ring && d < depth; d++)
			if ((pr->ring[d].blocks = calloc(p->v[P_BATCH], sizeof *pr->ring[d].blocks)) == NULL) {
				snprintf(err, err_len, "blowup: out of memory for the ring");
				return -1;
			}
		if (pr->ring == NULL) {
			snprintf(err, err_len, "blowup: out of memory for the ring");
			return -1;
		}
	}
	/* Both threads of the pair see the ring made before the run. */
	t->sync(t);
	t->state = pr;
	return 0;
}

static void wait_for(_Atomic int *flag, int value)
{
	for (unsigned spins = 0; atomic_load_explicit(flag, memory_order_acquire) != value; spins++)
		if (spins > 64)
			sched_yield();
}

static void blowup_run(struct alloclab_workload_thread *t)
{
	struct pair *pr = t->state;
	const struct alloclab_params *p = t->params;
	const uint64_t batches = p->v[P_BATCHES], batch = p->v[P_BATCH], depth = p->v[P_DEPTH];
	const size_t size = p->v[P_SIZE];
	int producer = t->index % 2 == 0;

	for (uint64_t k = 0; k < batches; k++) {
		struct slot *s = &pr->ring[k % depth];
		if (producer) {
			wait_for(&s->full, 0);
			for (uint64_t i = 0; i < batch; i++) {
				unsigned char *b = alloclab_malloc(t->alloc, size);
				if (b == NULL) {
					/* The consumer still expects the batch: hand over what there is. */
					t->error = "blowup: malloc returned NULL";
					for (; i < batch; i++)
						s->blocks[i] = NULL;
					break;
				}
				b[0] = b[size - 1] = 1;
				s->blocks[i] = b;
			}
			alloclab_live_add(t, (int64_t)(batch * size), (int64_t)batch);
			atomic_store_explicit(&s->full, 1, memory_order_release);
		} else {
			wait_for(&s->full, 1);
			for (uint64_t i = 0; i < batch; i++)
				if (s->blocks[i])
					alloclab_free(t->alloc, s->blocks[i]);
			/* The consumer's count goes below zero: the sum over
			 * threads is what is live. */
			alloclab_live_add(t, -(int64_t)(batch * size), -(int64_t)batch);
			atomic_store_explicit(&s->full, 0, memory_order_release);
		}
	}
	/* An op is a block through both threads: counted once, by the
	 * producer (the pair's time is the wall time of both). */
	t->ops = producer ? batches * batch : 0;
}

static void blowup_finish(struct alloclab_workload_thread *t)
{
	struct pair *pr = t->state;
	if (pr == NULL)
		return;
	t->sync(t);
	if (t->index % 2 == 0) {
		for (size_t d = 0; d < t->params->v[P_DEPTH]; d++)
			free(pr->ring[d].blocks);
		free(pr->ring);
		pr->ring = NULL;
	}
	t->state = NULL;
}

const struct alloclab_workload alloclab_workload_blowup = {
	.name = "blowup",
	.description = "Hoard's producer/consumer: one thread allocates, its partner frees; growth past the ideal",
	.unit_op = "block allocated and freed",
	.params = blowup_params,
	.nparams = sizeof blowup_params / sizeof blowup_params[0],
	.flags = ALLOCLAB_WORKLOAD_CROSS_THREAD_FREE,
	.prepare = blowup_prepare,
	.run = blowup_run,
	.finish = blowup_finish,
	.shared_size = sizeof(struct blowup_shared),
};
