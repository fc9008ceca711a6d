/*
 * A workload thread's rounds: prepare, the timed run, the plugin's account
 * and a heap map's frame with the working sets live, finish. Every thread
 * goes through the same barriers in the same order, whatever fails, so
 * that none waits for one that has left. See internal.h.
 */
#define _GNU_SOURCE 1
#include "worker/internal.h"
#include "plugin/stats.h"
#include "measure/heapmap.h"
#include "measure/latency.h"
#include "measure/measure.h"
#include "memory/self_memory.h"
#include "process/child.h"
#include "trace/recorder.h"
#include "base/clock.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

void alloclab_worker_take_live(const struct worker *w, struct round_memory *m)
{
	m->live_end = m->live_peak = m->own = m->anon_peak = m->program_rss = 0;
	for (unsigned i = 0; i < w->cell->threads; i++) {
		m->live_end += __atomic_exchange_n((uint64_t *)&w->live[i].end_bytes, 0, __ATOMIC_RELAXED);
		m->live_peak += __atomic_exchange_n((uint64_t *)&w->live[i].peak_bytes, 0, __ATOMIC_RELAXED);
		m->own += __atomic_exchange_n((uint64_t *)&w->live[i].own_bytes, 0, __ATOMIC_RELAXED);
		m->anon_peak += __atomic_exchange_n((uint64_t *)&w->live[i].anon_peak_kib, 0, __ATOMIC_RELAXED);
		uint64_t rss = __atomic_exchange_n((uint64_t *)&w->live[i].program_rss_kib, 0, __ATOMIC_RELAXED);
		if (rss > m->program_rss)
			m->program_rss = rss;
	}
}

/* A stats callback keeping only the standard names, with no allocation. */
static void keep_standard(void *arg, const char *name, uint64_t value)
{
	struct round_memory *m = arg;
	for (unsigned i = 0; i < ALLOCLAB_NSTANDARD_STATS; i++)
		if (strcmp(name, alloclab_standard_stats[i]) == 0) {
			m->standard[i] = value;
			m->standard_given |= 1u << i;
		}
}

/* Both: every name into a JSON object (the last value's), the standard
 * ones kept as well. */
struct both {
	json_t *all;
	struct round_memory *m;
};

static void keep_both(void *arg, const char *name, uint64_t value)
{
	struct both *b = arg;
	json_object_set_new(b->all, name, alloclab_stat_json(value));
	keep_standard(b->m, name, value);
}

/* The round the next steps belong to, for the memory timeline: the
 * value's number, or a warm-up's as a negative one. Thread 0 only. */
static void mark_round(const struct worker *w, const struct thread_slot *slot, unsigned r)
{
	if (slot->wt.index == 0) {
		alloclab_phase_round(r < w->cell->warmups ? -(int)(r + 1) : (int)(r - w->cell->warmups + 1));
		if (w->cell->heapmap)
			alloclab_heapmap_value(r < w->cell->warmups ? 0 : r - w->cell->warmups + 1);
	}
}

/* Whether this worker records a trace whose windows it marks: the
 * recorder wraps the plugin (not a workload that records the programs it
 * starts). */
static int recording_windows(const struct worker *w)
{
	return w->cell->record_path && !(w->cell->workload->flags & ALLOCLAB_WORKLOAD_RECORDS_ITSELF);
}

/* Before the first round: the thread's recorder and latency identities,
 * its CPU, and the plugin's thread hook. 1 when attached (detach at the
 * end), 0 otherwise. */
static int thread_start(struct worker *w, struct thread_slot *slot)
{
	alloclab_recorder_thread(slot->wt.index);
	if (w->cell->latency)
		alloclab_latency_thread((int)slot->wt.index);
	if (slot->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(slot->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof set, &set);
	}
	if (w->alloc.ops.thread_attach == NULL)
		return 0;
	alloclab_phase("thread_attach");
	int rc = w->alloc.ops.thread_attach(w->alloc.instance);
	if (rc != 0) {
		snprintf(slot->error, sizeof slot->error, "thread_attach failed: %s", strerror(-rc));
		w->failed = 1;
		return 0;
	}
	return 1;
}

/* A round's start: what the round before left (thread 0), then prepare.
 * Every thread prepares, or none: a workload may wait for the others in
 * prepare (t->sync), so whether to go on is decided here, by all of them
 * together, and not by each when it gets to prepare. -1: the process is
 * over (a failure in the round before). */
static int round_prepare(struct worker *w, struct thread_slot *slot, unsigned r)
{
	const struct alloclab_workload *wl = w->cell->workload;

	pthread_barrier_wait(&w->barrier);
	/* Every thread has finished the round before: what the allocator
	 * kept of it. */
	if (r > 0 && slot->wt.index == 0) {
		w->mem[r - 1].rss_after_finish = alloclab_self_statm_kib(NULL);
		alloclab_worker_take_live(w, &w->mem[r - 1]);
	}
	if (w->failed)
		return -1;
	slot->wt.last_value = r + 1 == w->rounds;
	slot->wt.warmup = r < w->cell->warmups;
	mark_round(w, slot, r);
	alloclab_phase("prepare");
	if (wl->prepare(&slot->wt, slot->error, sizeof slot->error) != 0)
		w->prepare_failed = 1;
	pthread_barrier_wait(&w->barrier);
	if (w->prepare_failed)
		w->failed = 1;
	return 0;
}

/* The plugin's own account with the working sets live, while every other
 * thread waits (no op may run beside stats): all of it in the last value,
 * its standard names in every value; and a heap map's frame. */
static void round_account(struct worker *w, struct thread_slot *slot, unsigned r)
{
	if (slot->wt.index == 0 && w->cell->heapmap && r >= w->cell->warmups) {
		const char *late = alloclab_heapmap_error();
		alloclab_phase("heapmap");
		if (late)
			snprintf(slot->error, sizeof slot->error, "%s", late);
		if (late || alloclab_heapmap_frame(slot->error, sizeof slot->error) != 0)
			w->failed = 1;
		/* The value's frames end here; its finish is not drawn. */
		alloclab_heapmap_value(0);
	}
	if (slot->wt.index == 0 && w->alloc.ops.stats) {
		alloclab_phase("stats");
		if (r + 1 == w->rounds) {
			struct both b = {json_object(), &w->mem[r]};
			alloclab_plugin_stats(&w->alloc.ops, w->alloc.instance, keep_both, &b);
			w->stats_live = b.all;
		} else {
			alloclab_plugin_stats(&w->alloc.ops, w->alloc.instance, keep_standard, &w->mem[r]);
		}
	}
	pthread_barrier_wait(&w->barrier);
}

/* After the timed region: the counts it made, the process's page faults
 * and resident set with the working sets live, the plugin's account. */
static void round_after_run(struct worker *w, struct thread_slot *slot, unsigned r, const struct rusage *before)
{
	if (w->cell->callgrind_dir && slot->wt.index == 0)
		w->instructions[r] = alloclab_measure_stop(w->cell->callgrind_dir, &w->dumps, &w->d1_misses[r], &w->ll_misses[r]);
	if (w->cell->latency && slot->wt.index == 0)
		w->latency[r] = alloclab_latency_stop();
	/* A failure ends the process after this round: its finish is the
	 * last, and a workload frees there what it keeps to the end (after
	 * the counted region, which runs what it always ran). */
	if (w->failed)
		slot->wt.last_value = 1;
	if (slot->wt.index == 0) {
		/* Page faults of the whole process from before the run to after
		 * it: outside every timed and counted region. */
		struct rusage after;
		getrusage(RUSAGE_SELF, &after);
		w->mem[r].minor_faults = (uint64_t)(after.ru_minflt - before->ru_minflt);
		w->mem[r].major_faults = (uint64_t)(after.ru_majflt - before->ru_majflt);
		int64_t sys_us = (int64_t)(after.ru_stime.tv_sec - before->ru_stime.tv_sec) * 1000000 +
				 (after.ru_stime.tv_usec - before->ru_stime.tv_usec);
		w->mem[r].sys_ns = sys_us > 0 ? (uint64_t)sys_us * 1000 : 0;
		/* The working sets still live, whatever the sampler's interval:
		 * the end of run for fragmentation. */
		w->mem[r].rss_end_of_run = alloclab_self_statm_kib(&w->mem[r].anon_end_of_run);
	}
	if (!w->failed && (w->alloc.ops.stats || w->cell->heapmap))
		round_account(w, slot, r);
}

/* Whether the blocks the thread holds still carry what the workload
 * wrote (workload.h, check_blocks), after every count and before finish:
 * the plugin changed them otherwise, and nothing it measured is kept. */
static void round_check_blocks(struct worker *w, struct thread_slot *slot)
{
	char why[256];
	if (w->failed || w->cell->workload->check_blocks == NULL)
		return;
	alloclab_phase("check");
	if (w->cell->workload->check_blocks(&slot->wt, why, sizeof why) != 0) {
		snprintf(slot->error, sizeof slot->error,
			 "blocks the plugin handed out changed under the workload (%.200s): it wrote into a block it had "
			 "handed out or freed, or handed one out twice",
			 why);
		slot->wt.last_value = 1;
		w->failed = 1;
	}
}

/* finish, and what the workload reported of the round and the process. */
static void round_finish(struct worker *w, struct thread_slot *slot, unsigned r)
{
	alloclab_phase("finish");
	w->cell->workload->finish(&slot->wt);
	if (slot->wt.report) {
		w->reports[r * w->cell->threads + slot->wt.index] = slot->wt.report;
		slot->wt.report = NULL;
	}
	if (slot->wt.process_report) {
		json_decref(w->process_reports[slot->wt.index]);
		w->process_reports[slot->wt.index] = slot->wt.process_report;
		slot->wt.process_report = NULL;
	}
}

void *alloclab_worker_thread(void *arg)
{
	struct thread_slot *slot = arg;
	struct worker *w = (struct worker *)slot->wt.state; /* borrowed until prepare */
	const struct alloclab_workload *wl = w->cell->workload;

	slot->wt.state = NULL;
	int attached = thread_start(w, slot);
	for (unsigned r = 0; r < w->rounds; r++) {
		if (round_prepare(w, slot, r) != 0)
			break;
		struct rusage before;
		if (slot->wt.index == 0)
			getrusage(RUSAGE_SELF, &before);
		if (w->cell->latency) {
			/* Calls count from here to the barrier after run(). */
			if (slot->wt.index == 0)
				alloclab_latency_start();
			pthread_barrier_wait(&w->barrier);
		}
		/* Recording: a measured value's run() is a window of the
		 * trace, cut while every thread waits (trace.h). */
		int window = recording_windows(w) && r >= w->cell->warmups;
		if (window) {
			pthread_barrier_wait(&w->barrier);
			if (slot->wt.index == 0)
				alloclab_recorder_window(1);
			pthread_barrier_wait(&w->barrier);
		}
		if (w->cell->callgrind_dir) {
			/* Collection on for exactly the timed region, all threads. */
			if (slot->wt.index == 0)
				alloclab_measure_start();
			pthread_barrier_wait(&w->barrier);
		}
		/* The timed region: nothing here but the run and its clocks. */
		if (!w->failed) {
			alloclab_phase("run");
			slot->wt.own_ns = 0;
			slot->start_ns[r] = alloclab_now_ns();
			wl->run(&slot->wt);
			slot->end_ns[r] = alloclab_now_ns();
			/* The workload's own time of its operations, where it took one
			 * (it can only be shorter than run() itself). */
			if (slot->wt.own_ns && slot->wt.own_ns < slot->end_ns[r] - slot->start_ns[r])
				slot->end_ns[r] = slot->start_ns[r] + slot->wt.own_ns;
			slot->ops[r] = slot->wt.ops;
			if (slot->wt.error) {
				snprintf(slot->error, sizeof slot->error, "%s", slot->wt.error);
				w->failed = 1;
			}
		}
		pthread_barrier_wait(&w->barrier);
		if (window) {
			if (slot->wt.index == 0)
				alloclab_recorder_window(0);
			pthread_barrier_wait(&w->barrier);
		}
		round_after_run(w, slot, r, &before);
		round_check_blocks(w, slot);
		round_finish(w, slot, r);
	}
	if (attached) {
		alloclab_phase("thread_detach");
		w->alloc.ops.thread_detach(w->alloc.instance);
	}
	return NULL;
}
