/*
 * steady: a long-running server's steady state. Each thread, step after
 * step, allocates one object of a size drawn uniformly in [min_size,
 * max_size] with a lifetime drawn from an exponential distribution of mean
 * `lifetime` steps, and frees the objects whose time has come (a heap
 * ordered by death). After about `lifetime` steps the population is
 * stable around `lifetime` objects; what the resident set does from then
 * on (stays, creeps, grows) is the figure: the memory timeline's
 * (docs/guides/memory.md), with the live bytes beside it at every sample. One op
 * is one step (a malloc and, on average, one free). The population lives
 * on from value to value, as a server's does; finish frees it after the
 * last value.
 */
#include "workload/workload.h"
#include "base/rng.h"
#include "worker/worker.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { P_STEPS, P_LIFETIME, P_MIN, P_MAX, P_SEED };

static const struct alloclab_param steady_params[] = {
	[P_STEPS] = {.name = "steps", .help = "steps per thread per value", .def = 2000000, .min = 1, .max = 1ull << 40},
	[P_LIFETIME] = {.name = "lifetime", .help = "mean lifetime of an object, in steps", .def = 20000, .min = 1,
			.max = 1u << 26},
	[P_MIN] = {.name = "min_size", .help = "smallest object, bytes", .def = 16, .min = 1, .max = 1u << 30},
	[P_MAX] = {.name = "max_size", .help = "largest object, bytes", .def = 1024, .min = 1, .max = 1u << 30},
	[P_SEED] = {.name = "seed", .help = "random seed", .def = 1, .min = 0, .max = INT64_MAX, .role = ALLOCLAB_ROLE_SEED},
};

struct object {
	uint64_t death;
	unsigned char *block;
	size_t size;
};

/* A thread's population: a binary min-heap on death. Kept from value to
 * value (the state lives in a per-thread slot of shared). */
struct population {
	struct object *heap;
	size_t n, cap;
	uint64_t now;
	struct alloclab_rng rng;
	int seeded;
};

struct steady_shared {
	struct population pop[ALLOCLAB_MAX_THREADS]; /* by thread index */
};

static int steady_check(const struct alloclab_params *p, char *err, size_t err_len)
{
	if (p->v[P_MIN] > p->v[P_MAX]) {
		snprintf(err, err_len, "workload 'steady': min_size is above max_size");
		return -1;
	}
	return 0;
}

static void push(struct population *p, struct object o)
{
	size_t i = p->n++;
	while (i > 0 && p->heap[(i - 1) / 2].death > o.death) {
		p->heap[i] = p->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	p->heap[i] = o;
}

static struct object pop_min(struct population *p)
{
	struct object top = p->heap[0], last = p->heap[--p->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= p->n)
			break;
		if (c + 1 < p->n && p->heap[c + 1].death < p->heap[c].death)
			c++;
		if (p->heap[c].death >= last.death)
			break;
		p->heap[i] = p->heap[c];
		i = c;
	}
	if (p->n)
		p->heap[i] = last;
	return top;
}

static int steady_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	struct steady_shared *sh = t->shared;
	if (t->index >= sizeof sh->pop / sizeof sh->pop[0]) {
		snprintf(err, err_len, "steady: at most %zu threads", sizeof sh->pop / sizeof sh->pop[0]);
		return -1;
	}
	struct population *p = &sh->pop[t->index];
	if (!p->seeded) {
		p->rng.state = t->seed;
		p->seeded = 1;
	}
	t->state = p;
	return 0;
}

/* In chunks of a paired slice (one chunk when not paired). */
static void steady_run(struct alloclab_workload_thread *t)
{
	struct population *p = t->state;
	const struct alloclab_params *par = t->params;
	const uint64_t steps = par->v[P_STEPS], span = par->v[P_MAX] - par->v[P_MIN] + 1;
	const double mean = (double)par->v[P_LIFETIME];
	uint64_t live = __atomic_load_n((uint64_t *)&t->live->bytes, __ATOMIC_RELAXED), most = live;
	uint64_t i;

	for (i = 0; i < steps;) {
		const uint64_t chunk = alloclab_slice_room(t, steps - i), stop = i + chunk;
		for (; i < stop; i++) {
			p->now++;
			while (p->n && p->heap[0].death <= p->now) {
				struct object o = pop_min(p);
				alloclab_free(t->alloc, o.block);
				live -= o.size;
				alloclab_live_set(t, live, p->n);
			}
			uint64_t r = alloclab_rng_next(&p->rng);
			size_t size = (size_t)(par->v[P_MIN] + (r >> 32) % span);
			/* An exponential lifetime from the low 32 bits (never 0). */
			double u = ((double)(uint32_t)r + 1) / 4294967297.0;
			uint64_t life = (uint64_t)(-log(u) * mean) + 1;
			if (p->n == p->cap) {
				size_t cap = p->cap ? p->cap * 2 : 4096;
				struct object *grown = realloc(p->heap, cap * sizeof *grown);
				if (grown == NULL) {
					t->error = "steady: out of memory for its own bookkeeping";
					goto out;
				}
				p->heap = grown;
				p->cap = cap;
			}
			unsigned char *b = alloclab_malloc(t->alloc, size);
			if (b == NULL) {
				t->error = "steady: malloc returned NULL";
				goto out;
			}
			b[0] = b[size - 1] = 1;
			push(p, (struct object){p->now + life, b, size});
			live += size;
			most = live > most ? live : most;
			alloclab_live_set(t, live, p->n);
		}
		alloclab_slice_ops(t, (int64_t)chunk);
	}
out:
	alloclab_live_end(t, live);
	alloclab_live_peak(t, most);
	t->ops = i;
}

/* Every object alive carries the 1 the run wrote at both its ends. */
static int steady_check_blocks(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	const struct population *p = t->state;
	for (size_t k = 0; p && k < p->n; k++) {
		const struct object *o = &p->heap[k];
		if (o->block[0] != 1 || o->block[o->size - 1] != 1) {
			snprintf(err, err_len, "steady: a live object's %s byte is 0x%02x, where the workload wrote 0x01",
				 o->block[0] != 1 ? "first" : "last", o->block[0] != 1 ? o->block[0] : o->block[o->size - 1]);
			return -1;
		}
	}
	return 0;
}

static void steady_finish(struct alloclab_workload_thread *t)
{
	struct population *p = t->state;
	if (p == NULL)
		return;
	/* The population lives on to the next value; after the last it goes. */
	if (t->last_value) {
		while (p->n) {
			struct object o = pop_min(p);
			alloclab_free(t->alloc, o.block);
		}
		free(p->heap);
		*p = (struct population){0};
		alloclab_live_set(t, 0, 0);
	}
	t->state = NULL;
}

const struct alloclab_workload alloclab_workload_steady = {
	.name = "steady",
	.description = "a server's steady state: objects with exponential lifetimes; the resident set's drift",
	.unit_op = "step (malloc + frees due)",
	.params = steady_params,
	.nparams = sizeof steady_params / sizeof steady_params[0],
	.check_params = steady_check,
	.flags = ALLOCLAB_WORKLOAD_SLICES,
	.prepare = steady_prepare,
	.run = steady_run,
	.finish = steady_finish,
	.check_blocks = steady_check_blocks,
	.shared_size = sizeof(struct steady_shared),
	/* One process's population is one server's: more values, not more
	 * processes, show its drift. */
	.default_values = 5,
};
