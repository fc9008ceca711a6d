/* Results: the model, the one writer, the one validating reader, the
 * journal. See results.h; the key names are in results_keys.h. */
#define _GNU_SOURCE 1
#include "results/results.h"
#include "alloclab/plugin.h"
#include "base/lengths.h"
#include "base/json_text.h"
#include "plugin/stats.h"

#include "results/results_keys.h"
#include "process/memory_timeline.h"
#include "files/output_path.h"
#include "files/input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* ---- walking a cell's reports ---- */

struct alloclab_report_iter alloclab_reports(const struct alloclab_cell *cell, enum alloclab_reports_kind kind)
{
	return (struct alloclab_report_iter){.cell = cell, .kind = kind};
}

/* The array the iterator is in, or NULL past the end of the process. */
static const json_t *reports_array(const struct alloclab_report_iter *it)
{
	const struct alloclab_process *p = &it->cell->procs[it->process];
	if (it->kind == ALLOCLAB_REPORTS_PER_PROCESS)
		return it->value == 0 ? p->report : NULL;
	return it->value < p->nvalues ? p->values[it->value].thread_reports : NULL;
}

int alloclab_reports_next(struct alloclab_report_iter *it)
{
	while (it->process < it->cell->nprocs) {
		const struct alloclab_process *p = &it->cell->procs[it->process];
		unsigned arrays = it->kind == ALLOCLAB_REPORTS_PER_PROCESS ? 1 : p->nvalues;
		if (it->value < arrays) {
			const json_t *a = reports_array(it);
			while (a && it->next < json_array_size(a)) {
				const json_t *r = json_array_get(a, it->next);
				it->thread = (unsigned)it->next++;
				if (json_is_object(r)) {
					it->report = r;
					return 1;
				}
			}
			it->value++;
			it->next = 0;
			continue;
		}
		it->process++;
		it->value = 0;
		it->next = 0;
	}
	it->report = NULL;
	return 0;
}

/* ---- metadata ---- */

static void cpu_model(char *out, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(out, len, "unknown");
	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) == 0 && colon) {
			colon += 2;
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(out, len, "%s", colon);
			break;
		}
	}
	fclose(f);
}

/* The bracketed choice of a /sys setting ("always [madvise] never"). */
static json_t *sys_choice(const char *path)
{
	char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	char *open = strchr(buf, '['), *close = open ? strchr(open, ']') : NULL;
	if (open == NULL || close == NULL)
		return json_string("unknown");
	*close = '\0';
	return alloclab_json_text(open + 1);
}

json_t *alloclab_metadata(int argc, char **argv)
{
	struct utsname u;
	char cpu[256], date[64], kernel[512];
	time_t t = time(NULL);
	struct tm tm;
	json_t *cmd = json_array();
	long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	cpu_set_t allowed;
	int nallowed = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 0;
	double load[3] = {0, 0, 0};

	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	cpu_model(cpu, sizeof cpu);
	gmtime_r(&t, &tm);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (uname(&u) == 0)
		snprintf(kernel, sizeof kernel, "%s %s %s", u.sysname, u.release, u.machine);
	else
		snprintf(kernel, sizeof kernel, "unknown");
	if (getloadavg(load, 3) < 1)
		load[0] = -1;
	json_t *meta = json_pack("{s:s,s:s,s:i,s:i,s:i,s:f,s:s,s:s,s:s,s:s,s:s,s:o,s:o}", K_ALLOCLAB_VERSION, ALLOCLAB_VERSION,
			 K_CPU_MODEL, cpu, K_CPU_COUNT, (int)sysconf(_SC_NPROCESSORS_ONLN), K_CPUS_ALLOWED, nallowed,
			 K_CACHE_LINE_SIZE, line > 0 ? (int)line : 64, K_LOAD_AVERAGE_START, load[0], K_KERNEL, kernel,
			 K_LIBC, gnu_get_libc_version(), K_COMPILER, ALLOCLAB_COMPILER, K_BUILD_FLAGS,
			 ALLOCLAB_BUILD_FLAGS, K_DATE, date, K_COMMAND, cmd, K_HOST,
			 alloclab_json_text(uname(&u) == 0 ? u.nodename : "unknown"));
	/* Transparent huge pages: what the allocators' memory may be backed by. */
	json_object_set_new(meta, K_THP, json_pack("{s:o,s:o}", "enabled",
						   sys_choice("/sys/kernel/mm/transparent_hugepage/enabled"), "defrag",
						   sys_choice("/sys/kernel/mm/transparent_hugepage/defrag")));
	return meta;
}


/* ---- the model ---- */

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static json_t *settings_json(const struct alloclab_run_settings *s)
{
	json_t *config = json_pack("{s:i,s:i,s:i,s:f,s:b,s:s,s:s}", K_PROCESSES, s->processes_auto ? 0 : (int)s->processes,
				   K_VALUES, (int)s->values, K_WARMUPS, (int)s->warmups, K_TIMEOUT_S, s->timeout_s, K_PIN,
				   s->pin, K_CACHE_ALIGN, s->cache_align, K_MEASURE, s->measure);
	json_object_set_new(config, K_MEMORY_LIMIT, json_integer((json_int_t)s->memory_limit));
	if (s->latency_every)
		json_object_set_new(config, K_LATENCY_EVERY, json_integer(s->latency_every));
	json_object_set_new(config, K_SAMPLE_MS, json_integer(s->sample_ms));
	if (s->order) {
		json_object_set_new(config, K_ORDER, json_string(s->order));
		if (strcmp(s->order, "random") == 0)
			json_object_set_new(config, K_ORDER_SEED, json_integer((json_int_t)s->order_seed));
	}
	if (s->processes_auto)
		json_object_set_new(config, K_PROCESSES_AUTO,
				    json_pack("{s:i,s:i,s:f}", K_MIN, (int)s->processes, K_MAX, (int)s->max_processes,
					      K_CI_PERCENT, s->ci_percent));
	return config;
}

/* The typed facts of metadata and config (alloclab_run_facts): a field
 * missing or of another type in an older file is unknown; one present
 * with an impossible value refuses the file. */
static int read_facts(struct alloclab_results *r, char *err, size_t err_len);

struct alloclab_results *alloclab_results_new(int argc, char **argv, const struct alloclab_run_settings *settings)
{
	struct alloclab_results *r = calloc(1, sizeof *r);
	char err[256];
	r->version = ALLOCLAB_RESULTS_VERSION;
	r->metadata = alloclab_metadata(argc, argv);
	r->config = settings ? settings_json(settings) : json_object();
	read_facts(r, err, sizeof err); /* what this machine says is in range */
	return r;
}

struct alloclab_results *alloclab_results_new_from(json_t *metadata, json_t *config, char *err, size_t err_len)
{
	struct alloclab_results *r = calloc(1, sizeof *r);
	r->version = ALLOCLAB_RESULTS_VERSION;
	r->metadata = metadata;
	r->config = config;
	if (read_facts(r, err, err_len) != 0) {
		alloclab_results_free(r);
		return NULL;
	}
	return r;
}

void alloclab_results_set_shard(struct alloclab_results *r, unsigned index, unsigned count, const char *plan,
				json_t *cell_processes)
{
	json_object_set_new(r->metadata, K_SHARD,
			    json_pack("{s:i,s:i,s:s,s:o}", K_SHARD_INDEX, (int)index, K_SHARD_COUNT, (int)count,
				      K_SHARD_PLAN, plan, K_SHARD_CELL_PROCESSES, cell_processes));
	r->facts.shard_index = index;
	r->facts.shard_count = count;
	free(r->facts.shard_plan);
	r->facts.shard_plan = strdup(plan);
}

const char *alloclab_process_cpu_model(const struct alloclab_results *r, const struct alloclab_process *p)
{
	return p->host_cpu_model ? p->host_cpu_model : r->facts.cpu_model;
}

void alloclab_results_set_cache_simulated(struct alloclab_results *r, const char *geometry)
{
	json_object_set_new(r->metadata, K_CACHE_SIMULATED, alloclab_json_text(geometry));
	free(r->facts.cache_simulated);
	r->facts.cache_simulated = strdup(geometry);
}

void alloclab_results_set_end(struct alloclab_results *r, double load_end, double runner_cpu_s, unsigned workers)
{
	if (load_end >= 0) {
		json_object_set_new(r->metadata, K_LOAD_AVERAGE_END, json_real(load_end));
		r->facts.load_end = load_end;
	}
	if (runner_cpu_s >= 0)
		json_object_set_new(r->metadata, K_RUNNER_CPU_S, json_real(runner_cpu_s));
	json_object_set_new(r->metadata, K_WORKERS, json_integer(workers));
}

static void value_clear(struct alloclab_value *v)
{
	free(v->thread_ns);
	free(v->thread_ops);
	json_decref(v->thread_reports);
	json_decref(v->stats);
	alloclab_latency_free(v->latency);
	memset(v, 0, sizeof *v);
}

void alloclab_process_clear(struct alloclab_process *p)
{
	for (unsigned i = 0; i < p->nwarmups; i++)
		value_clear(&p->warmups[i]);
	for (unsigned i = 0; i < p->nvalues; i++)
		value_clear(&p->values[i]);
	free(p->warmups);
	free(p->values);
	json_decref(p->stats);
	json_decref(p->stats_after_finish);
	json_decref(p->report);
	free(p->plugin_output);
	free(p->host);
	json_decref(p->memory);
	free(p->host_cpu_model);
	free(p->host_kernel);
	memset(p, 0, sizeof *p);
}

static void cell_clear(struct alloclab_cell *c)
{
	for (unsigned i = 0; i < c->nprocs; i++)
		alloclab_process_clear(&c->procs[i]);
	free(c->procs);
	free(c->plugin);
	free(c->plugin_options);
	free(c->workload);
	json_decref(c->params);
	json_decref(c->failed_memory);
	free(c->message);
	free(c->metric);
	free(c->unit_op);
}

static void plugin_clear(struct alloclab_plugin_info *p)
{
	free(p->label);
	free(p->spec);
	free(p->options);
	free(p->name);
	free(p->version);
	free(p->description);
	free(p->path);
	json_decref(p->caps);
	json_decref(p->check);
}

void alloclab_results_free(struct alloclab_results *r)
{
	if (r == NULL)
		return;
	for (unsigned i = 0; i < r->ncells; i++)
		cell_clear(&r->cells[i]);
	for (unsigned i = 0; i < r->nplugins; i++)
		plugin_clear(&r->plugins[i]);
	free(r->cells);
	free(r->plugins);
	json_decref(r->metadata);
	json_decref(r->config);
	free(r->facts.cache_simulated);
	free(r->facts.cpu_model);
	free(r->facts.shard_plan);
	free(r->facts.cell_processes);
	free(r->path);
	free(r);
}

unsigned alloclab_results_add_plugin(struct alloclab_results *r, const struct alloclab_plugin_info *info)
{
	struct alloclab_plugin_info *p;

	r->plugins = realloc(r->plugins, (r->nplugins + 1) * sizeof *r->plugins);
	p = &r->plugins[r->nplugins];
	memset(p, 0, sizeof *p);
	p->label = dup_or_null(info->label);
	p->spec = dup_or_null(info->spec);
	p->options = dup_or_null(info->options ? info->options : "");
	p->name = dup_or_null(info->name);
	p->version = dup_or_null(info->version);
	p->description = dup_or_null(info->description);
	p->path = dup_or_null(info->path);
	p->caps = info->caps ? info->caps : json_array();
	p->min_align = info->min_align;
	p->check = info->check;
	return r->nplugins++;
}

struct alloclab_cell *alloclab_results_add_cell(struct alloclab_results *r, const struct alloclab_cell *cell)
{
	struct alloclab_cell *c;

	r->cells = realloc(r->cells, (r->ncells + 1) * sizeof *r->cells);
	c = &r->cells[r->ncells++];
	*c = *cell;
	c->plugin = dup_or_null(cell->plugin);
	c->plugin_options = dup_or_null(cell->plugin_options ? cell->plugin_options : "");
	c->workload = dup_or_null(cell->workload);
	c->params = cell->params ? cell->params : json_object();
	c->message = dup_or_null(cell->message);
	c->metric = dup_or_null(cell->metric ? cell->metric : K_NS_PER_OP);
	c->unit_op = dup_or_null(cell->unit_op);
	c->failed_memory = cell->failed_memory ? json_incref(cell->failed_memory) : NULL;
	c->procs = NULL;
	c->nprocs = c->procs_cap = 0;
	return c;
}

void alloclab_cell_add_process(struct alloclab_cell *c, struct alloclab_process *p)
{
	if (c->nprocs == c->procs_cap) {
		c->procs_cap = c->procs_cap ? c->procs_cap * 2 : 4;
		c->procs = realloc(c->procs, c->procs_cap * sizeof *c->procs);
	}
	c->procs[c->nprocs++] = *p;
	memset(p, 0, sizeof *p);
}

void alloclab_cell_set_status(struct alloclab_cell *c, enum alloclab_cell_status status, const char *message)
{
	c->status = status;
	free(c->message);
	c->message = dup_or_null(message);
}

/* ---- writing ---- */

static const char *status_name(enum alloclab_cell_status s)
{
	switch (s) {
	case ALLOCLAB_CELL_OK: return S_OK;
	case ALLOCLAB_CELL_ERROR: return S_ERROR;
	case ALLOCLAB_CELL_NOT_APPLICABLE: return S_NOT_APPLICABLE;
	default: return S_PENDING;
	}
}

static json_t *u64_array(const uint64_t *v, unsigned n)
{
	json_t *a = json_array();
	for (unsigned i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

int alloclab_metric_deterministic(const char *metric)
{
	return metric && strcmp(metric, ALLOCLAB_METRIC_INSTRUCTIONS) == 0;
}

static json_t *value_to_json(const struct alloclab_value *v, unsigned threads, const char *metric)
{
	json_t *o = json_pack("{s:I,s:o,s:o,s:f}", K_WALL_NS, (json_int_t)v->wall_ns, K_THREAD_NS,
			      u64_array(v->thread_ns, threads), K_THREAD_OPS, u64_array(v->thread_ops, threads),
			      metric, v->per_op);
	if (v->thread_reports)
		json_object_set(o, K_THREAD_REPORTS, v->thread_reports);
	if (v->cache_simulated) {
		json_object_set_new(o, K_D1_MISSES_PER_OP, json_real(v->d1_misses_per_op));
		json_object_set_new(o, K_LL_MISSES_PER_OP, json_real(v->ll_misses_per_op));
	}
	if (v->latency)
		json_object_set_new(o, K_LATENCY, alloclab_latency_to_json(v->latency));
	if (v->faults_counted) {
		json_object_set_new(o, K_MINOR_FAULTS, json_integer((json_int_t)v->minor_faults));
		json_object_set_new(o, K_MAJOR_FAULTS, json_integer((json_int_t)v->major_faults));
	}
	if (v->rss_after_finish_kib > 0)
		json_object_set_new(o, K_RSS_AFTER_FINISH, json_integer(v->rss_after_finish_kib));
	if (v->rss_end_of_run_kib > 0)
		json_object_set_new(o, K_RSS_END_OF_RUN, json_integer(v->rss_end_of_run_kib));
	if (v->anon_end_of_run_kib > 0)
		json_object_set_new(o, K_ANON_END_OF_RUN, json_integer(v->anon_end_of_run_kib));
	if (v->live_end_bytes)
		json_object_set_new(o, K_LIVE_END, json_integer((json_int_t)v->live_end_bytes));
	if (v->live_peak_bytes)
		json_object_set_new(o, K_LIVE_PEAK, json_integer((json_int_t)v->live_peak_bytes));
	if (v->own_bytes)
		json_object_set_new(o, K_OWN, json_integer((json_int_t)v->own_bytes));
	if (v->workload_anon_peak_kib)
		json_object_set_new(o, K_WORKLOAD_ANON_PEAK, json_integer((json_int_t)v->workload_anon_peak_kib));
	if (v->stats)
		json_object_set(o, K_STATS, v->stats);
	return o;
}

static json_t *values_to_json(const struct alloclab_value *v, unsigned n, unsigned threads, const char *metric)
{
	json_t *a = json_array();
	for (unsigned i = 0; i < n; i++)
		json_array_append_new(a, value_to_json(&v[i], threads, metric));
	return a;
}

static json_t *process_json(const struct alloclab_process *p, unsigned threads, const char *metric)
{
	json_t *o = json_pack("{s:i,s:I,s:f,s:o,s:o}", K_PROCESS, (int)p->index, K_PEAK_RSS_KIB,
			      (json_int_t)p->peak_rss_kib, K_ELAPSED_S, p->elapsed_s, K_WARMUPS,
			      values_to_json(p->warmups, p->nwarmups, threads, metric), K_VALUES,
			      values_to_json(p->values, p->nvalues, threads, metric));
	if (p->stats)
		json_object_set(o, K_STATS, p->stats);
	if (p->stats_after_finish)
		json_object_set(o, K_STATS_AFTER_FINISH, p->stats_after_finish);
	if (p->report)
		json_object_set(o, K_REPORT, p->report);
	if (p->plugin_output)
		json_object_set_new(o, K_PLUGIN_OUTPUT, alloclab_json_text(p->plugin_output));
	if (p->memory)
		json_object_set(o, K_MEMORY, p->memory);
	{
		static const char *const keys[] = {"before_plugin", "after_finish", "after_trim", "after_settle",
						   "anon_before_plugin"};
		const long v[] = {p->rss_before_plugin_kib, p->rss_after_finish_kib, p->rss_after_trim_kib,
				  p->rss_after_settle_kib, p->anon_before_plugin_kib};
		json_t *g = json_object();
		for (int k = 0; k < 5; k++)
			if (v[k] > 0)
				json_object_set_new(g, keys[k], json_integer(v[k]));
		if (json_object_size(g))
			json_object_set_new(o, K_GIVEN_BACK, g);
		else
			json_decref(g);
	}
	if (p->layout_pad_pages)
		json_object_set_new(o, K_LAYOUT_PAD, json_integer(p->layout_pad_pages));
	if (p->host)
		json_object_set_new(o, K_HOST, json_pack("{s:o,s:o,s:o}", K_HOST_NAME, alloclab_json_text(p->host),
							 K_CPU_MODEL, alloclab_json_text(p->host_cpu_model),
							 K_KERNEL, alloclab_json_text(p->host_kernel)));
	return o;
}

json_t *alloclab_process_to_json(const struct alloclab_process *p, unsigned threads, const char *metric)
{
	return process_json(p, threads, metric);
}

static json_t *cell_to_json(const struct alloclab_cell *c)
{
	json_t *runs = json_array();
	json_t *o;

	for (unsigned i = 0; i < c->nprocs; i++)
		json_array_append_new(runs, process_json(&c->procs[i], c->threads, c->metric ? c->metric : K_NS_PER_OP));
	o = json_pack("{s:o,s:i,s:o,s:o,s:O,s:i,s:b,s:s,s:o,s:i,s:o}", K_PLUGIN, alloclab_json_text(c->plugin),
		      K_PLUGIN_INDEX, (int)c->plugin_index, K_PLUGIN_OPTIONS, alloclab_json_text(c->plugin_options),
		      K_WORKLOAD, alloclab_json_text(c->workload), K_PARAMS, c->params, K_THREADS, (int)c->threads,
		      K_CACHE_ALIGNED, c->cache_aligned, K_STATUS, status_name(c->status), K_METRIC,
		      alloclab_json_text(c->metric ? c->metric : K_NS_PER_OP), K_PROCESSES, (int)c->planned, K_RUNS, runs);
	if (c->unit_op)
		json_object_set_new(o, K_UNIT_OP, alloclab_json_text(c->unit_op));
	if (c->message)
		json_object_set_new(o, c->status == ALLOCLAB_CELL_NOT_APPLICABLE ? K_REASON : K_ERROR,
				    alloclab_json_text(c->message));
	if (c->failed_memory && c->status == ALLOCLAB_CELL_ERROR)
		json_object_set(o, K_FAILED_MEMORY, c->failed_memory);
	return o;
}

static json_t *plugin_to_json(const struct alloclab_plugin_info *p)
{
	json_t *o = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:O,s:I}", K_LABEL, alloclab_json_text(p->label), K_SPEC,
			      alloclab_json_text(p->spec), K_OPTIONS, alloclab_json_text(p->options), K_NAME,
			      alloclab_json_text(p->name), K_VERSION, alloclab_json_text(p->version), K_DESCRIPTION,
			      alloclab_json_text(p->description), K_PATH, alloclab_json_text(p->path), K_CAPS, p->caps,
			      K_MIN_ALIGN, (json_int_t)p->min_align);
	if (p->check)
		json_object_set(o, K_CHECK, p->check);
	return o;
}

json_t *alloclab_results_to_json(const struct alloclab_results *r)
{
	json_t *plugins = json_array(), *cells = json_array();

	for (unsigned i = 0; i < r->nplugins; i++)
		json_array_append_new(plugins, plugin_to_json(&r->plugins[i]));
	for (unsigned i = 0; i < r->ncells; i++)
		json_array_append_new(cells, cell_to_json(&r->cells[i]));
	return json_pack("{s:s,s:i,s:O,s:O,s:o,s:o,s:b,s:b}", K_FORMAT, ALLOCLAB_RESULTS_FORMAT, K_FORMAT_VERSION,
			 ALLOCLAB_RESULTS_VERSION, K_METADATA, r->metadata, K_CONFIG, r->config, K_PLUGINS, plugins,
			 K_CELLS, cells, K_INTERRUPTED, r->interrupted, K_COMPLETE, r->complete);
}

/* Under the one output policy (output_path.h). */
static int write_json_atomic(const json_t *doc, const char *path, char *err, size_t err_len)
{
	struct alloclab_output_file out;
	FILE *f;
	int fd;

	if (alloclab_output_begin(path, ALLOCLAB_OUTPUT_RESULTS, &out, err, err_len) != 0)
		return -1;
	if ((fd = dup(out.fd)) < 0 || (f = fdopen(fd, "w")) == NULL) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		alloclab_output_discard(&out);
		return -1;
	}
	if (json_dumpf(doc, f, JSON_COMPACT | JSON_REAL_PRECISION(17)) != 0 || fputc('\n', f) == EOF ||
	    fflush(f) != 0) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
		fclose(f);
		alloclab_output_discard(&out);
		return -1;
	}
	fclose(f);
	return alloclab_output_commit(&out, path, ALLOCLAB_OUTPUT_RESULTS, err, err_len);
}

int alloclab_results_write(const struct alloclab_results *r, const char *path, char *err, size_t err_len)
{
	json_t *doc = alloclab_results_to_json(r);
	int rc;

	err[0] = '\0';
	rc = write_json_atomic(doc, path, err, err_len);
	json_decref(doc);
	return rc;
}

/* ---- reading: every field checked, one line per problem ---- */

struct reader {
	const char *name;          /* the file, in messages */
	alloclab_report_checker check;
	char *err;
	size_t err_len;
	int version;               /* the file's format_version, once read */
};

static int bad(const struct reader *rd, const char *where, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int bad(const struct reader *rd, const char *where, const char *field, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(rd->err, rd->err_len, "%s: %s%s%s: %s", rd->name, where, where[0] && field[0] ? "." : "", field, what);
	return -1;
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "a whole number";
	case JSON_REAL: return "a fractional number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* An optional number field in [min, max]; *out untouched when absent. */
static int get_number(const struct reader *rd, const json_t *obj, const char *where, const char *key, double min,
		      double max, double *out)
{
	json_t *v = json_object_get(obj, key);
	if (v == NULL)
		return 0;
	if (!json_is_number(v))
		return bad(rd, where, key, "is %s, not a number", type_name(v));
	if (!(json_number_value(v) >= min && json_number_value(v) <= max))
		return bad(rd, where, key, "%g is out of range %g..%g", json_number_value(v), min, max);
	*out = json_number_value(v);
	return 0;
}

/* A string field: required, or optional (*out NULL when absent). Strings
 * are bounded so that a table or a label never has to truncate silently. */
static int get_string(const struct reader *rd, const json_t *obj, const char *where, const char *key, int required,
		      char **out)
{
	json_t *v = json_object_get(obj, key);
	*out = NULL;
	if (v == NULL && !required)
		return 0;
	if (v == NULL)
		return bad(rd, where, key, "missing");
	if (!json_is_string(v))
		return bad(rd, where, key, "is %s, not a string", type_name(v));
	if (json_string_length(v) > 4096)
		return bad(rd, where, key, "is longer than 4096 bytes");
	if (strlen(json_string_value(v)) != json_string_length(v))
		return bad(rd, where, key, "contains a NUL character");
	*out = strdup(json_string_value(v));
	return 0;
}

static int get_uint(const struct reader *rd, const json_t *obj, const char *where, const char *key, int required,
		    uint64_t min, uint64_t max, uint64_t *out)
{
	json_t *v = json_object_get(obj, key);
	if (v == NULL && !required)
		return 0;
	if (v == NULL)
		return bad(rd, where, key, "missing");
	if (!json_is_integer(v))
		return bad(rd, where, key, "is %s, not a whole number", type_name(v));
	if (json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) < min || (uint64_t)json_integer_value(v) > max)
		return bad(rd, where, key, "%lld is out of range %llu..%llu", (long long)json_integer_value(v),
			   (unsigned long long)min, (unsigned long long)max);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* metadata.shard, once the cells are read (it has an entry per cell). */
static int read_shard(const struct reader *rd, struct alloclab_results *r)
{
	struct alloclab_run_facts *f = &r->facts;
	json_t *shard = json_object_get(r->metadata, K_SHARD);

	if (shard) {
		uint64_t index = 0, count = 0;
		json_t *cp = json_object_get(shard, K_SHARD_CELL_PROCESSES), *x;
		size_t i;
		if (!json_is_object(shard))
			return bad(rd, K_METADATA, K_SHARD, "is %s, not an object", type_name(shard));
		if (get_uint(rd, shard, K_METADATA "." K_SHARD, K_SHARD_COUNT, 1, 1, 1000000, &count) != 0 ||
		    get_uint(rd, shard, K_METADATA "." K_SHARD, K_SHARD_INDEX, 1, 1, count, &index) != 0 ||
		    get_string(rd, shard, K_METADATA "." K_SHARD, K_SHARD_PLAN, 1, &f->shard_plan) != 0)
			return -1;
		if (strlen(f->shard_plan) != 16 || strspn(f->shard_plan, "0123456789abcdef") != 16)
			return bad(rd, K_METADATA "." K_SHARD, K_SHARD_PLAN, "is not 16 hexadecimal digits");
		if (!json_is_array(cp) || json_array_size(cp) != r->ncells)
			return bad(rd, K_METADATA "." K_SHARD, K_SHARD_CELL_PROCESSES, "is not an array of %u process counts (one a cell)",
				   r->ncells);
		f->cell_processes = calloc(r->ncells + 1, sizeof *f->cell_processes);
		json_array_foreach(cp, i, x)
		{
			if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > 1000000)
				return bad(rd, K_METADATA "." K_SHARD, K_SHARD_CELL_PROCESSES, "entry %zu is not a count of 1 to 1000000", i);
			f->cell_processes[i] = (unsigned)json_integer_value(x);
		}
		f->ncell_processes = r->ncells;
		f->shard_index = (unsigned)index;
		f->shard_count = (unsigned)count;
	}
	return 0;
}

static int read_facts_with(const struct reader *rd, struct alloclab_results *r)
{
	struct alloclab_run_facts *f = &r->facts;
	json_t *a = json_object_get(r->config, K_PROCESSES_AUTO);
	uint64_t cpus = 0, max = 0;
	char *geometry = NULL;

	free(f->cache_simulated);
	free(f->cpu_model);
	free(f->shard_plan);
	free(f->cell_processes);
	memset(f, 0, sizeof *f);
	f->load_start = f->load_end = -1;
	if (get_string(rd, r->metadata, K_METADATA, K_CPU_MODEL, 0, &f->cpu_model) != 0)
		return -1;
	if (get_uint(rd, r->metadata, K_METADATA, K_CPUS_ALLOWED, 0, 0, 1u << 20, &cpus) != 0 ||
	    get_number(rd, r->metadata, K_METADATA, K_LOAD_AVERAGE_START, -1, 1e9, &f->load_start) != 0 ||
	    get_number(rd, r->metadata, K_METADATA, K_LOAD_AVERAGE_END, -1, 1e9, &f->load_end) != 0 ||
	    get_string(rd, r->metadata, K_METADATA, K_CACHE_SIMULATED, 0, &geometry) != 0)
		return -1;
	f->cpus_allowed = (int)cpus;
	f->cache_simulated = geometry;
	{
		json_t *m = json_object_get(r->config, K_MEASURE);
		f->tlb_simulated = json_is_string(m) && strcmp(json_string_value(m), "tlb") == 0;
	}
	if (a == NULL)
		return 0;
	if (!json_is_object(a))
		return bad(rd, K_CONFIG, K_PROCESSES_AUTO, "is %s, not an object", type_name(a));
	f->ci_percent = 0;
	if (get_uint(rd, a, K_CONFIG "." K_PROCESSES_AUTO, K_MAX, 1, 2, 1000000, &max) != 0 ||
	    get_number(rd, a, K_CONFIG "." K_PROCESSES_AUTO, K_CI_PERCENT, 1e-9, 100, &f->ci_percent) != 0)
		return -1;
	if (f->ci_percent == 0)
		return bad(rd, K_CONFIG "." K_PROCESSES_AUTO, K_CI_PERCENT, "missing");
	f->processes_auto = 1;
	f->max_processes = (unsigned)max;
	return 0;
}

static int read_facts(struct alloclab_results *r, char *err, size_t err_len)
{
	struct reader rd = {.name = r->path ? r->path : "results", .err = err, .err_len = err_len};
	return read_facts_with(&rd, r);
}

static int get_bool(const struct reader *rd, const json_t *obj, const char *where, const char *key, int *out)
{
	json_t *v = json_object_get(obj, key);
	*out = 0;
	if (v == NULL)
		return 0;
	if (!json_is_boolean(v))
		return bad(rd, where, key, "is %s, not true or false", type_name(v));
	*out = json_is_true(v);
	return 0;
}

static int get_array(const struct reader *rd, const json_t *obj, const char *where, const char *key, int required,
		     size_t max, json_t **out)
{
	json_t *v = json_object_get(obj, key);
	*out = NULL;
	if (v == NULL && !required)
		return 0;
	if (v == NULL)
		return bad(rd, where, key, "missing");
	if (!json_is_array(v))
		return bad(rd, where, key, "is %s, not an array", type_name(v));
	if (json_array_size(v) > max)
		return bad(rd, where, key, "has %zu entries, more than the %zu allowed", json_array_size(v), max);
	*out = v;
	return 0;
}

static int u64_list(const struct reader *rd, const json_t *obj, const char *where, const char *key, unsigned n,
		    uint64_t **out)
{
	json_t *a, *x;
	size_t i;

	if (get_array(rd, obj, where, key, 1, ALLOCLAB_RESULTS_MAX_THREADS, &a) != 0)
		return -1;
	if (json_array_size(a) != n)
		return bad(rd, where, key, "has %zu entries for %u threads", json_array_size(a), n);
	*out = calloc(n ? n : 1, sizeof **out);
	json_array_foreach(a, i, x)
	{
		if (!json_is_integer(x) || json_integer_value(x) < 0)
			return bad(rd, where, key, "entry %zu is %s, not a non-negative whole number", i,
				   json_is_integer(x) ? "negative" : type_name(x));
		(*out)[i] = (uint64_t)json_integer_value(x);
	}
	return 0;
}

/* thread_reports / report: an array of `threads` objects or nulls, each
 * checked by the workload's hook. */
static int read_reports(const struct reader *rd, const json_t *obj, const char *where, const char *key,
			const char *workload, unsigned threads, int per_process, json_t **out)
{
	json_t *a, *x;
	size_t i;

	*out = NULL;
	if (get_array(rd, obj, where, key, 0, ALLOCLAB_RESULTS_MAX_THREADS, &a) != 0)
		return -1;
	if (a == NULL)
		return 0;
	if (json_array_size(a) != threads)
		return bad(rd, where, key, "has %zu entries for %u threads", json_array_size(a), threads);
	json_array_foreach(a, i, x)
	{
		char why[256] = "";
		if (json_is_null(x))
			continue;
		if (!json_is_object(x))
			return bad(rd, where, key, "entry %zu is %s, not an object", i, type_name(x));
		if (rd->check && workload && rd->check(workload, per_process, x, why, sizeof why) != 0)
			return bad(rd, where, key, "entry %zu: %s", i, why);
	}
	*out = json_incref(a);
	return 0;
}

static int read_stats(const struct reader *rd, const json_t *obj, const char *where, const char *key, json_t **out);

static int read_value(const struct reader *rd, const json_t *obj, const char *where, const char *workload,
		      unsigned threads, const char *metric, struct alloclab_value *v)
{
	json_t *per_op;

	if (!json_is_object(obj))
		return bad(rd, where, "", "is %s, not an object", type_name(obj));
	if (get_uint(rd, obj, where, K_WALL_NS, 1, 0, INT64_MAX, &v->wall_ns) != 0 ||
	    u64_list(rd, obj, where, K_THREAD_NS, threads, &v->thread_ns) != 0 ||
	    u64_list(rd, obj, where, K_THREAD_OPS, threads, &v->thread_ops) != 0)
		return -1;
	per_op = json_object_get(obj, metric);
	if (per_op == NULL)
		return bad(rd, where, metric, "missing");
	if (!json_is_number(per_op))
		return bad(rd, where, metric, "is %s, not a number", type_name(per_op));
	v->per_op = json_number_value(per_op);
	if (!isfinite(v->per_op) || v->per_op <= 0)
		return bad(rd, where, metric, "%g is not a finite positive %s", v->per_op,
			   alloclab_metric_deterministic(metric) ? "count" : "time");
	{
		static const char *const keys[] = {K_D1_MISSES_PER_OP, K_LL_MISSES_PER_OP};
		double *dst[] = {&v->d1_misses_per_op, &v->ll_misses_per_op};
		for (int k = 0; k < 2; k++) {
			json_t *x = json_object_get(obj, keys[k]);
			if (x == NULL)
				continue;
			if (!json_is_number(x) || !isfinite(json_number_value(x)) || json_number_value(x) < 0)
				return bad(rd, where, keys[k], "is not a finite non-negative number");
			*dst[k] = json_number_value(x);
			v->cache_simulated = 1;
		}
	}
	if (json_object_get(obj, K_MINOR_FAULTS) || json_object_get(obj, K_MAJOR_FAULTS)) {
		if (get_uint(rd, obj, where, K_MINOR_FAULTS, 1, 0, INT64_MAX, &v->minor_faults) != 0 ||
		    get_uint(rd, obj, where, K_MAJOR_FAULTS, 1, 0, INT64_MAX, &v->major_faults) != 0)
			return -1;
		v->faults_counted = 1;
	}
	if (json_object_get(obj, K_RSS_AFTER_FINISH)) {
		uint64_t kib;
		if (get_uint(rd, obj, where, K_RSS_AFTER_FINISH, 1, 1, (uint64_t)1 << 40, &kib) != 0)
			return -1;
		v->rss_after_finish_kib = (long)kib;
	}
	if (json_object_get(obj, K_RSS_END_OF_RUN)) {
		uint64_t kib;
		if (get_uint(rd, obj, where, K_RSS_END_OF_RUN, 1, 1, (uint64_t)1 << 40, &kib) != 0)
			return -1;
		v->rss_end_of_run_kib = (long)kib;
	}
	if (json_object_get(obj, K_ANON_END_OF_RUN)) {
		uint64_t kib;
		if (get_uint(rd, obj, where, K_ANON_END_OF_RUN, 1, 1, (uint64_t)1 << 40, &kib) != 0)
			return -1;
		v->anon_end_of_run_kib = (long)kib;
	}
	if (json_object_get(obj, K_LIVE_END) &&
	    get_uint(rd, obj, where, K_LIVE_END, 1, 1, (uint64_t)1 << 50, &v->live_end_bytes) != 0)
		return -1;
	if (json_object_get(obj, K_LIVE_PEAK) &&
	    get_uint(rd, obj, where, K_LIVE_PEAK, 1, 1, (uint64_t)1 << 50, &v->live_peak_bytes) != 0)
		return -1;
	if (json_object_get(obj, K_OWN) && get_uint(rd, obj, where, K_OWN, 1, 1, (uint64_t)1 << 50, &v->own_bytes) != 0)
		return -1;
	if (json_object_get(obj, K_WORKLOAD_ANON_PEAK) &&
	    get_uint(rd, obj, where, K_WORKLOAD_ANON_PEAK, 1, 1, (uint64_t)1 << 40, &v->workload_anon_peak_kib) != 0)
		return -1;
	if (read_stats(rd, obj, where, K_STATS, &v->stats) != 0)
		return -1;
	json_t *lat = json_object_get(obj, K_LATENCY);
	if (lat) {
		char why[256];
		if (alloclab_latency_from_json(lat, threads, &v->latency, why, sizeof why) != 0)
			return bad(rd, where, "", "%s", why);
	}
	return read_reports(rd, obj, where, K_THREAD_REPORTS, workload, threads, 0, &v->thread_reports);
}

static int read_values(const struct reader *rd, const json_t *obj, const char *where, const char *key,
		       const char *workload, unsigned threads, const char *metric, struct alloclab_value **out, unsigned *n)
{
	json_t *a, *x;
	size_t i;

	*out = NULL;
	*n = 0;
	if (get_array(rd, obj, where, key, strcmp(key, K_VALUES) == 0, 1000000, &a) != 0)
		return -1;
	if (a == NULL)
		return 0;
	*out = calloc(json_array_size(a) + 1, sizeof **out);
	json_array_foreach(a, i, x)
	{
		char w[256];
		snprintf(w, sizeof w, "%s.%s[%zu]", where, key, i);
		(*n)++;
		if (read_value(rd, x, w, workload, threads, metric, &(*out)[i]) != 0)
			return -1;
	}
	return 0;
}





static int read_stats(const struct reader *rd, const json_t *obj, const char *where, const char *key, json_t **out)
{
	json_t *v = json_object_get(obj, key), *x;
	const char *name;

	*out = NULL;
	if (v == NULL)
		return 0;
	if (!json_is_object(v))
		return bad(rd, where, key, "is %s, not an object", type_name(v));
	json_object_foreach(v, name, x) {
		const char *digits = json_string_value(x);
		if (json_is_integer(x) ? json_integer_value(x) >= 0
				       : digits && strlen(digits) <= 20 && strspn(digits, "0123456789") == strlen(digits) &&
						 digits[0] && alloclab_stat_digits_exact(digits))
			continue;
		return bad(rd, where, key, "'%.64s' is %s, not a whole number from 0 to 2^64-1", name,
			   json_is_integer(x) ? "negative" : digits ? "a string that is not such a number" : type_name(x));
	}
	*out = json_incref(v);
	return 0;
}

static int read_process(const struct reader *rd, const json_t *obj, const char *where, const char *workload,
			unsigned threads, const char *metric, struct alloclab_process *p)
{
	uint64_t index = 0, rss = 0;
	json_t *v;

	memset(p, 0, sizeof *p);
	p->peak_rss_kib = -1;
	if (!json_is_object(obj))
		return bad(rd, where, "", "is %s, not an object", type_name(obj));
	if (get_uint(rd, obj, where, K_PROCESS, 0, 0, 1000000, &index) != 0)
		return -1;
	p->index = (unsigned)index;
	v = json_object_get(obj, K_PEAK_RSS_KIB);
	if (v && !(json_is_integer(v) && json_integer_value(v) == -1)) {
		if (get_uint(rd, obj, where, K_PEAK_RSS_KIB, 0, 0, INT64_MAX / 1024, &rss) != 0)
			return -1;
		p->peak_rss_kib = (long)rss;
	}
	v = json_object_get(obj, K_ELAPSED_S);
	if (v) {
		if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0)
			return bad(rd, where, K_ELAPSED_S, "is not a finite non-negative number of seconds");
		p->elapsed_s = json_number_value(v);
	}
	if (read_values(rd, obj, where, K_WARMUPS, workload, threads, metric, &p->warmups, &p->nwarmups) != 0 ||
	    read_values(rd, obj, where, K_VALUES, workload, threads, metric, &p->values, &p->nvalues) != 0 ||
	    read_stats(rd, obj, where, K_STATS, &p->stats) != 0 ||
	    read_stats(rd, obj, where, K_STATS_AFTER_FINISH, &p->stats_after_finish) != 0 ||
	    read_reports(rd, obj, where, K_REPORT, workload, threads, 1, &p->report) != 0 ||
	    get_string(rd, obj, where, K_PLUGIN_OUTPUT, 0, &p->plugin_output) != 0)
		return -1;
	p->rss_before_plugin_kib = p->rss_after_finish_kib = p->rss_after_trim_kib = p->rss_after_settle_kib = -1;
	p->anon_before_plugin_kib = -1;
	v = json_object_get(obj, K_GIVEN_BACK);
	if (v) {
		static const char *const keys[] = {"before_plugin", "after_finish", "after_trim", "after_settle",
						   "anon_before_plugin"};
		long *dst[] = {&p->rss_before_plugin_kib, &p->rss_after_finish_kib, &p->rss_after_trim_kib,
			       &p->rss_after_settle_kib, &p->anon_before_plugin_kib};
		char w[300];
		snprintf(w, sizeof w, "%s%s" K_GIVEN_BACK, where, where[0] ? "." : "");
		if (!json_is_object(v))
			return bad(rd, where, K_GIVEN_BACK, "is %s, not an object", type_name(v));
		for (int k = 0; k < 5; k++) {
			uint64_t kib;
			if (json_object_get(v, keys[k]) == NULL)
				continue;
			if (get_uint(rd, v, w, keys[k], 1, 1, (uint64_t)1 << 40, &kib) != 0)
				return -1;
			*dst[k] = (long)kib;
		}
	}
	if (json_object_get(obj, K_LAYOUT_PAD)) {
		uint64_t pad;
		if (get_uint(rd, obj, where, K_LAYOUT_PAD, 0, 0, ALLOCLAB_LAYOUT_PAD_MAX, &pad) != 0)
			return -1;
		p->layout_pad_pages = (unsigned)pad;
	}
	v = json_object_get(obj, K_MEMORY);
	if (v) {
		char why[300];
		if (alloclab_timeline_check(v, why, sizeof why) != 0)
			return bad(rd, where, "", "%s", why);
		p->memory = json_incref(v);
	}
	v = json_object_get(obj, K_HOST);
	if (v) {
		char w[300];
		snprintf(w, sizeof w, "%s%s" K_HOST, where, where[0] ? "." : "");
		if (!json_is_object(v))
			return bad(rd, where, K_HOST, "is %s, not an object", type_name(v));
		if (get_string(rd, v, w, K_HOST_NAME, 1, &p->host) != 0 ||
		    get_string(rd, v, w, K_CPU_MODEL, 1, &p->host_cpu_model) != 0 ||
		    get_string(rd, v, w, K_KERNEL, 1, &p->host_kernel) != 0)
			return -1;
	}
	return 0;
}

int alloclab_process_from_json(const json_t *obj, unsigned threads, const char *metric, const char *where,
			       struct alloclab_process *p, char *err, size_t err_len)
{
	struct reader rd = {where, NULL, err, err_len, ALLOCLAB_RESULTS_VERSION};
	if (read_process(&rd, obj, "", NULL, threads, metric, p) != 0) {
		alloclab_process_clear(p);
		return -1;
	}
	return 0;
}

static int parse_status(const char *s, enum alloclab_cell_status *out)
{
	static const char *const names[] = {S_PENDING, S_OK, S_ERROR, S_NOT_APPLICABLE};
	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum alloclab_cell_status)i;
			return 0;
		}
	return -1;
}

static int read_params(const struct reader *rd, const json_t *obj, const char *where, json_t **out)
{
	json_t *v = json_object_get(obj, K_PARAMS), *x;
	const char *key;

	if (v == NULL)
		return bad(rd, where, K_PARAMS, "missing");
	if (!json_is_object(v))
		return bad(rd, where, K_PARAMS, "is %s, not an object", type_name(v));
	if (json_object_size(v) > 64)
		return bad(rd, where, K_PARAMS, "has more than 64 parameters");
	json_object_foreach(v, key, x)
	{
		if (strlen(key) > 64)
			return bad(rd, where, K_PARAMS, "has a parameter name longer than 64 bytes");
		if (!(json_is_integer(x) && json_integer_value(x) >= 0) &&
		    !(json_is_string(x) && json_string_length(x) <= 4096 && strlen(json_string_value(x)) == json_string_length(x)))
			return bad(rd, where, K_PARAMS, "'%s' is %s, not a non-negative whole number or a string", key,
				   type_name(x));
	}
	*out = json_incref(v);
	return 0;
}

static int read_cell(const struct reader *rd, const json_t *obj, const char *where, unsigned nplugins,
		     struct alloclab_cell *c)
{
	char *status = NULL;
	uint64_t threads = 0, index = 0, planned = 0;
	json_t *runs, *x;
	size_t i;

	if (!json_is_object(obj))
		return bad(rd, where, "", "is %s, not an object", type_name(obj));
	if (get_string(rd, obj, where, K_PLUGIN, 1, &c->plugin) != 0 ||
	    get_string(rd, obj, where, K_PLUGIN_OPTIONS, 0, &c->plugin_options) != 0 ||
	    get_string(rd, obj, where, K_WORKLOAD, 1, &c->workload) != 0 ||
	    get_uint(rd, obj, where, K_THREADS, 1, 1, ALLOCLAB_RESULTS_MAX_THREADS, &threads) != 0 ||
	    get_uint(rd, obj, where, K_PLUGIN_INDEX, 0, 0, nplugins ? nplugins - 1 : ALLOCLAB_RESULTS_MAX_PLUGINS,
		     &index) != 0 ||
	    get_uint(rd, obj, where, K_PROCESSES, 0, 0, 1000000, &planned) != 0 ||
	    get_bool(rd, obj, where, K_CACHE_ALIGNED, &c->cache_aligned) != 0 ||
	    get_string(rd, obj, where, K_METRIC, 0, &c->metric) != 0 ||
	    get_string(rd, obj, where, K_UNIT_OP, 0, &c->unit_op) != 0 || read_params(rd, obj, where, &c->params) != 0 ||
	    get_string(rd, obj, where, K_STATUS, 1, &status) != 0)
		goto fail;
	if (c->plugin_options == NULL)
		c->plugin_options = strdup("");
	if (c->metric == NULL)
		c->metric = strdup(K_NS_PER_OP);
	if (strcmp(c->metric, ALLOCLAB_METRIC_TIME) != 0 && strcmp(c->metric, ALLOCLAB_METRIC_INSTRUCTIONS) != 0) {
		bad(rd, where, K_METRIC, "'%s' is not a metric this alloclab knows", c->metric);
		goto fail;
	}
	if (c->workload[0] == '\0' || c->plugin[0] == '\0') {
		bad(rd, where, c->plugin[0] ? K_WORKLOAD : K_PLUGIN, "is empty");
		goto fail;
	}
	c->threads = (unsigned)threads;
	c->plugin_index = (unsigned)index;
	c->planned = (unsigned)planned;
	if (parse_status(status, &c->status) != 0) {
		bad(rd, where, K_STATUS, "'%.64s' is not ok, error, not applicable or pending", status);
		goto fail;
	}
	if (c->status == ALLOCLAB_CELL_ERROR && get_string(rd, obj, where, K_ERROR, 1, &c->message) != 0)
		goto fail;
	if (c->status == ALLOCLAB_CELL_NOT_APPLICABLE && get_string(rd, obj, where, K_REASON, 1, &c->message) != 0)
		goto fail;
	json_t *fm = json_object_get(obj, K_FAILED_MEMORY);
	if (fm) {
		char why[300];
		if (c->status != ALLOCLAB_CELL_ERROR) {
			bad(rd, where, K_FAILED_MEMORY, "is there, but the cell did not fail");
			goto fail;
		}
		if (alloclab_timeline_check(fm, why, sizeof why) != 0) {
			bad(rd, where, K_FAILED_MEMORY, "%s", why);
			goto fail;
		}
		c->failed_memory = json_incref(fm);
	}
	if (get_array(rd, obj, where, K_RUNS, 1, 1000000, &runs) != 0)
		goto fail;
	if (c->status == ALLOCLAB_CELL_NOT_APPLICABLE && json_array_size(runs) > 0) {
		bad(rd, where, K_RUNS, "a cell that is not applicable has measurements");
		goto fail;
	}
	c->procs = calloc(json_array_size(runs) + 1, sizeof *c->procs);
	c->procs_cap = (unsigned)json_array_size(runs) + 1;
	json_array_foreach(runs, i, x)
	{
		char w[256];
		snprintf(w, sizeof w, "%s.%s[%zu]", where, K_RUNS, i);
		c->nprocs++;
		if (read_process(rd, x, w, c->workload, c->threads, c->metric, &c->procs[i]) != 0)
			goto fail;
	}
	if (c->status == ALLOCLAB_CELL_OK && c->nprocs == 0) {
		bad(rd, where, K_RUNS, "a cell whose status is ok has no measurement");
		goto fail;
	}
	free(status);
	return 0;
fail:
	free(status);
	return -1;
}

static int read_plugin(const struct reader *rd, const json_t *obj, const char *where, struct alloclab_plugin_info *p)
{
	json_t *caps, *x;
	size_t i;

	if (!json_is_object(obj))
		return bad(rd, where, "", "is %s, not an object", type_name(obj));
	if (get_string(rd, obj, where, K_NAME, 1, &p->name) != 0 || get_string(rd, obj, where, K_LABEL, 0, &p->label) != 0 ||
	    get_string(rd, obj, where, K_SPEC, 0, &p->spec) != 0 || get_string(rd, obj, where, K_OPTIONS, 0, &p->options) != 0 ||
	    get_string(rd, obj, where, K_VERSION, 0, &p->version) != 0 ||
	    get_string(rd, obj, where, K_DESCRIPTION, 0, &p->description) != 0 ||
	    get_string(rd, obj, where, K_PATH, 0, &p->path) != 0 ||
	    get_uint(rd, obj, where, K_MIN_ALIGN, 0, 0, UINT32_MAX, &p->min_align) != 0 ||
	    get_array(rd, obj, where, K_CAPS, 0, 64, &caps) != 0)
		return -1;
	json_array_foreach(caps, i, x)
		if (!json_is_string(x))
			return bad(rd, where, K_CAPS, "entry %zu is %s, not a string", i, type_name(x));
	p->caps = caps ? json_incref(caps) : json_array();
	json_t *check;
	if (get_array(rd, obj, where, K_CHECK, 0, 64, &check) != 0)
		return -1;
	json_array_foreach(check, i, x)
	{
		char *s1 = NULL, *s2 = NULL;
		char w[128];
		snprintf(w, sizeof w, "%s.%s[%zu]", where, K_CHECK, i);
		if (!json_is_object(x))
			return bad(rd, w, "", "is %s, not an object", type_name(x));
		if (get_string(rd, x, w, K_CASE, 1, &s1) != 0 || get_string(rd, x, w, K_WHY, 1, &s2) != 0) {
			free(s1);
			return -1;
		}
		free(s1);
		free(s2);
	}
	p->check = check ? json_incref(check) : NULL;
	if (p->options == NULL)
		p->options = strdup("");
	if (p->label == NULL && rd->version >= 2)
		return bad(rd, where, K_LABEL, "is missing (format_version %d files label every plugin)", rd->version);
	if (p->label == NULL) {
		/* Version 1: the label is the name with the options. */
		size_t len = strlen(p->name) + strlen(p->options) + 2;
		p->label = malloc(len);
		snprintf(p->label, len, "%s%s%s", p->name, p->options[0] ? ":" : "", p->options);
	}
	return 0;
}

static void fold_journal(struct alloclab_results *r, const struct reader *rd);

struct alloclab_results *alloclab_results_from_json(const json_t *doc, const char *name,
						    alloclab_report_checker check, char *err, size_t err_len)
{
	struct reader rd = {name, check, err, err_len, 0};
	struct alloclab_results *r = calloc(1, sizeof *r);
	json_t *format = json_object_get(doc, K_FORMAT), *version = json_object_get(doc, K_FORMAT_VERSION), *a, *x;
	size_t i;

	if (!json_is_object(doc)) {
		snprintf(err, err_len, "%s: not an alloclab results file (it is %s, not an object)", name, type_name(doc));
		goto fail;
	}
	if (!json_is_string(format) || strcmp(json_string_value(format), ALLOCLAB_RESULTS_FORMAT) != 0) {
		snprintf(err, err_len, "%s: not an alloclab results file (no \"format\": \"%s\")", name,
			 ALLOCLAB_RESULTS_FORMAT);
		goto fail;
	}
	if (version == NULL || !json_is_integer(version)) {
		bad(&rd, "", K_FORMAT_VERSION, "is %s, not a whole number", version ? type_name(version) : "missing");
		goto fail;
	}
	if (json_integer_value(version) < ALLOCLAB_RESULTS_OLDEST_VERSION ||
	    json_integer_value(version) > ALLOCLAB_RESULTS_VERSION) {
		snprintf(err, err_len, "%s: results format version %lld; this alloclab reads versions %d to %d", name,
			 (long long)json_integer_value(version), ALLOCLAB_RESULTS_OLDEST_VERSION, ALLOCLAB_RESULTS_VERSION);
		goto fail;
	}
	r->version = rd.version = (int)json_integer_value(version);
	/* The version a file claims must be the layout it has: a version 2
	 * file always says whether it is complete; version 1 never did. */
	if ((json_object_get(doc, K_COMPLETE) != NULL) != (r->version >= 2)) {
		bad(&rd, "", K_FORMAT_VERSION, "is %d, but the file %s '%s' (which version 2 added)", r->version,
		    r->version >= 2 ? "lacks" : "has", K_COMPLETE);
		goto fail;
	}
	r->metadata = json_object_get(doc, K_METADATA);
	r->config = json_object_get(doc, K_CONFIG);
	if (!json_is_object(r->metadata)) {
		r->metadata = NULL;
		bad(&rd, "", K_METADATA, "is missing or not an object");
		goto fail;
	}
	json_incref(r->metadata);
	r->config = json_is_object(r->config) ? json_incref(r->config) : json_object();
	if (read_facts_with(&rd, r) != 0)
		goto fail;
	if (get_bool(&rd, doc, "", K_INTERRUPTED, &r->interrupted) != 0)
		goto fail;
	if (r->version < 2)
		r->complete = 1; /* version 1: always written whole */
	else if (get_bool(&rd, doc, "", K_COMPLETE, &r->complete) != 0)
		goto fail;
	if (get_array(&rd, doc, "", K_PLUGINS, 0, ALLOCLAB_RESULTS_MAX_PLUGINS, &a) != 0)
		goto fail;
	r->plugins = calloc(json_array_size(a) + 1, sizeof *r->plugins);
	json_array_foreach(a, i, x)
	{
		char w[64];
		snprintf(w, sizeof w, "%s[%zu]", K_PLUGINS, i);
		r->nplugins++;
		if (read_plugin(&rd, x, w, &r->plugins[i]) != 0)
			goto fail;
	}
	if (get_array(&rd, doc, "", K_CELLS, 1, ALLOCLAB_RESULTS_MAX_CELLS, &a) != 0)
		goto fail;
	r->cells = calloc(json_array_size(a) + 1, sizeof *r->cells);
	json_array_foreach(a, i, x)
	{
		char w[64];
		snprintf(w, sizeof w, "%s[%zu]", K_CELLS, i);
		r->ncells++;
		if (read_cell(&rd, x, w, r->nplugins, &r->cells[i]) != 0)
			goto fail;
		struct alloclab_cell *c = &r->cells[i];
		if (r->version < 2 && c->plugin_options[0]) {
			/* Version 1 named the plugin and its options apart. */
			size_t len = strlen(c->plugin) + strlen(c->plugin_options) + 2;
			char *label = malloc(len);
			snprintf(label, len, "%s:%s", c->plugin, c->plugin_options);
			free(c->plugin);
			c->plugin = label;
		}
		/* A cell names its plugin by label; version 2 keeps them equal. */
		if (r->nplugins && r->version >= 2 && strcmp(c->plugin, r->plugins[c->plugin_index].label) != 0) {
			bad(&rd, w, K_PLUGIN, "'%.64s' is not the label of plugins[%u]", c->plugin, c->plugin_index);
			goto fail;
		}
	}
	if (read_shard(&rd, r) != 0)
		goto fail;
	/* Every cell's plugin_index names a plugin, whatever the file held:
	 * version 1 files may list none, or index them loosely. */
	for (unsigned ci = 0; ci < r->ncells; ci++) {
		struct alloclab_cell *c = &r->cells[ci];
		unsigned k;
		if (c->plugin_index < r->nplugins && strcmp(r->plugins[c->plugin_index].label, c->plugin) == 0)
			continue;
		for (k = 0; k < r->nplugins && strcmp(r->plugins[k].label, c->plugin) != 0; k++)
			;
		if (k == r->nplugins) {
			struct alloclab_plugin_info info = {.label = c->plugin, .spec = c->plugin, .name = c->plugin};
			k = alloclab_results_add_plugin(r, &info);
		}
		c->plugin_index = k;
	}
	if (!r->complete)
		fold_journal(r, &rd);
	return r;
fail:
	alloclab_results_free(r);
	return NULL;
}

struct alloclab_results *alloclab_results_load(const char *path, alloclab_report_checker check, char *err,
					       size_t err_len)
{
	struct stat st;
	json_error_t jerr;
	json_t *doc;
	struct alloclab_results *r;
	FILE *f;

	if (stat(path, &st) != 0) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, err_len, "%s: is a folder, not a results file", path);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		/* A FIFO or a device would block or never end. */
		snprintf(err, err_len, "%s: not a regular file, not a results file", path);
		return NULL;
	}
	f = fopen(path, "rb");
	if (f == NULL) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	doc = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	fclose(f);
	if (doc == NULL) {
		snprintf(err, err_len, "%s: not valid JSON (line %d: %s); truncated or not a results file", path,
			 jerr.line, jerr.text);
		return NULL;
	}
	r = alloclab_results_from_json(doc, path, check, err, err_len);
	json_decref(doc);
	if (r)
		r->path = strdup(path);
	return r;
}

/* ---- the journal ---- */

struct alloclab_journal {
	int fd;
	char *path;
};

static void journal_path(const char *results_path, char *out, size_t len)
{
	snprintf(out, len, "%s.journal", results_path);
}

struct alloclab_journal *alloclab_journal_open(const char *results_path, char *err, size_t err_len)
{
	char path[ALLOCLAB_PATH_PLUS_LEN];
	struct alloclab_journal *j;
	int fd;

	journal_path(results_path, path, sizeof path);
	err[0] = '\0';
	/* The results path under the output policy (which makes its folder);
	 * the journal beside it is only ever a regular file of ours. */
	if (alloclab_output_usable(results_path, ALLOCLAB_OUTPUT_RESULTS, err, err_len) != 0)
		return NULL;
	struct stat st;
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, err_len, "%s is not a regular file: alloclab replaces only its own files", path);
		return NULL;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		return NULL;
	}
	/* One writer per results file: a second run on the same output would
	 * silently replace the first one's cells. */
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		snprintf(err, err_len, "%s is being written by another alloclab run (%s is locked)", results_path, path);
		close(fd);
		return NULL;
	}
	if (ftruncate(fd, 0) != 0) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	j = calloc(1, sizeof *j);
	j->fd = fd;
	j->path = strdup(path);
	return j;
}

int alloclab_journal_append(struct alloclab_journal *j, unsigned cell, unsigned threads, const char *metric,
			    const struct alloclab_process *p, enum alloclab_cell_status status, const char *message,
			    const json_t *failed_memory, char *err, size_t err_len)
{
	json_t *line = json_pack("{s:i,s:s}", K_CELL, (int)cell, K_STATUS, status_name(status));
	char *text;
	size_t len, off = 0;

	if (p)
		json_object_set_new(line, K_PROCESS, process_json(p, threads, metric));
	if (message)
		json_object_set_new(line, K_ERROR, alloclab_json_text(message));
	if (failed_memory)
		json_object_set(line, K_FAILED_MEMORY, (json_t *)failed_memory);
	text = json_dumps(line, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(line);
	len = strlen(text);
	text = realloc(text, len + 2);
	text[len++] = '\n';
	while (off < len) {
		ssize_t n = write(j->fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, err_len, "cannot write %s: %s", j->path, strerror(n < 0 ? errno : ENOSPC));
			free(text);
			return -1;
		}
		off += (size_t)n;
	}
	free(text);
	if (fdatasync(j->fd) != 0 && errno != EINVAL) {
		snprintf(err, err_len, "cannot write %s: %s", j->path, strerror(errno));
		return -1;
	}
	return 0;
}

void alloclab_journal_close(struct alloclab_journal *j, int remove)
{
	if (j == NULL)
		return;
	close(j->fd);
	if (remove)
		unlink(j->path);
	free(j->path);
	free(j);
}

/* Applies PATH.journal's lines to an incomplete document. A line that does
 * not read (the last one, cut by a kill) ends the fold: everything before
 * it was finished. */
static void fold_journal(struct alloclab_results *r, const struct reader *rd)
{
	char path[ALLOCLAB_PATH_PLUS_LEN], *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (rd->name == NULL)
		return;
	journal_path(rd->name, path, sizeof path);
	char why[128];
	/* Never waited on: a FIFO planted as the journal is no journal. */
	f = alloclab_fopen_regular(path, why, sizeof why);
	if (f == NULL)
		return;
	while (getline(&line, &cap, f) > 0) {
		json_t *obj = json_loads(line, JSON_REJECT_DUPLICATES, NULL), *proc;
		uint64_t cell = 0;
		char *status = NULL, *message = NULL, where[64];
		enum alloclab_cell_status st;
		struct reader jr = {path, rd->check, rd->err, rd->err_len, rd->version};

		snprintf(where, sizeof where, "line");
		if (obj == NULL || get_uint(&jr, obj, where, K_CELL, 1, 0, r->ncells ? r->ncells - 1 : 0, &cell) != 0 ||
		    r->ncells == 0 || get_string(&jr, obj, where, K_STATUS, 1, &status) != 0 ||
		    parse_status(status, &st) != 0 || get_string(&jr, obj, where, K_ERROR, 0, &message) != 0) {
			free(status);
			json_decref(obj);
			break;
		}
		struct alloclab_cell *c = &r->cells[cell];
		proc = json_object_get(obj, K_PROCESS);
		if (proc) {
			struct alloclab_process p;
			if (read_process(&jr, proc, where, c->workload, c->threads, c->metric, &p) != 0) {
				alloclab_process_clear(&p);
				free(status);
				free(message);
				json_decref(obj);
				break;
			}
			alloclab_cell_add_process(c, &p);
		}
		json_t *fm = json_object_get(obj, K_FAILED_MEMORY);
		if (fm) {
			char why_fm[300];
			if (st != ALLOCLAB_CELL_ERROR || alloclab_timeline_check(fm, why_fm, sizeof why_fm) != 0) {
				free(status);
				free(message);
				json_decref(obj);
				break;
			}
			json_decref(c->failed_memory);
			c->failed_memory = json_incref(fm);
		}
		alloclab_cell_set_status(c, st, message);
		free(status);
		free(message);
		json_decref(obj);
	}
	rd->err[0] = '\0';
	free(line);
	fclose(f);
	r->interrupted = 1; /* the run never wrote its final document */
}
