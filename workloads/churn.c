/*
 * churn: each thread keeps `slots` live blocks and, `ops` times, replaces a
 * random slot with a new block of random size in [min_size, max_size],
 * writing its first and last byte. Sizes default to 1..512, obmalloc's
 * small-object range. One op = one free + one malloc. No block leaves its
 * thread. Deterministic for a seed: the host derives each thread's seed
 * from `seed` and the thread index.
 *
 * Once per process (the last value) it reports where the blocks live at
 * the end of the run fall on cache lines, through the framework's
 * placement service; the sizes are recovered untimed by replaying the
 * run's random numbers, so the timed loop stores nothing extra.
 */
#include "workload/workload.h"
#include "measure/placement.h"
#include "base/rng.h"

#include <stdio.h>
#include <stdlib.h>

enum { P_SLOTS, P_OPS, P_MIN_SIZE, P_MAX_SIZE, P_SEED };

static const struct alloclab_param churn_params[] = {
	[P_SLOTS] = {.name = "slots", .help = "live blocks per thread", .def = 4096, .min = 1, .max = 1u << 24},
	[P_OPS] = {.name = "ops", .help = "replacements per thread per value", .def = 1000000, .min = 1, .max = 1ull << 40},
	[P_MIN_SIZE] = {.name = "min_size", .help = "smallest request in bytes", .def = 1, .min = 0, .max = 1ull << 30},
	[P_MAX_SIZE] = {.name = "max_size", .help = "largest request in bytes", .def = 512, .min = 1, .max = 1ull << 30},
	[P_SEED] = {.name = "seed", .help = "random seed", .def = 1, .min = 0, .max = INT64_MAX,
		    .role = ALLOCLAB_ROLE_SEED},
};

struct churn_state {
	void **slots;
	uint32_t *sizes;            /* as prepared; brought up to date in finish */
	struct alloclab_rng rng;
	struct alloclab_rng rng_at_run; /* the state run() started from */
	uint64_t ran_ops;
	uint32_t nslots;
	uint32_t min_size;
	uint32_t size_span; /* max_size - min_size + 1 */
};

static int churn_check(const struct alloclab_params *p, char *err, size_t err_len)
{
	if (p->v[P_MIN_SIZE] > p->v[P_MAX_SIZE]) {
		snprintf(err, err_len, "workload 'churn': min_size=%llu is above max_size=%llu",
			 (unsigned long long)p->v[P_MIN_SIZE], (unsigned long long)p->v[P_MAX_SIZE]);
		return -1;
	}
	return 0;
}

static inline size_t churn_size(const struct churn_state *s, uint64_t r)
{
	return s->min_size + alloclab_rng_below((uint32_t)(r >> 32), s->size_span);
}

static inline void touch(unsigned char *block, size_t size)
{
	if (size) {
		block[0] = 1;
		block[size - 1] = 1;
	}
}

static int churn_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	struct churn_state *s = calloc(1, sizeof *s);

	if (s == NULL || (s->slots = calloc(t->params->v[P_SLOTS], sizeof *s->slots)) == NULL ||
	    (s->sizes = calloc(t->params->v[P_SLOTS], sizeof *s->sizes)) == NULL) {
		if (s)
			free(s->slots);
		free(s);
		snprintf(err, err_len, "churn: cannot allocate %llu slots", (unsigned long long)t->params->v[P_SLOTS]);
		return -1;
	}
	s->nslots = (uint32_t)t->params->v[P_SLOTS];
	s->min_size = (uint32_t)t->params->v[P_MIN_SIZE];
	s->size_span = (uint32_t)(t->params->v[P_MAX_SIZE] - t->params->v[P_MIN_SIZE] + 1);
	s->rng.state = t->seed;
	t->state = s;
	for (uint32_t i = 0; i < s->nslots; i++) {
		size_t size = churn_size(s, alloclab_rng_next(&s->rng));
		s->sizes[i] = (uint32_t)size;
		s->slots[i] = alloclab_malloc(t->alloc, size);
		if (s->slots[i] == NULL) {
			snprintf(err, err_len, "churn: malloc(%zu) returned NULL while filling slot %u", size, i);
			return -1;
		}
		touch(s->slots[i], size);
	}
	uint64_t bytes = 0;
	for (uint32_t i = 0; i < s->nslots; i++)
		bytes += s->sizes[i];
	alloclab_live_set(t, bytes, s->nslots);
	return 0;
}

/* The timed loop, made twice: through the plugin's ops, or through the
 * allocator's own entry points when the plugin hands them out (direct),
 * so that an op then costs what a program's call costs. Returns the
 * replacements made (fewer than ops when malloc returned NULL). */
static inline __attribute__((always_inline)) uint64_t churn_loop(struct churn_state *s,
								 const struct alloclab_allocator *a, uint64_t ops,
								 int direct)
{
	/* What the loop computes with is copied into locals: the ops are
	 * opaque calls, after which the compiler must assume any memory
	 * changed, so state left in *s would be stored and reloaded on every
	 * iteration (a store-to-load round trip on the RNG's dependency chain).
	 * The ops and the instance are read through the allocator on each
	 * call instead: x86 calls through memory in one instruction, and
	 * three more locals would not fit in the callee-saved registers (each
	 * spilled one costs a load per iteration). */
	void **const slots = s->slots;
	const uint32_t nslots = s->nslots, min_size = s->min_size, span = s->size_span;
	struct alloclab_rng rng = s->rng;
	uint64_t i;

	for (i = 0; i < ops; i++) {
		uint64_t r = alloclab_rng_next(&rng);
		uint32_t slot = alloclab_rng_below((uint32_t)r, nslots);
		size_t size = min_size + alloclab_rng_below((uint32_t)(r >> 32), span);
		unsigned char *block;

		if (direct) {
			a->direct_free(slots[slot]);
			block = a->direct_malloc(size);
		} else {
			a->ops.free(a->instance, slots[slot]);
			block = a->ops.malloc(a->instance, size);
		}
		slots[slot] = block;
		if (block == NULL)
			break;
		touch(block, size);
	}
	s->rng = rng;
	return i;
}

/* The loop in chunks of a paired slice (one chunk of every op when not
 * paired); between chunks the other plugins may run. */
static inline __attribute__((always_inline)) uint64_t churn_chunks(struct alloclab_workload_thread *t,
								   struct churn_state *s, uint64_t ops, int direct)
{
	uint64_t done = 0;
	while (done < ops) {
		uint64_t n = alloclab_slice_room(t, ops - done), made = churn_loop(s, t->alloc, n, direct);
		done += made;
		if (made < n)
			break;
		alloclab_slice_ops(t, (int64_t)n);
	}
	return done;
}

static void churn_run(struct alloclab_workload_thread *t)
{
	struct churn_state *s = t->state;
	const uint64_t ops = t->params->v[P_OPS];
	uint64_t done;

	s->rng_at_run = s->rng;
	done = t->alloc->direct_malloc ? churn_chunks(t, s, ops, 1) : churn_chunks(t, s, ops, 0);
	if (done < ops)
		t->error = "churn: malloc returned NULL";
	s->ran_ops = done;
	t->ops = done;
}

/* The live blocks' sizes at the end of the run, replayed from the run's
 * random numbers (the same draws, in the same order), untimed, so that
 * the timed loop stores nothing extra. */
static void churn_replay_sizes(struct churn_state *s)
{
	struct alloclab_rng rng = s->rng_at_run;
	for (uint64_t i = 0; i < s->ran_ops; i++) {
		uint64_t r = alloclab_rng_next(&rng);
		uint32_t slot = alloclab_rng_below((uint32_t)r, s->nslots);
		s->sizes[slot] = (uint32_t)churn_size(s, r);
	}
	s->ran_ops = 0;
}

/* Every live block still carries the 1 the run wrote at both its ends
 * (the sizes replayed here, as finish would: finish then has nothing to
 * replay). */
static int churn_check_blocks(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	struct churn_state *s = t->state;
	if (s == NULL)
		return 0;
	churn_replay_sizes(s);
	for (uint32_t i = 0; i < s->nslots; i++) {
		const unsigned char *b = s->slots[i];
		size_t end = s->sizes[i] ? s->sizes[i] - 1 : 0;
		if (b && s->sizes[i] && (b[0] != 1 || b[end] != 1)) {
			snprintf(err, err_len, "churn: slot %u's %s byte is 0x%02x, where the workload wrote 0x01", i,
				 b[0] != 1 ? "first" : "last", b[0] != 1 ? b[0] : b[end]);
			return -1;
		}
	}
	return 0;
}

/* The live blocks' placement. */
static json_t *churn_placement(struct alloclab_workload_thread *t, struct churn_state *s)
{
	uintptr_t *addr = malloc(s->nslots * sizeof *addr);
	size_t *size = malloc(s->nslots * sizeof *size), n = 0;
	json_t *report;

	for (uint32_t i = 0; addr && size && i < s->nslots; i++)
		if (s->slots[i]) {
			addr[n] = (uintptr_t)s->slots[i];
			size[n++] = s->sizes[i];
		}
	report = t->placement(t, addr, size, n);
	free(addr);
	free(size);
	return report;
}

static void churn_finish(struct alloclab_workload_thread *t)
{
	struct churn_state *s = t->state;

	if (s == NULL)
		return;
	churn_replay_sizes(s);
	uint64_t bytes = 0, blocks = 0;
	for (uint32_t i = 0; i < s->nslots; i++)
		if (s->slots[i])
			bytes += s->sizes[i], blocks++;
	alloclab_live_end(t, bytes);
	alloclab_live_set(t, bytes, blocks);
	if (t->last_value) {
		json_t *placement = churn_placement(t, s);
		if (placement)
			t->process_report = json_pack("{s:o}", "placement", placement);
	}
	for (uint32_t i = 0; i < s->nslots; i++)
		alloclab_free(t->alloc, s->slots[i]);
	alloclab_live_set(t, 0, 0);
	free(s->slots);
	free(s->sizes);
	free(s);
	t->state = NULL;
}

const struct alloclab_workload alloclab_workload_churn = {
	.name = "churn",
	.description = "replace a random live block with a new one of random size, per thread",
	.unit_op = "free+malloc",
	.params = churn_params,
	.nparams = sizeof churn_params / sizeof churn_params[0],
	.flags = ALLOCLAB_WORKLOAD_SLICES,
	.check_params = churn_check,
	.prepare = churn_prepare,
	.run = churn_run,
	.finish = churn_finish,
	.check_report = alloclab_placement_check_report,
	.check_blocks = churn_check_blocks,
};
