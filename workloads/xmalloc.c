/*
 * xmalloc (after Lever and Boreham's xmalloc-test, "malloc() performance in
 * a multithreaded Linux environment", USENIX 2000, as mimalloc-bench runs
 * it: `xmalloc-test -w W -t 5 -s 64`): producers and consumers around one
 * shared stack of batches. A producer allocates a batch of `batch` objects
 * (the batch itself a block of about 32 KiB, as in the original), writes
 * the first 128 bytes of each (memset, as the original), and pushes the
 * batch; the stack holds at most `limit` batches, and a producer waits
 * while it is full. Any consumer pops any batch and frees its objects and
 * then the batch: every free is a remote free, and the batches' handoff
 * (one lock, two condition variables) is once per batch, not per block, so
 * the allocator's cost is what is measured.
 *
 * Threads: of -t N, N/2 produce and the rest consume (xmalloc-test -w W
 * runs W of each: -t 2W); a single thread produces a batch and frees it
 * itself. One op is a producer's malloc or a consumer's free, as the
 * original counts frees. Each producer makes `ops` objects a value (whole
 * batches); the original runs for a time instead.
 */
#include "helpers/false_sharing.h"
#include "measure/placement.h"
#include "base/rng.h"
#include "helpers/mt_report.h"
#include "workload/workload.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P_OPS, P_SIZE, P_BATCH, P_LIMIT, P_SEED };

static const struct alloclab_param xmalloc_params[] = {
	/* Ten times the stack's limit in batches: the original runs for 5 s and
	 * reports its steady state; a value of one limit's worth is mostly the
	 * heap growing from what the last value left, and ranked jemalloc
	 * below tbbmalloc where the original has it above
	 * (docs/measurements/multithreaded.md). */
	[P_OPS] = {.name = "ops", .help = "objects each producer makes per value (rounded up to whole batches)",
		   .def = 4096000, .min = 1, .max = 1ull << 36},
	[P_SIZE] = {.name = "size",
		    .help = "object size in bytes (mimalloc-bench's -s 64); 0: the original's mix of 17 sizes, 8 to 2048",
		    .def = 64, .min = 0, .max = 1u << 24},
	[P_BATCH] = {.name = "batch", .help = "objects a batch holds (the original's 4096)", .def = 4096, .min = 1,
		     .max = 1u << 20},
	[P_LIMIT] = {.name = "limit", .help = "batches the stack holds before producers wait (the original's 100)",
		     .def = 100, .min = 1, .max = 1u << 20},
	[P_SEED] = {.name = "seed", .help = "random seed (the sizes of size=0)", .def = 1, .max = INT64_MAX,
		    .role = ALLOCLAB_ROLE_SEED},
};

/* The original's sizes for its -s -1. */
static const size_t mixed_sizes[] = {8,   12,  16,  24,  32,   48,  64,   96,  128,
				     192, 256, 384, 512, 768, 1024, 1536, 2048};

struct batch {
	struct batch *next;
	/* The requests it stands for, itself included: what the producer
	 * counts as held when it makes it and the consumer when it frees it
	 * (workload.h, alloclab_live). */
	uint64_t bytes;
	void *objects[]; /* `batch` of them */
};

struct xmalloc_shared {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	struct batch *top;      /* the stack */
	uint64_t count;         /* batches on it */
	unsigned producing;     /* producers not done with this value */
	int failed, stop;
	/* What every thread together holds, and the most it held in the value:
	 * a batch counts from when it is made to when it is freed, once a
	 * batch (an atomic on a shared line per `batch` objects). */
	_Atomic int64_t held, most;
};

static unsigned producers_of(unsigned nthreads) { return nthreads / 2; }

static int xmalloc_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	struct xmalloc_shared *sh = t->shared;

	if (t->index == 0) {
		pthread_mutex_init(&sh->lock, NULL);
		pthread_cond_init(&sh->not_empty, NULL);
		pthread_cond_init(&sh->not_full, NULL);
		sh->top = NULL;
		sh->count = 0;
		sh->producing = producers_of(t->nthreads);
		sh->failed = sh->stop = 0;
		sh->held = sh->most = 0;
	}
	t->sync(t); /* every thread, once: the stack exists from here */
	(void)err, (void)err_len;
	return 0;
}

static size_t object_size(const struct alloclab_params *p, struct alloclab_rng *rng)
{
	if (p->v[P_SIZE])
		return p->v[P_SIZE];
	return mixed_sizes[alloclab_rng_below((uint32_t)alloclab_rng_next(rng), sizeof mixed_sizes / sizeof *mixed_sizes)];
}

/* A batch made: `batch` objects, each written as the original writes it.
 * NULL when malloc failed (what was made is freed). */
static struct batch *make_batch(struct alloclab_workload_thread *t, struct alloclab_rng *rng)
{
	const uint64_t n = t->params->v[P_BATCH];
	struct batch *b = alloclab_malloc(t->alloc, sizeof *b + n * sizeof(void *));
	if (b == NULL)
		return NULL;
	b->bytes = sizeof *b + n * sizeof(void *);
	for (uint64_t i = 0; i < n; i++) {
		size_t size = object_size(t->params, rng);
		b->bytes += size;
		if ((b->objects[i] = alloclab_malloc(t->alloc, size)) == NULL) {
			while (i--)
				alloclab_free(t->alloc, b->objects[i]);
			alloclab_free(t->alloc, b);
			return NULL;
		}
		memset(b->objects[i], (int)(i % 256), size > 128 ? 128 : size);
	}
	alloclab_live_add(t, (int64_t)b->bytes, (int64_t)n + 1);
	return b;
}

static void free_batch(struct alloclab_workload_thread *t, struct batch *b)
{
	const int64_t bytes = (int64_t)b->bytes;
	for (uint64_t i = 0; i < t->params->v[P_BATCH]; i++)
		alloclab_free(t->alloc, b->objects[i]);
	alloclab_free(t->alloc, b);
	alloclab_live_add(t, -bytes, -(int64_t)t->params->v[P_BATCH] - 1);
}

static void produce(struct alloclab_workload_thread *t, struct xmalloc_shared *sh)
{
	const uint64_t per = t->params->v[P_BATCH], batches = (t->params->v[P_OPS] + per - 1) / per;
	struct alloclab_rng rng = {t->seed};
	uint64_t made = 0;

	for (; made < batches; made++) {
		struct batch *b = make_batch(t, &rng);
		if (b) {
			int64_t held = atomic_fetch_add_explicit(&sh->held, (int64_t)b->bytes, memory_order_relaxed) +
				       (int64_t)b->bytes;
			int64_t most = atomic_load_explicit(&sh->most, memory_order_relaxed);
			while (held > most && !atomic_compare_exchange_weak_explicit(&sh->most, &most, held,
										      memory_order_relaxed,
										      memory_order_relaxed))
				;
		}
		pthread_mutex_lock(&sh->lock);
		if (b == NULL) {
			sh->failed = 1;
			t->error = "xmalloc: malloc returned NULL";
		}
		while (b && sh->count >= t->params->v[P_LIMIT] && !sh->failed)
			pthread_cond_wait(&sh->not_full, &sh->lock);
		if (b && !sh->failed) {
			b->next = sh->top;
			sh->top = b;
			sh->count++;
			pthread_cond_signal(&sh->not_empty);
		}
		int stop = sh->failed;
		pthread_mutex_unlock(&sh->lock);
		if (stop) {
			if (b)
				free_batch(t, b);
			break;
		}
	}
	pthread_mutex_lock(&sh->lock);
	if (--sh->producing == 0)
		pthread_cond_broadcast(&sh->not_empty); /* the consumers may finish */
	pthread_mutex_unlock(&sh->lock);
	t->ops = made * per;
}

static void consume(struct alloclab_workload_thread *t, struct xmalloc_shared *sh)
{
	uint64_t freed = 0;

	for (;;) {
		pthread_mutex_lock(&sh->lock);
		while (sh->top == NULL && sh->producing > 0)
			pthread_cond_wait(&sh->not_empty, &sh->lock);
		struct batch *b = sh->top;
		if (b) {
			sh->top = b->next;
			sh->count--;
			pthread_cond_signal(&sh->not_full);
		}
		pthread_mutex_unlock(&sh->lock);
		if (b == NULL)
			break; /* every producer done and the stack empty */
		int64_t bytes = (int64_t)b->bytes;
		free_batch(t, b); /* another thread's objects */
		atomic_fetch_sub_explicit(&sh->held, bytes, memory_order_relaxed);
		freed += t->params->v[P_BATCH];
	}
	t->ops = freed;
}

/* Alone: each batch made, then freed, by this thread; sliced: with a
 * slice point after each batch (paired mode). */
static inline __attribute__((always_inline)) void alone(struct alloclab_workload_thread *t, int sliced)
{
	const uint64_t per = t->params->v[P_BATCH], batches = (t->params->v[P_OPS] + per - 1) / per;
	struct alloclab_rng rng = {t->seed};
	uint64_t done = 0;

	uint64_t most = 0;
	for (; done < batches; done++) {
		struct batch *b = make_batch(t, &rng);
		if (b == NULL) {
			t->error = "xmalloc: malloc returned NULL";
			break;
		}
		most = b->bytes > most ? b->bytes : most;
		free_batch(t, b);
		if (sliced)
			alloclab_slice_ops(t, (int64_t)(2 * per));
	}
	alloclab_live_peak(t, most);
	t->ops = 2 * done * per; /* each object's malloc and free */
}

static void xmalloc_run(struct alloclab_workload_thread *t)
{
	struct xmalloc_shared *sh = t->shared;

	if (t->nthreads == 1 && t->slicer)
		alone(t, 1);
	else if (t->nthreads == 1)
		alone(t, 0);
	else if (t->index < producers_of(t->nthreads))
		produce(t, sh);
	else
		consume(t, sh);
}

static void xmalloc_finish(struct alloclab_workload_thread *t)
{
	struct xmalloc_shared *sh = t->shared;

	t->sync(t); /* every thread done with the stack */
	if (t->index == 0 && t->nthreads > 1)
		alloclab_live_peak(t, (uint64_t)atomic_load(&sh->most));
	/* What stopped producers left on the stack (a failed value). */
	if (t->index == 0) {
		while (sh->top) {
			struct batch *b = sh->top;
			sh->top = b->next;
			free_batch(t, b);
		}
	}
	/* Once per process: blocks of the workload's sizes held by every
	 * thread at once, and the lines they share. */
	if (t->last_value) {
		size_t lo = t->params->v[P_SIZE] ? t->params->v[P_SIZE] : 8;
		size_t hi = t->params->v[P_SIZE] ? t->params->v[P_SIZE] : 2048;
		t->process_report = fs_placement_of(t, 256, lo, hi);
	}
	t->sync(t);
	/* Every batch freed: nothing is held by any thread, whoever made or
	 * freed what. */
	alloclab_live_set(t, 0, 0);
	if (t->index == 0) {
		pthread_cond_destroy(&sh->not_empty);
		pthread_cond_destroy(&sh->not_full);
		pthread_mutex_destroy(&sh->lock);
	}
}

/* The benchmark's own terms: mallocs and remote frees per second, peak memory. */
static void xmalloc_print_cell(const struct alloclab_cell *cell, FILE *out)
{
	mt_print_rate(cell, out, "mallocs and remote frees");
}

static void xmalloc_figures(const struct alloclab_cell *const *cells, size_t n, struct alloclab_figure_list *out)
{
	mt_figure_memory(cells, n, out, "xmalloc");
}

const struct alloclab_workload alloclab_workload_xmalloc = {
	.name = "xmalloc",
	.description = "producers and consumers around a stack of batches (after xmalloc-test): every free remote",
	.unit_op = "a producer's malloc or a consumer's free",
	.params = xmalloc_params,
	.nparams = sizeof xmalloc_params / sizeof xmalloc_params[0],
	.flags = ALLOCLAB_WORKLOAD_SLICES_ALONE | ALLOCLAB_WORKLOAD_CROSS_THREAD_FREE_IN_THREADS,
	.prepare = xmalloc_prepare,
	.run = xmalloc_run,
	.finish = xmalloc_finish,
	.shared_size = sizeof(struct xmalloc_shared),
	.check_report = alloclab_placement_check_report,
	.print_cell = xmalloc_print_cell,
	.figures = xmalloc_figures,
};
