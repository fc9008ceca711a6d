/*
 * xmalloc (after Lever and Boreham's xmalloc-test, "malloc() performance in
 * a multithreaded Linux environment", USENIX 2000): producers and
 * consumers. Threads pair up, 2k producing for 2k+1; a producer allocates
 * `ops` blocks of random size up to max_size, writes each, and passes them
 * through a queue; its consumer frees each block it receives, so every free
 * is a remote free. An odd thread out (and a single thread) produces and
 * consumes its own blocks in batches of the queue's size. One op is a
 * malloc for a producer, a free for a consumer.
 */
#include "false_sharing.h"
#include "placement.h"
#include "rng.h"
#include "mt_report.h"
#include "workload.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P_OPS, P_MAX_SIZE, P_QUEUE, P_SEED };

static const struct alloclab_param xmalloc_params[] = {
	[P_OPS] = {.name = "ops", .help = "blocks each producer makes (and its consumer frees) per value",
		   .def = 400000, .min = 1, .max = 1ull << 36},
	[P_MAX_SIZE] = {.name = "max_size", .help = "largest request in bytes (from 8)", .def = 256, .min = 8,
			.max = 1u << 24},
	[P_QUEUE] = {.name = "queue", .help = "blocks a queue holds (a power of two)", .def = 4096, .min = 2,
		     .max = 1u << 20},
	[P_SEED] = {.name = "seed", .help = "random seed", .def = 1, .max = INT64_MAX, .role = ALLOCLAB_ROLE_SEED},
};

/* A single-producer, single-consumer ring. */
struct queue {
	_Alignas(64) atomic_size_t head; /* next slot the consumer takes */
	_Alignas(64) atomic_size_t tail; /* next slot the producer fills */
	_Alignas(64) atomic_int abort;   /* the producer stopped early */
	void **ring;
};

struct xmalloc_shared {
	struct queue *queues; /* one per pair */
	int failed;
};

static int xmalloc_check(const struct alloclab_params *p, char *err, size_t err_len)
{
	if (p->v[P_QUEUE] & (p->v[P_QUEUE] - 1)) {
		snprintf(err, err_len, "workload 'xmalloc': queue=%llu is not a power of two",
			 (unsigned long long)p->v[P_QUEUE]);
		return -1;
	}
	return 0;
}

static int xmalloc_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	struct xmalloc_shared *sh = t->shared;
	unsigned pairs = t->nthreads / 2;

	if (t->index == 0) {
		sh->failed = 0;
		/* The queues' counters sit on lines of their own (_Alignas):
		 * calloc does not promise that alignment, aligned_alloc does. */
		size_t bytes = (pairs + 1) * sizeof *sh->queues;
		sh->queues = aligned_alloc(_Alignof(struct queue), (bytes + 63) & ~(size_t)63);
		if (sh->queues)
			memset(sh->queues, 0, bytes);
		for (unsigned i = 0; sh->queues && i < pairs; i++)
			if ((sh->queues[i].ring = calloc(t->params->v[P_QUEUE], sizeof(void *))) == NULL)
				sh->failed = 1;
		if (sh->queues == NULL)
			sh->failed = 1;
	}
	t->sync(t); /* every thread, once: the queues exist from here */
	if (sh->failed) {
		snprintf(err, err_len, "xmalloc: cannot make the queues");
		return -1;
	}
	return 0;
}

static size_t block_size(struct alloclab_rng *rng, uint32_t span)
{
	return 8 + alloclab_rng_below((uint32_t)alloclab_rng_next(rng), span);
}

static void produce(struct alloclab_workload_thread *t, struct queue *q)
{
	const uint64_t ops = t->params->v[P_OPS];
	const size_t mask = t->params->v[P_QUEUE] - 1;
	const uint32_t span = (uint32_t)(t->params->v[P_MAX_SIZE] - 7);
	struct alloclab_rng rng = {t->seed};
	uint64_t i;

	for (i = 0; i < ops; i++) {
		size_t size = block_size(&rng, span), tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
		unsigned char *b = alloclab_malloc(t->alloc, size);
		if (b == NULL) {
			t->error = "xmalloc: malloc returned NULL";
			atomic_store(&q->abort, 1);
			break;
		}
		b[0] = (unsigned char)i;
		b[size - 1] = (unsigned char)i;
		while (tail - atomic_load_explicit(&q->head, memory_order_acquire) > mask)
			sched_yield(); /* full: the consumer runs (threads may outnumber cores) */
		q->ring[tail & mask] = b;
		atomic_store_explicit(&q->tail, tail + 1, memory_order_release);
	}
	t->ops = i;
}

static void consume(struct alloclab_workload_thread *t, struct queue *q)
{
	const uint64_t ops = t->params->v[P_OPS];
	const size_t mask = t->params->v[P_QUEUE] - 1;
	uint64_t i = 0;

	while (i < ops) {
		size_t head = atomic_load_explicit(&q->head, memory_order_relaxed);
		if (head == atomic_load_explicit(&q->tail, memory_order_acquire)) {
			if (atomic_load(&q->abort))
				break;
			sched_yield();
			continue;
		}
		alloclab_free(t->alloc, q->ring[head & mask]); /* another thread's block */
		atomic_store_explicit(&q->head, head + 1, memory_order_release);
		i++;
	}
	t->ops = i;
}

/* Alone: a batch of the queue's size made, then freed, by this thread. */
static void alone(struct alloclab_workload_thread *t)
{
	const uint64_t ops = t->params->v[P_OPS], batch = t->params->v[P_QUEUE];
	const uint32_t span = (uint32_t)(t->params->v[P_MAX_SIZE] - 7);
	struct alloclab_rng rng = {t->seed};
	void **held = malloc(batch * sizeof *held);
	uint64_t i = 0;

	while (held && i < ops) {
		uint64_t n = ops - i < batch ? ops - i : batch, k;
		for (k = 0; k < n; k++) {
			size_t size = block_size(&rng, span);
			unsigned char *b = alloclab_malloc(t->alloc, size);
			if (b == NULL) {
				t->error = "xmalloc: malloc returned NULL";
				break;
			}
			b[0] = 1;
			held[k] = b;
		}
		for (uint64_t j = 0; j < k; j++)
			alloclab_free(t->alloc, held[j]);
		i += k;
		if (k < n)
			break;
	}
	free(held);
	t->ops = 2 * i; /* each block's malloc and free */
}

static void xmalloc_run(struct alloclab_workload_thread *t)
{
	struct xmalloc_shared *sh = t->shared;
	unsigned pair = t->index / 2;

	if (pair >= t->nthreads / 2)
		alone(t);
	else if (t->index % 2 == 0)
		produce(t, &sh->queues[pair]);
	else
		consume(t, &sh->queues[pair]);
}

static void xmalloc_finish(struct alloclab_workload_thread *t)
{
	struct xmalloc_shared *sh = t->shared;
	unsigned pair = t->index / 2;

	/* What a stopped producer left in its queue is freed by its consumer. */
	if (sh->queues && pair < t->nthreads / 2 && t->index % 2 == 1) {
		struct queue *q = &sh->queues[pair];
		const size_t mask = t->params->v[P_QUEUE] - 1;
		for (size_t h = atomic_load(&q->head); h != atomic_load(&q->tail); h++)
			alloclab_free(t->alloc, q->ring[h & mask]);
		atomic_store(&q->head, 0);
		atomic_store(&q->tail, 0);
		atomic_store(&q->abort, 0);
	}
	/* Once per process: blocks of the workload's sizes held by every
	 * thread at once, and the lines they share. */
	if (t->last_value)
		t->process_report = fs_placement_of(t, 256, 8, t->params->v[P_MAX_SIZE]);
	t->sync(t); /* every thread, once: then the queues go */
	if (t->index == 0 && sh->queues) {
		for (unsigned i = 0; i < t->nthreads / 2; i++)
			free(sh->queues[i].ring);
		free(sh->queues);
		sh->queues = NULL;
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
	.description = "producers and consumers (after xmalloc-test): every free a remote free",
	.unit_op = "a producer's malloc or a consumer's free",
	.params = xmalloc_params,
	.nparams = sizeof xmalloc_params / sizeof xmalloc_params[0],
	.flags = ALLOCLAB_WORKLOAD_CROSS_THREAD_FREE,
	.check_params = xmalloc_check,
	.prepare = xmalloc_prepare,
	.run = xmalloc_run,
	.finish = xmalloc_finish,
	.shared_size = sizeof(struct xmalloc_shared),
	.check_report = alloclab_placement_check_report,
	.print_cell = xmalloc_print_cell,
	.figures = xmalloc_figures,
};
