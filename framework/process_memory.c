/* A process's memory figures. See process_memory.h. */
#include "process_memory.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Steps before the workload's first round: the harness and the plugin
 * starting. */
static int before_rounds(const char *phase)
{
	return strcmp(phase, "start") == 0 || strcmp(phase, "load") == 0 || strcmp(phase, "create") == 0 ||
	       strcmp(phase, "thread_attach") == 0;
}

static void read_timeline(const json_t *tl, unsigned nvalues, struct alloclab_process_memory *m, double *base)
{
	json_t *phases = json_object_get(tl, "phases"), *s;
	char last_run[32];
	long peak = -1, peak_with_huge = -1;
	size_t i;

	snprintf(last_run, sizeof last_run, "run %u", nvalues);
	json_array_foreach(json_object_get(tl, "samples"), i, s)
	{
		const char *phase = json_string_value(json_array_get(phases, (size_t)json_integer_value(json_array_get(s, 4))));
		long rss = (long)json_integer_value(json_array_get(s, 1)), huge = (long)json_integer_value(json_array_get(s, 3));
		long live = (long)json_integer_value(json_array_get(s, 5));
		if (phase && before_rounds(phase))
			*base = (double)rss;
		if (phase && strcmp(phase, last_run) == 0)
			m->end_of_run_kib = (double)rss;
		if (rss > peak)
			peak = rss;
		if (live > 0 && live > m->live_peak_kib)
			m->live_peak_kib = (double)live;
		if (huge >= 0 && rss > peak_with_huge && rss > 0) {
			peak_with_huge = rss;
			m->huge_share = (double)huge / (double)rss;
		}
	}
	m->peak_kib = (double)peak;
}

/* The values' own figures: the most held (the workload's exact count, in
 * *exact_peak) and its own tables. */
static void take_values(const struct alloclab_value *v, unsigned n, struct alloclab_process_memory *m,
			double *exact_peak)
{
	for (unsigned i = 0; i < n; i++) {
		if (v[i].live_peak_bytes && (double)v[i].live_peak_bytes / 1024 > *exact_peak)
			*exact_peak = (double)v[i].live_peak_bytes / 1024;
		if (v[i].own_bytes && (double)v[i].own_bytes / 1024 > m->own_kib)
			m->own_kib = (double)v[i].own_bytes / 1024;
	}
}

void alloclab_process_memory(const struct alloclab_process *p, struct alloclab_process_memory *m)
{
	double timeline_base = -1;

	/* Every field a double, every one unknown until found. */
	for (double *f = &m->baseline_kib; f <= &m->faults_per_value; f++)
		*f = -1;
	if (p->memory)
		read_timeline(p->memory, p->nvalues, m, &timeline_base);
	/* The harness alone as the worker read it before the plugin was
	 * loaded; else the timeline's last sample before then. */
	m->baseline_kib = p->rss_before_plugin_kib > 0 ? (double)p->rss_before_plugin_kib : timeline_base;
	m->after_finish_kib = p->rss_after_finish_kib > 0 ? (double)p->rss_after_finish_kib : -1;
	m->after_trim_kib = p->rss_after_trim_kib > 0 ? (double)p->rss_after_trim_kib : -1;
	m->after_settle_kib = p->rss_after_settle_kib > 0 ? (double)p->rss_after_settle_kib : -1;
	if (p->nvalues == 0)
		return;
	/* Warm-ups count for the most held: the peak resident sample may be
	 * one of theirs. */
	double exact_peak = -1;
	take_values(p->warmups, p->nwarmups, m, &exact_peak);
	take_values(p->values, p->nvalues, m, &exact_peak);
	/* A workload's own count of the most it held is exact; the samples'
	 * (rounded up to KiB) can only miss a peak. */
	if (exact_peak > 0)
		m->live_peak_kib = exact_peak;
	const struct alloclab_value *last = &p->values[p->nvalues - 1];
	/* The worker's own reading once run() ended, where it made one: the
	 * sampler may have had no sample in a short run. */
	if (last->rss_end_of_run_kib > 0)
		m->end_of_run_kib = (double)last->rss_end_of_run_kib;
	/* Samples can miss a short run's peak; the worker's own readings at
	 * the end of each run cannot be above it. (Not the kernel's high-water
	 * mark: that counts the harness's own peaks, a trace's validation.) */
	for (unsigned v = 0; v < p->nvalues; v++)
		if (p->values[v].rss_end_of_run_kib > m->peak_kib)
			m->peak_kib = (double)p->values[v].rss_end_of_run_kib;
	for (unsigned v = 0; v < p->nwarmups; v++)
		if (p->warmups[v].rss_end_of_run_kib > m->peak_kib)
			m->peak_kib = (double)p->warmups[v].rss_end_of_run_kib;
	if (last->live_end_bytes)
		m->live_end_kib = (double)last->live_end_bytes / 1024;
	/* Net figures never go below 0: a resident set under the baseline
	 * (the harness gave back some of its own) is nothing of the plugin's. */
	double off = m->baseline_kib + (m->own_kib > 0 ? m->own_kib : 0);
	if (m->baseline_kib >= 0) {
		if (m->end_of_run_kib >= 0 && m->live_end_kib > 0)
			m->frag_end = fmax(0, m->end_of_run_kib - off) / m->live_end_kib;
		if (m->peak_kib >= 0 && m->live_peak_kib > 0)
			m->frag_peak = fmax(0, m->peak_kib - off) / m->live_peak_kib;
		if (m->peak_kib >= 0)
			m->peak_net_kib = fmax(0, m->peak_kib - m->baseline_kib);
		if (m->after_finish_kib >= 0)
			m->kept_kib = fmax(0, m->after_finish_kib - m->baseline_kib);
	}
	if (last->faults_counted) {
		uint64_t minor = 0;
		for (unsigned v = 0; v < p->nvalues; v++)
			minor += p->values[v].minor_faults;
		m->faults_per_value = (double)minor / p->nvalues;
	}
}
