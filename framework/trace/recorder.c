/*
 * The recording wrapper. See recorder.h.
 *
 * Identities: each trace thread hands out slots for the objects it
 * allocates, the most recently released first (so slots stay bounded by
 * its live objects), and counts the allocations of each slot (the
 * object's generation). A hash map from block address to (owner, slot)
 * finds a freed block's identity. All of it is guarded by the
 * interposer's lock (interpose.h), held across the plugin's call too, so
 * the order written is the order the plugin saw.
 */
#include "trace/recorder.h"

#include "trace/addr_map.h"
#include "plugin/interpose.h"
#include "trace/trace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct owner {
	uint32_t *gen;    /* allocations so far, per slot */
	uint32_t nslots, cap;
	uint32_t *freed;  /* released slots, a stack */
	uint32_t nfreed, freed_cap;
};

static struct alloclab_trace_writer *writer; /* NULL: not recording (any more) */
static struct owner owners[ALLOCLAB_TRACE_MAX_THREADS];
static unsigned next_unnamed;
static uint64_t unknown_frees;
static __thread unsigned my_index_plus_one; /* 0: not known yet */

/* Block address -> owner << 32 | slot. */
static struct alloclab_addr_map map = {.calloc_fn = calloc, .free_fn = free};

static unsigned my_index(void)
{
	if (my_index_plus_one == 0)
		my_index_plus_one = ++next_unnamed; /* under the lock */
	return my_index_plus_one - 1;
}

void alloclab_recorder_thread(unsigned index)
{
	my_index_plus_one = index + 1;
}

/* A slot for a new object of the calling thread; UINT32_MAX when out of
 * memory. */
static uint32_t take_slot(unsigned th)
{
	struct owner *o = &owners[th];
	uint32_t s;

	if (o->nfreed > 0) {
		s = o->freed[--o->nfreed];
	} else {
		if (o->nslots == o->cap) {
			uint32_t ncap = o->cap ? o->cap * 2 : 1024;
			uint32_t *g = ncap <= ALLOCLAB_TRACE_MAX_SLOTS ? realloc(o->gen, ncap * sizeof *g) : NULL;
			if (g == NULL)
				return UINT32_MAX;
			o->gen = g;
			o->cap = ncap;
		}
		s = o->nslots++;
		o->gen[s] = 0;
	}
	o->gen[s]++;
	return s;
}

static int release_slot(unsigned owner, uint32_t s)
{
	struct owner *o = &owners[owner];
	if (o->nfreed == o->freed_cap) {
		uint32_t ncap = o->freed_cap ? o->freed_cap * 2 : 1024;
		uint32_t *f = realloc(o->freed, ncap * sizeof *f);
		if (f == NULL)
			return -1;
		o->freed = f;
		o->freed_cap = ncap;
	}
	o->freed[o->nfreed++] = s;
	return 0;
}

/* Fills e's released object from block p's identity; 0 when p is unknown. */
static int identify(void *p, unsigned th, struct alloclab_trace_event *e)
{
	uint64_t v;
	if (!alloclab_addr_map_get(&map, (uintptr_t)p, &v, 1)) {
		unknown_frees++;
		return 0;
	}
	e->old_owner = (uint16_t)(v >> 32);
	e->old_slot = (uint32_t)v;
	e->remote = e->old_owner != th;
	e->arg = owners[e->old_owner].gen[e->old_slot] - 1;
	return release_slot(e->old_owner, e->old_slot) == 0;
}

/* Gives block p a new identity of thread th in e and writes e. */
static void record_new(void *p, unsigned th, struct alloclab_trace_event *e)
{
	uint32_t s = take_slot(th);
	if (s == UINT32_MAX || alloclab_addr_map_put(&map, (uintptr_t)p, (uint64_t)th << 32 | s) != 0) {
		/* Out of memory for identities: the trace cannot be
		 * finished, and finish says so. */
		alloclab_trace_writer_abort(writer);
		writer = NULL;
		return;
	}
	e->slot = s;
	alloclab_trace_write(writer, th, e);
}

/* The interposer's observer: under its lock, after the plugin's call. */
static void record_call(const struct alloclab_call *c)
{
	unsigned th;

	if (writer == NULL)
		return;
	th = my_index();
	switch (c->op) {
	case ALLOCLAB_CALL_MALLOC:
		record_new(c->block, th, &(struct alloclab_trace_event){.op = ALLOCLAB_TRACE_MALLOC, .size = c->size});
		break;
	case ALLOCLAB_CALL_CALLOC:
		record_new(c->block, th,
			   &(struct alloclab_trace_event){.op = ALLOCLAB_TRACE_CALLOC, .arg = c->arg, .size = c->size});
		break;
	case ALLOCLAB_CALL_ALIGNED_ALLOC:
		record_new(c->block, th,
			   &(struct alloclab_trace_event){.op = ALLOCLAB_TRACE_ALIGNED, .arg = c->arg, .size = c->size});
		break;
	case ALLOCLAB_CALL_REALLOC: {
		struct alloclab_trace_event e = {.op = ALLOCLAB_TRACE_REALLOC, .size = c->size};
		if (c->old == NULL) {
			e.op = ALLOCLAB_TRACE_MALLOC;
			record_new(c->block, th, &e);
		} else if (identify(c->old, th, &e)) {
			record_new(c->block, th, &e);
		}
		break;
	}
	case ALLOCLAB_CALL_FREE:
	case ALLOCLAB_CALL_FREE_SIZED: {
		int sized = c->op == ALLOCLAB_CALL_FREE_SIZED;
		struct alloclab_trace_event e = {.op = sized ? ALLOCLAB_TRACE_FREE_SIZED : ALLOCLAB_TRACE_FREE,
						 .size = sized ? c->size : 0};
		if (identify(c->block, th, &e))
			alloclab_trace_write(writer, th, &e);
		break;
	}
	}
}

int alloclab_recorder_start(struct alloclab_allocator *a, const char *path, json_t *meta, unsigned named,
			    char *err, size_t err_len)
{
	if (named == 0 || named > ALLOCLAB_TRACE_MAX_THREADS) {
		json_decref(meta);
		snprintf(err, err_len, "recording: %u threads (1 to %u)", named, ALLOCLAB_TRACE_MAX_THREADS);
		return -1;
	}
	if ((writer = alloclab_trace_writer_open(path, meta, err, err_len)) == NULL)
		return -1;
	next_unnamed = named;
	alloclab_interpose_observe(a, record_call);
	return 0;
}

void alloclab_recorder_window(int begin)
{
	alloclab_interpose_acquire();
	/* A failed mark fails the writer: finish then says why. */
	if (writer)
		alloclab_trace_writer_window(writer, begin);
	alloclab_interpose_release();
}

int alloclab_recorder_finish(json_t *end_extra, char *err, size_t err_len)
{
	int rc;

	alloclab_interpose_acquire();
	if (writer == NULL) {
		json_decref(end_extra);
		snprintf(err, err_len, "recording stopped: out of memory for the identities");
		rc = -1;
	} else {
		if (end_extra == NULL)
			end_extra = json_object();
		json_object_set_new(end_extra, "unknown_frees", json_integer((json_int_t)unknown_frees));
		rc = alloclab_trace_writer_close(writer, end_extra, err, err_len);
		writer = NULL;
	}
	for (unsigned i = 0; i < ALLOCLAB_TRACE_MAX_THREADS; i++) {
		free(owners[i].gen);
		free(owners[i].freed);
	}
	memset(owners, 0, sizeof owners);
	alloclab_addr_map_clear(&map);
	alloclab_interpose_release();
	return rc;
}

void alloclab_recorder_forget(void)
{
	alloclab_interpose_after_fork();
	if (writer)
		alloclab_trace_writer_forget(writer);
	writer = NULL;
}
