/*
 * larson (Larson and Krishnan, "Memory allocation for long-running server
 * applications", ISMM 1998, as mimalloc-bench runs it: `larson 5 8 1000
 * 5000 100 4141 N`): a server simulation. Each thread owns `slots` blocks
 * and, again and again, frees a random one of its own and allocates a new
 * one of random size in [min_size, max_size) in its place, writing its
 * first two bytes. The main thread made every block to begin with (thread
 * 0 here, before the value, untimed: all of them, shuffled, then four
 * replacements a block at random over the whole pool), so a thread's first
 * frees are of blocks another thread allocated. After `rounds` x `slots`
 * replacements a thread retires and a new one takes over its blocks, as a
 * server's threads are replaced: the blocks a retired thread allocated are
 * freed by its successor. One op is one replacement (a free and a malloc).
 * The original runs for a time; a value here is `ops` replacements a
 * thread.
 */
#include "measure/placement.h"
#include "memory/resident.h"
#include "worker/worker.h"
#include "base/rng.h"
#include "helpers/mt_report.h"
#include "workload/workload.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

enum { P_SLOTS, P_OPS, P_MIN_SIZE, P_MAX_SIZE, P_ROUNDS, P_SEED };

static const struct alloclab_param larson_params[] = {
	[P_SLOTS] = {.name = "slots", .help = "blocks each thread owns (the original's chunks per thread)", .def = 5000,
		     .min = 1, .max = 1u << 22},
	[P_OPS] = {.name = "ops", .help = "replacements per thread per value", .def = 1000000, .min = 1,
		   .max = 1ull << 36},
	[P_MIN_SIZE] = {.name = "min_size", .help = "smallest request in bytes", .def = 8, .min = 1, .max = 1u << 24},
	[P_MAX_SIZE] = {.name = "max_size", .help = "requests are below this, in bytes (as the original's)", .def = 1000,
			.min = 2, .max = 1u << 24},
	[P_ROUNDS] = {.name = "rounds",
		      .help = "a thread retires after rounds x slots replacements, a new one taking its blocks over",
		      .def = 100, .min = 1, .max = 1u << 20},
	[P_SEED] = {.name = "seed", .help = "random seed", .def = 1, .max = INT64_MAX, .role = ALLOCLAB_ROLE_SEED},
};

struct larson_shared {
	void **slots; /* nthreads x slots: thread i owns [i x slots, (i + 1) x slots) */
	/* The requested size of each slot's block, as of the end of prepare
	 * and, once finish has replayed the run's steps untimed, of the end
	 * of run: what the workload holds (workload.h, alloclab_live). */
	uint32_t *sizes;
	size_t nslots;
	uint64_t done[ALLOCLAB_MAX_THREADS]; /* each thread's replacements in the value */
	int failed;
};

static int larson_check(const struct alloclab_params *p, char *err, size_t err_len)
{
	if (p->v[P_MIN_SIZE] >= p->v[P_MAX_SIZE]) {
		snprintf(err, err_len, "workload 'larson': min_size=%llu is not below max_size=%llu",
			 (unsigned long long)p->v[P_MIN_SIZE], (unsigned long long)p->v[P_MAX_SIZE]);
		return -1;
	}
	return 0;
}

static size_t request(const struct alloclab_params *p, uint64_t r)
{
	const uint64_t min = p->v[P_MIN_SIZE];
	return min + alloclab_rng_below((uint32_t)r, (uint32_t)(p->v[P_MAX_SIZE] - min));
}

/* One replacement of a generation: which of the thread's `per` blocks
 * goes, and the size of the one that takes its place. The timed loop and
 * finish's untimed count of what it left take the very same steps. */
static inline __attribute__((always_inline)) uint32_t next_replacement(struct alloclab_rng *rng,
									const struct alloclab_params *p, uint32_t per,
									size_t *size)
{
	uint64_t r = alloclab_rng_next(rng);
	*size = request(p, r);
	return alloclab_rng_below((uint32_t)(r >> 32), per);
}

/* The seed of a thread's generation `gen` (from 0). */
static uint64_t generation_seed(const struct alloclab_workload_thread *t, uint64_t gen)
{
	return t->seed + ALLOCLAB_GOLDEN_GAMMA * (gen + 1);
}

/* As the original's main thread: every block made, shuffled, and four
 * replacements a block at random over the whole pool. */
static int warm_up(struct alloclab_workload_thread *t, struct larson_shared *sh, char *err, size_t err_len)
{
	struct alloclab_rng rng = {t->seed ^ ALLOCLAB_STREAM_LARSON_SIZES};
	const uint32_t n = (uint32_t)sh->nslots;

	for (size_t i = 0; i < sh->nslots; i++) {
		size_t size = request(t->params, alloclab_rng_next(&rng));
		if ((sh->slots[i] = alloclab_malloc(t->alloc, size)) == NULL) {
			snprintf(err, err_len, "larson: malloc(%zu) returned NULL filling the pool", size);
			return -1;
		}
		sh->sizes[i] = (uint32_t)size;
	}
	for (uint32_t i = n; i > 1; i--) {
		uint32_t k = alloclab_rng_below((uint32_t)alloclab_rng_next(&rng), i);
		void *tmp = sh->slots[k];
		uint32_t tmp_size = sh->sizes[k];
		sh->slots[k] = sh->slots[i - 1];
		sh->sizes[k] = sh->sizes[i - 1];
		sh->slots[i - 1] = tmp;
		sh->sizes[i - 1] = tmp_size;
	}
	for (uint64_t i = 0; i < 4ull * n; i++) {
		uint64_t r = alloclab_rng_next(&rng);
		uint32_t victim = alloclab_rng_below((uint32_t)(r >> 32), n);
		alloclab_free(t->alloc, sh->slots[victim]);
		size_t size = request(t->params, r);
		if ((sh->slots[victim] = alloclab_malloc(t->alloc, size)) == NULL) {
			snprintf(err, err_len, "larson: malloc(%zu) returned NULL warming up", size);
			return -1;
		}
		sh->sizes[victim] = (uint32_t)size;
	}
	return 0;
}

static int larson_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	struct larson_shared *sh = t->shared;
	char why[ALLOCLAB_ERR_LEN] = "";

	if (t->index == 0) {
		sh->nslots = t->params->v[P_SLOTS] * t->nthreads;
		sh->slots = calloc(sh->nslots, sizeof *sh->slots);
		sh->sizes = calloc(sh->nslots, sizeof *sh->sizes);
		sh->failed = sh->slots == NULL || sh->sizes == NULL;
		if (sh->failed)
			snprintf(why, sizeof why, "larson: cannot hold %zu slots", sh->nslots);
		else if (warm_up(t, sh, why, sizeof why) != 0)
			sh->failed = 1;
	}
	t->sync(t); /* every thread, once: the pool is made from here */
	if (sh->failed) {
		snprintf(err, err_len, "%s", why[0] ? why : "larson: thread 0 could not make the pool");
		return -1;
	}
	const size_t per = t->params->v[P_SLOTS];
	uint64_t held = 0;
	for (size_t i = t->index * per; i < (t->index + 1) * per; i++)
		held += sh->sizes[i];
	alloclab_live_set(t, held, per);
	return 0;
}

/* What this thread's part of the pool holds once its generations have
 * run `done` replacements: their steps taken again, untimed, on the sizes
 * alone; the most it held on the way goes with it. */
static uint64_t held_after_run(struct alloclab_workload_thread *t, struct larson_shared *sh, uint64_t done,
			       uint64_t *most)
{
	const uint32_t per = (uint32_t)t->params->v[P_SLOTS];
	const uint64_t life = t->params->v[P_ROUNDS] * t->params->v[P_SLOTS];
	uint32_t *sizes = sh->sizes + (size_t)t->index * per;
	uint64_t held = 0;

	for (uint32_t i = 0; i < per; i++)
		held += sizes[i];
	*most = held;
	for (uint64_t gen = 0, replayed = 0; replayed < done; gen++) {
		struct alloclab_rng rng = {generation_seed(t, gen)};
		uint64_t n = done - replayed < life ? done - replayed : life;
		for (uint64_t i = 0; i < n; i++) {
			size_t size;
			uint32_t victim = next_replacement(&rng, t->params, per, &size);
			held += size - sizes[victim];
			sizes[victim] = (uint32_t)size;
			*most = held > *most ? held : *most;
		}
		replayed += n;
	}
	return held;
}

/* One generation: a thread of its own, attached to the plugin as any
 * thread that allocates is, replacing blocks among the framework thread's
 * own until it retires. */
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
	const uint32_t per = (uint32_t)t->params->v[P_SLOTS];
	void **mine = sh->slots + (size_t)t->index * per;
	struct alloclab_rng rng = {g->seed};
	uint64_t i;

	if (a->ops.thread_attach && a->ops.thread_attach(a->instance) != 0) {
		g->error = "larson: thread_attach failed for a new generation";
		return NULL;
	}
	for (i = 0; i < g->ops; i++) {
		size_t size;
		uint32_t victim = next_replacement(&rng, t->params, per, &size);
		/* Made by thread 0, a predecessor, or this thread. */
		a->ops.free(a->instance, mine[victim]);
		volatile char *b = mine[victim] = a->ops.malloc(a->instance, size);
		if (b == NULL) {
			g->error = "larson: malloc returned NULL";
			break;
		}
		b[0] = 'a';
		(void)b[0];
		b[1 < size ? 1 : 0] = 'b';
	}
	g->done = i;
	if (a->ops.thread_detach)
		a->ops.thread_detach(a->instance);
	return NULL;
}

static void larson_run(struct alloclab_workload_thread *t)
{
	const uint64_t ops = t->params->v[P_OPS], life = t->params->v[P_ROUNDS] * t->params->v[P_SLOTS];
	uint64_t done = 0;

	for (uint64_t gen = 0; done < ops && t->error == NULL; gen++) {
		struct generation g = {t, ops - done < life ? ops - done : life, 0, generation_seed(t, gen), NULL};
		pthread_t tid;
		if (pthread_create(&tid, NULL, generation_main, &g) != 0) {
			t->error = "larson: cannot start a new generation's thread";
			break;
		}
		pthread_join(tid, NULL);
		done += g.done;
		t->error = g.error;
		if (g.done < g.ops)
			break;
	}
	t->ops = done;
	((struct larson_shared *)t->shared)->done[t->index] = done;
}

static void larson_finish(struct alloclab_workload_thread *t)
{
	struct larson_shared *sh = t->shared;
	const size_t per = t->params->v[P_SLOTS];

	if (sh->slots) {
		uint64_t most;
		alloclab_live_end(t, held_after_run(t, sh, sh->done[t->index], &most));
		alloclab_live_peak(t, most);
	}
	/* Once per process: where this thread's blocks lie (their sizes are
	 * not kept: placement is measured on their starts, one byte each). */
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
	alloclab_live_set(t, 0, 0);
	t->sync(t); /* every thread, once: then the pool goes */
	if (t->index == 0) {
		/* The workload's own tables, not the plugin's (resident). */
		alloclab_live_own(t, alloclab_resident_bytes(sh->slots, sh->nslots * sizeof *sh->slots) +
					     alloclab_resident_bytes(sh->sizes, sh->nslots * sizeof *sh->sizes));
		free(sh->slots);
		free(sh->sizes);
		sh->slots = NULL;
		sh->sizes = NULL;
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
	.description = "Larson & Krishnan's server simulation: blocks of another thread's freed, threads replaced",
	.unit_op = "free+malloc (a replacement among the thread's blocks)",
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
