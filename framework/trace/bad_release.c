/*
 * Finding the event a wrong remote release is (bad_release.h).
 */
#include "trace/bad_release.h"

#include <stdio.h>
#include <stdlib.h>

/* The releases of the one slot searched, with where each is. */
struct releases {
	struct alloclab_trace_event_at *at;
	size_t n, cap;
};

static int add_release(struct releases *r, const struct alloclab_trace_event_at *at)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct alloclab_trace_event_at *grown = realloc(r->at, cap * sizeof *grown);
		if (grown == NULL)
			return -1;
		r->at = grown;
		r->cap = cap;
	}
	r->at[r->n++] = *at;
	return 0;
}

/* One thread's releases of owner's slot into r. The owner's own frees
 * carry no generation: it is the count of the owner's allocations into
 * the slot so far, less one (validation has checked that one was live). */
static int collect_thread(struct alloclab_trace *t, unsigned th, unsigned owner, uint32_t slot,
			  struct alloclab_trace_event *ev, struct releases *r, char *err, size_t err_len)
{
	struct alloclab_trace_cursor *c = alloclab_trace_cursor_new(t, th);
	uint64_t allocations = 0;
	size_t n;
	int got;

	if (c == NULL) {
		snprintf(err, err_len, "trace '%s': out of memory validating", alloclab_trace_name(t));
		return -1;
	}
	while ((got = alloclab_trace_next_chunk(c, ev, &n, err, err_len)) == 1)
		for (size_t k = 0; k < n; k++) {
			const struct alloclab_trace_event *e = &ev[k];
			struct alloclab_trace_event_at at = {th, alloclab_trace_cursor_first_event(c) + k,
							     alloclab_trace_cursor_chunk_offset(c), 0, e->remote};
			int ours = alloclab_trace_op_releases(e->op) && e->old_owner == owner && e->old_slot == slot;

			if (ours && e->remote)
				at.generation = e->arg;
			else if (ours && allocations > 0)
				at.generation = allocations - 1;
			if (ours && add_release(r, &at) != 0) {
				got = -1;
				snprintf(err, err_len, "trace '%s': out of memory validating", alloclab_trace_name(t));
				break;
			}
			if (th == owner && alloclab_trace_op_allocates(e->op) && e->slot == slot)
				allocations++;
		}
	alloclab_trace_cursor_free(c);
	return got < 0 ? -1 : 0;
}

/* By generation; of one generation the owner's own release first, then
 * by thread and event, so that the second of a pair is a remote one. */
static int by_generation(const void *a, const void *b)
{
	const struct alloclab_trace_event_at *x = a, *y = b;

	if (x->generation != y->generation)
		return x->generation < y->generation ? -1 : 1;
	if (x->remote != y->remote)
		return x->remote < y->remote ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->event < y->event ? -1 : x->event > y->event;
}

/* The release to blame among r's, as bad_release.h says; NULL when r
 * holds no remote release. Sorts r. */
static const struct alloclab_trace_event_at *blame(struct releases *r, uint64_t allocated)
{
	const struct alloclab_trace_event_at *last_remote = NULL;

	for (size_t i = 0; i < r->n; i++)
		if (r->at[i].remote) {
			if (r->at[i].generation >= allocated)
				return &r->at[i];
			last_remote = &r->at[i];
		}
	if (last_remote == NULL)
		return NULL;
	struct alloclab_trace_event_at keep = *last_remote;
	qsort(r->at, r->n, sizeof *r->at, by_generation);
	for (size_t i = 1; i < r->n; i++)
		if (r->at[i].generation == r->at[i - 1].generation && r->at[i].remote)
			return &r->at[i];
	for (size_t i = 0; i < r->n; i++)
		if (r->at[i].thread == keep.thread && r->at[i].event == keep.event)
			return &r->at[i];
	return NULL;
}

int alloclab_trace_find_bad_release(struct alloclab_trace *t, unsigned owner, uint32_t slot, uint64_t allocated,
				    struct alloclab_trace_event *ev, struct alloclab_trace_event_at *at, char *err,
				    size_t err_len)
{
	struct releases r = {NULL, 0, 0};
	const struct alloclab_trace_event_at *found;
	int rc = -1;

	for (unsigned th = 0; th < alloclab_trace_threads(t); th++)
		if (collect_thread(t, th, owner, slot, ev, &r, err, err_len) != 0)
			goto out;
	found = blame(&r, allocated);
	rc = found != NULL;
	if (found)
		*at = *found;
out:
	free(r.at);
	return rc;
}
