/* A process's memory figures. See process_memory.h. */
#include "figures/process_memory.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Fragmentation at the end of a run is shown where the run ended holding
 * at least 1/FRAG_END_SHARE of the most it held. */
#define FRAG_END_SHARE 10

/* Steps before the workload's first round: the harness and the plugin
 * starting. */
static int before_rounds(const char *phase)
{
	return strcmp(phase, "start") == 0 || strcmp(phase, "load") == 0 || strcmp(phase, "create") == 0 ||
	       strcmp(phase, "thread_attach") == 0;
}

/* What the timeline says beyond the figures themselves: its baseline, and
 * the largest anonymous sample, in the values' prepare and run steps and
 * over its warm-ups (< 0 none). */
struct timeline_extra {
	double base, anon_base, anon_peak, warmup_peak, warmup_anon_peak;
};

static void read_timeline(const struct alloclab_memory_timeline *tl, unsigned nvalues,
			  struct alloclab_process_memory *m, struct timeline_extra *x)
{
	char last_run[32];
	long peak = -1, peak_with_huge = -1;

	snprintf(last_run, sizeof last_run, "run %u", nvalues);
	for (unsigned i = 0; i < tl->nsamples; i++) {
		const char *phase = alloclab_memory_sample_phase(tl, i);
		long rss = tl->samples[i].rss_kib, anon = tl->samples[i].anon_kib, huge = tl->samples[i].huge_kib,
		     live = tl->samples[i].live_kib;
		int warmup = strncmp(phase, "warm-up", 7) == 0;
		if (before_rounds(phase)) {
			x->base = (double)rss;
			x->anon_base = (double)anon;
		}
		if (strcmp(phase, last_run) == 0)
			m->end_of_run_kib = (double)rss;
		/* The peak is the measured program's: not the harness before
		 * the plugin was loaded (the first sample carries the size of
		 * the process the worker was forked from), not a warm-up (which
		 * may carry a census's tables). */
		if (!warmup && !before_rounds(phase) && rss > peak)
			peak = rss;
		/* For fragmentation, only where the workload holds its working
		 * set (a value's prepare and run): finish is the harness's too
		 * (churn replays its sizes, a placement pass maps its tables). */
		if ((strncmp(phase, "run ", 4) == 0 || strncmp(phase, "prepare ", 8) == 0) && anon > x->anon_peak)
			x->anon_peak = (double)anon;
		if (warmup && rss > x->warmup_peak)
			x->warmup_peak = (double)rss;
		if (warmup && anon > x->warmup_anon_peak)
			x->warmup_anon_peak = (double)anon;
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
		/* What a run held at its end, it held at most at least. */
		if ((double)v[i].live_end_bytes / 1024 > m->live_peak_kib)
			m->live_peak_kib = (double)v[i].live_end_bytes / 1024;
		if (v[i].own_bytes && (double)v[i].own_bytes / 1024 > m->own_kib)
			m->own_kib = (double)v[i].own_bytes / 1024;
	}
}

/* The largest of the worker's own readings at the end of a run, total
 * and anonymous, over values v[0, n). */
static void end_of_run_peaks(const struct alloclab_value *v, unsigned n, double *rss, double *anon)
{
	for (unsigned i = 0; i < n; i++) {
		if (v[i].rss_end_of_run_kib > *rss)
			*rss = (double)v[i].rss_end_of_run_kib;
		if (v[i].anon_end_of_run_kib > *anon)
			*anon = (double)v[i].anon_end_of_run_kib;
	}
}

/* The value whose counts fragmentation is taken from: the last measured
 * one, or where only warm-ups counted (python's census: the measured
 * values pay nothing for it) the last warm-up that did (*from_warmups). */
static const struct alloclab_value *counted_value(const struct alloclab_process *p, int *from_warmups)
{
	const struct alloclab_value *last = &p->values[p->nvalues - 1], *counted = NULL;
	*from_warmups = 1;
	for (unsigned v = 0; v < p->nvalues; v++)
		if (p->values[v].live_end_bytes || p->values[v].live_peak_bytes)
			*from_warmups = 0;
	if (!*from_warmups)
		return last;
	for (unsigned v = 0; v < p->nwarmups; v++)
		if (p->warmups[v].live_end_bytes || p->warmups[v].live_peak_bytes)
			counted = &p->warmups[v];
	*from_warmups = counted != NULL;
	return counted ? counted : last;
}

/* The resident peaks fragmentation may be taken over: the measured
 * values' anonymous one, and the warm-ups' total and anonymous ones. */
struct peaks {
	double anon, warmup, warmup_anon;
};

/* Resident over requested-live at the end of the run and at the peak. */
static void fragmentation(const struct alloclab_process *p, struct alloclab_process_memory *m,
			  const struct alloclab_value *counted, int from_warmups, const struct peaks *pk)
{
	const struct alloclab_value *last = &p->values[p->nvalues - 1];
	/* Fragmentation on the anonymous memory where it was read (the heap:
	 * a library's code pages, libpython's, are not what the program
	 * holds), else on the whole resident set (an older file). */
	double base = m->baseline_kib, end = counted->rss_end_of_run_kib > 0 ? (double)counted->rss_end_of_run_kib : -1,
	       peak = from_warmups ? pk->warmup : m->peak_kib;
	if (from_warmups == 0 && counted == last && end < 0)
		end = m->end_of_run_kib;
	if (p->anon_before_plugin_kib > 0 && counted->anon_end_of_run_kib > 0) {
		base = (double)p->anon_before_plugin_kib;
		end = (double)counted->anon_end_of_run_kib;
		peak = from_warmups ? pk->warmup_anon : pk->anon;
	}
	/* The workload's own reading at its peak (a program under exec: its
	 * processes', not the worker's): nothing of the harness in it, its
	 * own memory from before the plugin served it taken off. */
	if (counted->workload_anon_peak_kib) {
		peak = (double)counted->workload_anon_peak_kib;
		double own = m->own_kib > 0 ? m->own_kib : 0;
		m->frag_peak = m->live_peak_kib > 0 ? fmax(0, peak - own) / m->live_peak_kib : -1;
		peak = -1; /* done */
	}
	/* Net figures never go below 0: a resident set under the baseline
	 * (the harness gave back some of its own) is nothing of the plugin's. */
	double off = base + (m->own_kib > 0 ? m->own_kib : 0);
	if (base >= 0) {
		/* A run that ends holding a sliver of its most (a replay's last
		 * objects) would divide what the allocator kept of its peak by
		 * almost nothing: that is retention, which kept shows, not
		 * packing. */
		if (end >= 0 && m->live_end_kib > 0 && m->live_end_kib * FRAG_END_SHARE >= m->live_peak_kib)
			m->frag_end = fmax(0, end - off) / m->live_end_kib;
		if (peak >= 0 && m->live_peak_kib > 0)
			m->frag_peak = fmax(0, peak - off) / m->live_peak_kib;
	}
}

/* A program's own peak under exec, exact: the figure of the program's
 * memory (the worker's samples add the harness's and miss a short peak). */
static void program_peak(const struct alloclab_process *p, struct alloclab_process_memory *m,
			 const struct alloclab_value *counted, int from_warmups)
{
	for (unsigned v = 0; v < p->nvalues; v++)
		if (p->values[v].program_peak_rss_kib && (double)p->values[v].program_peak_rss_kib > m->program_peak_kib)
			m->program_peak_kib = (double)p->values[v].program_peak_rss_kib;
	if (m->program_peak_kib > 0)
		m->peak_kib = m->peak_net_kib = m->program_peak_kib;
	/* A program under exec whose census said its resident set before
	 * the plugin was loaded (own) and no reading of its own at the peak:
	 * the measured values' peak by wait4 less that start, over the most
	 * it held. What the census run itself held (its table) never enters,
	 * and the allocator's start-up counts as the allocator's. */
	if (m->program_peak_kib > 0 && from_warmups && counted->own_bytes && !counted->workload_anon_peak_kib &&
	    m->live_peak_kib > 0)
		m->frag_peak = fmax(0, m->program_peak_kib - m->own_kib) / m->live_peak_kib;
}

void alloclab_process_memory(const struct alloclab_process *p, struct alloclab_process_memory *m)
{
	struct timeline_extra x = {-1, -1, -1, -1, -1};

	/* Every field a double, every one unknown until found. */
	for (double *f = &m->baseline_kib; f <= &m->program_peak_kib; f++)
		*f = -1;
	if (p->memory)
		read_timeline(p->memory, p->nvalues, m, &x);
	/* The harness alone as the worker read it before the plugin was
	 * loaded; else the timeline's last sample before then. */
	m->baseline_kib = p->rss_before_plugin_kib > 0 ? (double)p->rss_before_plugin_kib : x.base;
	m->after_finish_kib = p->rss_after_finish_kib > 0 ? (double)p->rss_after_finish_kib : -1;
	m->after_trim_kib = p->rss_after_trim_kib > 0 ? (double)p->rss_after_trim_kib : -1;
	m->after_settle_kib = p->rss_after_settle_kib > 0 ? (double)p->rss_after_settle_kib : -1;
	if (p->nvalues == 0)
		return;
	/* Warm-ups count for the most held (the workload's own count). */
	double exact_peak = -1;
	take_values(p->warmups, p->nwarmups, m, &exact_peak);
	take_values(p->values, p->nvalues, m, &exact_peak);
	/* A workload's own count of the most it held is exact; the samples'
	 * (rounded up to KiB) can only miss a peak. */
	if (exact_peak > 0)
		m->live_peak_kib = exact_peak;
	int from_warmups;
	const struct alloclab_value *last = &p->values[p->nvalues - 1], *counted = counted_value(p, &from_warmups);
	/* The worker's own reading once run() ended, where it made one: the
	 * sampler may have had no sample in a short run. */
	if (last->rss_end_of_run_kib > 0)
		m->end_of_run_kib = (double)last->rss_end_of_run_kib;
	/* Samples can miss a short run's peak; the worker's own readings at
	 * the end of each run cannot be above it. (Not the kernel's high-water
	 * mark: that counts the harness's own peaks, a trace's validation.) */
	struct peaks pk = {x.anon_peak, x.warmup_peak, x.warmup_anon_peak};
	end_of_run_peaks(p->values, p->nvalues, &m->peak_kib, &pk.anon);
	end_of_run_peaks(p->warmups, p->nwarmups, &pk.warmup, &pk.warmup_anon);
	if (counted->live_end_bytes)
		m->live_end_kib = (double)counted->live_end_bytes / 1024;
	fragmentation(p, m, counted, from_warmups, &pk);
	if (m->baseline_kib >= 0) {
		if (m->peak_kib >= 0)
			m->peak_net_kib = fmax(0, m->peak_kib - m->baseline_kib);
		if (m->after_finish_kib >= 0)
			m->kept_kib = fmax(0, m->after_finish_kib - m->baseline_kib);
	}
	program_peak(p, m, counted, from_warmups);
	if (last->faults_counted) {
		uint64_t minor = 0;
		for (unsigned v = 0; v < p->nvalues; v++)
			minor += p->values[v].minor_faults;
		m->faults_per_value = (double)minor / p->nvalues;
	}
}
