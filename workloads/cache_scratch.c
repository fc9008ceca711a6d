/*
 * cache-scratch (passive false sharing; Berger et al., Hoard, ASPLOS 2000):
 * thread 0 allocates one small object per thread, back to back, and hands
 * object i to thread i. Each thread frees the object it was given (a free
 * of another thread's block), then, `iterations` times, allocates an object
 * of the same size, writes it its share of `writes` (as cache-thrash) and
 * frees it. An allocator
 * that gives the freed piece back to the thread that freed it keeps the
 * threads writing to one cache line.
 */
#include "false_sharing.h"
#include "mt_report.h"
#include "placement.h"

#include <stdio.h>
#include <stdlib.h>

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

/* The objects thread 0 hands out, one per thread, made in prepare. */
struct scratch_shared {
	void **handed;
	int failed;
};

static int cache_scratch_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	struct scratch_shared *sh = t->shared;

	if (t->index == 0) {
		sh->failed = 0;
		sh->handed = calloc(t->nthreads, sizeof *sh->handed);
		for (unsigned i = 0; sh->handed && i < t->nthreads; i++)
			if ((sh->handed[i] = alloclab_malloc(t->alloc, t->params->v[P_SIZE])) == NULL)
				sh->failed = 1;
		if (sh->handed == NULL)
			sh->failed = 1;
	}
	t->sync(t); /* every thread calls it once, here */
	if (sh->failed) {
		snprintf(err, err_len, "cache-scratch: thread 0 could not allocate the objects it hands out");
		return -1;
	}
	return 0;
}

static void cache_scratch_run(struct alloclab_workload_thread *t)
{
	struct scratch_shared *sh = t->shared;
	const uint64_t iterations = t->params->v[P_ITERATIONS], writes = fs_share(t->params->v[P_WRITES], t->nthreads);
	const size_t size = t->params->v[P_SIZE];
	uint64_t i;

	/* The object thread 0 made for this thread: written once, then freed
	 * here, by a thread that did not allocate it. */
	fs_write(sh->handed[t->index], size, 1);
	alloclab_free(t->alloc, sh->handed[t->index]);
	sh->handed[t->index] = NULL;
	for (i = 0; i < iterations; i++) {
		unsigned char *obj = alloclab_malloc(t->alloc, size);
		if (obj == NULL) {
			t->error = "cache-scratch: malloc returned NULL";
			break;
		}
		fs_write(obj, size, writes);
		alloclab_free(t->alloc, obj);
	}
	t->ops = i;
}

static void cache_scratch_finish(struct alloclab_workload_thread *t)
{
	struct scratch_shared *sh = t->shared;

	if (t->last_value)
		t->process_report = fs_placement(t, t->params->v[P_SIZE]);
	t->sync(t);
	if (t->index == 0 && sh->handed) {
		for (unsigned i = 0; i < t->nthreads; i++)
			alloclab_free(t->alloc, sh->handed[i]); /* only if run never came */
		free(sh->handed);
		sh->handed = NULL;
	}
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
