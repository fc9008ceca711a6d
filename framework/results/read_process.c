/* Reading a process and its values, every field checked. See results.h. */
#define _GNU_SOURCE 1
#include "results/results.h"
#include "results/internal.h"
#include "results/results_keys.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int u64_list(const struct alloclab_results_reader *rd, const json_t *obj, const char *where, const char *key, unsigned n,
		    uint64_t **out)
{
	json_t *a, *x;
	size_t i;

	if (alloclab_results_get_array(rd, obj, where, key, 1, ALLOCLAB_RESULTS_MAX_THREADS, &a) != 0)
		return -1;
	if (json_array_size(a) != n)
		return alloclab_results_bad(rd, where, key, "has %zu entries for %u threads", json_array_size(a), n);
	*out = calloc(n ? n : 1, sizeof **out);
	json_array_foreach(a, i, x)
	{
		if (!json_is_integer(x) || json_integer_value(x) < 0)
			return alloclab_results_bad(rd, where, key, "entry %zu is %s, not a non-negative whole number", i,
				   json_is_integer(x) ? "negative" : alloclab_json_type_name(x));
		(*out)[i] = (uint64_t)json_integer_value(x);
	}
	return 0;
}

/* thread_reports / report: an array of `threads` objects or nulls, each
 * checked by the workload's hook. */
static int read_reports(const struct alloclab_results_reader *rd, const json_t *obj, const char *where, const char *key,
			const char *workload, unsigned threads, int per_process, json_t **out)
{
	json_t *a, *x;
	size_t i;

	*out = NULL;
	if (alloclab_results_get_array(rd, obj, where, key, 0, ALLOCLAB_RESULTS_MAX_THREADS, &a) != 0)
		return -1;
	if (a == NULL)
		return 0;
	if (json_array_size(a) != threads)
		return alloclab_results_bad(rd, where, key, "has %zu entries for %u threads", json_array_size(a), threads);
	json_array_foreach(a, i, x)
	{
		char why[256] = "";
		if (json_is_null(x))
			continue;
		if (!json_is_object(x))
			return alloclab_results_bad(rd, where, key, "entry %zu is %s, not an object", i, alloclab_json_type_name(x));
		if (rd->check && workload && rd->check(workload, per_process, x, why, sizeof why) != 0)
			return alloclab_results_bad(rd, where, key, "entry %zu: %s", i, why);
	}
	*out = json_incref(a);
	return 0;
}

static int read_stats(const struct alloclab_results_reader *rd, const json_t *obj, const char *where, const char *key, json_t **out)
{
	json_t *v = json_object_get(obj, key), *x;
	const char *name;

	*out = NULL;
	if (v == NULL)
		return 0;
	if (!json_is_object(v))
		return alloclab_results_bad(rd, where, key, "is %s, not an object", alloclab_json_type_name(v));
	json_object_foreach(v, name, x) {
		const char *digits = json_string_value(x);
		if (json_is_integer(x) ? json_integer_value(x) >= 0
				       : digits && strlen(digits) <= 20 && strspn(digits, "0123456789") == strlen(digits) &&
						 digits[0] && alloclab_stat_digits_exact(digits))
			continue;
		return alloclab_results_bad(rd, where, key, "'%.64s' is %s, not a whole number from 0 to 2^64-1", name,
			   json_is_integer(x) ? "negative" : digits ? "a string that is not such a number" : alloclab_json_type_name(x));
	}
	*out = json_incref(v);
	return 0;
}

static int read_value(const struct alloclab_results_reader *rd, const json_t *obj, const char *where, const char *workload,
		      unsigned threads, const char *metric, struct alloclab_value *v)
{
	json_t *per_op;

	if (!json_is_object(obj))
		return alloclab_results_bad(rd, where, "", "is %s, not an object", alloclab_json_type_name(obj));
	if (alloclab_results_get_uint(rd, obj, where, K_WALL_NS, 1, 0, INT64_MAX, &v->wall_ns) != 0 ||
	    u64_list(rd, obj, where, K_THREAD_NS, threads, &v->thread_ns) != 0 ||
	    u64_list(rd, obj, where, K_THREAD_OPS, threads, &v->thread_ops) != 0)
		return -1;
	per_op = json_object_get(obj, metric);
	if (per_op == NULL)
		return alloclab_results_bad(rd, where, metric, "missing");
	if (!json_is_number(per_op))
		return alloclab_results_bad(rd, where, metric, "is %s, not a number", alloclab_json_type_name(per_op));
	v->per_op = json_number_value(per_op);
	if (!isfinite(v->per_op) || v->per_op <= 0)
		return alloclab_results_bad(rd, where, metric, "%g is not a finite positive %s", v->per_op,
			   alloclab_metric_deterministic(metric) ? "count" : "time");
	/* A value is a whole count (ns, instructions) over at most 2^64
	 * operations: less than 2^-64 of a unit is no measurement (and would
	 * vanish in a conversion, 5e-324 ns as 0 s). */
	if (v->per_op < 0x1p-64)
		return alloclab_results_bad(rd, where, metric, "%g is below one unit over 2^64 operations: no measurement gives it",
					    v->per_op);
	/* ... and more than 2^64 units for one operation (584 years of
	 * nanoseconds) is none either: the figures summed and squared over
	 * a cell would reach infinity, and a table would show "inf". */
	if (v->per_op > 0x1p64)
		return alloclab_results_bad(rd, where, metric, "%g is more than 2^64 units for one operation: no measurement "
					    "gives it", v->per_op);
	{
		static const char *const keys[] = {K_D1_MISSES_PER_OP, K_LL_MISSES_PER_OP};
		double *dst[] = {&v->d1_misses_per_op, &v->ll_misses_per_op};
		for (int k = 0; k < 2; k++) {
			json_t *x = json_object_get(obj, keys[k]);
			if (x == NULL)
				continue;
			if (!json_is_number(x) || !isfinite(json_number_value(x)) || json_number_value(x) < 0 ||
			    json_number_value(x) > 0x1p64)
				return alloclab_results_bad(rd, where, keys[k], "is not a number of misses from 0 to 2^64");
			*dst[k] = json_number_value(x);
			v->cache_simulated = 1;
		}
	}
	/* System time goes with the faults (the same getrusage): checked
	 * wherever it is, and the faults then required. */
	if (alloclab_results_get_uint(rd, obj, where, K_SYS_NS, 0, 0, INT64_MAX, &v->sys_ns) != 0)
		return -1;
	if (json_object_get(obj, K_MINOR_FAULTS) || json_object_get(obj, K_MAJOR_FAULTS) || json_object_get(obj, K_SYS_NS)) {
		if (alloclab_results_get_uint(rd, obj, where, K_MINOR_FAULTS, 1, 0, INT64_MAX, &v->minor_faults) != 0 ||
		    alloclab_results_get_uint(rd, obj, where, K_MAJOR_FAULTS, 1, 0, INT64_MAX, &v->major_faults) != 0)
			return -1;
		v->faults_counted = 1;
	}
	if (json_object_get(obj, K_SLICES) || json_object_get(obj, K_SLICES_DROPPED)) {
		if (alloclab_results_get_uint(rd, obj, where, K_SLICES, 1, 1, (uint64_t)1 << 40, &v->slices) != 0 ||
		    alloclab_results_get_uint(rd, obj, where, K_SLICES_DROPPED, 1, 0, v->slices - 1, &v->slices_dropped) != 0)
			return -1;
	}
	if (json_object_get(obj, K_RSS_AFTER_FINISH)) {
		uint64_t kib;
		if (alloclab_results_get_uint(rd, obj, where, K_RSS_AFTER_FINISH, 1, 1, (uint64_t)1 << 40, &kib) != 0)
			return -1;
		v->rss_after_finish_kib = (long)kib;
	}
	if (json_object_get(obj, K_RSS_END_OF_RUN)) {
		uint64_t kib;
		if (alloclab_results_get_uint(rd, obj, where, K_RSS_END_OF_RUN, 1, 1, (uint64_t)1 << 40, &kib) != 0)
			return -1;
		v->rss_end_of_run_kib = (long)kib;
	}
	if (json_object_get(obj, K_ANON_END_OF_RUN)) {
		uint64_t kib;
		if (alloclab_results_get_uint(rd, obj, where, K_ANON_END_OF_RUN, 1, 1, (uint64_t)1 << 40, &kib) != 0)
			return -1;
		v->anon_end_of_run_kib = (long)kib;
	}
	if (json_object_get(obj, K_LIVE_END) &&
	    alloclab_results_get_uint(rd, obj, where, K_LIVE_END, 1, 1, (uint64_t)1 << 50, &v->live_end_bytes) != 0)
		return -1;
	if (json_object_get(obj, K_LIVE_PEAK) &&
	    alloclab_results_get_uint(rd, obj, where, K_LIVE_PEAK, 1, 1, (uint64_t)1 << 50, &v->live_peak_bytes) != 0)
		return -1;
	if (json_object_get(obj, K_OWN) && alloclab_results_get_uint(rd, obj, where, K_OWN, 1, 1, (uint64_t)1 << 50, &v->own_bytes) != 0)
		return -1;
	if (json_object_get(obj, K_WORKLOAD_ANON_PEAK) &&
	    alloclab_results_get_uint(rd, obj, where, K_WORKLOAD_ANON_PEAK, 1, 1, (uint64_t)1 << 40, &v->workload_anon_peak_kib) != 0)
		return -1;
	if (json_object_get(obj, K_PROGRAM_PEAK_RSS) &&
	    alloclab_results_get_uint(rd, obj, where, K_PROGRAM_PEAK_RSS, 1, 1, (uint64_t)1 << 40, &v->program_peak_rss_kib) != 0)
		return -1;
	if (read_stats(rd, obj, where, K_STATS, &v->stats) != 0)
		return -1;
	json_t *lat = json_object_get(obj, K_LATENCY);
	if (lat) {
		char why[256];
		if (alloclab_latency_from_json(lat, threads, &v->latency, why, sizeof why) != 0)
			return alloclab_results_bad(rd, where, "", "%s", why);
	}
	return read_reports(rd, obj, where, K_THREAD_REPORTS, workload, threads, 0, &v->thread_reports);
}

static int read_values(const struct alloclab_results_reader *rd, const json_t *obj, const char *where, const char *key,
		       const char *workload, unsigned threads, const char *metric, struct alloclab_value **out, unsigned *n)
{
	json_t *a, *x;
	size_t i;

	*out = NULL;
	*n = 0;
	if (alloclab_results_get_array(rd, obj, where, key, strcmp(key, K_VALUES) == 0, 1000000, &a) != 0)
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

int alloclab_results_read_process(const struct alloclab_results_reader *rd, const json_t *obj, const char *where, const char *workload,
			unsigned threads, const char *metric, struct alloclab_process *p)
{
	uint64_t index = 0, rss = 0;
	json_t *v;

	memset(p, 0, sizeof *p);
	p->peak_rss_kib = -1;
	if (!json_is_object(obj))
		return alloclab_results_bad(rd, where, "", "is %s, not an object", alloclab_json_type_name(obj));
	if (alloclab_results_get_uint(rd, obj, where, K_PROCESS, 0, 0, 1000000, &index) != 0)
		return -1;
	p->index = (unsigned)index;
	v = json_object_get(obj, K_PEAK_RSS_KIB);
	if (v && !(json_is_integer(v) && json_integer_value(v) == -1)) {
		if (alloclab_results_get_uint(rd, obj, where, K_PEAK_RSS_KIB, 0, 0, INT64_MAX / 1024, &rss) != 0)
			return -1;
		p->peak_rss_kib = (long)rss;
	}
	v = json_object_get(obj, K_ELAPSED_S);
	if (v) {
		if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0 ||
		    json_number_value(v) > 1e9)
			return alloclab_results_bad(rd, where, K_ELAPSED_S, "is not a number of seconds from 0 to 1e9");
		p->elapsed_s = json_number_value(v);
	}
	if (read_values(rd, obj, where, K_WARMUPS, workload, threads, metric, &p->warmups, &p->nwarmups) != 0 ||
	    read_values(rd, obj, where, K_VALUES, workload, threads, metric, &p->values, &p->nvalues) != 0 ||
	    read_stats(rd, obj, where, K_STATS, &p->stats) != 0 ||
	    read_stats(rd, obj, where, K_STATS_AFTER_FINISH, &p->stats_after_finish) != 0 ||
	    read_reports(rd, obj, where, K_REPORT, workload, threads, 1, &p->report) != 0 ||
	    alloclab_results_get_string(rd, obj, where, K_PLUGIN_OUTPUT, 0, &p->plugin_output) != 0)
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
			return alloclab_results_bad(rd, where, K_GIVEN_BACK, "is %s, not an object", alloclab_json_type_name(v));
		for (int k = 0; k < 5; k++) {
			uint64_t kib;
			if (json_object_get(v, keys[k]) == NULL)
				continue;
			if (alloclab_results_get_uint(rd, v, w, keys[k], 1, 1, (uint64_t)1 << 40, &kib) != 0)
				return -1;
			*dst[k] = (long)kib;
		}
	}
	if (json_object_get(obj, K_LAYOUT_PAD)) {
		uint64_t pad;
		if (alloclab_results_get_uint(rd, obj, where, K_LAYOUT_PAD, 0, 0, ALLOCLAB_LAYOUT_PAD_MAX, &pad) != 0)
			return -1;
		p->layout_pad_pages = (unsigned)pad;
	}
	if (alloclab_results_read_timeline(rd, obj, where, K_MEMORY, &p->memory) != 0 ||
	    alloclab_results_get_number(rd, obj, where, K_PAIR_RATIO, 1e-9, 1e9, &p->pair_ratio) != 0 ||
	    /* 1970 to the year 5000: a date pyperf can print. */
	    alloclab_results_get_number(rd, obj, where, K_STARTED, 1, 95617584000.0, &p->started_unix_s) != 0)
		return -1;
	v = json_object_get(obj, K_HOST);
	if (v) {
		char w[300];
		snprintf(w, sizeof w, "%s%s" K_HOST, where, where[0] ? "." : "");
		if (!json_is_object(v))
			return alloclab_results_bad(rd, where, K_HOST, "is %s, not an object", alloclab_json_type_name(v));
		if (alloclab_results_get_string(rd, v, w, K_HOST_NAME, 1, &p->host) != 0 ||
		    alloclab_results_get_string(rd, v, w, K_CPU_MODEL, 1, &p->host_cpu_model) != 0 ||
		    alloclab_results_get_string(rd, v, w, K_KERNEL, 1, &p->host_kernel) != 0)
			return -1;
	}
	return 0;
}

/* One sample, [t_ms, rss_kib, anon_kib, huge_kib, phase, live_kib]: the
 * JSON's shape; the model's invariants are checked on the whole. */
static int read_sample(const json_t *x, struct alloclab_memory_sample *s, int *bad_field)
{
	static const long least[] = {0, 0, -1, -1, 0, -1};
	long v[6] = {0};
	*bad_field = -1;
	if (!json_is_array(x) || json_array_size(x) != 6 || !json_is_number(json_array_get(x, 0)))
		return -1;
	for (int k = 1; k < 6; k++) {
		json_t *f = json_array_get(x, (size_t)k);
		if (!json_is_integer(f) || json_integer_value(f) < least[k] || json_integer_value(f) > ((json_int_t)1 << 40)) {
			*bad_field = k == 4 ? -1 : k;
			return -1;
		}
		v[k] = (long)json_integer_value(f);
	}
	*s = (struct alloclab_memory_sample){json_number_value(json_array_get(x, 0)), v[1], v[2], v[3], v[5],
					      (unsigned)v[4]};
	return 0;
}

int alloclab_results_read_timeline(const struct alloclab_results_reader *rd, const json_t *obj, const char *where,
				   const char *field, struct alloclab_memory_timeline **out)
{
	const json_t *v = json_object_get(obj, field), *x;
	json_t *phases, *samples;
	uint64_t req = 0, iv = 0;
	char w[300], why[300];
	size_t i;

	*out = NULL;
	if (v == NULL)
		return 0;
	snprintf(w, sizeof w, "%s%s%s", where, where[0] ? "." : "", field);
	if (!json_is_object(v))
		return alloclab_results_bad(rd, where, field, "is %s, not an object", alloclab_json_type_name(v));
	if (alloclab_results_get_uint(rd, v, w, K_REQUESTED_MS, 1, 1, 3600000, &req) != 0 ||
	    alloclab_results_get_uint(rd, v, w, K_INTERVAL_MS, 1, req, (uint64_t)3600000 << 20, &iv) != 0 ||
	    alloclab_results_get_array(rd, v, w, K_PHASES, 1, ALLOCLAB_TIMELINE_MAX_PHASES, &phases) != 0 ||
	    alloclab_results_get_array(rd, v, w, K_SAMPLES, 1, ALLOCLAB_TIMELINE_MAX_SAMPLES, &samples) != 0)
		return -1;
	struct alloclab_memory_timeline *t = calloc(1, sizeof *t);
	t->requested_ms = (unsigned)req;
	t->interval_ms = (unsigned)iv;
	t->phases = calloc(json_array_size(phases) + 1, sizeof *t->phases);
	t->samples = calloc(json_array_size(samples) + 1, sizeof *t->samples);
	json_array_foreach(phases, i, x)
	{
		if (!json_is_string(x) || strlen(json_string_value(x)) != json_string_length(x)) {
			alloclab_memory_timeline_free(t);
			return alloclab_results_bad(rd, w, K_PHASES, "entry %zu is not a name", i);
		}
		t->phases[t->nphases++] = strdup(json_string_value(x));
	}
	json_array_foreach(samples, i, x)
	{
		int k;
		if (read_sample(x, &t->samples[t->nsamples++], &k) != 0) {
			alloclab_memory_timeline_free(t);
			if (k > 0)
				snprintf(why, sizeof why, K_SAMPLES "[%zu][%d]: not a size in KiB", i, k);
			else
				snprintf(why, sizeof why,
					 K_SAMPLES "[%zu]: not [t_ms, rss_kib, anon_kib, huge_kib, a phase index, live_kib]", i);
			snprintf(rd->err, rd->err_len, "%s: %s.%s", rd->name, w, why);
			return -1;
		}
	}
	if (alloclab_memory_timeline_valid(t, why, sizeof why) != 0) {
		alloclab_memory_timeline_free(t);
		snprintf(rd->err, rd->err_len, "%s: %s.%s", rd->name, w, why);
		return -1;
	}
	*out = t;
	return 0;
}

int alloclab_process_from_json(const json_t *obj, unsigned threads, const char *metric, const char *where,
			       struct alloclab_process *p, char *err, size_t err_len)
{
	struct alloclab_results_reader rd = {where, NULL, err, err_len, ALLOCLAB_RESULTS_VERSION};
	if (alloclab_results_read_process(&rd, obj, "", NULL, threads, metric, p) != 0) {
		alloclab_process_clear(p);
		return -1;
	}
	return 0;
}
