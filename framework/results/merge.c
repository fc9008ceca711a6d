/* Merging the shards of a plan. See merge.h. */
#include "results/merge.h"
#include "results/results_keys.h"

#include "base/lengths.h"
#include "base/shell_word.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *meta_text(const struct alloclab_results *r, const char *key)
{
	const char *s = json_string_value(json_object_get(r->metadata, key));
	return s ? s : "unknown";
}

/* Room for one printed text of a refusal: a path or a value from a file. */
#define SHOWN 160

/* A refusal of two files that disagree: the field, both files and their
 * two values, every one as alloclab_printable shows it (paths and values
 * come from outside), and what to do. */
static void differ(char *err, size_t err_len, const char *field, const char *file_a, const char *a,
		   const char *file_b, const char *b, const char *advice)
{
	char fa[SHOWN], fb[SHOWN], va[SHOWN], vb[SHOWN];
	alloclab_printable(file_a, fa, sizeof fa);
	alloclab_printable(file_b, fb, sizeof fb);
	snprintf(err, err_len, "%s and %s differ in %s: '%s' in %s, '%s' in %s: %s", fa, fb, field,
		 alloclab_printable(a, va, sizeof va), fa, alloclab_printable(b, vb, sizeof vb), fb, advice);
}

/* The cells of b lay out as a's: the same plugins, workloads,
 * parameters, threads and alignment, in the same order. Otherwise the
 * refusal naming both files. */
static int same_cells(const struct alloclab_results *a, const char *file_a, const struct alloclab_results *b,
		      const char *file_b, char *err, size_t err_len)
{
	char field[64], va[400], vb[400];
	if (a->ncells != b->ncells) {
		snprintf(va, sizeof va, "%u", a->ncells);
		snprintf(vb, sizeof vb, "%u", b->ncells);
		differ(err, err_len, "the number of cells", file_a, va, file_b, vb, "merge shards of one plan");
		return 0;
	}
	for (unsigned i = 0; i < a->ncells; i++) {
		const struct alloclab_cell *x = &a->cells[i], *y = &b->cells[i];
		if (strcmp(x->plugin, y->plugin) != 0 || strcmp(x->workload, y->workload) != 0 ||
		    !json_equal(x->params, y->params) || x->threads != y->threads || x->cache_aligned != y->cache_aligned ||
		    strcmp(x->metric, y->metric) != 0) {
			snprintf(field, sizeof field, "cells[%u]", i);
			snprintf(va, sizeof va, "%.120s %.120s threads=%u%s %s", x->plugin, x->workload, x->threads,
				 x->cache_aligned ? " cache-aligned" : "", x->metric);
			snprintf(vb, sizeof vb, "%.120s %.120s threads=%u%s %s", y->plugin, y->workload, y->threads,
				 y->cache_aligned ? " cache-aligned" : "", y->metric);
			if (strcmp(va, vb) == 0)
				snprintf(field, sizeof field, "cells[%u].parameters", i);
			differ(err, err_len, field, file_a, va, file_b, vb, "merge shards of one plan");
			return 0;
		}
	}
	return 1;
}

static int check_shard(const struct alloclab_results *first, const char *first_file, const struct alloclab_results *s,
		       const char *file, char *err, size_t err_len)
{
	char why[600], va[32], vb[32], field[96];
	const struct alloclab_run_facts *f = &first->facts, *g = &s->facts;

	if (g->shard_count == 0) {
		char shown[SHOWN];
		snprintf(err, err_len, "%s: not a shard (no metadata.shard: made without --shard K/N)",
			 alloclab_printable(file, shown, sizeof shown));
		return -1;
	}
	if (strcmp(meta_text(first, "alloclab_version"), meta_text(s, "alloclab_version")) != 0) {
		differ(err, err_len, "metadata.alloclab_version", first_file, meta_text(first, "alloclab_version"), file,
		       meta_text(s, "alloclab_version"), "merge shards of one build");
		return -1;
	}
	if (strcmp(f->shard_plan, g->shard_plan) != 0) {
		differ(err, err_len, "metadata.shard.plan", first_file, f->shard_plan, file, g->shard_plan,
		       "another command line or other cells");
		return -1;
	}
	if (f->shard_count != g->shard_count) {
		snprintf(va, sizeof va, "%u", f->shard_count);
		snprintf(vb, sizeof vb, "%u", g->shard_count);
		differ(err, err_len, "metadata.shard.count", first_file, va, file, vb, "merge shards of one plan");
		return -1;
	}
	if (!same_cells(first, first_file, s, file, err, err_len))
		return -1;
	/* Every shard's workers ran one allocator: not one set by an
	 * environment another shard did not have. */
	if (alloclab_results_env_difference(first, s, why, sizeof why)) {
		char fa[SHOWN], fb[SHOWN], shown[sizeof why];
		snprintf(err, err_len, "%s and %s differ in metadata.allocator_environment: %s: merge shards measured with "
			 "one environment", alloclab_printable(first_file, fa, sizeof fa),
			 alloclab_printable(file, fb, sizeof fb), alloclab_printable(why, shown, sizeof shown));
		return -1;
	}
	for (unsigned i = 0; i < s->ncells; i++)
		if (g->cell_processes[i] != f->cell_processes[i]) {
			snprintf(field, sizeof field, "metadata.shard.cell_processes[%u]", i);
			snprintf(va, sizeof va, "%u", f->cell_processes[i]);
			snprintf(vb, sizeof vb, "%u", g->cell_processes[i]);
			differ(err, err_len, field, first_file, va, file, vb, "merge shards of one plan");
			return -1;
		}
	return 0;
}

/* A copy of process p of a cell of `threads`, carrying its host. */
static void copy_process(const struct alloclab_process *p, const struct alloclab_cell *c,
			 const struct alloclab_results *from, struct alloclab_process *out)
{
	alloclab_process_copy(p, c->threads, out);
	if (out->host == NULL) {
		out->host = strdup(meta_text(from, "host"));
		out->host_cpu_model = strdup(meta_text(from, "cpu_model"));
		out->host_kernel = strdup(meta_text(from, "kernel"));
	}
}

static int cmp_process(const void *a, const void *b)
{
	const struct alloclab_process *x = a, *y = b;
	return (x->index > y->index) - (x->index < y->index);
}

void alloclab_merge_report_clear(struct alloclab_merge_report *rep)
{
	free(rep->missing);
	free(rep->incomplete);
	memset(rep, 0, sizeof *rep);
}

static int distinct(const char **seen, unsigned *n, const char *s)
{
	for (unsigned i = 0; i < *n; i++)
		if (strcmp(seen[i], s) == 0)
			return 0;
	seen[(*n)++] = s;
	return 1;
}

/* Where each shard is among those given: given[k] is 1 + the position of
 * shard k, or 0. NULL, with err, when a shard is given twice. */
static unsigned *shard_positions(struct alloclab_results *const *shards, const char *const *files, unsigned n,
				 unsigned count, char *err, size_t err_len)
{
	unsigned *given = calloc(count + 1, sizeof *given);

	for (unsigned i = 0; i < n; i++) {
		unsigned k = shards[i]->facts.shard_index;
		if (given[k]) {
			char fa[SHOWN], fb[SHOWN];
			snprintf(err, err_len, "%s and %s are both shard %u of %u (metadata.shard.index %u in each: one "
				 "shard measured twice, or a copy): give one of them",
				 alloclab_printable(files[given[k] - 1], fa, sizeof fa),
				 alloclab_printable(files[i], fb, sizeof fb), k, count, k);
			free(given);
			return NULL;
		}
		given[k] = i + 1;
	}
	return given;
}

/* Cell c of the merge: the first shard's cell with every shard's
 * processes, in their order, failed when a shard's failed. 0, or -1 with
 * err. */
/* The shard before shard i that holds process `index` of cell c, or -1. */
static int holder(struct alloclab_results *const *shards, unsigned i, unsigned c, unsigned index)
{
	for (unsigned j = 0; j < i; j++)
		for (unsigned p = 0; p < shards[j]->cells[c].nprocs; p++)
			if (shards[j]->cells[c].procs[p].index == index)
				return (int)j;
	return -1;
}

static int merge_cell(struct alloclab_results *m, struct alloclab_results *const *shards, const char *const *files,
		      unsigned n, unsigned c, const struct alloclab_merge_report *rep, char *err, size_t err_len)
{
	const struct alloclab_results *first = shards[0];
	const struct alloclab_cell *fc = &first->cells[c];
	struct alloclab_cell tmpl = *fc;
	tmpl.params = json_deep_copy(fc->params);
	tmpl.message = NULL;
	tmpl.failed_memory = NULL;
	tmpl.planned = first->facts.cell_processes[c];
	tmpl.status = ALLOCLAB_CELL_PENDING;
	struct alloclab_cell *mc = alloclab_results_add_cell(m, &tmpl);
	int all_ok = rep->nmissing == 0;

	for (unsigned i = 0; i < n; i++) {
		const struct alloclab_cell *sc = &shards[i]->cells[c];
		char msg[ALLOCLAB_ERR_LEN + 64];
		for (unsigned p = 0; p < sc->nprocs; p++) {
			struct alloclab_process copy;
			int j = holder(shards, i, c, sc->procs[p].index);
			if (j >= 0) {
				char fa[SHOWN], fb[SHOWN], plugin[SHOWN], workload[SHOWN];
				snprintf(err, err_len, "%s and %s both hold process %u of cell %u (%.48s %.48s threads=%u; "
					 "cells[%u].processes): shards whose rounds overlap",
					 alloclab_printable(files[j], fa, sizeof fa), alloclab_printable(files[i], fb, sizeof fb),
					 sc->procs[p].index, c, alloclab_printable(sc->plugin, plugin, sizeof plugin),
					 alloclab_printable(sc->workload, workload, sizeof workload), sc->threads, c);
				return -1;
			}
			copy_process(&sc->procs[p], sc, shards[i], &copy);
			alloclab_cell_add_process(mc, &copy);
		}
		if (sc->status == ALLOCLAB_CELL_ERROR || sc->status == ALLOCLAB_CELL_NOT_APPLICABLE) {
			snprintf(msg, sizeof msg, "shard %u: %s", shards[i]->facts.shard_index,
				 sc->message ? sc->message : "");
			if (mc->status != ALLOCLAB_CELL_ERROR) {
				alloclab_cell_set_status(mc, sc->status,
							 sc->status == ALLOCLAB_CELL_NOT_APPLICABLE ? sc->message : msg);
				if (sc->failed_memory && mc->failed_memory == NULL)
					mc->failed_memory = alloclab_memory_timeline_copy(sc->failed_memory);
			}
		}
		all_ok &= sc->status == ALLOCLAB_CELL_OK;
	}
	qsort(mc->procs, mc->nprocs, sizeof *mc->procs, cmp_process);
	for (unsigned p = 1; p < mc->nprocs; p++)
		if (mc->procs[p].index == mc->procs[p - 1].index) {
			snprintf(err, err_len, "cell %u holds process %u twice", c, mc->procs[p].index);
			return -1;
		}
	if (mc->status == ALLOCLAB_CELL_PENDING && all_ok)
		alloclab_cell_set_status(mc, ALLOCLAB_CELL_OK, NULL);
	return 0;
}

/* The merge's metadata on its shards: each shard given, where it ran,
 * and the report's counts of what is missing, incomplete or mixed. */
static void describe_shards(struct alloclab_results *m, struct alloclab_results *const *shards,
			    const char *const *files, unsigned n, unsigned count, const unsigned *given,
			    struct alloclab_merge_report *rep)
{
	json_t *list = json_array();
	const char **hosts = calloc(n + 1, sizeof *hosts), **cpus = calloc(n + 1, sizeof *cpus),
		   **kernels = calloc(n + 1, sizeof *kernels);
	unsigned nhosts = 0, ncpus = 0, nkernels = 0;

	for (unsigned k = 1; k <= count; k++) {
		if (!given[k])
			continue;
		const struct alloclab_results *s = shards[given[k] - 1];
		distinct(hosts, &nhosts, meta_text(s, "host"));
		distinct(cpus, &ncpus, meta_text(s, "cpu_model"));
		distinct(kernels, &nkernels, meta_text(s, "kernel"));
		json_array_append_new(list, json_pack("{s:i,s:o,s:o,s:o,s:o,s:o,s:O?,s:b}", "index", (int)k, "file",
						      alloclab_json_text(files[given[k] - 1]), "host",
						      alloclab_json_text(meta_text(s, "host")), "cpu_model",
						      alloclab_json_text(meta_text(s, "cpu_model")), "kernel",
						      alloclab_json_text(meta_text(s, "kernel")), "date",
						      alloclab_json_text(meta_text(s, "date")), "order_seed",
						      json_object_get(s->config, "order_seed"), "complete",
						      s->complete && !s->interrupted));
	}
	rep->hosts = nhosts;
	rep->mixed_cpu_models = ncpus > 1;
	rep->mixed_kernels = nkernels > 1;
	json_t *missing = json_array(), *incomplete = json_array();
	for (unsigned i = 0; i < rep->nmissing; i++)
		json_array_append_new(missing, json_integer(rep->missing[i]));
	for (unsigned i = 0; i < rep->nincomplete; i++)
		json_array_append_new(incomplete, json_integer(rep->incomplete[i]));
	json_object_set_new(m->metadata, "shards", list);
	json_object_set_new(m->metadata, "merged",
			    json_pack("{s:i,s:o,s:o,s:i,s:b,s:b}", "count", (int)count, "missing", missing, "incomplete",
				      incomplete, "hosts", (int)nhosts, "mixed_cpu_models", rep->mixed_cpu_models,
				      "mixed_kernels", rep->mixed_kernels));
	free(hosts);
	free(cpus);
	free(kernels);
}

struct alloclab_results *alloclab_merge(struct alloclab_results *const *shards, const char *const *files, unsigned n,
					struct alloclab_merge_report *rep, char *err, size_t err_len)
{
	const struct alloclab_results *first = shards[0];
	unsigned count, *given;
	struct alloclab_results *m;
	json_t *meta;

	memset(rep, 0, sizeof *rep);
	for (unsigned i = 0; i < n; i++)
		if (check_shard(first, files[0], shards[i], files[i], err, err_len) != 0)
			return NULL;
	count = first->facts.shard_count;
	given = shard_positions(shards, files, n, count, err, err_len);
	if (given == NULL)
		return NULL;

	meta = json_deep_copy(first->metadata);
	json_object_del(meta, "shard");
	/* What other processes took of the CPUs: the busiest shard's (each
	 * measured its own machine and moment), none when one did not say. */
	const struct alloclab_results *busiest = first;
	for (unsigned i = 0; i < n; i++) {
		if (shards[i]->facts.other_cpus_peak < 0) {
			busiest = NULL;
			break;
		}
		if (shards[i]->facts.other_cpus_peak > busiest->facts.other_cpus_peak)
			busiest = shards[i];
	}
	json_object_del(meta, K_OTHER_CPUS);
	if (busiest)
		json_object_set(meta, K_OTHER_CPUS, json_object_get(busiest->metadata, K_OTHER_CPUS));
	m = alloclab_results_new_from(meta, json_deep_copy(first->config), err, err_len);
	if (m == NULL) {
		free(given);
		return NULL;
	}
	json_object_del(m->config, "order_seed");
	rep->count = count;
	rep->missing = calloc(count + 1, sizeof *rep->missing);
	rep->incomplete = calloc(count + 1, sizeof *rep->incomplete);
	for (unsigned k = 1; k <= count; k++)
		if (!given[k])
			rep->missing[rep->nmissing++] = k;

	for (unsigned i = 0; i < first->nplugins; i++) {
		struct alloclab_plugin_info info = first->plugins[i];
		info.caps = json_deep_copy(first->plugins[i].caps);
		info.check = first->plugins[i].check ? json_deep_copy(first->plugins[i].check) : NULL;
		alloclab_results_add_plugin(m, &info);
	}
	for (unsigned c = 0; c < first->ncells; c++)
		if (merge_cell(m, shards, files, n, c, rep, err, err_len) != 0) {
			alloclab_results_free(m);
			free(given);
			alloclab_merge_report_clear(rep);
			return NULL;
		}

	/* Which shards did not measure all of their part (interrupted). */
	for (unsigned i = 0; i < n; i++) {
		int part_done = 1;
		for (unsigned c = 0; c < shards[i]->ncells; c++)
			part_done &= shards[i]->cells[c].status != ALLOCLAB_CELL_PENDING;
		if (!part_done)
			rep->incomplete[rep->nincomplete++] = shards[i]->facts.shard_index;
	}

	describe_shards(m, shards, files, n, count, given, rep);
	m->complete = 1;
	m->interrupted = rep->nmissing > 0 || rep->nincomplete > 0;
	free(given);
	return m;
}
