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
#include "worker/internal.h"
#include "plugin/stats.h"
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

/* An instance kept to the end of the process (ALLOCLAB_WORKLOAD_KEEP_INSTANCE),
 * reachable till then so that a leak checker does not report it; volatile,
 * or the compiler drops a store nothing reads. */
static void *volatile kept_instance;

void alloclab_worker_collect_stat(void *arg, const char *name, uint64_t value)
{
	json_object_set_new(arg, name, alloclab_stat_json(value));
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
	v->sys_ns = w->mem[r].sys_ns;
	v->rss_after_finish_kib = (w->cell->workload->flags & ALLOCLAB_WORKLOAD_RECORDS_ITSELF) ? -1 : w->mem[r].rss_after_finish;
	v->rss_end_of_run_kib = w->mem[r].rss_end_of_run;
	v->anon_end_of_run_kib = w->mem[r].anon_end_of_run;
	v->live_end_bytes = w->mem[r].live_end;
	v->live_peak_bytes = w->mem[r].live_peak;
	v->own_bytes = w->mem[r].own;
	v->workload_anon_peak_kib = w->mem[r].anon_peak;
	v->program_peak_rss_kib = w->mem[r].program_rss;
	if (w->mem[r].standard_given) {
		v->stats = json_object();
		for (unsigned i = 0; i < ALLOCLAB_NSTANDARD_STATS; i++)
			if (w->mem[r].standard_given & (1u << i))
				json_object_set_new(v->stats, alloclab_standard_stats[i], alloclab_stat_json(w->mem[r].standard[i]));
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

/* The instance, with the wrappers the cell asks for, in the order they
 * must go: the recorder and the lock around the plugin, the alignment
 * wrapper and the heap map's table over them, latency last (what is timed
 * is what the workload calls, wrappers included). 0; -1 or -2 (not
 * applicable) with err, the instance destroyed. */
static int open_instance(struct worker *w, struct alloclab_loaded_plugin *plugin, char *err, size_t err_len)
{
	const struct alloclab_cell_spec *cell = w->cell;

	alloclab_phase("load");
	if (alloclab_plugin_load(cell->plugin, plugin, err, err_len) != 0)
		return -1;
	alloclab_phase("create");
	if (alloclab_allocator_create(&w->alloc, plugin, cell->plugin_options, err, err_len) != 0)
		return -1;
	if (cell->record_path && !(cell->workload->flags & ALLOCLAB_WORKLOAD_RECORDS_ITSELF)) {
		json_t *meta = json_pack("{s:s,s:o}", "alloclab", ALLOCLAB_VERSION, "recorded",
					 alloclab_cell_spec_to_json(cell));
		json_object_del(json_object_get(meta, "recorded"), "record");
		if (alloclab_recorder_start(&w->alloc, cell->record_path, meta, cell->threads, err, err_len) != 0)
			return refused_after_create(w, plugin, -1);
	}
	if (cell->gil)
		alloclab_allocator_global_lock(&w->alloc);
	if (cell->cache_align)
		alloclab_allocator_cache_align(&w->alloc, alloclab_cache_line_size());
	if (cell->heapmap && alloclab_heapmap_install(&w->alloc, cell->heapmap, cell->heapmap_every, err, err_len) != 0)
		return refused_after_create(w, plugin, w->alloc.ops.regions ? -1 : -2);
	if (cell->latency)
		alloclab_latency_install(&w->alloc, cell->latency);
	return 0;
}

/* The rounds' records and every thread's slot. 0, or -1 with err. */
static int allocate_rounds(struct worker *w, void **shared, char *err, size_t err_len)
{
	const struct alloclab_cell_spec *cell = w->cell;
	int seed_idx = alloclab_workload_role_index(cell->workload, ALLOCLAB_ROLE_SEED);
	uint64_t seed = seed_idx >= 0 ? cell->params.v[seed_idx] : 0;
	int cpus[CPU_SETSIZE], ncpus = cell->pin ? allowed_cpus(cpus, CPU_SETSIZE) : 0;

	w->slots = calloc(cell->threads, sizeof *w->slots);
	w->instructions = calloc(w->rounds, sizeof *w->instructions);
	w->d1_misses = calloc(w->rounds, sizeof *w->d1_misses);
	w->ll_misses = calloc(w->rounds, sizeof *w->ll_misses);
	/* Only with --latency: without it the worker's heap is laid out as
	 * it always was (simulated TLB misses depend on that layout). */
	w->latency = cell->latency ? calloc(w->rounds, sizeof *w->latency) : NULL;
	void *mem = mmap(NULL, (size_t)w->rounds * sizeof *w->mem, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (mem == MAP_FAILED) {
		snprintf(err, err_len, "out of memory for the rounds' figures");
		return -1;
	}
	w->mem = mem;
	if ((w->live = alloclab_live_attach()) == NULL) {
		snprintf(err, err_len, "out of memory for the live counters");
		return -1;
	}
	w->reports = calloc((size_t)w->rounds * cell->threads, sizeof *w->reports);
	w->process_reports = calloc(cell->threads, sizeof *w->process_reports);
	w->lists = calloc(cell->threads, sizeof *w->lists);
	*shared = cell->workload->shared_size ? calloc(1, cell->workload->shared_size) : NULL;
	pthread_barrier_init(&w->barrier, NULL, cell->threads);
	w->host = (struct thread_host){&w->barrier, w->lists, 0, 0, &w->failed};
	for (unsigned i = 0; i < cell->threads; i++) {
		struct thread_slot *s = &w->slots[i];
		s->start_ns = calloc(w->rounds, sizeof(uint64_t));
		s->end_ns = calloc(w->rounds, sizeof(uint64_t));
		s->ops = calloc(w->rounds, sizeof(uint64_t));
		s->cpu = ncpus ? cpus[i % (unsigned)ncpus] : -1;
		s->wt.alloc = &w->alloc;
		s->wt.plugin = cell->plugin;
		s->wt.plugin_options = cell->plugin_options;
		s->wt.gil = cell->gil;
		s->wt.record_path = cell->record_path;
		s->wt.params = &cell->params;
		s->wt.index = i;
		s->wt.nthreads = cell->threads;
		s->wt.seed = alloclab_thread_seed(seed, i);
		s->wt.state = w;
		s->wt.shared = *shared;
		s->wt.sync = alloclab_worker_sync;
		s->wt.placement = alloclab_worker_placement;
		s->wt.host = &w->host;
		s->wt.live = &w->live[i];
	}
	return 0;
}

/* Every round in every thread. Thread 0 is the process's main thread, as
 * in the programs measured: some allocators serve it differently (glibc's
 * main arena grows the heap with brk; other threads get mmap'd arenas,
 * which cost about 8 more instructions a free in churn). A version 1
 * plugin was promised its thread hooks never run on the main thread: its
 * thread 0 gets a thread of its own. 0, or -1 with err. */
static int run_threads(struct worker *w, unsigned abi_version, char *err, size_t err_len)
{
	unsigned first = abi_version >= 2 ? 1 : 0, started = 0;

	for (unsigned i = first; i < w->cell->threads; i++, started++) {
		int rc = pthread_create(&w->slots[i].tid, NULL, alloclab_worker_thread, &w->slots[i]);
		if (rc != 0) {
			/* The barrier counts every thread: without all of them
			 * the others would wait forever, so give up at once. */
			snprintf(err, err_len, "cannot start thread %u: %s", i, strerror(rc));
			return -1;
		}
	}
	if (first == 1)
		alloclab_worker_thread(&w->slots[0]);
	for (unsigned i = first; i < first + started; i++)
		pthread_join(w->slots[i].tid, NULL);
	w->mem[w->rounds - 1].rss_after_finish = alloclab_self_statm_kib(NULL);
	alloclab_worker_take_live(w, &w->mem[w->rounds - 1]);
	return 0;
}

/* The failure a thread reported, the last thread's first (threads fail
 * after thread 0 in the same round for its reason). -2 when the workload
 * said the cell is not applicable, else -1. */
static int thread_failure(const struct worker *w, char *err, size_t err_len)
{
	const char *why = "a thread failed without saying why";
	int na = 0;
	for (unsigned i = w->cell->threads; i-- > 0;)
		if (w->slots[i].error[0]) {
			why = w->slots[i].error;
			na = w->slots[i].wt.not_applicable;
		}
	snprintf(err, err_len, "%s", why);
	return na ? -2 : -1;
}

/* The rounds as the process's warm-ups and values, and its once-per-
 * process report. */
static void collect_values(struct worker *w, struct alloclab_process *out)
{
	const struct alloclab_cell_spec *cell = w->cell;

	out->warmups = calloc(cell->warmups + 1, sizeof *out->warmups);
	out->values = calloc(cell->values + 1, sizeof *out->values);
	for (unsigned r = 0; r < w->rounds; r++) {
		if (r < cell->warmups) {
			/* A warm-up's time and memory are kept (python counts what
			 * it holds in its warm-ups only); its reports are not:
			 * nothing reads them, and they are most of a cell's size. */
			round_value(w, r, &out->warmups[out->nwarmups]);
			json_decref(out->warmups[out->nwarmups].thread_reports);
			out->warmups[out->nwarmups].thread_reports = NULL;
			alloclab_latency_free(out->warmups[out->nwarmups].latency);
			out->warmups[out->nwarmups++].latency = NULL;
		} else {
			round_value(w, r, &out->values[out->nvalues++]);
		}
	}
	for (unsigned i = 0; i < cell->threads; i++)
		if (w->process_reports[i]) {
			out->report = json_array();
			for (unsigned k = 0; k < cell->threads; k++) {
				json_array_append_new(out->report, w->process_reports[k] ? w->process_reports[k] : json_null());
				w->process_reports[k] = NULL;
			}
			break;
		}
}

/* Values are checked for sense where they are made, not only where a
 * file is read: no time, or less than ALLOCLAB_MIN_NS_PER_OP an operation
 * (a fraction of one cycle: no allocator call, no Python iteration is that
 * fast), means the workload did not do the work it counted. 0, or -1 with
 * err. */
static int check_values(const struct alloclab_cell_spec *cell, const struct alloclab_process *out, char *err,
			size_t err_len)
{
	for (unsigned r = 0; r < out->nvalues; r++) {
		const struct alloclab_value *v = &out->values[r];
		uint64_t ops = 0;
		for (unsigned i = 0; i < cell->threads; i++)
			ops += v->thread_ops[i];
		int no_time = !cell->callgrind_dir && v->per_op > 0 && v->per_op < ALLOCLAB_MIN_NS_PER_OP;
		if (v->per_op > 0 && !no_time && isfinite(v->per_op))
			continue;
		if (no_time)
			snprintf(err, err_len,
				 "value %u: %.3g ns an operation over %" PRIu64 " operations, less than %g ns: "
				 "the workload counted work it did not do",
				 r + 1, v->per_op, ops, ALLOCLAB_MIN_NS_PER_OP);
		else
			snprintf(err, err_len, cell->callgrind_dir ? "no instruction count could be read for value %u"
								   : "the workload did no operations in value %u",
				 r + 1);
		return -1;
	}
	return 0;
}

/* After the last value: the plugin's account once the workload freed
 * everything, what it gives back (at once, after its own trim where it has
 * one, after a pause), the recording's end, the instance's end. 0, or -1
 * with err. */
static int end_instance(struct worker *w, struct alloclab_process *out, char *err, size_t err_len)
{
	const struct alloclab_cell_spec *cell = w->cell;

	out->stats = w->stats_live;
	w->stats_live = NULL;
	if (w->alloc.ops.stats) {
		json_t *stats = json_object();
		alloclab_phase("stats");
		if (alloclab_plugin_stats(&w->alloc.ops, w->alloc.instance, alloclab_worker_collect_stat, stats) == 0)
			out->stats_after_finish = stats;
		else
			json_decref(stats);
	}
	/* A workload whose allocations happen in programs it starts (exec):
	 * the worker's memory once they have gone is its own idle instance's,
	 * nothing the program kept; not a figure of the program's. */
	const int elsewhere = (cell->workload->flags & ALLOCLAB_WORKLOAD_RECORDS_ITSELF) != 0;
	out->rss_after_finish_kib = elsewhere ? -1 : w->mem[w->rounds - 1].rss_after_finish;
	out->rss_after_trim_kib = out->rss_after_settle_kib = -1;
	if (w->alloc.ops.trim && !elsewhere) {
		alloclab_phase("trim");
		if (w->alloc.ops.trim(w->alloc.instance) == 0)
			out->rss_after_trim_kib = alloclab_self_statm_kib(NULL);
	}
	if (cell->settle_ms && !elsewhere) {
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
		if (alloclab_recorder_finish(extra, err, err_len) != 0)
			return -1;
	}
	if (!(cell->workload->flags & ALLOCLAB_WORKLOAD_KEEP_INSTANCE)) {
		alloclab_phase("destroy");
		alloclab_allocator_destroy(&w->alloc);
	} else {
		kept_instance = w->alloc.instance;
	}
	alloclab_phase("exit");
	return 0;
}

int alloclab_worker_measure(const struct alloclab_cell_spec *cell, struct alloclab_process *out, char *err,
			    size_t err_len)
{
	struct alloclab_loaded_plugin plugin;
	struct worker w;
	void *shared = NULL;
	int rc;

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
	out->rss_before_plugin_kib = alloclab_self_statm_kib(&out->anon_before_plugin_kib);
	out->layout_pad_pages = cell->layout_pad_pages;
	if ((rc = open_instance(&w, &plugin, err, err_len)) != 0)
		return rc;
	if (allocate_rounds(&w, &shared, err, err_len) != 0 || run_threads(&w, plugin.desc.abi_version, err, err_len) != 0)
		return -1;
	if (w.failed) {
		rc = thread_failure(&w, err, err_len);
		worker_free(&w, shared, &plugin);
		return rc;
	}
	collect_values(&w, out);
	if (check_values(cell, out, err, err_len) != 0 || end_instance(&w, out, err, err_len) != 0) {
		alloclab_process_clear(out);
		worker_free(&w, shared, &plugin);
		return -1;
	}
	out->peak_rss_kib = alloclab_peak_rss_kib();
	worker_free(&w, shared, &plugin);
	return 0;
}

int alloclab_worker_send(const struct alloclab_cell_spec *cell, int fd)
{
	struct alloclab_process p[ALLOCLAB_MAX_PAIR];
	char err[ALLOCLAB_ERR_LEN];
	unsigned n = cell->npair >= 2 ? cell->npair : 1;

	int rc = n > 1 ? alloclab_worker_measure_paired(cell, p, err, sizeof err)
		       : alloclab_worker_measure(cell, p, err, sizeof err);
	if (rc != 0)
		return alloclab_child_send_json(fd, json_pack("{s:o,s:b}", "error", alloclab_json_text(err),
							      "not_applicable", rc == -2));
	if (n == 1) {
		json_t *obj = alloclab_process_to_json(&p[0], cell->threads, alloclab_cell_spec_metric(cell));
		alloclab_process_clear(&p[0]);
		return alloclab_child_send_json(fd, obj);
	}
	/* Paired: each plugin's process, in the pair's order. */
	json_t *each = json_array();
	for (unsigned k = 0; k < n; k++) {
		json_array_append_new(each, alloclab_process_to_json(&p[k], cell->threads, alloclab_cell_spec_metric(cell)));
		alloclab_process_clear(&p[k]);
	}
	return alloclab_child_send_json(fd, json_pack("{s:o}", "paired", each));
}
