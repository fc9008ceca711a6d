/*
 * threadtest (from the Hoard allocator's benchmarks, Berger et al., ASPLOS
 * 2000): each of T threads, `iterations` times, allocates its share of
 * `objects` blocks of `size` bytes, writes each, then frees them all. The
 * total work is the same at any thread count, so ideal scaling is linear;
 * no block leaves its thread. baseline=1 does the same work into a static
 * array without allocating: the harness's own floor.
 */
#include "helpers/false_sharing.h"
#include "measure/placement.h"
#include "memory/resident.h"
#include "base/rng.h"
#include "helpers/mt_report.h"
#include "workload/workload.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

enum { P_OBJECTS, P_ITERATIONS, P_SIZE, P_BASELINE };

static const struct alloclab_param threadtest_params[] = {
	[P_OBJECTS] = {.name = "objects", .help = "blocks per iteration, shared out among the threads", .def = 100000,
		       .min = 1, .max = 1u << 26},
	[P_ITERATIONS] = {.name = "iterations", .help = "allocate-all then free-all passes", .def = 20, .min = 1,
			  .max = 1u << 20},
	[P_SIZE] = {.name = "size", .help = "bytes per block", .def = 8, .min = 1, .max = 1u << 20},
	[P_BASELINE] = {.name = "baseline", .help = "1: the same loop without allocating (the harness's floor)",
			.max = 1},
};

/* With several threads, what they hold together: each adds a chunk of
 * blocks once it has made them and takes it off before freeing them, so
 * that `held` is never above what they hold and at most a chunk a thread
 * below it; `most` its largest. The threads' passes drift apart, so the
 * sum of each thread's most would be up to N times the true peak. An
 * atomic on a shared line per CHUNK blocks. */
#define CHUNK 1024
struct threadtest_shared {
	_Atomic int64_t held, most;
};

struct threadtest_state {
	void **blocks;
	unsigned char *fake; /* baseline=1: the blocks, never allocated */
	size_t n;
};

static int threadtest_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	struct threadtest_state *s = calloc(1, sizeof *s);
	const struct alloclab_params *p = t->params;

	/* The blocks are shared out: thread i gets its part of the total. */
	s->n = p->v[P_OBJECTS] / t->nthreads + (t->index < p->v[P_OBJECTS] % t->nthreads);
	s->blocks = calloc(s->n ? s->n : 1, sizeof *s->blocks);
	if (p->v[P_BASELINE])
		s->fake = calloc(s->n ? s->n : 1, p->v[P_SIZE]);
	t->state = s;
	if (s->blocks == NULL || (p->v[P_BASELINE] && s->fake == NULL)) {
		snprintf(err, err_len, "threadtest: cannot hold %zu blocks", s->n);
		return -1;
	}
	return 0;
}

static inline void together_add(struct threadtest_shared *sh, int64_t bytes)
{
	int64_t held = atomic_fetch_add_explicit(&sh->held, bytes, memory_order_relaxed) + bytes;
	int64_t most = atomic_load_explicit(&sh->most, memory_order_relaxed);
	while (held > most &&
	       !atomic_compare_exchange_weak_explicit(&sh->most, &most, held, memory_order_relaxed, memory_order_relaxed))
		;
}

/* The run, made twice: with a slice point after every operation for
 * paired mode (sliced), or without (an unpaired run pays nothing). */
static inline __attribute__((always_inline)) void threadtest_run_body(struct alloclab_workload_thread *t, int sliced)
{
	struct threadtest_state *s = t->state;
	const uint64_t iterations = t->params->v[P_ITERATIONS], size = t->params->v[P_SIZE];
	void *(*const do_malloc)(void *, size_t) = t->alloc->ops.malloc;
	void (*const do_free)(void *, void *) = t->alloc->ops.free;
	void *const instance = t->alloc->instance;
	void **const blocks = s->blocks;
	const size_t n = s->n;
	struct threadtest_shared *const together = t->nthreads > 1 ? t->shared : NULL;

	for (uint64_t it = 0; it < iterations; it++) {
		if (s->fake) {
			for (size_t i = 0; i < n; i++) {
				blocks[i] = s->fake + i * size;
				*(volatile unsigned char *)blocks[i] = 1;
			}
			for (size_t i = 0; i < n; i++)
				*(volatile unsigned char *)blocks[i] = 0;
			continue;
		}
		for (size_t from = 0; from < n; from += CHUNK) {
			const size_t to = n - from < CHUNK ? n : from + CHUNK;
			for (size_t i = from; i < to; i++) {
				blocks[i] = do_malloc(instance, size);
				if (blocks[i] == NULL) {
					t->error = "threadtest: malloc returned NULL";
					if (together)
						together_add(together, -(int64_t)(from * size));
					for (size_t k = 0; k < i; k++)
						do_free(instance, blocks[k]);
					t->ops = it * n;
					return;
				}
				*(unsigned char *)blocks[i] = 1;
			}
			if (together)
				together_add(together, (int64_t)((to - from) * size));
		}
		/* What it holds, once a pass: the memory timeline's samples. */
		alloclab_live_set(t, n * size, n);
		for (size_t from = 0; from < n; from += CHUNK) {
			const size_t to = n - from < CHUNK ? n : from + CHUNK;
			if (together)
				together_add(together, -(int64_t)((to - from) * size));
			for (size_t i = from; i < to; i++)
				do_free(instance, blocks[i]);
		}
		alloclab_live_set(t, 0, 0);
		if (sliced)
			alloclab_slice_ops(t, (int64_t)n);
	}
	t->ops = iterations * n;
	/* One thread holds at most its pass; several say it together. */
	if (together == NULL)
		alloclab_live_peak(t, n * size);
}

static void threadtest_run(struct alloclab_workload_thread *t)
{
	if (t->slicer)
		threadtest_run_body(t, 1);
	else
		threadtest_run_body(t, 0);
}

static void threadtest_finish(struct alloclab_workload_thread *t)
{
	struct threadtest_state *s = t->state;
	struct threadtest_shared *sh = t->shared;
	if (t->nthreads > 1) {
		t->sync(t); /* every thread's run done */
		if (t->index == 0) {
			alloclab_live_peak(t, (uint64_t)atomic_load(&sh->most));
			atomic_store(&sh->held, 0);
			atomic_store(&sh->most, 0);
		}
	}
	/* Once per process, every thread at once: a batch of its blocks held
	 * while their placement across threads is measured. */
	if (t->last_value && !t->params->v[P_BASELINE])
		t->process_report = fs_placement_of(t, s && s->n < 4096 ? s->n : 4096, t->params->v[P_SIZE],
						    t->params->v[P_SIZE]);
	if (s == NULL)
		return;
	/* Its table of blocks is the workload's own, not the plugin's. */
	alloclab_live_own(t, alloclab_resident_bytes(s->blocks, s->n * sizeof *s->blocks) +
				     alloclab_resident_bytes(s->fake, s->fake ? s->n * t->params->v[P_SIZE] : 0));
	free(s->blocks);
	free(s->fake);
	free(s);
	t->state = NULL;
}

/* The benchmark's own terms: blocks allocated and freed per second, peak memory. */
static void threadtest_print_cell(const struct alloclab_cell *cell, FILE *out)
{
	mt_print_rate(cell, out, "blocks allocated and freed");
}

static void threadtest_figures(const struct alloclab_cell *const *cells, size_t n, struct alloclab_figure_list *out)
{
	mt_figure_memory(cells, n, out, "threadtest");
}

const struct alloclab_workload alloclab_workload_threadtest = {
	.name = "threadtest",
	.description = "Hoard's threadtest: per thread, allocate a batch of fixed-size blocks, free them all",
	.unit_op = "malloc+free of one block",
	.params = threadtest_params,
	.nparams = sizeof threadtest_params / sizeof threadtest_params[0],
	.flags = ALLOCLAB_WORKLOAD_SLICES,
	.prepare = threadtest_prepare,
	.run = threadtest_run,
	.finish = threadtest_finish,
	.shared_size = sizeof(struct threadtest_shared),
	.check_report = alloclab_placement_check_report,
	.print_cell = threadtest_print_cell,
	.figures = threadtest_figures,
};
