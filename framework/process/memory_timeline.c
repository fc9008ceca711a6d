/* Memory over time, from outside the worker. See memory_timeline.h. */
#define _GNU_SOURCE 1
#include "process/memory_timeline.h"
#include "process/process_tree.h"

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

json_t *alloclab_timeline_json(const struct alloclab_timeline *t)
{
	json_t *samples = json_array(), *phases = json_array();
	if (t == NULL || t->n == 0) {
		json_decref(samples);
		json_decref(phases);
		return NULL;
	}
	for (unsigned i = 0; i < t->nphases; i++)
		json_array_append_new(phases, json_string(t->phases[i]));
	for (unsigned i = 0; i < t->n; i++)
		json_array_append_new(samples, json_pack("[f,I,I,I,i,I]", round(t->s[i].t_ms * 10) / 10,
							 (json_int_t)t->s[i].rss_kib, (json_int_t)t->s[i].anon_kib,
							 (json_int_t)t->s[i].huge_kib, (int)t->s[i].phase,
							 (json_int_t)t->s[i].live_kib));
	return json_pack("{s:i,s:i,s:o,s:o}", "requested_ms", (int)t->requested_ms, "interval_ms", (int)t->interval_ms,
			 "phases", phases, "samples", samples);
}

#define WHY(...) (snprintf(why, why_len, __VA_ARGS__), -1)

int alloclab_timeline_check(const json_t *obj, char *why, size_t why_len)
{
	json_t *phases = json_object_get(obj, "phases"), *samples = json_object_get(obj, "samples"), *x;
	json_t *req = json_object_get(obj, "requested_ms"), *iv = json_object_get(obj, "interval_ms");
	size_t i;
	double last = 0;

	if (!json_is_object(obj))
		return WHY("memory: not an object");
	if (!json_is_integer(req) || json_integer_value(req) < 1 || json_integer_value(req) > 3600000 ||
	    !json_is_integer(iv) || json_integer_value(iv) < json_integer_value(req) ||
	    json_integer_value(iv) > (json_int_t)3600000 << 20)
		return WHY("memory.requested_ms, interval_ms: not whole numbers of milliseconds, the interval at least the request");
	if (!json_is_array(phases) || json_array_size(phases) > ALLOCLAB_TIMELINE_MAX_PHASES)
		return WHY("memory.phases: not an array of at most %d names", ALLOCLAB_TIMELINE_MAX_PHASES);
	json_array_foreach(phases, i, x)
		if (!json_is_string(x) || json_string_length(x) == 0 || json_string_length(x) > 63)
			return WHY("memory.phases[%zu]: not a name of 1 to 63 bytes", i);
	if (!json_is_array(samples) || json_array_size(samples) == 0 || json_array_size(samples) > ALLOCLAB_TIMELINE_MAX_SAMPLES)
		return WHY("memory.samples: not an array of 1 to %d samples", ALLOCLAB_TIMELINE_MAX_SAMPLES);
	json_array_foreach(samples, i, x)
	{
		json_t *t = json_array_get(x, 0), *p = json_array_get(x, 4);
		if (!json_is_array(x) || json_array_size(x) != 6 || !json_is_number(t) || !isfinite(json_number_value(t)) ||
		    json_number_value(t) < last || !json_is_integer(p) || json_integer_value(p) < 0 ||
		    (size_t)json_integer_value(p) >= json_array_size(phases))
			return WHY("memory.samples[%zu]: not [t_ms (not decreasing), rss_kib, anon_kib, huge_kib, a phase index, "
				   "live_kib]", i);
		for (int k = 1; k <= 5; k++) {
			if (k == 4)
				continue;
			json_t *v = json_array_get(x, (size_t)k);
			if (!json_is_integer(v) || json_integer_value(v) < (k == 1 ? 0 : -1) || json_integer_value(v) > ((json_int_t)1 << 40))
				return WHY("memory.samples[%zu][%d]: not a size in KiB", i, k);
		}
		last = json_number_value(t);
	}
	return 0;
}

int alloclab_timeline_phase(const json_t *timeline, const char *name)
{
	json_t *x;
	size_t i;
	json_array_foreach(json_object_get(timeline, "phases"), i, x)
		if (strcmp(json_string_value(x), name) == 0)
			return (int)i;
	return -1;
}
