/*
 * The alloclab plugin around the obmalloc core: options, the three thread
 * modes, and statistics. Built twice, once per variant (radix.c or
 * bigpool.c), which supplies the plugin's name.
 *
 * Modes (obmalloc itself is not thread-safe; CPython calls it under the GIL):
 *   none        no locking; declares no thread-safety, so the host runs it
 *               with one thread. The cost of the algorithm alone.
 *   gil         one process-wide mutex around every call: CPython with a GIL.
 *   per-thread  each thread gets its own state on thread_attach: CPython
 *               3.12's per-interpreter obmalloc (PEP 684). Blocks must not
 *               cross threads: a free or realloc of a block that another
 *               thread's state owns is detected (a registry of every
 *               state's arenas) and refused: the block is left alone (leaked,
 *               never corrupted), realloc returns NULL, and the refusal is
 *               counted in the errors.foreign_free statistic. The instance
 *               does not declare cross-thread-free, so the host reports
 *               workloads that free across threads as not applicable.
 */
#define _GNU_SOURCE 1
#include "obmalloc.h"

#include <alloclab/plugin.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct registry_entry {
	uintptr_t base, end;
	struct obm_state *owner;
};

struct instance {
	struct obm_config cfg;
	struct obm_class classes[OBM_NCLASSES];

	/* per-thread mode: every state (attached threads', and detached ones
	 * that still had live blocks) and every arena, under registry_lock. */
	pthread_mutex_t registry_lock;
	struct obm_state **states;
	size_t nstates, states_cap;
	struct registry_entry *arenas;       /* sorted by base */
	size_t narenas, arenas_cap;
	atomic_ullong foreign_frees;
};

/* The ABI promises one instance per loaded file, and CPython's obmalloc
 * keeps its state in static objects (usedpools, the arena map): so does
 * this plugin (a private copy of the file is a second allocator: it
 * declares ALLOCLAB_CAP_OWN_STATE), in modes none and gil, so that the hot paths address it
 * directly. the_instance is the live instance (NULL between instances). */
static struct obm_state global_state;
static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER; /* mode gil */
static struct instance *the_instance;

/* The front door, CPython's PyObject_Malloc and PyObject_Free: a program
 * calls them, and they call the object domain's allocator through its
 * structure (PyMemAllocatorEx: ctx and functions). Here the allocator is
 * the instance's domain functions, chosen at create for its mode and
 * sizes (entries.h). The plugin's entry points are the front door, so a
 * program calling this plugin pays the indirection a program calling
 * CPython's obmalloc pays; its ops are the domain functions' callers,
 * so the python workload, which installs the ops as CPython's object
 * domain, pays CPython's own front door and this one jump. */
static struct {
	void *ctx;
	void *(*malloc)(void *ctx, size_t n);
	void (*free)(void *ctx, void *p);
} front;

/* initial-exec: one %fs-relative load on every call; alloclab reserves
 * static TLS for plugins. */
static __thread struct obm_state *thread_state __attribute__((tls_model("initial-exec")));

/* ---- per-thread mode: states and the arena registry ---- */

static void registry_hook(struct obm_state *st, uintptr_t base, size_t size, int added);

static struct obm_state *state_new(struct instance *in)
{
	struct obm_state *st = calloc(1, sizeof *st);

	if (st == NULL || obm_state_init(st, &in->cfg, in->classes) != 0) {
		free(st);
		return NULL;
	}
	st->arena_hook = registry_hook;
	st->hook_arg = in;
	pthread_mutex_lock(&in->registry_lock);
	if (in->nstates == in->states_cap) {
		size_t cap = in->states_cap ? in->states_cap * 2 : 8;
		struct obm_state **v = realloc(in->states, cap * sizeof *v);
		if (v == NULL) {
			pthread_mutex_unlock(&in->registry_lock);
			obm_state_fini(st);
			free(st);
			return NULL;
		}
		in->states = v;
		in->states_cap = cap;
	}
	in->states[in->nstates++] = st;
	pthread_mutex_unlock(&in->registry_lock);
	return st;
}

static void state_delete(struct instance *in, struct obm_state *st)
{
	pthread_mutex_lock(&in->registry_lock);
	for (size_t i = 0; i < in->nstates; i++)
		if (in->states[i] == st) {
			in->states[i] = in->states[--in->nstates];
			break;
		}
	pthread_mutex_unlock(&in->registry_lock);
	obm_state_fini(st);
	free(st);
}

static int registry_grow(struct instance *in)
{
	size_t cap = in->arenas_cap ? in->arenas_cap * 2 : 64;
	struct registry_entry *v = realloc(in->arenas, cap * sizeof *v);

	if (v == NULL)
		return -1;
	in->arenas = v;
	in->arenas_cap = cap;
	return 0;
}

static size_t registry_search(const struct instance *in, uintptr_t p)
{
	size_t lo = 0, hi = in->narenas;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (in->arenas[mid].base <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo; /* first entry with base > p */
}

/* The states' arena hook: keeps the registry of every state's arenas. */
static void registry_hook(struct obm_state *st, uintptr_t base, size_t size, int added)
{
	struct instance *in = st->hook_arg;
	size_t at;

	pthread_mutex_lock(&in->registry_lock);
	at = registry_search(in, base);
	if (!added) {
		if (at > 0 && in->arenas[at - 1].base == base) {
			memmove(&in->arenas[at - 1], &in->arenas[at], (in->narenas - at) * sizeof *in->arenas);
			in->narenas--;
		}
	} else if (in->narenas < in->arenas_cap || registry_grow(in) == 0) {
		memmove(&in->arenas[at + 1], &in->arenas[at], (in->narenas - at) * sizeof *in->arenas);
		in->arenas[at] = (struct registry_entry){base, base + size, st};
		in->narenas++;
	}
	/* (An arena the registry could not take only weakens foreign-free
	 * detection for its blocks; it never breaks allocation.) */
	pthread_mutex_unlock(&in->registry_lock);
}

/* The state whose arenas hold p, or NULL (a raw block). */
static struct obm_state *registry_owner(struct instance *in, const void *p)
{
	struct obm_state *owner = NULL;
	size_t at;

	pthread_mutex_lock(&in->registry_lock);
	at = registry_search(in, (uintptr_t)p);
	if (at > 0 && (uintptr_t)p < in->arenas[at - 1].end)
		owner = in->arenas[at - 1].owner;
	pthread_mutex_unlock(&in->registry_lock);
	return owner;
}

static struct obm_state *my_state(struct instance *in)
{
	/* The main thread (or any thread the host did not attach) gets a
	 * state on first use, as a thread of its own. */
	if (thread_state == NULL)
		thread_state = state_new(in);
	return thread_state;
}

/* Per-thread mode: is p another state's block? Counts the refusal. */
static int foreign(struct instance *in, struct obm_state *st, void *p)
{
	struct obm_state *owner = registry_owner(in, p);
	if (owner == NULL || owner == st)
		return 0;
	atomic_fetch_add(&in->foreign_frees, 1);
	return 1;
}

/* ---- the entry points: one set per preset, and one for other sizes ---- */

struct obm_entry_set {
	int generic;                 /* 1: for any sizes (read from the state) */
	unsigned pool_shift, arena_shift;
	int branchless;
	void *(*malloc[3])(void *ctx, size_t n); /* by enum obm_mode; ctx: the instance */
	void (*free[3])(void *ctx, void *p);
};

#define ENTRY_TAG generic
#define ENTRY_GENERIC
#include "entries.h"

#define ENTRY_TAG classic
#define ENTRY_POOL_SHIFT 12
#define ENTRY_ARENA_SHIFT 18
#define ENTRY_BRANCHLESS 0
#include "entries.h"

#define ENTRY_TAG py310
#define ENTRY_POOL_SHIFT 14
#define ENTRY_ARENA_SHIFT 20
#define ENTRY_BRANCHLESS 0
#include "entries.h"

#define ENTRY_TAG table16m4k
#define ENTRY_POOL_SHIFT 12
#define ENTRY_ARENA_SHIFT 24
#define ENTRY_BRANCHLESS 0
#include "entries.h"

#define ENTRY_TAG table64m16k
#define ENTRY_POOL_SHIFT 14
#define ENTRY_ARENA_SHIFT 26
#define ENTRY_BRANCHLESS 0
#include "entries.h"

#ifndef OBM_BIGPOOL
/* check=branchless, the proposed change, at each preset. */
#define ENTRY_TAG classic_branchless
#define ENTRY_POOL_SHIFT 12
#define ENTRY_ARENA_SHIFT 18
#define ENTRY_BRANCHLESS 1
#include "entries.h"

#define ENTRY_TAG py310_branchless
#define ENTRY_POOL_SHIFT 14
#define ENTRY_ARENA_SHIFT 20
#define ENTRY_BRANCHLESS 1
#include "entries.h"

#define ENTRY_TAG table16m4k_branchless
#define ENTRY_POOL_SHIFT 12
#define ENTRY_ARENA_SHIFT 24
#define ENTRY_BRANCHLESS 1
#include "entries.h"

#define ENTRY_TAG table64m16k_branchless
#define ENTRY_POOL_SHIFT 14
#define ENTRY_ARENA_SHIFT 26
#define ENTRY_BRANCHLESS 1
#include "entries.h"
#endif

static const struct obm_entry_set *const entry_sets[] = {
	&entry_classic_set, &entry_py310_set, &entry_table16m4k_set, &entry_table64m16k_set,
#ifndef OBM_BIGPOOL
	&entry_classic_branchless_set, &entry_py310_branchless_set, &entry_table16m4k_branchless_set,
	&entry_table64m16k_branchless_set,
#endif
};

/* The set for cfg: the preset's, with its sizes as constants, or the
 * generic one. */
static const struct obm_entry_set *entry_set_for(const struct obm_config *cfg)
{
	for (size_t i = 0; i < sizeof entry_sets / sizeof *entry_sets; i++)
		if (entry_sets[i]->pool_shift == cfg->pool_shift && entry_sets[i]->arena_shift == cfg->arena_shift &&
		    entry_sets[i]->branchless == cfg->branchless_check)
			return entry_sets[i];
	return &entry_generic_set;
}

/* ---- the ops ---- */

static int obmalloc_create(const char *options, void **instance, char *err, size_t err_len)
{
	struct instance *in = calloc(1, sizeof *in);
	int rc;

	if (in == NULL)
		return -ENOMEM;
	rc = obm_config_parse(options, &in->cfg, err, err_len);
	if (rc != 0) {
		free(in);
		return rc;
	}
	if (the_instance != NULL) {
		snprintf(err, err_len, "one instance per process (the plugin ABI's promise): another is live");
		free(in);
		return -EBUSY;
	}
	obm_variant_classes(&in->cfg, in->classes);
	pthread_mutex_init(&in->registry_lock, NULL);
	if (in->cfg.mode != OBM_MODE_PER_THREAD && obm_state_init(&global_state, &in->cfg, in->classes) != 0) {
		snprintf(err, err_len, "cannot allocate the allocator state");
		free(in);
		return -ENOMEM;
	}
	{
		const struct obm_entry_set *set = entry_set_for(&in->cfg);
		front.ctx = in;
		front.malloc = set->malloc[in->cfg.mode];
		front.free = set->free[in->cfg.mode];
	}
	the_instance = in;
	*instance = in;
	return 0;
}

static void obmalloc_destroy(void *instance)
{
	struct instance *in = instance;

	if (in->cfg.mode == OBM_MODE_PER_THREAD) {
		while (in->nstates)
			state_delete(in, in->states[in->nstates - 1]);
		thread_state = NULL;
		free(in->states);
		free(in->arenas);
	} else {
		obm_state_fini(&global_state);
	}
	the_instance = NULL;
	free(in);
}

/* The ops: one jump to the domain functions chosen at create. */
static void *obmalloc_malloc(void *instance, size_t n)
{
	return front.malloc(instance, n);
}

static void obmalloc_free(void *instance, void *p)
{
	front.free(instance, p);
}

/* The entry points: the front door, as PyObject_Malloc and PyObject_Free
 * (with PyObject_Malloc's refusal of sizes above PY_SSIZE_T_MAX). */
static void *front_malloc(size_t n)
{
	if (n > (size_t)PTRDIFF_MAX)
		return NULL;
	return front.malloc(front.ctx, n);
}

static void front_free(void *p)
{
	front.free(front.ctx, p);
}

static int obmalloc_entry_points(void *instance, void *(**malloc_fn)(size_t size), void (**free_fn)(void *block))
{
	(void)instance;
	*malloc_fn = front_malloc;
	*free_fn = front_free;
	return 0;
}

static void *obmalloc_realloc(void *instance, void *p, size_t n)
{
	struct instance *in = instance;
	void *q;

	switch (in->cfg.mode) {
	case OBM_MODE_NONE:
		return obm_realloc(&global_state, p, n);
	case OBM_MODE_GIL:
		pthread_mutex_lock(&global_lock);
		q = obm_realloc(&global_state, p, n);
		pthread_mutex_unlock(&global_lock);
		return q;
	default: {
		struct obm_state *st = my_state(in);
		if (st == NULL)
			return NULL;
		if (p != NULL && !obm_address_in_range(st, p) && foreign(in, st, p))
			return NULL; /* refused: the block stays valid with its owner */
		return obm_realloc(st, p, n);
	}
	}
}

static void *obmalloc_calloc(void *instance, size_t nmemb, size_t size)
{
	size_t n;
	void *p;

	if (size != 0 && nmemb > SIZE_MAX / size)
		return NULL;
	n = nmemb * size;
	if (n - 1 >= OBM_SMALL_THRESHOLD)
		return calloc(nmemb, size); /* raw, as CPython's calloc */
	p = obmalloc_malloc(instance, n);
	if (p)
		memset(p, 0, n);
	return p;
}

static size_t obmalloc_usable_size(void *instance, void *p)
{
	struct instance *in = instance;
	struct obm_state *st;
	size_t n;

	switch (in->cfg.mode) {
	case OBM_MODE_NONE:
		return obm_usable_size(&global_state, p);
	case OBM_MODE_GIL:
		pthread_mutex_lock(&global_lock);
		n = obm_usable_size(&global_state, p);
		pthread_mutex_unlock(&global_lock);
		return n;
	default:
		st = my_state(in);
		if (st && !obm_address_in_range(st, p) && (st = registry_owner(in, p)) != NULL)
			/* Another thread's live block: its pool header is stable. */
			return in->classes[obm_pool_of(st, p)->szidx].size;
		return st ? obm_usable_size(st, p) : malloc_usable_size(p);
	}
}

static int obmalloc_thread_attach(void *instance)
{
	struct instance *in = instance;

	if (in->cfg.mode != OBM_MODE_PER_THREAD)
		return 0;
	thread_state = state_new(in);
	return thread_state ? 0 : -ENOMEM;
}

/* True when no block of st is live: every arena wholly free. */
static int state_is_empty(const struct obm_state *st)
{
	for (uint32_t i = 0; i < st->maxarenas; i++)
		if (st->arenas[i].address && st->arenas[i].nfreepools != st->arenas[i].ntotalpools)
			return 0;
	return 1;
}

static void obmalloc_thread_detach(void *instance)
{
	struct instance *in = instance;

	if (in->cfg.mode != OBM_MODE_PER_THREAD || thread_state == NULL)
		return;
	/* Like an interpreter that ends: its memory goes, unless blocks are
	 * still live (then the state stays until destroy). */
	if (state_is_empty(thread_state))
		state_delete(in, thread_state);
	thread_state = NULL;
}

/* Sums the statistics of several states: every key's values added, the
 * config.* keys taken once. */
/* Room for every name one state emits: four per size class and about
 * thirty others (a sum that dropped names once left the standard ones,
 * emitted last, at 0 for the 64 classes of CPython 3.7's obmalloc). */
#define STAT_NAMES (4 * OBM_NCLASSES + 128)
struct stat_sum {
	char names[STAT_NAMES][48];
	uint64_t values[STAT_NAMES];
	unsigned n;
};

static void sum_stat(void *arg, const char *name, uint64_t value)
{
	struct stat_sum *s = arg;
	for (unsigned i = 0; i < s->n; i++)
		if (strcmp(s->names[i], name) == 0) {
			if (strncmp(name, "config.", 7) != 0)
				s->values[i] += value;
			return;
		}
	if (s->n < STAT_NAMES) {
		snprintf(s->names[s->n], sizeof s->names[0], "%s", name);
		s->values[s->n++] = value;
	}
}

/* The standard names from obmalloc's own counts (as CPython's
 * _debugmallocstats has them): in use, the allocated blocks; free, the
 * available blocks and the unused pools; metadata, the pool and page
 * headers; resident, the arenas mapped. */
static void emit_standard(const struct stat_sum *s, alloclab_stat_fn emit, void *arg)
{
	uint64_t allocated = 0, available = 0, unused = 0, headers = 0, arenas = 0;
	for (unsigned i = 0; i < s->n; i++) {
		const char *n = s->names[i];
		uint64_t v = s->values[i];
		if (strcmp(n, "bytes.allocated_blocks") == 0)
			allocated = v;
		else if (strcmp(n, "bytes.available_blocks") == 0)
			available = v;
		else if (strcmp(n, "bytes.unused_pools") == 0)
			unused = v;
		else if (strcmp(n, "bytes.pool_headers") == 0 || strcmp(n, "bytes.page_headers") == 0)
			headers += v;
		else if (strcmp(n, "bytes.arenas") == 0)
			arenas = v;
	}
	emit(arg, ALLOCLAB_STAT_IN_USE, allocated);
	emit(arg, ALLOCLAB_STAT_FREE, available + unused);
	emit(arg, ALLOCLAB_STAT_METADATA, headers);
	emit(arg, ALLOCLAB_STAT_RESIDENT, arenas);
}

static int obmalloc_regions(void *instance, alloclab_region_fn emit, void *arg)
{
	struct instance *in = instance;
	if (in->cfg.mode != OBM_MODE_PER_THREAD) {
		pthread_mutex_lock(&global_lock);
		obm_state_regions(&global_state, emit, arg);
		pthread_mutex_unlock(&global_lock);
		return 0;
	}
	pthread_mutex_lock(&in->registry_lock);
	for (size_t i = 0; i < in->nstates; i++)
		obm_state_regions(in->states[i], emit, arg);
	pthread_mutex_unlock(&in->registry_lock);
	return 0;
}

static int obmalloc_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	struct instance *in = instance;
	struct stat_sum *sum;

	if (in->cfg.mode != OBM_MODE_PER_THREAD) {
		if ((sum = calloc(1, sizeof *sum)) == NULL)
			return -ENOMEM;
		pthread_mutex_lock(&global_lock);
		obm_state_stats(&global_state, sum_stat, sum);
		pthread_mutex_unlock(&global_lock);
		for (unsigned i = 0; i < sum->n; i++)
			emit(arg, sum->names[i], sum->values[i]);
		emit_standard(sum, emit, arg);
		free(sum);
		return 0;
	}
	sum = calloc(1, sizeof *sum);
	if (sum == NULL)
		return -ENOMEM;
	pthread_mutex_lock(&in->registry_lock);
	for (size_t i = 0; i < in->nstates; i++)
		obm_state_stats(in->states[i], sum_stat, sum);
	pthread_mutex_unlock(&in->registry_lock);
	for (unsigned i = 0; i < sum->n; i++)
		emit(arg, sum->names[i], sum->values[i]);
	emit_standard(sum, emit, arg);
	emit(arg, "states", in->nstates);
	emit(arg, "errors.foreign_free", atomic_load(&in->foreign_frees));
	free(sum);
	return 0;
}

static uint64_t obmalloc_instance_caps(void *instance)
{
	const struct instance *in = instance;
	uint64_t all = ~(uint64_t)0;

	switch (in->cfg.mode) {
	case OBM_MODE_NONE:
		return all & ~(uint64_t)(ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE);
	case OBM_MODE_PER_THREAD:
		return all & ~(uint64_t)ALLOCLAB_CAP_CROSS_THREAD_FREE;
	default:
		return all;
	}
}

static const struct alloclab_plugin obmalloc_plugin = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = obm_variant_name,
	.version = "1.0",
	.description = obm_variant_description,
	.options_help = obm_options_help,
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_OWN_STATE | ALLOCLAB_CAP_CALLOC |
		ALLOCLAB_CAP_REALLOC | ALLOCLAB_CAP_USABLE_SIZE | ALLOCLAB_CAP_STATS | ALLOCLAB_CAP_THREAD_HOOKS,
	.min_align = OBM_ALIGNMENT,
	.create = obmalloc_create,
	.destroy = obmalloc_destroy,
	.malloc = obmalloc_malloc,
	.free = obmalloc_free,
	.calloc = obmalloc_calloc,
	.realloc = obmalloc_realloc,
	.usable_size = obmalloc_usable_size,
	.thread_attach = obmalloc_thread_attach,
	.thread_detach = obmalloc_thread_detach,
	.stats = obmalloc_stats,
	.regions = obmalloc_regions,
	.instance_caps = obmalloc_instance_caps,
	.entry_points = obmalloc_entry_points,
};

ALLOCLAB_PLUGIN_DEFINE(obmalloc_plugin)
