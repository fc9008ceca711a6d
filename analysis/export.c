/* Results for other tools. See export.h. */
#include "export.h"
#include "csv_field.h"

#include "cells.h"
#include "files/output_path.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The cells exported: measured, of the plugin asked for. */
static const struct alloclab_cell **chosen(const struct alloclab_results *r, const char *plugin, size_t *n,
					   unsigned *skipped)
{
	const struct alloclab_cell **cells = calloc(r->ncells + 1, sizeof *cells);
	*n = 0;
	*skipped = 0;
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *c = &r->cells[i];
		char label[512];
		alloclab_cell_label(c, label, sizeof label);
		if (plugin && strcmp(label, plugin) != 0)
			continue;
		size_t nv = 0;
		for (unsigned p = 0; p < c->nprocs; p++)
			nv += c->procs[p].nvalues;
		if (!alloclab_cell_measured(c) || nv == 0) {
			(*skipped)++;
			continue;
		}
		cells[(*n)++] = c;
	}
	return cells;
}

static int several_plugins(const struct alloclab_cell *const *cells, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (strcmp(cells[i]->plugin, cells[0]->plugin) != 0 || cells[i]->cache_aligned != cells[0]->cache_aligned)
			return 1;
	return 0;
}

/* pyperf refuses empty strings and line breaks in metadata. */
static json_t *meta_string(const char *s)
{
	char buf[1024];
	size_t k = 0;
	for (; *s == ' '; s++)
		;
	for (; *s && k + 1 < sizeof buf; s++)
		buf[k++] = *s == '\n' || *s == '\r' ? ' ' : *s;
	while (k > 0 && buf[k - 1] == ' ')
		k--;
	buf[k] = '\0';
	return alloclab_json_text(k ? buf : "-");
}

/* The parameters in which params differs from other's, as "k=v,k=v" into
 * out ("" when none). */
static void differing_params(const json_t *params, const json_t *other, char *out, size_t len)
{
	const char *key;
	const json_t *v;
	size_t used = 0;
	out[0] = '\0';
	json_object_foreach((json_t *)params, key, v)
	{
		const json_t *o = json_object_get(other, key);
		if (o && json_equal(v, o))
			continue;
		char *text = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		int n = snprintf(out + used, len - used, "%s%s=%s", used ? "," : "", key,
				 json_is_string(v) ? json_string_value(v) : text ? text : "?");
		free(text);
		if (n < 0 || (size_t)n >= len - used) {
			out[used] = '\0';
			return;
		}
		used += (size_t)n;
	}
}

/* A benchmark's name as pyperf will read it (meta_string's), unique in the
 * suite: pyperf refuses two benchmarks of one name, and two rows can meet
 * in one (two files of a folder that register the same name, as
 * pyperformance's benchmarks can). The second of a name takes the
 * parameters it differs in ("btree [pyperf=bm/b.py]", as pyperformance
 * names a variant by what sets it apart), then a number. Recorded in used
 * (name -> the parameters of its row). */
static json_t *unique_name(json_t *used, const char *name, const json_t *params)
{
	char alt[2400], diff[600];
	json_t *s = meta_string(name);
	const json_t *holder;
	for (unsigned k = 1; (holder = json_object_get(used, json_string_value(s))) != NULL; k++) {
		json_decref(s);
		if (k == 1)
			differing_params(params, holder, diff, sizeof diff);
		if (k == 1 && diff[0])
			snprintf(alt, sizeof alt, "%.900s [%s]", name, diff);
		else /* short enough that meta_string keeps the number */
			snprintf(alt, sizeof alt, "%.900s #%u", name, k);
		s = meta_string(alt);
	}
	json_object_set(used, json_string_value(s), params ? (json_t *)params : json_null());
	return s;
}

/* "2026-12-01T14:10:00Z" as pyperf writes dates: "2026-12-01 14:10:00". */
static json_t *pyperf_date(const char *iso)
{
	char d[32];
	if (iso == NULL || strlen(iso) < 19)
		return NULL;
	snprintf(d, sizeof d, "%.10s %.8s", iso, iso + 11);
	return json_string(d);
}

/* A process's date as pyperf writes one (datetime's isoformat with a
 * space), in UTC: when its worker started; else the run's. */
static json_t *process_date(const struct alloclab_process *p, const char *run_iso)
{
	if (p->started_unix_s > 0) {
		/* Rounded to the microsecond pyperf prints. */
		double whole = floor(p->started_unix_s), frac = round((p->started_unix_s - whole) * 1e6);
		if (frac >= 1e6)
			whole += 1, frac = 0;
		time_t s = (time_t)whole;
		struct tm tm;
		char d[64];
		long us = (long)frac;
		if (gmtime_r(&s, &tm) && strftime(d, 32, "%Y-%m-%d %H:%M:%S", &tm)) {
			snprintf(d + strlen(d), sizeof d - strlen(d), ".%06ld", us < 0 ? 0 : us > 999999 ? 999999 : us);
			return json_string(d);
		}
	}
	return pyperf_date(run_iso);
}

/* A Python benchmark's inner_loops (iterations of one loop), from its
 * report; 1 for everything else. */
static uint64_t process_inner_loops(const struct alloclab_process *p)
{
	const json_t *r = p->report ? json_array_get(p->report, 0) : NULL;
	json_int_t k = json_integer_value(json_object_get(r, "inner_loops"));
	return k > 0 ? (uint64_t)k : 1;
}

/* pyperf's loops of one value: the outer iterations each thread ran, so
 * that value x loops x inner_loops is the value's wall time; 0 when the
 * threads ran different numbers (nothing then says it). */
static uint64_t value_loops(const struct alloclab_value *v, unsigned threads, uint64_t inner)
{
	for (unsigned t = 1; t < threads; t++)
		if (v->thread_ops[t] != v->thread_ops[0])
			return 0;
	return v->thread_ops[0] % inner == 0 ? v->thread_ops[0] / inner : 0;
}

static uint64_t value_ops(const struct alloclab_value *v, unsigned threads)
{
	uint64_t ops = 0;
	for (unsigned t = 0; t < threads; t++)
		ops += v->thread_ops[t];
	return ops;
}

/* The cell's inner_loops, where every process says the same and it
 * divides every value's operations per thread (else 1: pyperf refuses a
 * benchmark whose runs differ in inner_loops, and a value is then said to
 * be one loop). A value whose threads ran different numbers has no loops
 * either way. */
static uint64_t cell_inner_loops(const struct alloclab_cell *c)
{
	uint64_t inner = 0;
	for (unsigned p = 0; p < c->nprocs; p++) {
		const struct alloclab_process *proc = &c->procs[p];
		if (proc->nvalues == 0)
			continue;
		uint64_t k = process_inner_loops(proc);
		if (inner && k != inner)
			return 1;
		inner = k;
		for (unsigned v = 0; v < proc->nvalues; v++)
			if (proc->values[v].thread_ops[0] % k != 0)
				return 1;
	}
	return inner ? inner : 1;
}

/* Counts (instructions) leave as whole numbers per this many operations:
 * pyperf's "integer" unit prints values as they are, and a per-op mean
 * is fractional. One scale for every cell, so that compare_to's ratios
 * are the ratios of the per-op counts. */
#define COUNT_PER_OPS 1000

/* A count that would round to 0 or pass what a JSON integer holds
 * exactly, as a whole number per COUNT_PER_OPS operations, cannot be
 * exported as pyperf's integers: -1 with err saying where. */
static int counts_fit(const struct alloclab_results *r, const struct alloclab_cell **cells, size_t n, char *err,
		      size_t err_len)
{
	for (size_t i = 0; i < n; i++) {
		const struct alloclab_cell *c = cells[i];
		for (unsigned p = 0; alloclab_metric_deterministic(c->metric) && p < c->nprocs; p++)
			for (unsigned v = 0; v < c->procs[p].nvalues + c->procs[p].nwarmups; v++) {
				const struct alloclab_value *x = v < c->procs[p].nvalues ? &c->procs[p].values[v]
										 : &c->procs[p].warmups[v - c->procs[p].nvalues];
				double whole = x->per_op * COUNT_PER_OPS;
				if (!(whole >= 0.5 && whole < 9e15)) {
					char lab[512];
					alloclab_cell_label(c, lab, sizeof lab);
					snprintf(err, err_len,
						 "%s: %s %s, process %u: %g %s is not a whole number per %d operations "
						 "pyperf can take",
						 r->path ? r->path : "the run", lab, c->workload, c->procs[p].index + 1, x->per_op,
						 c->metric, COUNT_PER_OPS);
					return -1;
				}
			}
	}
	return 0;
}

/* One worker process as a pyperf run: its values and warm-ups, with
 * loops and inner_loops as pyperf counts them (inner: the cell's), and
 * its metadata; one_host 0: the runs of the cell ran on several hosts,
 * each named. */
static json_t *pyperf_run(const struct alloclab_results *r, const struct alloclab_cell *c,
			  const struct alloclab_process *proc, uint64_t inner, int one_host)
{
	const int counts = alloclab_metric_deterministic(c->metric);
	const double scale = counts ? 1.0 : 1e-9; /* ns -> s */
	json_t *values = json_array(), *warmups = json_array(), *meta = json_object();
	uint64_t loops = value_loops(&proc->values[0], c->threads, inner);
	for (unsigned v = 0; v < proc->nvalues; v++) {
		double x = proc->values[v].per_op;
		json_array_append_new(values, counts ? json_integer((json_int_t)llround(x * COUNT_PER_OPS))
						     : json_real(x * scale));
		if (value_loops(&proc->values[v], c->threads, inner) != loops)
			loops = 0;
	}
	for (unsigned w = 0; w < proc->nwarmups; w++) {
		uint64_t wl = counts ? 1 : value_loops(&proc->warmups[w], c->threads, inner);
		double x = proc->warmups[w].per_op;
		json_array_append_new(warmups, counts ? json_pack("[I,I]", (json_int_t)1,
								  (json_int_t)llround(x * COUNT_PER_OPS))
						      : json_pack("[I,f]", (json_int_t)(wl ? wl : 1), x * scale));
	}
	/* A time value is the mean of loops x inner_loops
	 * iterations, as pyperf's values are; counts are per
	 * COUNT_PER_OPS operations, not per loop. */
	if (loops && !counts) {
		json_object_set_new(meta, "loops", json_integer((json_int_t)loops));
		if (inner > 1)
			json_object_set_new(meta, "inner_loops", json_integer((json_int_t)inner));
	}
	json_object_set_new(meta, "duration", json_real(proc->elapsed_s));
	/* Under instructions the worker's peak is valgrind's. */
	if (proc->peak_rss_kib >= 0 && !counts)
		json_object_set_new(meta, "mem_max_rss", json_integer((json_int_t)proc->peak_rss_kib * 1024));
	json_object_set_new(meta, "alloclab_process", json_integer(proc->index + 1));
	/* pyperf insists that the runs of a benchmark share their
	 * host: a merge across hosts names it apart. */
	const char *h = alloclab_process_host(r, proc);
	const char *cpu = alloclab_process_cpu_model(r, proc);
	if (!one_host) {
		if (h)
			json_object_set_new(meta, "alloclab_host", meta_string(h));
		if (cpu)
			json_object_set_new(meta, "alloclab_cpu_model", meta_string(cpu));
	}
	json_t *d = process_date(proc, r->facts.date);
	if (d)
		json_object_set_new(meta, "date", d);
	json_t *run = json_pack("{s:o,s:o}", "values", values, "metadata", meta);
	if (json_array_size(warmups))
		json_object_set_new(run, "warmups", warmups);
	else
		json_decref(warmups);
	return run;
}

json_t *alloclab_export_pyperf(const struct alloclab_results *r, const char *plugin, unsigned *skipped, char *err,
			       size_t err_len)
{
	size_t n;
	const struct alloclab_cell **cells = chosen(r, plugin, &n, skipped);
	char **names;
	json_t *benchmarks = json_array();
	int prefix = plugin == NULL && several_plugins(cells, n);

	if (n == 0) {
		snprintf(err, err_len, "%s has no measured cell%s%s to export", r->path ? r->path : "the run",
			 plugin ? " of plugin " : "", plugin ? plugin : "");
		free(cells);
		json_decref(benchmarks);
		return NULL;
	}
	if (counts_fit(r, cells, n, err, err_len) != 0) {
		free(cells);
		json_decref(benchmarks);
		return NULL;
	}
	names = calloc(n + 1, sizeof *names);
	alloclab_row_names(cells, n, 0, names);
	json_t *used = json_object();
	for (size_t i = 0; i < n; i++) {
		const struct alloclab_cell *c = cells[i];
		int counts = alloclab_metric_deterministic(c->metric);
		char name[1200], label[512], *params = json_dumps(c->params, JSON_SORT_KEYS | JSON_COMPACT);
		json_t *runs = json_array();
		const char *host0 = NULL, *cpu0 = NULL;
		int one_host = 1;
		const uint64_t inner = cell_inner_loops(c);

		alloclab_cell_label(c, label, sizeof label);
		snprintf(name, sizeof name, "%s%s%s", prefix ? label : "", prefix ? ": " : "", names[i]);
		for (unsigned p = 0; p < c->nprocs; p++) {
			const char *h = alloclab_process_host(r, &c->procs[p]);
			const char *cpu = alloclab_process_cpu_model(r, &c->procs[p]);
			if (p == 0)
				host0 = h, cpu0 = cpu;
			else if (!h || !host0 || strcmp(h, host0) != 0 || !cpu || !cpu0 || strcmp(cpu, cpu0) != 0)
				one_host = 0;
		}
		for (unsigned p = 0; p < c->nprocs; p++) {
			const struct alloclab_process *proc = &c->procs[p];
			if (proc->nvalues == 0)
				continue;
			json_array_append_new(runs, pyperf_run(r, c, proc, inner, one_host));
		}
		json_t *meta = json_pack("{s:o,s:s,s:o,s:o,s:o,s:i}", "name", unique_name(used, name, c->params), "unit",
					 counts ? "integer" : "second", "alloclab_plugin", meta_string(label),
					 "alloclab_workload", meta_string(c->workload), "alloclab_params",
					 meta_string(params && strcmp(params, "{}") != 0 ? params : "-"), "threads",
					 (int)c->threads);
		if (one_host && host0)
			json_object_set_new(meta, "hostname", meta_string(host0));
		if (one_host && cpu0)
			json_object_set_new(meta, "cpu_model_name", meta_string(cpu0));
		json_object_set_new(meta, "alloclab_metric", json_string(c->metric));
		if (c->unit_op)
			json_object_set_new(meta, "alloclab_unit_op", meta_string(c->unit_op));
		if (counts) {
			/* "instructions_per_op" counts "instructions". */
			const char *per = strstr(c->metric, "_per_op");
			int noun = per ? (int)(per - c->metric) : (int)strlen(c->metric);
			json_object_set_new(meta, "alloclab_value",
					    json_sprintf("%.*s per %d operations", noun, c->metric, COUNT_PER_OPS));
		}
		json_array_append_new(benchmarks, json_pack("{s:o,s:o}", "metadata", meta, "runs", runs));
		free(params);
		free(names[i]);
	}
	free(names);
	free(cells);
	json_decref(used);
	json_t *suite_meta = json_pack("{s:o}", "alloclab_version",
				       meta_string(r->facts.alloclab_version ? r->facts.alloclab_version : "unknown"));
	return json_pack("{s:s,s:o,s:o}", "version", "1.0", "benchmarks", benchmarks, "metadata", suite_meta);
}

int alloclab_export_csv(const struct alloclab_results *r, const char *plugin, FILE *out, unsigned *skipped, char *err,
			size_t err_len)
{
	size_t n;
	const struct alloclab_cell **cells = chosen(r, plugin, &n, skipped);

	if (n == 0) {
		snprintf(err, err_len, "%s has no measured cell%s%s to export", r->path ? r->path : "the run",
			 plugin ? " of plugin " : "", plugin ? plugin : "");
		free(cells);
		return -1;
	}
	/* Columns named for what they hold, units in the names or beside the
	 * value: a spreadsheet has nothing else to go by. */
	fputs(ALLOCLAB_EXPORT_CSV_HEADER "cache_aligned,process_index,value_index,metric,per_op,per_op_unit,op,"
					 "value_wall_ns,value_ops,host,cpu_model\r\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		const struct alloclab_cell *c = cells[i];
		char label[512], *params = json_dumps(c->params, JSON_SORT_KEYS | JSON_COMPACT);
		alloclab_cell_label(c, label, sizeof label);
		for (unsigned p = 0; p < c->nprocs; p++) {
			const struct alloclab_process *proc = &c->procs[p];
			const char *h = alloclab_process_host(r, proc);
			const char *cpu = alloclab_process_cpu_model(r, proc);
			for (unsigned v = 0; v < proc->nvalues; v++) {
				alloclab_csv_field(out, label);
				fputc(',', out);
				alloclab_csv_field(out, c->workload);
				fputc(',', out);
				alloclab_csv_field(out, params ? params : "{}");
				fprintf(out, ",%u,%d,%u,%u,", c->threads, c->cache_aligned, proc->index + 1, v + 1);
				alloclab_csv_field(out, c->metric);
				fprintf(out, ",%.17g,%s,", proc->values[v].per_op,
					alloclab_metric_deterministic(c->metric) ? "instructions" : "ns");
				alloclab_csv_field(out, c->unit_op ? c->unit_op : "operation");
				fprintf(out, ",%llu,%llu,", (unsigned long long)proc->values[v].wall_ns,
					(unsigned long long)value_ops(&proc->values[v], c->threads));
				alloclab_csv_field(out, h ? h : "");
				fputc(',', out);
				alloclab_csv_field(out, cpu ? cpu : "");
				fputs("\r\n", out);
			}
		}
		free(params);
	}
	free(cells);
	return 0;
}
