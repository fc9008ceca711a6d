/* The one writer of results files. See results.h. */
#define _GNU_SOURCE 1
#include "results/results.h"
#include "results/internal.h"
#include "results/results_keys.h"
#include "base/invariant.h"
#include "files/output_path.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- writing ---- */

const char *alloclab_results_status_name(enum alloclab_cell_status s)
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
		json_object_set_new(o, K_SYS_NS, json_integer((json_int_t)v->sys_ns));
	}
	if (v->rss_after_finish_kib > 0)
		json_object_set_new(o, K_RSS_AFTER_FINISH, json_integer(v->rss_after_finish_kib));
	if (v->rss_end_of_run_kib > 0)
		json_object_set_new(o, K_RSS_END_OF_RUN, json_integer(v->rss_end_of_run_kib));
	if (v->anon_end_of_run_kib > 0)
		json_object_set_new(o, K_ANON_END_OF_RUN, json_integer(v->anon_end_of_run_kib));
	if (v->slices) {
		json_object_set_new(o, K_SLICES, json_integer((json_int_t)v->slices));
		json_object_set_new(o, K_SLICES_DROPPED, json_integer((json_int_t)v->slices_dropped));
	}
	if (v->live_end_bytes)
		json_object_set_new(o, K_LIVE_END, json_integer((json_int_t)v->live_end_bytes));
	if (v->live_peak_bytes)
		json_object_set_new(o, K_LIVE_PEAK, json_integer((json_int_t)v->live_peak_bytes));
	if (v->own_bytes)
		json_object_set_new(o, K_OWN, json_integer((json_int_t)v->own_bytes));
	if (v->workload_anon_peak_kib)
		json_object_set_new(o, K_WORKLOAD_ANON_PEAK, json_integer((json_int_t)v->workload_anon_peak_kib));
	if (v->program_peak_rss_kib)
		json_object_set_new(o, K_PROGRAM_PEAK_RSS, json_integer((json_int_t)v->program_peak_rss_kib));
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

json_t *alloclab_process_to_json(const struct alloclab_process *p, unsigned threads, const char *metric)
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
		json_object_set_new(o, K_MEMORY, alloclab_results_timeline_json(p->memory));
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
	if (p->started_unix_s > 0)
		json_object_set_new(o, K_STARTED, json_real(p->started_unix_s));
	if (p->pair_ratio > 0)
		json_object_set_new(o, K_PAIR_RATIO, json_real(p->pair_ratio));
	if (p->host)
		json_object_set_new(o, K_HOST, json_pack("{s:o,s:o,s:o}", K_HOST_NAME, alloclab_json_text(p->host),
							 K_CPU_MODEL, alloclab_json_text(p->host_cpu_model),
							 K_KERNEL, alloclab_json_text(p->host_kernel)));
	return o;
}

json_t *alloclab_cell_to_json(const struct alloclab_cell *c)
{
	json_t *runs = json_array();
	json_t *o;

	for (unsigned i = 0; i < c->nprocs; i++)
		json_array_append_new(runs, alloclab_process_to_json(&c->procs[i], c->threads, c->metric ? c->metric : K_NS_PER_OP));
	o = json_pack("{s:o,s:i,s:o,s:o,s:O,s:i,s:b,s:s,s:o,s:i,s:o}", K_PLUGIN, alloclab_json_text(c->plugin),
		      K_PLUGIN_INDEX, (int)c->plugin_index, K_PLUGIN_OPTIONS, alloclab_json_text(c->plugin_options),
		      K_WORKLOAD, alloclab_json_text(c->workload), K_PARAMS, c->params, K_THREADS, (int)c->threads,
		      K_CACHE_ALIGNED, c->cache_aligned, K_STATUS, alloclab_results_status_name(c->status), K_METRIC,
		      alloclab_json_text(c->metric ? c->metric : K_NS_PER_OP), K_PROCESSES, (int)c->planned, K_RUNS, runs);
	if (c->unit_op)
		json_object_set_new(o, K_UNIT_OP, alloclab_json_text(c->unit_op));
	if (c->message)
		json_object_set_new(o, c->status == ALLOCLAB_CELL_NOT_APPLICABLE ? K_REASON : K_ERROR,
				    alloclab_json_text(c->message));
	if (c->pair_design)
		json_object_set_new(o, K_PAIR_DESIGN, alloclab_json_text(c->pair_design));
	if (c->pair_why)
		json_object_set_new(o, K_PAIR_WHY, alloclab_json_text(c->pair_why));
	if (c->failed_memory && c->status == ALLOCLAB_CELL_ERROR)
		json_object_set_new(o, K_FAILED_MEMORY, alloclab_results_timeline_json(c->failed_memory));
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
	if (p->sha256)
		json_object_set_new(o, K_SHA256, json_string(p->sha256));
	if (p->source_commit)
		json_object_set_new(o, K_SOURCE, json_pack("{s:s,s:b}", K_COMMIT, p->source_commit, K_DIRTY, p->source_dirty > 0));
	return o;
}

json_t *alloclab_results_to_json(const struct alloclab_results *r)
{
	json_t *plugins = json_array(), *cells = json_array();

	ALLOCLAB_CHECK_INVARIANT(alloclab_results_consistent(r, NULL, 0));
	for (unsigned i = 0; i < r->nplugins; i++)
		json_array_append_new(plugins, plugin_to_json(&r->plugins[i]));
	for (unsigned i = 0; i < r->ncells; i++)
		json_array_append_new(cells, alloclab_cell_to_json(&r->cells[i]));
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

json_t *alloclab_results_timeline_json(const struct alloclab_memory_timeline *t)
{
	json_t *samples = json_array(), *phases = json_array();
	for (unsigned i = 0; i < t->nphases; i++)
		json_array_append_new(phases, json_string(t->phases[i]));
	for (unsigned i = 0; i < t->nsamples; i++) {
		const struct alloclab_memory_sample *m = &t->samples[i];
		json_array_append_new(samples, json_pack("[f,I,I,I,i,I]", m->t_ms, (json_int_t)m->rss_kib,
							 (json_int_t)m->anon_kib, (json_int_t)m->huge_kib, (int)m->phase,
							 (json_int_t)m->live_kib));
	}
	return json_pack("{s:i,s:i,s:o,s:o}", K_REQUESTED_MS, (int)t->requested_ms, K_INTERVAL_MS, (int)t->interval_ms,
			 K_PHASES, phases, K_SAMPLES, samples);
}
