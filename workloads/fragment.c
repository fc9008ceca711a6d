/*
 * fragment: the fragmentation that Mesh's and Hoard's evaluations measure.
 * Each thread, in each value's run:
 *   1. builds a heap of `blocks` blocks of random sizes in [min_size,
 *      max_size];
 *   2. frees all but about `keep` per mille of them, chosen at random:
 *      sparse survivors scattered over the pages the heap took;
 *   3. allocates blocks of other sizes, in [second_min, second_max], until
 *      it holds again as many bytes as before step 2.
 * What the allocator does with the holes decides the resident set: reused
 * for the new sizes, it stays near the first heap's; kept per size class,
 * it grows by what was freed. The figures are the memory section's
 * (docs/guides/memory.md): resident over requested-live at the end of the run and
 * at the peak. The workload keeps its live counters as it goes, so the
 * timeline has what it holds at every sample. One op is one malloc or one
 * free.
 */
#include "workload/workload.h"
#include "base/rng.h"

#include <stdio.h>
#include <stdlib.h>

enum { P_BLOCKS, P_MIN, P_MAX, P_KEEP, P_SECOND_MIN, P_SECOND_MAX, P_SEED };

static const struct alloclab_param fragment_params[] = {
	[P_BLOCKS] = {.name = "blocks", .help = "blocks of the first heap, per thread", .def = 200000, .min = 1,
		      .max = 1u << 26},
	[P_MIN] = {.name = "min_size", .help = "smallest block of the first heap, bytes", .def = 16, .min = 1,
		   .max = 1u << 30},
	[P_MAX] = {.name = "max_size", .help = "largest block of the first heap, bytes", .def = 256, .min = 1,
		   .max = 1u << 30},
	[P_KEEP] = {.name = "keep", .help = "per mille of the first heap's blocks that survive", .def = 50, .min = 0,
		    .max = 1000},
	[P_SECOND_MIN] = {.name = "second_min", .help = "smallest block allocated after the frees, bytes", .def = 512,
			  .min = 1, .max = 1u << 30},
	[P_SECOND_MAX] = {.name = "second_max", .help = "largest block allocated after the frees, bytes", .def = 2048,
			  .min = 1, .max = 1u << 30},
	[P_SEED] = {.name = "seed", .help = "random seed", .def = 1, .min = 0, .max = INT64_MAX, .role = ALLOCLAB_ROLE_SEED},
};

struct fragment_state {
	unsigned char **first;  /* the first heap; NULL where freed */
	size_t *first_size;
	unsigned char **second; /* the blocks of step 3 */
	size_t nsecond, second_cap;
	struct alloclab_rng rng;
};

static int fragment_check(const struct alloclab_params *p, char *err, size_t err_len)
{
	if (p->v[P_MIN] > p->v[P_MAX] || p->v[P_SECOND_MIN] > p->v[P_SECOND_MAX]) {
		snprintf(err, err_len, "workload 'fragment': a min_size is above its max_size");
		return -1;
	}
	return 0;
}

static size_t draw(struct alloclab_rng *rng, uint64_t min, uint64_t max)
{
	return (size_t)(min + alloclab_rng_next(rng) % (max - min + 1));
}

static int fragment_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	struct fragment_state *s = calloc(1, sizeof *s);
	size_t n = t->params->v[P_BLOCKS];

	if (s == NULL || (s->first = calloc(n, sizeof *s->first)) == NULL ||
	    (s->first_size = calloc(n, sizeof *s->first_size)) == NULL) {
		if (s)
			free(s->first);
		free(s);
		snprintf(err, err_len, "fragment: cannot allocate room for %zu blocks", n);
		return -1;
	}
	s->rng.state = t->seed;
	t->state = s;
	return 0;
}

/* In chunks of a paired slice (each phase one chunk when not paired):
 * budget is how many operations the chunk may still do. */
static void fragment_run(struct alloclab_workload_thread *t)
{
	struct fragment_state *s = t->state;
	const struct alloclab_params *p = t->params;
	const size_t n = p->v[P_BLOCKS];
	uint64_t ops = 0, freed = 0, refilled = 0;
	size_t i = 0;

	s->nsecond = 0;
	while (i < n) {
		const uint64_t chunk = alloclab_slice_room(t, n - i), stop = i + chunk;
		for (; i < stop; i++, ops++) {
			size_t size = draw(&s->rng, p->v[P_MIN], p->v[P_MAX]);
			unsigned char *b = alloclab_malloc(t->alloc, size);
			if (b == NULL) {
				t->error = "fragment: malloc returned NULL while building the heap";
				t->ops = ops;
				return;
			}
			b[0] = b[size - 1] = 1;
			s->first[i] = b;
			s->first_size[i] = size;
			alloclab_live_add(t, (int64_t)size, 1);
		}
		alloclab_slice_ops(t, (int64_t)chunk);
	}
	/* The first heap whole: the most held unless the refill outgrows it. */
	uint64_t most = __atomic_load_n((uint64_t *)&t->live->bytes, __ATOMIC_RELAXED);
	for (i = 0; i < n;) {
		const uint64_t chunk = alloclab_slice_room(t, n - i);
		uint64_t budget = chunk;
		for (; i < n && budget; i++) {
			if (alloclab_rng_next(&s->rng) % 1000 < p->v[P_KEEP])
				continue;
			alloclab_free(t->alloc, s->first[i]);
			freed += s->first_size[i];
			alloclab_live_add(t, -(int64_t)s->first_size[i], -1);
			s->first[i] = NULL;
			budget--;
		}
		ops += chunk - budget;
		alloclab_slice_ops(t, (int64_t)(chunk - budget));
	}
	while (refilled < freed) {
		const uint64_t chunk = alloclab_slice_room(t, UINT64_MAX);
		uint64_t budget = chunk;
		for (; refilled < freed && budget; budget--) {
			size_t size = draw(&s->rng, p->v[P_SECOND_MIN], p->v[P_SECOND_MAX]);
			if (s->nsecond == s->second_cap) {
				size_t cap = s->second_cap ? s->second_cap * 2 : 1024;
				unsigned char **grown = realloc(s->second, cap * sizeof *grown);
				if (grown == NULL) {
					t->error = "fragment: out of memory for its own bookkeeping";
					goto out;
				}
				s->second = grown;
				s->second_cap = cap;
			}
			unsigned char *b = alloclab_malloc(t->alloc, size);
			if (b == NULL) {
				t->error = "fragment: malloc returned NULL while refilling";
				goto out;
			}
			b[0] = b[size - 1] = 2;
			s->second[s->nsecond++] = b;
			refilled += size;
			alloclab_live_add(t, (int64_t)size, 1);
			ops++;
		}
		alloclab_slice_ops(t, (int64_t)(chunk - budget));
	}
out:;
	const uint64_t end = __atomic_load_n((uint64_t *)&t->live->bytes, __ATOMIC_RELAXED);
	alloclab_live_end(t, end);
	alloclab_live_peak(t, end > most ? end : most);
	t->ops = ops;
}

/* The blocks still live carry what the run wrote: 1 at both ends of a
 * first-heap survivor, 2 at the start of a refill block. */
static int fragment_check_blocks(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	const struct fragment_state *s = t->state;
	if (s == NULL)
		return 0;
	for (size_t i = 0; i < t->params->v[P_BLOCKS]; i++) {
		const unsigned char *b = s->first[i];
		size_t end = s->first_size[i] - 1;
		if (b && (b[0] != 1 || b[end] != 1)) {
			snprintf(err, err_len, "fragment: block %zu's %s byte is 0x%02x, where the workload wrote 0x01", i,
				 b[0] != 1 ? "first" : "last", b[0] != 1 ? b[0] : b[end]);
			return -1;
		}
	}
	for (size_t i = 0; i < s->nsecond; i++)
		if (s->second[i][0] != 2) {
			snprintf(err, err_len, "fragment: refill block %zu's first byte is 0x%02x, where the workload wrote 0x02",
				 i, s->second[i][0]);
			return -1;
		}
	return 0;
}

static void fragment_finish(struct alloclab_workload_thread *t)
{
	struct fragment_state *s = t->state;
	if (s == NULL)
		return;
	for (size_t i = 0; i < t->params->v[P_BLOCKS]; i++)
		if (s->first[i])
			alloclab_free(t->alloc, s->first[i]);
	for (size_t i = 0; i < s->nsecond; i++)
		alloclab_free(t->alloc, s->second[i]);
	alloclab_live_set(t, 0, 0);
	free(s->first);
	free(s->first_size);
	free(s->second);
	free(s);
	t->state = NULL;
}

const struct alloclab_workload alloclab_workload_fragment = {
	.name = "fragment",
	.description = "build a heap, free most of it leaving sparse survivors, refill with other sizes (fragmentation)",
	.unit_op = "malloc or free",
	.params = fragment_params,
	.nparams = sizeof fragment_params / sizeof fragment_params[0],
	.check_params = fragment_check,
	.flags = ALLOCLAB_WORKLOAD_SLICES,
	.prepare = fragment_prepare,
	.run = fragment_run,
	.finish = fragment_finish,
	.check_blocks = fragment_check_blocks,
};
