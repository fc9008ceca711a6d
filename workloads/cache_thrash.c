/*
 * cache-thrash (active false sharing; Berger et al., Hoard, ASPLOS 2000, as
 * mimalloc-bench runs it: `cache-thrash N 1000 1 2000000 N`): each thread,
 * `iterations` times, allocates a small object, writes every byte of it its
 * share of `writes` (writes / threads, as the original divides its
 * repetitions; each write a store and a load, as the original's), and
 * frees it. The default writes are a twentieth of mimalloc-bench's, so that
 * a value takes tens of milliseconds, not seconds: writes still outnumber
 * allocations by 50,000 to one. An allocator that hands pieces
 * of one cache line to different threads makes that line bounce between
 * their cores on every write: the time per iteration shows it, and the
 * placement report (each thread's object, all held at once) shows the
 * lines two threads share.
 */
#include "helpers/false_sharing.h"
#include "helpers/mt_report.h"
#include "measure/placement.h"

#include <stdio.h>

enum { P_ITERATIONS, P_WRITES, P_SIZE };

static const struct alloclab_param cache_thrash_params[] = {
	[P_ITERATIONS] = {.name = "iterations", .help = "allocate-write-free rounds per thread", .def = 1000, .min = 1,
			  .max = 1u << 30},
	[P_WRITES] = {.name = "writes",
		      .help = "times every byte is written per round, shared among the threads (the original's repetitions)",
		      .def = 100000, .min = 1,
		      .max = 1ull << 32},
	[P_SIZE] = {.name = "size", .help = "object size in bytes", .def = 1, .min = 1, .max = 4096},
};

static int cache_thrash_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	(void)t;
	(void)err;
	(void)err_len;
	return 0;
}

/* In chunks of a paired slice (one chunk when not paired). */
static void cache_thrash_run(struct alloclab_workload_thread *t)
{
	const uint64_t iterations = t->params->v[P_ITERATIONS], writes = fs_share(t->params->v[P_WRITES], t->nthreads);
	const size_t size = t->params->v[P_SIZE];
	uint64_t i;

	/* One object at a time: what the thread holds while it runs, said
	 * once (counting each block would be most of the loop). */
	alloclab_live_set(t, size, 1);
	alloclab_live_peak(t, size);
	for (i = 0; i < iterations;) {
		const uint64_t chunk = alloclab_slice_room(t, iterations - i), stop = i + chunk;
		for (; i < stop; i++) {
			unsigned char *obj = alloclab_malloc(t->alloc, size);
			if (obj == NULL) {
				t->error = "cache-thrash: malloc returned NULL";
				goto out;
			}
			fs_write(obj, size, writes);
			alloclab_free(t->alloc, obj);
		}
		alloclab_slice_ops(t, (int64_t)chunk);
	}
out:
	alloclab_live_set(t, 0, 0);
	t->ops = i;
}

static void cache_thrash_finish(struct alloclab_workload_thread *t)
{
	if (t->last_value)
		t->process_report = fs_placement(t, t->params->v[P_SIZE]);
}

/* The benchmark's own terms: object rounds per second, peak memory. */
static void cache_thrash_print_cell(const struct alloclab_cell *cell, FILE *out)
{
	mt_print_rate(cell, out, "object rounds");
}

static void cache_thrash_figures(const struct alloclab_cell *const *cells, size_t n, struct alloclab_figure_list *out)
{
	mt_figure_shared_lines(cells, n, out, "cache-thrash");
}

const struct alloclab_workload alloclab_workload_cache_thrash = {
	.name = "cache-thrash",
	.description = "active false sharing (Hoard): small objects written over and over, per thread",
	.unit_op = "allocate, write, free one object",
	.params = cache_thrash_params,
	.nparams = sizeof cache_thrash_params / sizeof cache_thrash_params[0],
	.flags = ALLOCLAB_WORKLOAD_SLICES,
	.prepare = cache_thrash_prepare,
	.run = cache_thrash_run,
	.finish = cache_thrash_finish,
	.check_report = alloclab_placement_check_report,
	.print_cell = cache_thrash_print_cell,
	.figures = cache_thrash_figures,
};
