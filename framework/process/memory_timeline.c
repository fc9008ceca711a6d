/* Memory over time, from outside the worker. See memory_timeline.h. */
#define _GNU_SOURCE 1
#include "process/memory_timeline.h"
#include "process/process_tree.h"
#include "base/invariant.h"

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sample {
	double t_ms;
	long rss_kib, anon_kib, huge_kib, live_kib;
	unsigned phase;
};

struct alloclab_timeline {
	unsigned requested_ms, interval_ms;
	double start, due;
	unsigned taken;                 /* samples taken in all, for the 1-in-10 smaps_rollup */
	struct sample s[ALLOCLAB_TIMELINE_MAX_SAMPLES];
	unsigned n;
	char *phases[ALLOCLAB_TIMELINE_MAX_PHASES];
	unsigned nphases;
};

struct alloclab_timeline *alloclab_timeline_new(unsigned sample_ms, double start)
{
	struct alloclab_timeline *t = calloc(1, sizeof *t);
	if (t == NULL)
		return NULL;
	t->requested_ms = t->interval_ms = sample_ms ? sample_ms : 1;
	t->start = t->due = start;
	return t;
}

void alloclab_timeline_free(struct alloclab_timeline *t)
{
	if (t == NULL)
		return;
	for (unsigned i = 0; i < t->nphases; i++)
		free(t->phases[i]);
	free(t);
}

double alloclab_timeline_due(const struct alloclab_timeline *t) { return t->due; }

static unsigned phase_index(struct alloclab_timeline *t, const char *phase)
{
	for (unsigned i = 0; i < t->nphases; i++)
		if (strcmp(t->phases[i], phase) == 0)
			return i;
	if (t->nphases == ALLOCLAB_TIMELINE_MAX_PHASES)
		return t->nphases - 1; /* the last stands for any beyond */
	t->phases[t->nphases] = strdup(phase[0] ? phase : "start");
	return t->nphases++;
}

void alloclab_timeline_sample(struct alloclab_timeline *t, pid_t pid, double now, const char *phase,
			      int64_t live_bytes)
{
	struct sample s = {.t_ms = (now - t->start) * 1000, .anon_kib = -1, .huge_kib = -1,
			   .live_kib = live_bytes < 0 ? -1 : (long)((live_bytes + 1023) / 1024)};

	t->due = now + t->interval_ms / 1000.0;
	/* The worker and what it started (a program under exec); a process
	 * that has exited reads as 0: no sample. */
	uint64_t anon, huge, rollup_anon;
	uint64_t rss = alloclab_tree_statm_kib(pid, NULL, &anon);
	if (rss == 0)
		return;
	s.rss_kib = (long)rss;
	s.anon_kib = (long)anon;
	if (t->taken++ % 10 == 0 && alloclab_tree_rollup_kib(pid, &rollup_anon, &huge) == 0)
		s.huge_kib = (long)huge;
	s.phase = phase_index(t, phase);
	if (t->n == ALLOCLAB_TIMELINE_MAX_SAMPLES) {
		/* Full: every other sample goes, and the interval doubles, so
		 * that a long worker is covered end to end at a coarser grain. */
		unsigned k = 0;
		for (unsigned i = 0; i < t->n; i += 2)
			t->s[k++] = t->s[i];
		t->n = k;
		t->interval_ms *= 2;
	}
	t->s[t->n++] = s;
}

struct alloclab_memory_timeline *alloclab_timeline_take(const struct alloclab_timeline *t)
{
	if (t == NULL || t->n == 0)
		return NULL;
	struct alloclab_memory_timeline *m = calloc(1, sizeof *m);
	m->requested_ms = t->requested_ms;
	m->interval_ms = t->interval_ms;
	m->phases = calloc(t->nphases + 1, sizeof *m->phases);
	for (unsigned i = 0; i < t->nphases; i++)
		m->phases[i] = strdup(t->phases[i]);
	m->nphases = t->nphases;
	m->samples = calloc(t->n, sizeof *m->samples);
	for (unsigned i = 0; i < t->n; i++) {
		const struct sample *s = &t->s[i];
		/* A tenth of a millisecond, as written: the model is what a
		 * results file holds. */
		m->samples[i] = (struct alloclab_memory_sample){round(s->t_ms * 10) / 10, s->rss_kib, s->anon_kib,
								s->huge_kib, s->live_kib, s->phase};
	}
	m->nsamples = t->n;
	ALLOCLAB_CHECK_INVARIANT(alloclab_memory_timeline_valid(m, NULL, 0) == 0);
	return m;
}

struct alloclab_memory_timeline *alloclab_memory_timeline_copy(const struct alloclab_memory_timeline *t)
{
	if (t == NULL)
		return NULL;
	struct alloclab_memory_timeline *m = calloc(1, sizeof *m);
	*m = *t;
	m->phases = calloc(t->nphases + 1, sizeof *m->phases);
	for (unsigned i = 0; i < t->nphases; i++)
		m->phases[i] = strdup(t->phases[i]);
	m->samples = malloc((t->nsamples ? t->nsamples : 1) * sizeof *m->samples);
	memcpy(m->samples, t->samples, t->nsamples * sizeof *m->samples);
	return m;
}

void alloclab_memory_timeline_free(struct alloclab_memory_timeline *t)
{
	if (t == NULL)
		return;
	for (unsigned i = 0; i < t->nphases; i++)
		free(t->phases[i]);
	free(t->phases);
	free(t->samples);
	free(t);
}

#define WHY(...) (why ? snprintf(why, why_len, __VA_ARGS__) : 0, -1)

static int kib_ok(long v, long least)
{
	return v >= least && v <= (1L << 40);
}

int alloclab_memory_timeline_valid(const struct alloclab_memory_timeline *t, char *why, size_t why_len)
{
	if (t->requested_ms < 1 || t->requested_ms > 3600000 || t->interval_ms < t->requested_ms)
		return WHY("requested_ms, interval_ms: not whole numbers of milliseconds, the interval at least the request");
	if (t->nphases > ALLOCLAB_TIMELINE_MAX_PHASES)
		return WHY("phases: more than %d names", ALLOCLAB_TIMELINE_MAX_PHASES);
	for (unsigned i = 0; i < t->nphases; i++)
		if (t->phases[i] == NULL || t->phases[i][0] == '\0' || strlen(t->phases[i]) > 63)
			return WHY("phases[%u]: not a name of 1 to 63 bytes", i);
	if (t->nsamples < 1 || t->nsamples > ALLOCLAB_TIMELINE_MAX_SAMPLES)
		return WHY("samples: not 1 to %d samples", ALLOCLAB_TIMELINE_MAX_SAMPLES);
	double last = 0;
	for (unsigned i = 0; i < t->nsamples; i++) {
		const struct alloclab_memory_sample *s = &t->samples[i];
		if (!isfinite(s->t_ms) || s->t_ms < last || s->t_ms > 1e12 || s->phase >= t->nphases)
			return WHY("samples[%u]: not [t_ms (not decreasing), rss_kib, anon_kib, huge_kib, a phase index, "
				   "live_kib]", i);
		if (!kib_ok(s->rss_kib, 0) || !kib_ok(s->anon_kib, -1) || !kib_ok(s->huge_kib, -1) || !kib_ok(s->live_kib, -1))
			return WHY("samples[%u]: a size that is not a number of KiB", i);
		last = s->t_ms;
	}
	return 0;
}

int alloclab_memory_timeline_phase(const struct alloclab_memory_timeline *t, const char *name)
{
	for (unsigned i = 0; i < t->nphases; i++)
		if (strcmp(t->phases[i], name) == 0)
			return (int)i;
	return -1;
}
