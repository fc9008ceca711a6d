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
#include "worker.h"

#include "cacheline.h"
#include "child.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	struct alloclab_allocator alloc;
	pthread_barrier_t barrier;
	unsigned rounds;            /* warmups + values */
	struct thread_slot *slots;
	json_t **reports;           /* [round * threads + thread], from wt.report */
	/* The plugin's statistics at the end of the last value, before the
	 * threads free their working sets (taken by thread 0 while the others
	 * wait at a barrier, so no other op runs). */
	json_t *stats_live;
	/* Set by any thread that failed; every thread checks it after each
	 * barrier so all of them stop at the same round and none waits on a
	 * barrier the others have left. */
	_Atomic int failed;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t alloclab_thread_seed(uint64_t seed, unsigned thread_index)
{
	uint64_t z = seed + 0x9e3779b97f4a7c15ull * (thread_index + 1);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void collect_stat(void *arg, const char *name, uint64_t value)
{
	json_object_set_new(arg, name, json_integer((json_int_t)value));
}

static void sync_threads(struct alloclab_workload_thread *t)
{
	pthread_barrier_wait(&((struct worker *)t->sync_arg)->barrier);
}

static void *thread_main(void *arg)
{
	struct thread_slot *slot = arg;
	struct worker *w = (struct worker *)slot->wt.state; /* borrowed until prepare */
	const struct alloclab_workload *wl = w->cell->workload;
	int attached = 0;

	slot->wt.state = NULL;
	if (slot->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(slot->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof set, &set);
	}
	if (w->alloc.ops.thread_attach) {
		int rc = w->alloc.ops.thread_attach(w->alloc.instance);
		if (rc != 0) {
			snprintf(slot->error, sizeof slot->error, "thread_attach failed: %s", strerror(-rc));
			w->failed = 1;
		} else {
			attached = 1;
		}
	}
	for (unsigned r = 0; r < w->rounds; r++) {
		int prepared = 0;
		if (!w->failed) {
			if (wl->prepare(&slot->wt, slot->error, sizeof slot->error) != 0)
				w->failed = 1;
			prepared = 1;
		}
		pthread_barrier_wait(&w->barrier);
		if (!w->failed) {
			slot->start_ns[r] = now_ns();
			wl->run(&slot->wt);
			slot->end_ns[r] = now_ns();
			slot->ops[r] = slot->wt.ops;
			if (slot->wt.error) {
				snprintf(slot->error, sizeof slot->error, "%s", slot->wt.error);
				w->failed = 1;
			}
		}
		pthread_barrier_wait(&w->barrier);
		if (r + 1 == w->rounds && !w->failed && w->alloc.ops.stats) {
			if (slot->wt.index == 0) {
				w->stats_live = json_object();
				w->alloc.ops.stats(w->alloc.instance, collect_stat, w->stats_live);
			}
			pthread_barrier_wait(&w->barrier);
		}
		if (prepared)
			wl->finish(&slot->wt);
		if (slot->wt.report) {
			w->reports[r * w->cell->threads + slot->wt.index] = slot->wt.report;
			slot->wt.report = NULL;
		}
		if (w->failed)
			break;
	}
	if (attached)
		w->alloc.ops.thread_detach(w->alloc.instance);
	return NULL;
}

static json_t *error_object(const char *text)
{
	return json_pack("{s:s}", "error", text);
}

static json_t *round_json(const struct worker *w, unsigned r)
{
	uint64_t first = UINT64_MAX, last = 0;
	json_t *tns = json_array(), *tops = json_array();

	for (unsigned i = 0; i < w->cell->threads; i++) {
		const struct thread_slot *s = &w->slots[i];
		if (s->start_ns[r] < first)
			first = s->start_ns[r];
		if (s->end_ns[r] > last)
			last = s->end_ns[r];
		json_array_append_new(tns, json_integer((json_int_t)(s->end_ns[r] - s->start_ns[r])));
		json_array_append_new(tops, json_integer((json_int_t)s->ops[r]));
	}
	json_t *v = json_pack("{s:I,s:o,s:o}", "wall_ns", (json_int_t)(last - first), "thread_ns", tns, "thread_ops",
			      tops);
	if (w->reports[r * w->cell->threads]) {
		json_t *reports = json_array();
		for (unsigned i = 0; i < w->cell->threads; i++) {
			json_t *rep = w->reports[r * w->cell->threads + i];
			json_array_append_new(reports, rep ? rep : json_null());
		}
		json_object_set_new(v, "thread_reports", reports);
	}
	return v;
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
	}
	free(w->slots);
	free(w->reports);
	free(shared);
	pthread_barrier_destroy(&w->barrier);
	/* The plugin stays mapped: its TLS destructors may still run at exit. */
	free(plugin->path);
	plugin->path = NULL;
}

json_t *alloclab_worker_measure(const struct alloclab_cell_spec *cell)
{
	struct alloclab_loaded_plugin plugin;
	struct worker w;
	char err[ALLOCLAB_ERR_LEN];
	int seed_idx = alloclab_workload_param_index(cell->workload, "seed");
	uint64_t seed = seed_idx >= 0 ? cell->params.v[seed_idx] : 0;
	int cpus[CPU_SETSIZE], ncpus = cell->pin ? allowed_cpus(cpus, CPU_SETSIZE) : 0;
	json_t *result;

	memset(&w, 0, sizeof w);
	w.cell = cell;
	w.rounds = cell->warmups + cell->values;
	if (alloclab_plugin_load(cell->plugin, &plugin, err, sizeof err) != 0)
		return error_object(err);
	if (alloclab_allocator_create(&w.alloc, &plugin, cell->plugin_options, err, sizeof err) != 0)
		return error_object(err);
	if (cell->cache_align)
		alloclab_allocator_cache_align(&w.alloc, alloclab_cache_line_size());

	w.slots = calloc(cell->threads, sizeof *w.slots);
	w.reports = calloc((size_t)w.rounds * cell->threads, sizeof *w.reports);
	void *shared = cell->workload->shared_size ? calloc(1, cell->workload->shared_size) : NULL;
	pthread_barrier_init(&w.barrier, NULL, cell->threads);
	for (unsigned i = 0; i < cell->threads; i++) {
		struct thread_slot *s = &w.slots[i];
		s->start_ns = calloc(w.rounds, sizeof(uint64_t));
		s->end_ns = calloc(w.rounds, sizeof(uint64_t));
		s->ops = calloc(w.rounds, sizeof(uint64_t));
		s->cpu = ncpus ? cpus[i % (unsigned)ncpus] : -1;
		s->wt.alloc = &w.alloc;
		s->wt.params = &cell->params;
		s->wt.index = i;
		s->wt.nthreads = cell->threads;
		s->wt.seed = alloclab_thread_seed(seed, i);
		s->wt.state = &w;
		s->wt.shared = shared;
		s->wt.sync = sync_threads;
		s->wt.sync_arg = &w;
	}
	for (unsigned i = 0; i < cell->threads; i++) {
		int rc = pthread_create(&w.slots[i].tid, NULL, thread_main, &w.slots[i]);
		if (rc != 0) {
			/* The barrier counts every thread: without all of them
			 * the others would wait forever, so give up at once. */
			snprintf(err, sizeof err, "cannot start thread %u: %s", i, strerror(rc));
			return error_object(err);
		}
	}
	for (unsigned i = 0; i < cell->threads; i++)
		pthread_join(w.slots[i].tid, NULL);

	if (w.failed) {
		const char *why = "a thread failed without saying why";
		for (unsigned i = cell->threads; i-- > 0;)
			if (w.slots[i].error[0])
				why = w.slots[i].error;
		result = error_object(why);
		worker_free(&w, shared, &plugin);
		return result;
	}
	result = json_pack("{s:[],s:[]}", "warmups", "values");
	for (unsigned r = 0; r < w.rounds; r++)
		json_array_append_new(json_object_get(result, r < cell->warmups ? "warmups" : "values"),
				      round_json(&w, r));
	if (w.stats_live)
		json_object_set_new(result, "stats", w.stats_live);
	if (w.alloc.ops.stats) {
		json_t *stats = json_object();
		if (w.alloc.ops.stats(w.alloc.instance, collect_stat, stats) == 0)
			json_object_set_new(result, "stats_after_finish", stats);
		else
			json_decref(stats);
	}
	alloclab_allocator_destroy(&w.alloc);
	json_object_set_new(result, "peak_rss_kib", json_integer(alloclab_peak_rss_kib()));
	worker_free(&w, shared, &plugin);
	return result;
}

long alloclab_peak_rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

json_t *alloclab_cell_spec_to_json(const struct alloclab_cell_spec *cell)
{
	json_t *params = json_object();
	for (unsigned i = 0; i < cell->workload->nparams; i++) {
		char text[4096];
		alloclab_param_format(cell->workload, &cell->params, i, text, sizeof text);
		json_object_set_new(params, cell->workload->params[i].name, json_string(text));
	}
	return json_pack("{s:s,s:s,s:s,s:o,s:i,s:i,s:i,s:b,s:b}", "plugin", cell->plugin, "plugin_options",
			 cell->plugin_options, "workload", cell->workload->name, "params", params, "threads",
			 cell->threads, "warmups", cell->warmups, "values", cell->values, "pin", cell->pin,
			 "cache_align", cell->cache_align);
}

int alloclab_cell_spec_from_json(json_t *obj, struct alloclab_cell_spec *cell, char *err, size_t err_len)
{
	const char *workload = NULL, *key;
	json_t *params = NULL, *value;
	int threads = 0, warmups = 0, values = 0, pin = 0, cache_align = 0;

	memset(cell, 0, sizeof *cell);
	if (json_unpack(obj, "{s:s,s:s,s:s,s:o,s:i,s:i,s:i,s:b,s:b}", "plugin", &cell->plugin, "plugin_options",
			&cell->plugin_options, "workload", &workload, "params", &params, "threads", &threads, "warmups",
			&warmups, "values", &values, "pin", &pin, "cache_align", &cache_align) != 0 ||
	    (cell->workload = alloclab_workload_find(workload)) == NULL || threads < 1 ||
	    threads > ALLOCLAB_MAX_THREADS || warmups < 0 || values < 1) {
		snprintf(err, err_len, "malformed worker spec");
		return -1;
	}
	/* The parameters travel as the text a user would type, and are parsed
	 * back by the same code. */
	{
		char spec[8192];
		size_t used = (size_t)snprintf(spec, sizeof spec, "%s", workload);
		struct alloclab_workload_spec parsed;
		json_object_foreach(params, key, value)
			if (used < sizeof spec)
				used += (size_t)snprintf(spec + used, sizeof spec - used, "%c%s=%s",
							 used == strlen(workload) ? ':' : ',', key, json_string_value(value));
		if (alloclab_workload_parse(spec, &parsed, err, err_len) != 0)
			return -1;
		cell->params = parsed.params;
	}
	cell->threads = (unsigned)threads;
	cell->warmups = (unsigned)warmups;
	cell->values = (unsigned)values;
	cell->pin = pin;
	cell->cache_align = cache_align;
	return 0;
}

int alloclab_worker_main(int argc, char **argv)
{
	struct alloclab_cell_spec cell;
	char err[ALLOCLAB_ERR_LEN];
	json_t *spec = argc == 2 ? json_loads(argv[1], 0, NULL) : NULL, *result;
	int rc;

	if (spec == NULL || alloclab_cell_spec_from_json(spec, &cell, err, sizeof err) != 0)
		result = json_pack("{s:s}", "error", "alloclab __worker is internal: it takes one cell spec in JSON");
	else
		result = alloclab_worker_measure(&cell);
	rc = alloclab_child_send_json(3, result);
	json_decref(spec);
	return rc;
}

json_t *alloclab_worker_probe(const char *spec, const char *options)
{
	struct alloclab_loaded_plugin plugin;
	struct alloclab_allocator alloc;
	char err[ALLOCLAB_ERR_LEN], caps[256];
	json_t *caps_list = json_array();
	const struct alloclab_plugin *d;

	if (alloclab_plugin_load(spec, &plugin, err, sizeof err) != 0)
		return error_object(err);
	if (alloclab_allocator_create(&alloc, &plugin, options, err, sizeof err) != 0)
		return error_object(err);
	d = &plugin.desc;
	alloclab_caps_format(alloc.caps, caps, sizeof caps);
	for (char *save = NULL, *c = strtok_r(caps, ",", &save); c; c = strtok_r(NULL, ",", &save))
		json_array_append_new(caps_list, json_string(c));
	json_t *info = json_pack("{s:s,s:s,s:s,s:s?,s:s,s:o,s:I}", "name", d->name, "version", d->version,
				 "description", d->description, "options_help", d->options_help, "path",
				 plugin.path, "caps", caps_list, "min_align", (json_int_t)alloc.min_align);
	alloclab_allocator_destroy(&alloc);
	return info;
}
