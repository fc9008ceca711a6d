/* The results model: building, walking and freeing it. See results.h. */
#define _GNU_SOURCE 1
#include "results/results.h"
#include "results/internal.h"
#include "results/results_keys.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- the model ---- */

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

const char *alloclab_process_cpu_model(const struct alloclab_results *r, const struct alloclab_process *p)
{
	return p->host_cpu_model ? p->host_cpu_model : r->facts.cpu_model;
}

const json_t *alloclab_results_command(const struct alloclab_results *r)
{
	const json_t *c = json_object_get(r->metadata, K_COMMAND);
	return json_is_array(c) ? c : NULL;
}

const char *alloclab_process_host(const struct alloclab_results *r, const struct alloclab_process *p)
{
	return p->host ? p->host : r->facts.host;
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
	alloclab_memory_timeline_free(p->memory);
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
	alloclab_memory_timeline_free(c->failed_memory);
	free(c->pair_design);
	free(c->pair_why);
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
	free(p->sha256);
	free(p->source_commit);
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
	free(r->facts.host);
	free(r->facts.date);
	free(r->facts.alloclab_version);
	free(r->facts.kernel);
	free(r->facts.shard_plan);
	for (unsigned i = 0; i < r->facts.npair; i++)
		free(r->facts.pair_plugins[i]);
	free(r->facts.pair_plugins);
	json_decref(r->facts.allocator_env);
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
	p->sha256 = dup_or_null(info->sha256);
	p->source_commit = dup_or_null(info->source_commit);
	p->source_dirty = info->source_commit ? info->source_dirty : -1;
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
	c->failed_memory = alloclab_memory_timeline_copy(cell->failed_memory);
	c->pair_design = dup_or_null(cell->pair_design);
	c->pair_why = dup_or_null(cell->pair_why);
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

int alloclab_metric_deterministic(const char *metric)
{
	return metric && strcmp(metric, ALLOCLAB_METRIC_INSTRUCTIONS) == 0;
}

static uint64_t *copy_u64(const uint64_t *v, unsigned n)
{
	uint64_t *c = malloc((n ? n : 1) * sizeof *c);
	memcpy(c, v, n * sizeof *c);
	return c;
}

static json_t *copy_json(const json_t *j)
{
	return j ? json_deep_copy(j) : NULL;
}

static void copy_value(const struct alloclab_value *v, unsigned threads, struct alloclab_value *out)
{
	*out = *v;
	out->thread_ns = copy_u64(v->thread_ns, threads);
	out->thread_ops = copy_u64(v->thread_ops, threads);
	out->thread_reports = copy_json(v->thread_reports);
	out->stats = copy_json(v->stats);
	out->latency = NULL;
	if (v->latency) {
		out->latency = alloclab_latency_new(v->latency->every, v->latency->overhead_ns);
		out->latency->empty_mean_ns = v->latency->empty_mean_ns;
		alloclab_latency_merge(out->latency, v->latency);
	}
}

static struct alloclab_value *copy_values(const struct alloclab_value *v, unsigned n, unsigned threads)
{
	struct alloclab_value *c = calloc(n + 1, sizeof *c);
	for (unsigned i = 0; i < n; i++)
		copy_value(&v[i], threads, &c[i]);
	return c;
}

static char *copy_text(const char *s)
{
	return s ? strdup(s) : NULL;
}

void alloclab_process_copy(const struct alloclab_process *p, unsigned threads, struct alloclab_process *out)
{
	*out = *p;
	out->warmups = copy_values(p->warmups, p->nwarmups, threads);
	out->values = copy_values(p->values, p->nvalues, threads);
	out->stats = copy_json(p->stats);
	out->stats_after_finish = copy_json(p->stats_after_finish);
	out->report = copy_json(p->report);
	out->plugin_output = copy_text(p->plugin_output);
	out->host = copy_text(p->host);
	out->host_cpu_model = copy_text(p->host_cpu_model);
	out->host_kernel = copy_text(p->host_kernel);
	out->memory = alloclab_memory_timeline_copy(p->memory);
}

/* ---- pairs ---- */

static int same_params(const json_t *a, const json_t *b)
{
	return json_equal((json_t *)a, (json_t *)b);
}

const struct alloclab_cell *alloclab_pair_reference(const struct alloclab_results *r, const struct alloclab_cell *c)
{
	if (c->pair_design == NULL || r->facts.npair == 0)
		return NULL;
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *o = &r->cells[i];
		if (o->pair_design && strcmp(o->plugin, r->facts.pair_plugins[0]) == 0 &&
		    strcmp(o->workload, c->workload) == 0 && o->threads == c->threads &&
		    o->cache_aligned == c->cache_aligned && same_params(o->params, c->params))
			return o;
	}
	return NULL;
}

unsigned alloclab_shard_share(unsigned processes, unsigned k, unsigned n)
{
	if (n == 0)
		return processes;
	return processes >= k ? (processes - k) / n + 1 : 0;
}

double alloclab_pair_ratio(const struct alloclab_process *p, const struct alloclab_process *ref)
{
	double sum = 0;
	if (p->nvalues == 0 || p->nvalues != ref->nvalues)
		return 0;
	for (unsigned v = 0; v < p->nvalues; v++)
		sum += log(p->values[v].per_op / ref->values[v].per_op);
	return exp(sum / p->nvalues);
}

int alloclab_pair_ratio_holds(const struct alloclab_process *p, const struct alloclab_process *ref)
{
	double ratio = alloclab_pair_ratio(p, ref);
	return ratio > 0 && p->pair_ratio > 0 && fabs(p->pair_ratio - ratio) <= 1e-6 * ratio;
}

const struct alloclab_process *alloclab_pair_partner(const struct alloclab_cell *c, const struct alloclab_process *p)
{
	for (unsigned q = 0; q < c->nprocs; q++)
		if (c->procs[q].index == p->index)
			return &c->procs[q];
	return NULL;
}

/* ---- invariants ---- */

#define WHY(...) (why ? snprintf(why, why_len, __VA_ARGS__) : 0, 0)

static int value_consistent(const struct alloclab_value *v, char *why, size_t why_len)
{
	if (!(v->per_op > 0) || !isfinite(v->per_op))
		return WHY("a value's per_op is %g, not finite and positive", v->per_op);
	if (v->thread_ns == NULL || v->thread_ops == NULL)
		return WHY("a value has no thread times or operations");
	if (v->latency && !alloclab_latency_valid(v->latency))
		return WHY("a value's latency histograms break their invariants");
	return 1;
}

static int process_consistent(const struct alloclab_process *p, char *why, size_t why_len)
{
	for (unsigned i = 0; i < p->nvalues; i++)
		if (!value_consistent(&p->values[i], why, why_len))
			return 0;
	for (unsigned i = 0; i < p->nwarmups; i++)
		if (!value_consistent(&p->warmups[i], why, why_len))
			return 0;
	if (p->memory && alloclab_memory_timeline_valid(p->memory, why, why_len) != 0)
		return 0;
	return 1;
}

int alloclab_results_consistent(const struct alloclab_results *r, char *why, size_t why_len)
{
	for (unsigned c = 0; c < r->ncells; c++) {
		const struct alloclab_cell *cell = &r->cells[c];
		int says_why = cell->status == ALLOCLAB_CELL_ERROR || cell->status == ALLOCLAB_CELL_NOT_APPLICABLE;
		if (cell->plugin == NULL || cell->workload == NULL || cell->params == NULL || cell->metric == NULL)
			return WHY("cell %u lacks its plugin, workload, parameters or metric", c);
		if (r->nplugins && (cell->plugin_index >= r->nplugins || strcmp(r->plugins[cell->plugin_index].label, cell->plugin) != 0))
			return WHY("cell %u's plugin_index does not name its plugin", c);
		if (cell->threads < 1 || cell->threads > ALLOCLAB_RESULTS_MAX_THREADS)
			return WHY("cell %u has %u threads", c, cell->threads);
		if ((cell->message != NULL) != says_why)
			return WHY("cell %u: a message goes with an error or not applicable, and only there", c);
		if (cell->status == ALLOCLAB_CELL_NOT_APPLICABLE && cell->nprocs)
			return WHY("cell %u is not applicable but has measurements", c);
		if (cell->status == ALLOCLAB_CELL_OK && cell->nprocs == 0)
			return WHY("cell %u is ok with no measurement", c);
		if (cell->nprocs > cell->procs_cap && cell->procs_cap)
			return WHY("cell %u holds more processes than room for them", c);
		if (cell->failed_memory && (cell->status != ALLOCLAB_CELL_ERROR ||
					    alloclab_memory_timeline_valid(cell->failed_memory, why, why_len) != 0))
			return WHY("cell %u's failed_memory is not a failed cell's valid timeline", c);
		for (unsigned p = 0; p < cell->nprocs; p++)
			if (!process_consistent(&cell->procs[p], why, why_len))
				return 0;
	}
	return 1;
}
