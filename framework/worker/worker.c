/*
 * One worker process's measurement. See worker.h.
 *
 * The threads live for the whole worker: warm-ups then warm the allocator's
 * per-thread caches the way a long-running program's would, and thread
 * start-up stays out of every value. Each value goes:
 *   all threads: prepare -> barrier -> [t0 run t1] -> barrier -> finish
 * and its wall time is max(t1) - min(t0) over threads.
 */
#define _GNU_SOURCE 1
#include "worker/worker.h"
#include "memory/self_memory.h"
#include "plugin/interpose.h"
#include "base/hash.h"
#include "measure/heapmap.h"
#include "measure/latency.h"
#include "base/lengths.h"
#include "measure/measure.h"

#include "process/child.h"
#include "measure/placement.h"
#include "trace/recorder.h"
#include "results/results.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct thread_slot {
	pthread_t tid;
	struct alloclab_workload_thread wt;
	uint64_t *start_ns, *end_ns, *ops; /* one entry per warm-up + value */
	char error[ALLOCLAB_ERR_LEN];
	int cpu;                           /* -1: not pinned */
};

struct worker {
	const struct alloclab_cell_spec *cell;
	uint64_t *instructions;     /* per round, --measure instructions */
	uint64_t *d1_misses, *ll_misses; /* per round, --measure cache */
	struct alloclab_latency **latency; /* per round, --latency */
	/* The memory figures of each round, in memory mapped for them: not
	 * from the C library's heap, which the system plugin shares with the
	 * harness, so that taking them leaves glibc's state (and what its
	 * malloc costs in the next value) as it would be without them. */
	struct round_memory *mem;
	struct alloclab_live *live; /* the threads' counters (child.h) */
	unsigned dumps;             /* callgrind dumps written so far */
	struct alloclab_allocator alloc;
	pthread_barrier_t barrier;
	unsigned rounds;            /* warmups + values */
	struct thread_slot *slots;
	json_t **reports;           /* [round * threads + thread], from wt.report */
	json_t **process_reports;   /* [thread], from wt.process_report */
	/* The placement service: each thread's blocks, and the counts across
	 * threads that thread 0 works out while the others wait. */
	struct alloclab_block_list *lists;
	uint64_t lines_total, lines_shared;
	/* The plugin's statistics at the end of the last value, before the
	 * threads free their working sets (taken by thread 0 while the others
	 * wait at a barrier, so no other op runs). */
	json_t *stats_live;
	/* Set by any thread that failed; every thread checks it after each
	 * barrier so all of them stop at the same round and none waits on a
	 * barrier the others have left. */
	_Atomic int failed;
	/* A prepare() that failed, kept apart from `failed` until every
	 * thread has prepared: a fast thread's failure must not be seen by a
	 * slower one still deciding, after the round's first barrier, whether
	 * to prepare at all (it would leave, and the others wait for it). */
	_Atomic int prepare_failed;
};

/* An instance kept to the end of the process (ALLOCLAB_WORKLOAD_KEEP_INSTANCE),
 * reachable till then so that a leak checker does not report it; volatile,
 * or the compiler drops a store nothing reads. */
static void *volatile kept_instance;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

unsigned alloclab_layout_pad(unsigned round)
{
	/* 37 is odd: consecutive rounds take distinct residues modulo every
	 * power of two up to 256, so the first processes land in as many
	 * different sets of a simulated TLB as they can (a pad that is a
	 * multiple of the sets would repeat the layout of the first). */
	return round * 37u % 256u;
}

/* The Weyl step, then SplitMix64's finaliser (its two multipliers and
 * shifts), so that neighbouring thread indices get unrelated seeds. */
uint64_t alloclab_thread_seed(uint64_t seed, unsigned thread_index)
{
	uint64_t z = seed + ALLOCLAB_GOLDEN_GAMMA * (thread_index + 1);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void collect_stat(void *arg, const char *name, uint64_t value)
{
	json_object_set_new(arg, name, alloclab_stat_json(value));
}

static void sync_threads(struct alloclab_workload_thread *t)
{
	pthread_barrier_wait(&((struct worker *)t->host)->barrier);
}

static json_t *placement_service(struct alloclab_workload_thread *t, const uintptr_t *addr, const size_t *size,
				 size_t n)
{
	struct worker *w = t->host;
	size_t line = alloclab_cache_line_size();

	/* After a failure some threads may not call in (their prepare failed):
	 * nobody waits then. The flag cannot change between the barrier after
	 * run() and here, so every thread sees the same. */
	if (w->failed)
		return NULL;
	w->lists[t->index] = (struct alloclab_block_list){addr, size, n};
	pthread_barrier_wait(&w->barrier);
	if (t->index == 0 && t->nthreads > 1 &&
	    alloclab_shared_lines(w->lists, t->nthreads, line, &w->lines_total, &w->lines_shared) != 0)
		w->lines_total = w->lines_shared = 0;
	pthread_barrier_wait(&w->barrier);
	/* Only thread 0 carries the cross-thread counts: they are the cell's,
	 * and a sum over threads must count them once. */
	return alloclab_placement_report(addr, size, n, line, t->index == 0 && t->nthreads > 1, w->lines_total,
					 w->lines_shared);
}

/* ---- --measure instructions ---- */

const char *alloclab_cell_spec_metric(const struct alloclab_cell_spec *cell)
{
	return cell->callgrind_dir ? ALLOCLAB_METRIC_INSTRUCTIONS : ALLOCLAB_METRIC_TIME;
}

#define standard_names alloclab_standard_stats
#define NSTANDARD ALLOCLAB_NSTANDARD_STATS

struct round_memory {
	uint64_t minor_faults, major_faults; /* the process's, around run() */
	long rss_end_of_run, anon_end_of_run; /* KiB, once every thread has ended run(); its anonymous part */
	long rss_after_finish;               /* KiB, once every thread has finished the round */
	uint64_t live_end;                   /* the bytes the threads said were live when run() ended */
	uint64_t live_peak;                  /* the sum of the most each thread said it held; 0 not said */
	uint64_t own;                        /* the workload's own tables outside the plugin */
	uint64_t anon_peak;                  /* KiB, its own reading at its peak; 0 not said */
	uint64_t standard[NSTANDARD];        /* the plugin's standard statistics after run() */
	unsigned standard_given;             /* which of them it gave (bits) */
};

/* A stats callback keeping only the standard names, with no allocation. */
static void keep_standard(void *arg, const char *name, uint64_t value)
{
	struct round_memory *m = arg;
	for (unsigned i = 0; i < NSTANDARD; i++)
		if (strcmp(name, standard_names[i]) == 0) {
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

/* This process's resident set in KiB from /proc/self/statm, and (if anon
 * is not NULL) its anonymous part (resident less shared: the heap, not
 * the code), read into the stack: no allocation (stdio would take a
 * buffer from the C library's heap, which the system plugin shares). -1
 * when unknown. */


/* What the threads said of the round (workload.h, struct alloclab_live):
 * held when run() ended, held at most, their own tables; summed into m
 * and cleared for the next round. */
static void take_live(const struct worker *w, struct round_memory *m)
{
	m->live_end = m->live_peak = m->own = m->anon_peak = 0;
	for (unsigned i = 0; i < w->cell->threads; i++) {
		m->live_end += __atomic_exchange_n((uint64_t *)&w->live[i].end_bytes, 0, __ATOMIC_RELAXED);
		m->live_peak += __atomic_exchange_n((uint64_t *)&w->live[i].peak_bytes, 0, __ATOMIC_RELAXED);
		m->own += __atomic_exchange_n((uint64_t *)&w->live[i].own_bytes, 0, __ATOMIC_RELAXED);
		m->anon_peak += __atomic_exchange_n((uint64_t *)&w->live[i].anon_peak_kib, 0, __ATOMIC_RELAXED);
	}
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

static void *thread_main(void *arg)
{
	struct thread_slot *slot = arg;
	struct worker *w = (struct worker *)slot->wt.state; /* borrowed until prepare */
	const struct alloclab_workload *wl = w->cell->workload;
	int attached = 0;

	slot->wt.state = NULL;
	alloclab_recorder_thread(slot->wt.index);
	if (w->cell->latency)
		alloclab_latency_thread((int)slot->wt.index);
	if (slot->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(slot->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof set, &set);
	}
	if (w->alloc.ops.thread_attach) {
		alloclab_phase("thread_attach");
		int rc = w->alloc.ops.thread_attach(w->alloc.instance);
		if (rc != 0) {
			snprintf(slot->error, sizeof slot->error, "thread_attach failed: %s", strerror(-rc));
			w->failed = 1;
		} else {
			attached = 1;
		}
	}
	for (unsigned r = 0; r < w->rounds; r++) {
		/* Every thread prepares, or none: a workload may wait for the
		 * others in prepare (t->sync), so whether to go on is decided
		 * here, by all of them together, and not by each when it gets
		 * to prepare. */
		pthread_barrier_wait(&w->barrier);
		/* Every thread has finished the round before: what the
		 * allocator kept of it. */
		if (r > 0 && slot->wt.index == 0) {
			w->mem[r - 1].rss_after_finish = alloclab_self_statm_kib(NULL);
			take_live(w, &w->mem[r - 1]);
		}
		if (w->failed)
			break;
		slot->wt.last_value = r + 1 == w->rounds;
		slot->wt.warmup = r < w->cell->warmups;
		mark_round(w, slot, r);
		alloclab_phase("prepare");
		if (wl->prepare(&slot->wt, slot->error, sizeof slot->error) != 0)
			w->prepare_failed = 1;
		pthread_barrier_wait(&w->barrier);
		if (w->prepare_failed)
			w->failed = 1;
		struct rusage before;
		if (slot->wt.index == 0)
			getrusage(RUSAGE_SELF, &before);
		if (w->cell->latency) {
			/* Calls count from here to the barrier after run(). */
			if (slot->wt.index == 0)
				alloclab_latency_start();
			pthread_barrier_wait(&w->barrier);
		}
		if (w->cell->callgrind_dir) {
			/* Collection on for exactly the timed region, all threads. */
			if (slot->wt.index == 0)
				alloclab_measure_start();
			pthread_barrier_wait(&w->barrier);
		}
		if (!w->failed) {
			alloclab_phase("run");
			slot->wt.own_ns = 0;
			slot->start_ns[r] = now_ns();
			wl->run(&slot->wt);
			slot->end_ns[r] = now_ns();
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
		if (w->cell->callgrind_dir && slot->wt.index == 0)
			w->instructions[r] = alloclab_measure_stop(w->cell->callgrind_dir, &w->dumps, &w->d1_misses[r], &w->ll_misses[r]);
		if (w->cell->latency && slot->wt.index == 0)
			w->latency[r] = alloclab_latency_stop();
		/* A failure ends the process after this round: its finish is the
		 * last, and a workload frees there what it keeps to the end
		 * (after the counted region, which runs what it always ran). */
		if (w->failed)
			slot->wt.last_value = 1;
		if (slot->wt.index == 0) {
			/* Page faults of the whole process from before the run to
			 * after it: outside every timed and counted region. */
			struct rusage after;
			getrusage(RUSAGE_SELF, &after);
			w->mem[r].minor_faults = (uint64_t)(after.ru_minflt - before.ru_minflt);
			w->mem[r].major_faults = (uint64_t)(after.ru_majflt - before.ru_majflt);
			/* The working sets still live, whatever the sampler's
			 * interval: the end of run for fragmentation. */
			w->mem[r].rss_end_of_run = alloclab_self_statm_kib(&w->mem[r].anon_end_of_run);
		}
		if (!w->failed && (w->alloc.ops.stats || w->cell->heapmap)) {
			/* The allocator's own account with the working sets live,
			 * while every other thread waits (no op may run beside
			 * stats): all of it in the last value, its standard names
			 * in every value; and a heap map's frame. */
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
					w->alloc.ops.stats(w->alloc.instance, keep_both, &b);
					w->stats_live = b.all;
				} else {
					w->alloc.ops.stats(w->alloc.instance, keep_standard, &w->mem[r]);
				}
			}
			pthread_barrier_wait(&w->barrier);
		}
		alloclab_phase("finish");
		wl->finish(&slot->wt);
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
	if (attached) {
		alloclab_phase("thread_detach");
		w->alloc.ops.thread_detach(w->alloc.instance);
	}
	return NULL;
}

static void round_value(const struct worker *w, unsigned r, struct alloclab_value *v)
{
	uint64_t first = UINT64_MAX, last = 0, ops = 0;
	unsigned threads = w->cell->threads;

	v->thread_ns = calloc(threads, sizeof *v->thread_ns);
	v->thread_ops = calloc(threads, sizeof *v->thread_ops);
	for (unsigned i = 0; i < threads; i++) {
		const struct thread_slot *s = &w->slots[i];
		if (s->start_ns[r] < first)
			first = s->start_ns[r];
		if (s->end_ns[r] > last)
			last = s->end_ns[r];
		v->thread_ns[i] = s->end_ns[r] - s->start_ns[r];
		v->thread_ops[i] = s->ops[r];
		ops += s->ops[r];
	}
	v->wall_ns = last - first;
	/* The headline figure: the time one thread takes per operation, or
	 * with --measure instructions the instructions per operation. */
	if (w->cell->callgrind_dir)
		v->per_op = ops ? (double)w->instructions[r] / (double)ops : 0;
	else
		v->per_op = ops ? (double)v->wall_ns * threads / (double)ops : 0;
	if (w->cell->cache_sim && ops) {
		v->cache_simulated = 1;
		v->d1_misses_per_op = (double)w->d1_misses[r] / (double)ops;
		v->ll_misses_per_op = (double)w->ll_misses[r] / (double)ops;
	}
	if (w->latency) {
		v->latency = w->latency[r];
		w->latency[r] = NULL;
	}
	v->faults_counted = 1;
	v->minor_faults = w->mem[r].minor_faults;
	v->major_faults = w->mem[r].major_faults;
	v->rss_after_finish_kib = w->mem[r].rss_after_finish;
	v->rss_end_of_run_kib = w->mem[r].rss_end_of_run;
	v->anon_end_of_run_kib = w->mem[r].anon_end_of_run;
	v->live_end_bytes = w->mem[r].live_end;
	v->live_peak_bytes = w->mem[r].live_peak;
	v->own_bytes = w->mem[r].own;
	v->workload_anon_peak_kib = w->mem[r].anon_peak;
	if (w->mem[r].standard_given) {
		v->stats = json_object();
		for (unsigned i = 0; i < NSTANDARD; i++)
			if (w->mem[r].standard_given & (1u << i))
				json_object_set_new(v->stats, standard_names[i], alloclab_stat_json(w->mem[r].standard[i]));
	}
	if (w->reports[r * threads]) {
		v->thread_reports = json_array();
		for (unsigned i = 0; i < threads; i++) {
			json_t *rep = w->reports[r * threads + i];
			json_array_append_new(v->thread_reports, rep ? rep : json_null());
			w->reports[r * threads + i] = NULL;
		}
	}
}

static int allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

static void worker_free(struct worker *w, void *shared, struct alloclab_loaded_plugin *plugin)
{
	for (unsigned i = 0; i < w->cell->threads; i++) {
		free(w->slots[i].start_ns);
		free(w->slots[i].end_ns);
		free(w->slots[i].ops);
		json_decref(w->process_reports[i]);
	}
	for (size_t i = 0; i < (size_t)w->rounds * w->cell->threads; i++)
		json_decref(w->reports[i]);
	json_decref(w->stats_live); /* when a failure left it here */
	free(w->slots);
	free(w->instructions);
	free(w->d1_misses);
	free(w->ll_misses);
	for (unsigned r = 0; w->latency && r < w->rounds; r++)
		alloclab_latency_free(w->latency[r]);
	free(w->latency);
	if (w->mem)
		munmap(w->mem, (size_t)w->rounds * sizeof *w->mem);
	free(w->reports);
	free(w->process_reports);
	free(w->lists);
	free(shared);
	pthread_barrier_destroy(&w->barrier);
	/* The plugin stays mapped: its TLS destructors may still run at exit. */
	free(plugin->path);
	plugin->path = NULL;
}

/* A cell refused once the instance exists: the instance destroyed, as at
 * the end of a measurement, so that nothing made for it outlives it. */
static int refused_after_create(struct worker *w, struct alloclab_loaded_plugin *plugin, int rc)
{
	alloclab_phase("destroy");
	alloclab_allocator_destroy(&w->alloc);
	free(plugin->path);
	plugin->path = NULL;
	return rc;
}

int alloclab_worker_measure(const struct alloclab_cell_spec *cell, struct alloclab_process *out, char *err,
			    size_t err_len)
{
	struct alloclab_loaded_plugin plugin;
	struct worker w;
	int seed_idx = alloclab_workload_role_index(cell->workload, ALLOCLAB_ROLE_SEED);
	uint64_t seed = seed_idx >= 0 ? cell->params.v[seed_idx] : 0;
	int cpus[CPU_SETSIZE], ncpus = cell->pin ? allowed_cpus(cpus, CPU_SETSIZE) : 0;
	unsigned started = 0;

	memset(out, 0, sizeof *out);
	memset(&w, 0, sizeof w);
	w.cell = cell;
	w.rounds = cell->warmups + cell->values;
	alloclab_measure_keep_dumps = cell->keep_dumps != 0;
	if (cell->callgrind_dir && !alloclab_measure_under_valgrind()) {
		snprintf(err, err_len, "--measure instructions: the worker is not running under valgrind's callgrind");
		return -1;
	}
	if (cell->layout_pad_pages) {
		/* Never touched and never freed: it only moves what is mapped after it. */
		void *pad = mmap(NULL, (size_t)cell->layout_pad_pages << 12, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (pad == MAP_FAILED) {
			snprintf(err, err_len, "cannot map the layout's %u pages: %s", cell->layout_pad_pages, strerror(errno));
			return -1;
		}
	}
	long anon_before_plugin;
	long before_plugin = alloclab_self_statm_kib(&anon_before_plugin);
	alloclab_phase("load");
	if (alloclab_plugin_load(cell->plugin, &plugin, err, err_len) != 0)
		return -1;
	alloclab_phase("create");
	if (alloclab_allocator_create(&w.alloc, &plugin, cell->plugin_options, err, err_len) != 0)
		return -1;
	if (cell->record_path && !(cell->workload->flags & ALLOCLAB_WORKLOAD_RECORDS_ITSELF)) {
		json_t *meta = json_pack("{s:s,s:o}", "alloclab", ALLOCLAB_VERSION, "recorded",
					 alloclab_cell_spec_to_json(cell));
		json_object_del(json_object_get(meta, "recorded"), "record");
		if (alloclab_recorder_start(&w.alloc, cell->record_path, meta, cell->threads, err, err_len) != 0)
			return refused_after_create(&w, &plugin, -1);
	}
	if (cell->gil)
		alloclab_allocator_global_lock(&w.alloc);
	if (cell->cache_align)
		alloclab_allocator_cache_align(&w.alloc, alloclab_cache_line_size());
	if (cell->heapmap && alloclab_heapmap_install(&w.alloc, cell->heapmap, cell->heapmap_every, err, err_len) != 0)
		return refused_after_create(&w, &plugin, w.alloc.ops.regions ? -1 : -2);
	/* Last: what is timed is what the workload calls, wrappers included. */
	if (cell->latency)
		alloclab_latency_install(&w.alloc, cell->latency);

	w.slots = calloc(cell->threads, sizeof *w.slots);
	w.instructions = calloc(w.rounds, sizeof *w.instructions);
	w.d1_misses = calloc(w.rounds, sizeof *w.d1_misses);
	w.ll_misses = calloc(w.rounds, sizeof *w.ll_misses);
	/* Only with --latency: without it the worker's heap is laid out as
	 * it always was (simulated TLB misses depend on that layout). */
	w.latency = cell->latency ? calloc(w.rounds, sizeof *w.latency) : NULL;
	void *mem = mmap(NULL, (size_t)w.rounds * sizeof *w.mem, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		snprintf(err, err_len, "out of memory for the rounds' figures");
		return -1;
	}
	w.mem = mem;
	if ((w.live = alloclab_live_attach()) == NULL) {
		snprintf(err, err_len, "out of memory for the live counters");
		return -1;
	}
	w.reports = calloc((size_t)w.rounds * cell->threads, sizeof *w.reports);
	w.process_reports = calloc(cell->threads, sizeof *w.process_reports);
	w.lists = calloc(cell->threads, sizeof *w.lists);
	void *shared = cell->workload->shared_size ? calloc(1, cell->workload->shared_size) : NULL;
	pthread_barrier_init(&w.barrier, NULL, cell->threads);
	for (unsigned i = 0; i < cell->threads; i++) {
		struct thread_slot *s = &w.slots[i];
		s->start_ns = calloc(w.rounds, sizeof(uint64_t));
		s->end_ns = calloc(w.rounds, sizeof(uint64_t));
		s->ops = calloc(w.rounds, sizeof(uint64_t));
		s->cpu = ncpus ? cpus[i % (unsigned)ncpus] : -1;
		s->wt.alloc = &w.alloc;
		s->wt.plugin = cell->plugin;
		s->wt.plugin_options = cell->plugin_options;
		s->wt.gil = cell->gil;
		s->wt.record_path = cell->record_path;
		s->wt.params = &cell->params;
		s->wt.index = i;
		s->wt.nthreads = cell->threads;
		s->wt.seed = alloclab_thread_seed(seed, i);
		s->wt.state = &w;
		s->wt.shared = shared;
		s->wt.sync = sync_threads;
		s->wt.placement = placement_service;
		s->wt.host = &w;
		s->wt.live = &w.live[i];
	}
	/* Thread 0 is the process's main thread, as in the programs measured:
	 * some allocators serve it differently (glibc's main arena grows the
	 * heap with brk; other threads get mmap'd arenas, which cost about 8
	 * more instructions a free in churn). A version 1 plugin was promised
	 * its thread hooks never run on the main thread: its thread 0 gets a
	 * thread of its own. */
	unsigned first = plugin.desc.abi_version >= 2 ? 1 : 0;
	for (unsigned i = first; i < cell->threads; i++, started++) {
		int rc = pthread_create(&w.slots[i].tid, NULL, thread_main, &w.slots[i]);
		if (rc != 0) {
			/* The barrier counts every thread: without all of them
			 * the others would wait forever, so give up at once. */
			snprintf(err, err_len, "cannot start thread %u: %s", i, strerror(rc));
			return -1;
		}
	}
	if (first == 1)
		thread_main(&w.slots[0]);
	for (unsigned i = first; i < first + started; i++)
		pthread_join(w.slots[i].tid, NULL);
	w.mem[w.rounds - 1].rss_after_finish = alloclab_self_statm_kib(NULL);
	take_live(&w, &w.mem[w.rounds - 1]);

	if (w.failed) {
		const char *why = "a thread failed without saying why";
		int na = 0;
		for (unsigned i = cell->threads; i-- > 0;)
			if (w.slots[i].error[0]) {
				why = w.slots[i].error;
				na = w.slots[i].wt.not_applicable;
			}
		snprintf(err, err_len, "%s", why);
		worker_free(&w, shared, &plugin);
		return na ? -2 : -1;
	}
	out->warmups = calloc(cell->warmups + 1, sizeof *out->warmups);
	out->values = calloc(cell->values + 1, sizeof *out->values);
	for (unsigned r = 0; r < w.rounds; r++) {
		if (r < cell->warmups) {
			/* A warm-up's time and memory are kept (python counts what
			 * it holds in its warm-ups only); its reports are not:
			 * nothing reads them, and they are most of a cell's size. */
			round_value(&w, r, &out->warmups[out->nwarmups]);
			json_decref(out->warmups[out->nwarmups].thread_reports);
			out->warmups[out->nwarmups].thread_reports = NULL;
			alloclab_latency_free(out->warmups[out->nwarmups].latency);
			out->warmups[out->nwarmups++].latency = NULL;
		}
		else
			round_value(&w, r, &out->values[out->nvalues++]);
	}
	for (unsigned i = 0; i < cell->threads; i++)
		if (w.process_reports[i]) {
			out->report = json_array();
			for (unsigned k = 0; k < cell->threads; k++) {
				json_array_append_new(out->report, w.process_reports[k] ? w.process_reports[k] : json_null());
				w.process_reports[k] = NULL;
			}
			break;
		}
	/* Values are checked for sense where they are made, not only where a
	 * file is read: no time, or less than ALLOCLAB_MIN_NS_PER_OP an
	 * operation (a fraction of one cycle: no allocator call, no Python
	 * iteration is that fast), means the workload did not do the work it
	 * counted. */
	for (unsigned r = 0; r < out->nvalues; r++) {
		const struct alloclab_value *v = &out->values[r];
		uint64_t ops = 0;
		for (unsigned i = 0; i < cell->threads; i++)
			ops += v->thread_ops[i];
		int no_time = !cell->callgrind_dir && v->per_op > 0 && v->per_op < ALLOCLAB_MIN_NS_PER_OP;
		if (!(v->per_op > 0) || no_time || !isfinite(v->per_op)) {
			if (no_time)
				snprintf(err, err_len,
					 "value %u: %.3g ns an operation over %" PRIu64 " operations, less than %g ns: "
					 "the workload counted work it did not do",
					 r + 1, v->per_op, ops, ALLOCLAB_MIN_NS_PER_OP);
			else
				snprintf(err, err_len, cell->callgrind_dir ? "no instruction count could be read for value %u"
									   : "the workload did no operations in value %u",
					 r + 1);
			alloclab_process_clear(out);
			worker_free(&w, shared, &plugin);
			return -1;
		}
	}
	out->stats = w.stats_live;
	w.stats_live = NULL;
	if (w.alloc.ops.stats) {
		json_t *stats = json_object();
		alloclab_phase("stats");
		if (w.alloc.ops.stats(w.alloc.instance, collect_stat, stats) == 0)
			out->stats_after_finish = stats;
		else
			json_decref(stats);
	}
	/* What the allocator gives back once the workload has freed all:
	 * at once, after its own trim where it has one, and after a pause. */
	out->rss_before_plugin_kib = before_plugin;
	out->anon_before_plugin_kib = anon_before_plugin;
	out->layout_pad_pages = cell->layout_pad_pages;
	out->rss_after_finish_kib = w.mem[w.rounds - 1].rss_after_finish;
	out->rss_after_trim_kib = out->rss_after_settle_kib = -1;
	if (w.alloc.ops.trim) {
		alloclab_phase("trim");
		if (w.alloc.ops.trim(w.alloc.instance) == 0)
			out->rss_after_trim_kib = alloclab_self_statm_kib(NULL);
	}
	if (cell->settle_ms) {
		alloclab_phase("settle");
		struct timespec ts = {cell->settle_ms / 1000, (long)(cell->settle_ms % 1000) * 1000000};
		while (nanosleep(&ts, &ts) != 0)
			;
		out->rss_after_settle_kib = alloclab_self_statm_kib(NULL);
	}
	if (cell->record_path && !(cell->workload->flags & ALLOCLAB_WORKLOAD_RECORDS_ITSELF)) {
		/* The allocator's state at the trace's end, for a replay to
		 * compare its own with. */
		alloclab_phase("record");
		json_t *extra = json_pack("{s:O?}", "stats", out->stats_after_finish);
		if (alloclab_recorder_finish(extra, err, err_len) != 0) {
			alloclab_process_clear(out);
			worker_free(&w, shared, &plugin);
			return -1;
		}
	}
	if (!(cell->workload->flags & ALLOCLAB_WORKLOAD_KEEP_INSTANCE)) {
		alloclab_phase("destroy");
		alloclab_allocator_destroy(&w.alloc);
	} else {
		kept_instance = w.alloc.instance;
	}
	alloclab_phase("exit");
	out->peak_rss_kib = alloclab_peak_rss_kib();
	worker_free(&w, shared, &plugin);
	return 0;
}



/* The hand-off's fields, one table for both directions: a field added to
 * the spec is added here once. The workload (by name) and its parameters
 * (arrays) are handled beside the table. */
enum spec_kind {
	SPEC_TEXT,         /* const char *, required */
	SPEC_TEXT_OR_NULL, /* const char *, NULL as null */
	SPEC_COUNT,        /* unsigned in [min, max] */
	SPEC_FLAG,         /* int, as a boolean */
	SPEC_OPTION,       /* unsigned in [min, max], written only when not 0 (absent: 0) */
};

struct spec_field {
	const char *key;
	enum spec_kind kind;
	size_t offset;
	unsigned min, max;
};

#define SPEC_FIELD(key, kind, member, min, max) {key, kind, offsetof(struct alloclab_cell_spec, member), min, max}

static const struct spec_field spec_fields[] = {
	SPEC_FIELD("plugin", SPEC_TEXT, plugin, 0, 0),
	SPEC_FIELD("plugin_options", SPEC_TEXT, plugin_options, 0, 0),
	SPEC_FIELD("threads", SPEC_COUNT, threads, 1, ALLOCLAB_MAX_THREADS),
	SPEC_FIELD("warmups", SPEC_COUNT, warmups, 0, 100000),
	SPEC_FIELD("values", SPEC_COUNT, values, 1, 100000),
	SPEC_FIELD("pin", SPEC_FLAG, pin, 0, 0),
	SPEC_FIELD("cache_align", SPEC_FLAG, cache_align, 0, 0),
	SPEC_FIELD("gil", SPEC_FLAG, gil, 0, 0),
	SPEC_FIELD("callgrind_dir", SPEC_TEXT_OR_NULL, callgrind_dir, 0, 0),
	SPEC_FIELD("cache_sim", SPEC_COUNT, cache_sim, 0, 2),
	SPEC_FIELD("record", SPEC_TEXT_OR_NULL, record_path, 0, 0),
	SPEC_FIELD("latency", SPEC_OPTION, latency, 0, ALLOCLAB_LATENCY_MAX_EVERY),
	SPEC_FIELD("settle_ms", SPEC_OPTION, settle_ms, 0, 600000),
	SPEC_FIELD("keep_dumps", SPEC_OPTION, keep_dumps, 0, 1),
	SPEC_FIELD("heapmap", SPEC_TEXT_OR_NULL, heapmap, 0, 0),
	SPEC_FIELD("heapmap_every", SPEC_OPTION, heapmap_every, 0, ALLOCLAB_HEAPMAP_MAX_EVERY),
	SPEC_FIELD("layout_pad_pages", SPEC_OPTION, layout_pad_pages, 0, ALLOCLAB_LAYOUT_PAD_MAX),
};

json_t *alloclab_cell_spec_to_json(const struct alloclab_cell_spec *cell)
{
	json_t *obj = json_object(), *v = json_array(), *text = json_array();

	for (size_t k = 0; k < sizeof spec_fields / sizeof *spec_fields; k++) {
		const struct spec_field *f = &spec_fields[k];
		const char *member = (const char *)cell + f->offset;
		json_t *x = NULL;
		switch (f->kind) {
		case SPEC_TEXT:
		case SPEC_TEXT_OR_NULL: {
			const char *t = *(const char *const *)(const void *)member;
			x = t ? alloclab_json_text(t) : json_null();
			break;
		}
		case SPEC_COUNT:
		case SPEC_OPTION: x = json_integer(*(const unsigned *)(const void *)member); break;
		case SPEC_FLAG: x = json_boolean(*(const int *)(const void *)member); break;
		}
		if (f->kind == SPEC_OPTION && json_integer_value(x) == 0)
			json_decref(x);
		else
			json_object_set_new(obj, f->key, x);
	}
	for (unsigned i = 0; i < cell->workload->nparams; i++) {
		json_array_append_new(v, json_integer((json_int_t)cell->params.v[i]));
		json_array_append_new(text, cell->params.text[i] ? alloclab_json_text(cell->params.text[i]) : json_null());
	}
	json_object_set_new(obj, "workload", json_string(cell->workload->name));
	json_object_set_new(obj, "v", v);
	json_object_set_new(obj, "text", text);
	return obj;
}

int alloclab_cell_spec_from_json(const json_t *obj, const struct alloclab_workload *(*find)(const char *name),
				 struct alloclab_cell_spec *cell, char *err, size_t err_len)
{
	json_t *workload = json_object_get(obj, "workload"), *v = json_object_get(obj, "v"),
	       *text = json_object_get(obj, "text");

	memset(cell, 0, sizeof *cell);
	if (!json_is_object(obj) || !json_is_string(workload))
		goto malformed;
	for (size_t k = 0; k < sizeof spec_fields / sizeof *spec_fields; k++) {
		const struct spec_field *f = &spec_fields[k];
		char *member = (char *)cell + f->offset;
		json_t *x = json_object_get(obj, f->key);
		switch (f->kind) {
		case SPEC_TEXT:
		case SPEC_TEXT_OR_NULL:
			if (!(json_is_string(x) || (f->kind == SPEC_TEXT_OR_NULL && (x == NULL || json_is_null(x)))))
				goto malformed;
			*(const char **)(void *)member = json_string_value(x);
			break;
		case SPEC_OPTION:
			if (x == NULL)
				break;
			/* fall through */
		case SPEC_COUNT:
			if (!json_is_integer(x) || json_integer_value(x) < f->min || json_integer_value(x) > f->max)
				goto malformed;
			*(unsigned *)(void *)member = (unsigned)json_integer_value(x);
			break;
		case SPEC_FLAG:
			if (!json_is_boolean(x))
				goto malformed;
			*(int *)(void *)member = json_is_true(x);
			break;
		}
	}
	if ((cell->workload = find(json_string_value(workload))) == NULL || !json_is_array(v) || !json_is_array(text) ||
	    json_array_size(v) != cell->workload->nparams || json_array_size(text) != cell->workload->nparams)
		goto malformed;
	for (unsigned i = 0; i < cell->workload->nparams; i++) {
		json_t *n = json_array_get(v, i), *t = json_array_get(text, i);
		if (!json_is_integer(n) || !(json_is_null(t) || json_is_string(t)))
			goto malformed;
		cell->params.v[i] = (uint64_t)json_integer_value(n);
		cell->params.text[i] = json_string_value(t);
	}
	if (alloclab_params_check(cell->workload, &cell->params, err, err_len) != 0)
		return -1;
	if (cell->callgrind_dir == NULL)
		cell->cache_sim = 0;
	return 0;
malformed:
	snprintf(err, err_len, "malformed worker spec");
	return -1;
}

int alloclab_worker_send(const struct alloclab_cell_spec *cell, int fd)
{
	struct alloclab_process p;
	char err[ALLOCLAB_ERR_LEN];

	int rc = alloclab_worker_measure(cell, &p, err, sizeof err);
	if (rc != 0)
		return alloclab_child_send_json(fd, json_pack("{s:o,s:b}", "error", alloclab_json_text(err),
							      "not_applicable", rc == -2));
	json_t *obj = alloclab_process_to_json(&p, cell->threads, alloclab_cell_spec_metric(cell));
	alloclab_process_clear(&p);
	return alloclab_child_send_json(fd, obj);
}




