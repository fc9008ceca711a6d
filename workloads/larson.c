/*
 * larson (Larson and Krishnan, "Memory allocation for long-running server
 * applications", ISMM 1998): a server simulation. A pool of `slots` blocks
 * per thread is shared by all threads; each thread, again and again,
 * swaps a new block of random size in [min_size, max_size] into a random
 * slot of the whole pool and frees the block it took out, which another
 * thread may have allocated: blocks are freed far from where they were
 * made. The threads are also retired and replaced, as a server's are:
 * each framework thread runs `generations` threads of its own in turn, one
 * after another, each doing its share of the replacements, so the blocks a
 * retired thread allocated are freed by its successors. One op is one
 * replacement (a free and a malloc).
 */
#include "placement.h"
#include "rng.h"
#include "mt_report.h"
#include "workload.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

enum { P_SLOTS, P_OPS, P_MIN_SIZE, P_MAX_SIZE, P_GENERATIONS, P_SEED };

static const struct alloclab_param larson_params[] = {
	[P_SLOTS] = {.name = "slots", .help = "blocks in the shared pool, per thread", .def = 5000, .min = 1,
		     .max = 1u << 22},
	[P_OPS] = {.name = "ops", .help = "replacements per thread per value", .def = 500000, .min = 1,
		   .max = 1ull << 36},
	[P_MIN_SIZE] = {.name = "min_size", .help = "smallest request in bytes", .def = 8, .min = 1, .max = 1u << 24},
	[P_MAX_SIZE] = {.name = "max_size", .help = "largest request in bytes", .def = 1000, .min = 1, .max = 1u << 24},
	[P_GENERATIONS] = {.name = "generations", .help = "threads retired and replaced per framework thread, per value",
			   .def = 8, .min = 1, .max = 100000},
	[P_SEED] = {.name = "seed", .help = "random seed", .def = 1, .max = INT64_MAX, .role = ALLOCLAB_ROLE_SEED},
};

struct larson_shared {
	_Atomic(void *) *slots; /* nthreads x slots, filled in prepare */
	size_t nslots;
	int failed;
};

static int larson_check(const struct alloclab_params *p, char *err, size_t err_len)
{
	if (p->v[P_MIN_SIZE] > p->v[P_MAX_SIZE]) {
		snprintf(err, err_len, "workload 'larson': min_size=%llu is above max_size=%llu",
			 (unsigned long long)p->v[P_MIN_SIZE], (unsigned long long)p->v[P_MAX_SIZE]);
		return -1;
	}
	return 0;
}

static int larson_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	struct larson_shared *sh = t->shared;
	const uint64_t per = t->params->v[P_SLOTS], min = t->params->v[P_MIN_SIZE];
	const uint32_t span = (uint32_t)(t->params->v[P_MAX_SIZE] - min + 1);
	struct alloclab_rng rng = {t->seed ^ ALLOCLAB_STREAM_LARSON_SIZES};

	if (t->index == 0) {
		sh->nslots = per * t->nthreads;
		sh->slots = calloc(sh->nslots, sizeof *sh->slots);
		sh->failed = sh->slots == NULL;
	}
	t->sync(t); /* every thread, once: the pool exists from here */
	if (sh->failed) {
		snprintf(err, err_len, "larson: cannot hold %zu slots", sh->nslots);
		return -1;
	}
	/* Each thread fills its own part of the pool, as the main thread of
	 * the original fills every thread's. */
	for (uint64_t i = t->index * per; i < (t->index + 1) * per; i++) {
		size_t size = min + alloclab_rng_below((uint32_t)alloclab_rng_next(&rng), span);
		void *b = alloclab_malloc(t->alloc, size);
		if (b == NULL) {
			snprintf(err, err_len, "larson: malloc(%zu) returned NULL filling the pool", size);
			return -1;
		}
		atomic_store_explicit(&sh->slots[i], b, memory_order_relaxed);
	}
	return 0;
}

/* One generation: a thread of its own, attached to the plugin as any
 * thread that allocates is, doing its share of the replacements. */
struct generation {
	struct alloclab_workload_thread *t;
	uint64_t ops, done;
	uint64_t seed;
	const char *error;
};

static void *generation_main(void *arg)
{
	struct generation *g = arg;
	struct alloclab_workload_thread *t = g->t;
	struct larson_shared *sh = t->shared;
	const struct alloclab_allocator *a = t->alloc;
	const uint64_t min = t->params->v[P_MIN_SIZE];
	const uint32_t span = (uint32_t)(t->params->v[P_MAX_SIZE] - min + 1), nslots = (uint32_t)sh->nslots;
	struct alloclab_rng rng = {g->seed};
	int attached = a->ops.thread_attach == NULL;
	uint64_t i;

	if (!attached && a->ops.thread_attach(a->instance) != 0) {
		g->error = "larson: thread_attach failed for a new generation";
		return NULL;
	}
	for (i = 0; i < g->ops; i++) {
		uint64_t r = alloclab_rng_next(&rng);
		uint32_t slot = alloclab_rng_below((uint32_t)r, nslots);
		size_t size = min + alloclab_rng_below((uint32_t)(r >> 32), span);
		unsigned char *b = a->ops.malloc(a->instance, size);
		if (b == NULL) {
			g->error = "larson: malloc returned NULL";
			break;
		}
		b[0] = 1;
		b[size - 1] = 1;
		/* The block taken out may be any thread's, of any generation. */
		void *old = atomic_exchange_explicit(&sh->slots[slot], b, memory_order_acq_rel);
		a->ops.free(a->instance, old);
	}
	g->done = i;
	if (a->ops.thread_detach)
		a->ops.thread_detach(a->instance);
	return NULL;
}

static void larson_run(struct alloclab_workload_thread *t)
{
	const uint64_t ops = t->params->v[P_OPS], generations = t->params->v[P_GENERATIONS];
	uint64_t done = 0;

	for (uint64_t gen = 0; gen < generations && t->error == NULL; gen++) {
		struct generation g = {t, ops / generations + (gen < ops % generations), 0,
				       t->seed + ALLOCLAB_GOLDEN_GAMMA * (gen + 1), NULL};
		pthread_t tid;
		if (pthread_create(&tid, NULL, generation_main, &g) != 0) {
			t->error = "larson: cannot start a new generation's thread";
			break;
		}
		pthread_join(tid, NULL);
		done += g.done;
		t->error = g.error;
	}
	t->ops = done;
}

static void larson_finish(struct alloclab_workload_thread *t)
{
	struct larson_shared *sh = t->shared;
	const size_t per = t->params->v[P_SLOTS];

	/* Once per process: where the pool's blocks of this thread's part lie
	 * (their sizes are not kept: placement is measured on their starts,
	 * one byte each). */
	if (t->last_value) {
		uintptr_t *addr = calloc(per, sizeof *addr);
		size_t *size = calloc(per, sizeof *size), n = 0;
		for (size_t i = t->index * per; addr && size && sh->slots && i < (t->index + 1) * per; i++)
			if (sh->slots[i]) {
				addr[n] = (uintptr_t)sh->slots[i];
				size[n++] = 1;
			}
		json_t *p = t->placement(t, addr, size, n);
		if (p)
			t->process_report = json_pack("{s:o}", "placement", p);
		free(addr);
		free(size);
	}
	for (size_t i = t->index * per; sh->slots && i < (t->index + 1) * per; i++) {
		alloclab_free(t->alloc, sh->slots[i]);
		sh->slots[i] = NULL;
	}
	t->sync(t); /* every thread, once: then the pool goes */
	if (t->index == 0) {
		free(sh->slots);
		sh->slots = NULL;
	}
}

/* The benchmark's own terms: operations per second, peak memory. */
static void larson_print_cell(const struct alloclab_cell *cell, FILE *out)
{
	mt_print_rate(cell, out, "operations");
}

static void larson_figures(const struct alloclab_cell *const *cells, size_t n, struct alloclab_figure_list *out)
{
	mt_figure_memory(cells, n, out, "larson");
}

const struct alloclab_workload alloclab_workload_larson = {
	.name = "larson",
	.description = "Larson & Krishnan's server simulation: a shared pool, remote frees, threads replaced",
	.unit_op = "free+malloc (a replacement in the shared pool)",
	.params = larson_params,
	.nparams = sizeof larson_params / sizeof larson_params[0],
	.flags = ALLOCLAB_WORKLOAD_CROSS_THREAD_FREE,
	.check_params = larson_check,
	.prepare = larson_prepare,
	.run = larson_run,
	.finish = larson_finish,
	.shared_size = sizeof(struct larson_shared),
	.check_report = alloclab_placement_check_report,
	.print_cell = larson_print_cell,
	.figures = larson_figures,
};
