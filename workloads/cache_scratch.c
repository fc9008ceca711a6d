/*
 * cache-scratch (passive false sharing; Berger et al., Hoard, ASPLOS 2000):
 * thread 0 allocates one small object per thread, back to back, and hands
 * object i to thread i. Each thread, on a thread started for the value as
 * the original's workers are, frees the object it was given (a free of
 * another thread's block), then, `iterations` times, allocates an object
 * of the same size, writes it its share of `writes` (as cache-thrash) and
 * frees it. An allocator
 * that gives the freed piece back to the thread that freed it keeps the
 * threads writing to one cache line.
 *
 * Before the objects, thread 0 allocates what the original's main thread
 * does, in its order and through the allocator: its thread table, its
 * workers' arguments and its table of the objects. Where the objects fall
 * depends on it: in obmalloc, the first two 16-byte blocks of a fresh pool
 * lie on two lines (the pool's 48-byte header ends 16 bytes short of the
 * second), the third and fourth on one, and without the tables the
 * objects were the first two and did not share a line where the
 * original's do.
 */
#include "helpers/false_sharing.h"
#include "helpers/mt_report.h"
#include "measure/placement.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P_ITERATIONS, P_WRITES, P_SIZE };

static const struct alloclab_param cache_scratch_params[] = {
	[P_ITERATIONS] = {.name = "iterations", .help = "allocate-write-free rounds per thread", .def = 1000, .min = 1,
			  .max = 1u << 30},
	[P_WRITES] = {.name = "writes",
		      .help = "times every byte is written per round, shared among the threads (the original's repetitions)",
		      .def = 100000, .min = 1,
		      .max = 1ull << 32},
	[P_SIZE] = {.name = "size", .help = "object size in bytes", .def = 1, .min = 1, .max = 4096},
};

/* The shape of the original's argument to a worker (a pointer and three
 * ints): only its size matters, as a block of the allocator's. */
struct scratch_original_arg {
	char *object;
	int size, iterations, repetitions;
};

/* What thread 0 allocates in prepare, one of each per thread: the
 * original's thread table, worker arguments and object table (handed),
 * and the objects it hands out. */
struct scratch_shared {
	void *thread_table;
	struct scratch_original_arg *args;
	void **handed;
	uint64_t table_bytes; /* the three tables' requests */
	int failed;
};

static int cache_scratch_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	struct scratch_shared *sh = t->shared;

	if (t->index == 0) {
		const size_t n = t->nthreads;
		sh->failed = 0;
		sh->thread_table = alloclab_calloc(t->alloc, n, sizeof(pthread_t));
		sh->args = alloclab_malloc(t->alloc, n * sizeof *sh->args);
		sh->handed = alloclab_malloc(t->alloc, n * sizeof *sh->handed);
		if (sh->handed)
			memset(sh->handed, 0, n * sizeof *sh->handed);
		for (unsigned i = 0; sh->handed && i < n; i++)
			if ((sh->handed[i] = alloclab_malloc(t->alloc, t->params->v[P_SIZE])) == NULL)
				sh->failed = 1;
		if (sh->thread_table == NULL || sh->args == NULL || sh->handed == NULL)
			sh->failed = 1;
		/* Thread 0 holds the tables and the handed objects; a worker
		 * frees its own, so the sum over threads is what is held. */
		const uint64_t size = t->params->v[P_SIZE];
		sh->table_bytes = n * (sizeof(pthread_t) + sizeof *sh->args + sizeof *sh->handed);
		alloclab_live_set(t, sh->table_bytes + n * size, 3 + n);
		alloclab_live_peak(t, sh->table_bytes + n * size);
	}
	t->sync(t); /* every thread calls it once, here */
	if (sh->failed) {
		snprintf(err, err_len, "cache-scratch: thread 0 could not allocate the objects it hands out");
		return -1;
	}
	return 0;
}

/* The work of one thread, on a thread of its own started for the value,
 * as the original's workers are threads started after the main thread made
 * their objects: the first thing such a thread does with the allocator is
 * free the object it was given, which decides (with a thread cache made
 * on first use) where its next object comes from. */
struct scratch_worker {
	struct alloclab_workload_thread *t;
	uint64_t done;
	const char *error;
	int64_t held; /* what it holds, to its framework thread's counter */
};

static void *scratch_worker_main(void *arg)
{
	struct scratch_worker *w = arg;
	struct alloclab_workload_thread *t = w->t;
	struct scratch_shared *sh = t->shared;
	const struct alloclab_allocator *a = t->alloc;
	const uint64_t iterations = t->params->v[P_ITERATIONS], writes = fs_share(t->params->v[P_WRITES], t->nthreads);
	const size_t size = t->params->v[P_SIZE];
	uint64_t i;

	if (a->ops.thread_attach && a->ops.thread_attach(a->instance) != 0) {
		w->error = "cache-scratch: thread_attach failed for a worker";
		return NULL;
	}
	/* The object thread 0 made for this thread, freed by a thread that did
	 * not allocate it. */
	alloclab_free(a, sh->handed[t->index]);
	sh->handed[t->index] = NULL;
	w->held = -(int64_t)size;
	for (i = 0; i < iterations; i++) {
		unsigned char *obj = alloclab_malloc(a, size);
		if (obj == NULL) {
			w->error = "cache-scratch: malloc returned NULL";
			break;
		}
		fs_write(obj, size, writes);
		alloclab_free(a, obj);
	}
	w->done = i;
	if (a->ops.thread_detach)
		a->ops.thread_detach(a->instance);
	return NULL;
}

static void cache_scratch_run(struct alloclab_workload_thread *t)
{
	struct scratch_worker w = {t, 0, NULL, 0};
	pthread_t tid;

	if (pthread_create(&tid, NULL, scratch_worker_main, &w) != 0) {
		t->error = "cache-scratch: cannot start a worker thread";
		return;
	}
	pthread_join(tid, NULL);
	t->error = w.error;
	t->ops = w.done;
	alloclab_live_add(t, w.held, w.held < 0 ? -1 : 0);
	alloclab_live_end(t, __atomic_load_n((uint64_t *)&t->live->bytes, __ATOMIC_RELAXED));
}

static void cache_scratch_finish(struct alloclab_workload_thread *t)
{
	struct scratch_shared *sh = t->shared;

	if (t->last_value)
		t->process_report = fs_placement(t, t->params->v[P_SIZE]);
	t->sync(t);
	if (t->index == 0) {
		/* As the original's main ends: the thread table, the object
		 * table, the arguments. */
		alloclab_free(t->alloc, sh->thread_table);
		if (sh->handed)
			for (unsigned i = 0; i < t->nthreads; i++)
				alloclab_free(t->alloc, sh->handed[i]); /* only if run never came */
		alloclab_free(t->alloc, sh->handed);
		alloclab_free(t->alloc, sh->args);
		sh->thread_table = sh->args = NULL;
		sh->handed = NULL;
	}
	alloclab_live_set(t, 0, 0);
}

/* The benchmark's own terms: object rounds per second, peak memory. */
static void cache_scratch_print_cell(const struct alloclab_cell *cell, FILE *out)
{
	mt_print_rate(cell, out, "object rounds");
}

static void cache_scratch_figures(const struct alloclab_cell *const *cells, size_t n, struct alloclab_figure_list *out)
{
	mt_figure_shared_lines(cells, n, out, "cache-scratch");
}

const struct alloclab_workload alloclab_workload_cache_scratch = {
	.name = "cache-scratch",
	.description = "passive false sharing (Hoard): objects handed to threads, freed there, then reused",
	.unit_op = "allocate, write, free one object",
	.params = cache_scratch_params,
	.nparams = sizeof cache_scratch_params / sizeof cache_scratch_params[0],
	.flags = ALLOCLAB_WORKLOAD_CROSS_THREAD_FREE,
	.prepare = cache_scratch_prepare,
	.run = cache_scratch_run,
	.finish = cache_scratch_finish,
	.shared_size = sizeof(struct scratch_shared),
	.check_report = alloclab_placement_check_report,
	.print_cell = cache_scratch_print_cell,
	.figures = cache_scratch_figures,
};
