/* The one validating reader of results files. See results.h. */
#define _GNU_SOURCE 1
#include "results/results.h"
#include "results/internal.h"
#include "results/results_keys.h"
#include "base/invariant.h"
#include "files/file_hash.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int read_params(const struct alloclab_results_reader *rd, const json_t *obj, const char *where, json_t **out)
{
	json_t *v = json_object_get(obj, K_PARAMS), *x;
	const char *key;

	if (v == NULL)
		return alloclab_results_bad(rd, where, K_PARAMS, "missing");
	if (!json_is_object(v))
		return alloclab_results_bad(rd, where, K_PARAMS, "is %s, not an object", alloclab_json_type_name(v));
	if (json_object_size(v) > 64)
		return alloclab_results_bad(rd, where, K_PARAMS, "has more than 64 parameters");
	json_object_foreach(v, key, x)
	{
		if (strlen(key) > 64)
			return alloclab_results_bad(rd, where, K_PARAMS, "has a parameter name longer than 64 bytes");
		if (!(json_is_integer(x) && json_integer_value(x) >= 0) &&
		    !(json_is_string(x) && json_string_length(x) <= 4096 && strlen(json_string_value(x)) == json_string_length(x)))
			return alloclab_results_bad(rd, where, K_PARAMS, "'%s' is %s, not a non-negative whole number or a string", key,
				   alloclab_json_type_name(x));
	}
	*out = json_incref(v);
	return 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

/* A cell's processes are rounds of the run, each measured once: a round
 * twice (a forged file, or shards that overlap) would count as two
 * processes. Version 1 files number no rounds. */
static int check_rounds(const struct alloclab_results_reader *rd, const struct alloclab_cell *c, const char *where)
{
	unsigned *idx = rd->version >= 2 && c->nprocs > 1 ? malloc(c->nprocs * sizeof *idx) : NULL;
	if (idx == NULL)
		return 0;
	for (unsigned p = 0; p < c->nprocs; p++)
		idx[p] = c->procs[p].index;
	qsort(idx, c->nprocs, sizeof *idx, cmp_unsigned);
	for (unsigned p = 1; p < c->nprocs; p++)
		if (idx[p] == idx[p - 1]) {
			unsigned twice = idx[p];
			free(idx);
			return alloclab_results_bad(rd, where, K_RUNS, "holds process %u twice (a round is measured once)", twice);
		}
	free(idx);
	return 0;
}

static int read_cell(const struct alloclab_results_reader *rd, const json_t *obj, const char *where, unsigned nplugins,
		     struct alloclab_cell *c)
{
	char *status = NULL;
	uint64_t threads = 0, index = 0, planned = 0;
	json_t *runs, *x;
	size_t i;

	if (!json_is_object(obj))
		return alloclab_results_bad(rd, where, "", "is %s, not an object", alloclab_json_type_name(obj));
	if (alloclab_results_get_string(rd, obj, where, K_PLUGIN, 1, &c->plugin) != 0 ||
	    alloclab_results_get_string(rd, obj, where, K_PLUGIN_OPTIONS, 0, &c->plugin_options) != 0 ||
	    alloclab_results_get_string(rd, obj, where, K_WORKLOAD, 1, &c->workload) != 0 ||
	    alloclab_results_get_uint(rd, obj, where, K_THREADS, 1, 1, ALLOCLAB_RESULTS_MAX_THREADS, &threads) != 0 ||
	    alloclab_results_get_uint(rd, obj, where, K_PLUGIN_INDEX, 0, 0, nplugins ? nplugins - 1 : ALLOCLAB_RESULTS_MAX_PLUGINS,
		     &index) != 0 ||
	    alloclab_results_get_uint(rd, obj, where, K_PROCESSES, 0, 0, 1000000, &planned) != 0 ||
	    alloclab_results_get_bool(rd, obj, where, K_CACHE_ALIGNED, &c->cache_aligned) != 0 ||
	    alloclab_results_get_string(rd, obj, where, K_METRIC, 0, &c->metric) != 0 ||
	    alloclab_results_get_string(rd, obj, where, K_UNIT_OP, 0, &c->unit_op) != 0 || read_params(rd, obj, where, &c->params) != 0 ||
	    alloclab_results_get_string(rd, obj, where, K_PAIR_DESIGN, 0, &c->pair_design) != 0 ||
	    alloclab_results_get_string(rd, obj, where, K_PAIR_WHY, 0, &c->pair_why) != 0 ||
	    alloclab_results_get_string(rd, obj, where, K_STATUS, 1, &status) != 0)
		goto fail;
	if (c->plugin_options == NULL)
		c->plugin_options = strdup("");
	if (c->metric == NULL)
		c->metric = strdup(K_NS_PER_OP);
	if (strcmp(c->metric, ALLOCLAB_METRIC_TIME) != 0 && strcmp(c->metric, ALLOCLAB_METRIC_INSTRUCTIONS) != 0) {
		alloclab_results_bad(rd, where, K_METRIC, "'%s' is not a metric this alloclab knows", c->metric);
		goto fail;
	}
	if (c->workload[0] == '\0' || c->plugin[0] == '\0') {
		alloclab_results_bad(rd, where, c->plugin[0] ? K_WORKLOAD : K_PLUGIN, "is empty");
		goto fail;
	}
	if (strlen(c->plugin) > ALLOCLAB_MAX_LABEL) {
		alloclab_results_bad(rd, where, K_PLUGIN, "is longer than the %d bytes of a label", ALLOCLAB_MAX_LABEL);
		goto fail;
	}
	c->threads = (unsigned)threads;
	c->plugin_index = (unsigned)index;
	c->planned = (unsigned)planned;
	if (alloclab_results_parse_status(status, &c->status) != 0) {
		alloclab_results_bad(rd, where, K_STATUS, "'%.64s' is not ok, error, not applicable or pending", status);
		goto fail;
	}
	if (c->status == ALLOCLAB_CELL_ERROR && alloclab_results_get_string(rd, obj, where, K_ERROR, 1, &c->message) != 0)
		goto fail;
	if (c->status == ALLOCLAB_CELL_NOT_APPLICABLE && alloclab_results_get_string(rd, obj, where, K_REASON, 1, &c->message) != 0)
		goto fail;
	if (json_object_get(obj, K_FAILED_MEMORY) && c->status != ALLOCLAB_CELL_ERROR) {
		alloclab_results_bad(rd, where, K_FAILED_MEMORY, "is there, but the cell did not fail");
		goto fail;
	}
	if (alloclab_results_read_timeline(rd, obj, where, K_FAILED_MEMORY, &c->failed_memory) != 0)
		goto fail;
	if (alloclab_results_get_array(rd, obj, where, K_RUNS, 1, 1000000, &runs) != 0)
		goto fail;
	if (c->status == ALLOCLAB_CELL_NOT_APPLICABLE && json_array_size(runs) > 0) {
		alloclab_results_bad(rd, where, K_RUNS, "a cell that is not applicable has measurements");
		goto fail;
	}
	c->procs = calloc(json_array_size(runs) + 1, sizeof *c->procs);
	c->procs_cap = (unsigned)json_array_size(runs) + 1;
	json_array_foreach(runs, i, x)
	{
		char w[256];
		snprintf(w, sizeof w, "%s.%s[%zu]", where, K_RUNS, i);
		c->nprocs++;
		if (alloclab_results_read_process(rd, x, w, c->workload, c->threads, c->metric, &c->procs[i]) != 0)
			goto fail;
	}
	if (c->status == ALLOCLAB_CELL_OK && c->nprocs == 0) {
		alloclab_results_bad(rd, where, K_RUNS, "a cell whose status is ok has no measurement");
		goto fail;
	}
	if (check_rounds(rd, c, where) != 0)
		goto fail;
	free(status);
	return 0;
fail:
	free(status);
	return -1;
}

/* A plugin's file hash and its source, where the file has them. */
static int read_build_identity(const struct alloclab_results_reader *rd, const json_t *obj, const char *where,
			       struct alloclab_plugin_info *p)
{
	char w[160];
	json_t *src = json_object_get(obj, K_SOURCE);
	p->source_dirty = -1;
	if (alloclab_results_get_string(rd, obj, where, K_SHA256, 0, &p->sha256) != 0)
		return -1;
	if (p->sha256 && !alloclab_sha256_hex_valid(p->sha256))
		return alloclab_results_bad(rd, where, K_SHA256, "is not 64 lower-case hex digits");
	if (src == NULL)
		return 0;
	snprintf(w, sizeof w, "%s.%s", where, K_SOURCE);
	if (!json_is_object(src))
		return alloclab_results_bad(rd, where, K_SOURCE, "is %s, not an object", alloclab_json_type_name(src));
	if (alloclab_results_get_string(rd, src, w, K_COMMIT, 1, &p->source_commit) != 0)
		return -1;
	size_t n = strspn(p->source_commit, "0123456789abcdef");
	if (n < 7 || n > 64 || p->source_commit[n] != '\0')
		return alloclab_results_bad(rd, w, K_COMMIT, "is not a commit hash (7 to 64 lower-case hex digits)");
	json_t *dirty = json_object_get(src, K_DIRTY);
	if (!json_is_boolean(dirty))
		return alloclab_results_bad(rd, w, K_DIRTY, dirty ? "is not true or false" : "missing");
	p->source_dirty = json_is_true(dirty);
	return 0;
}

static int read_plugin(const struct alloclab_results_reader *rd, const json_t *obj, const char *where, struct alloclab_plugin_info *p)
{
	json_t *caps, *x;
	size_t i;

	if (!json_is_object(obj))
		return alloclab_results_bad(rd, where, "", "is %s, not an object", alloclab_json_type_name(obj));
	if (alloclab_results_get_string(rd, obj, where, K_NAME, 1, &p->name) != 0 || alloclab_results_get_string(rd, obj, where, K_LABEL, 0, &p->label) != 0 ||
	    alloclab_results_get_string(rd, obj, where, K_SPEC, 0, &p->spec) != 0 || alloclab_results_get_string(rd, obj, where, K_OPTIONS, 0, &p->options) != 0 ||
	    alloclab_results_get_string(rd, obj, where, K_VERSION, 0, &p->version) != 0 ||
	    alloclab_results_get_string(rd, obj, where, K_DESCRIPTION, 0, &p->description) != 0 ||
	    alloclab_results_get_string(rd, obj, where, K_PATH, 0, &p->path) != 0 ||
	    alloclab_results_get_uint(rd, obj, where, K_MIN_ALIGN, 0, 0, UINT32_MAX, &p->min_align) != 0 ||
	    alloclab_results_get_array(rd, obj, where, K_CAPS, 0, 64, &caps) != 0)
		return -1;
	json_array_foreach(caps, i, x)
		if (!json_is_string(x))
			return alloclab_results_bad(rd, where, K_CAPS, "entry %zu is %s, not a string", i, alloclab_json_type_name(x));
	p->caps = caps ? json_incref(caps) : json_array();
	json_t *check;
	if (alloclab_results_get_array(rd, obj, where, K_CHECK, 0, 64, &check) != 0)
		return -1;
	json_array_foreach(check, i, x)
	{
		char *s1 = NULL, *s2 = NULL;
		char w[128];
		snprintf(w, sizeof w, "%s.%s[%zu]", where, K_CHECK, i);
		if (!json_is_object(x))
			return alloclab_results_bad(rd, w, "", "is %s, not an object", alloclab_json_type_name(x));
		if (alloclab_results_get_string(rd, x, w, K_CASE, 1, &s1) != 0 || alloclab_results_get_string(rd, x, w, K_WHY, 1, &s2) != 0) {
			free(s1);
			return -1;
		}
		free(s1);
		free(s2);
	}
	p->check = check ? json_incref(check) : NULL;
	if (read_build_identity(rd, obj, where, p) != 0)
		return -1;
	if (p->options == NULL)
		p->options = strdup("");
	if (p->label == NULL && rd->version >= 2)
		return alloclab_results_bad(rd, where, K_LABEL, "is missing (format_version %d files label every plugin)", rd->version);
	if (p->label == NULL) {
		/* Version 1: the label is the name with the options. */
		size_t len = strlen(p->name) + strlen(p->options) + 2;
		p->label = malloc(len);
		snprintf(p->label, len, "%s%s%s", p->name, p->options[0] ? ":" : "", p->options);
	}
	if (p->label[0] == '\0' || strlen(p->label) > ALLOCLAB_MAX_LABEL)
		return alloclab_results_bad(rd, where, K_LABEL, "is %zu bytes long, not 1 to %d (a label every format carries "
					    "whole)", strlen(p->label), ALLOCLAB_MAX_LABEL);
	return 0;
}

/* Labels tell plugins apart, as the reader shows them: two that differ
 * only where a control character was are one. */
static int unique_label(const struct alloclab_results_reader *rd, const struct alloclab_results *r, unsigned i,
			const char *where)
{
	for (unsigned k = 0; k < i; k++)
		if (strcmp(r->plugins[k].label, r->plugins[i].label) == 0)
			return alloclab_results_bad(rd, where, K_LABEL, "'%.64s' is also plugins[%u]'s label", r->plugins[i].label,
						    k);
	return 0;
}

static int in_group(const struct alloclab_results *r, const char *label)
{
	for (unsigned k = 0; k < r->facts.npair; k++)
		if (strcmp(r->facts.pair_plugins[k], label) == 0)
			return 1;
	return 0;
}

/* A paired cell's processes against its reference's: each has one of the
 * same round with as many values, and the ratio their values give. */
static int check_pair_processes(const struct alloclab_results_reader *rd, const struct alloclab_cell *c,
				const struct alloclab_cell *ref, const char *where)
{
	for (unsigned p = 0; p < c->nprocs; p++) {
		const struct alloclab_process *mine = &c->procs[p], *theirs = alloclab_pair_partner(ref, mine);
		if (theirs == NULL || theirs->nvalues != mine->nvalues)
			return alloclab_results_bad(rd, where, K_RUNS, "process %u has no partner of its round in %s's cell",
						    mine->index, ref->plugin);
		if (!alloclab_pair_ratio_holds(mine, theirs))
			return alloclab_results_bad(rd, where, K_RUNS, "process %u's pair_ratio %g is not what its values "
						    "and its partner's give (%g)", mine->index, mine->pair_ratio,
						    alloclab_pair_ratio(mine, theirs));
	}
	return 0;
}

/* A shard's processes, once every cell is read: each of a round the
 * shard owns (round mod N = K - 1) within its cell's plan, no more of them
 * than the shard's share. A shard claiming another's rounds, or rounds
 * past the plan, would merge as if it were whole. */
static int check_shard(const struct alloclab_results_reader *rd, const struct alloclab_results *r)
{
	const struct alloclab_run_facts *f = &r->facts;
	if (f->shard_count == 0)
		return 0;
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *c = &r->cells[i];
		unsigned plan = f->cell_processes[i], share = alloclab_shard_share(plan, f->shard_index, f->shard_count);
		char where[64];
		snprintf(where, sizeof where, "%s[%u]", K_CELLS, i);
		if (c->nprocs > share)
			return alloclab_results_bad(rd, where, K_RUNS, "holds %u processes where shard %u of %u has %u",
						    c->nprocs, f->shard_index, f->shard_count, share);
		for (unsigned p = 0; p < c->nprocs; p++) {
			unsigned round = c->procs[p].index;
			if (round >= plan || round % f->shard_count != f->shard_index - 1)
				return alloclab_results_bad(rd, where, K_RUNS, "process %u is not one of shard %u of %u's "
							    "rounds of a %u-process plan", round, f->shard_index,
							    f->shard_count, plan);
		}
	}
	return 0;
}

/* Whether a paired cell's design is one the run could have measured it
 * in: slices only in a run made with slices (config.paired.slice_ops),
 * the design its reference has (a pair is measured one way), a reason
 * (pair_why) exactly when in processes of their own, and values that
 * have slices exactly when the design is slices. */
static int check_design(const struct alloclab_results_reader *rd, const struct alloclab_results *r,
			const struct alloclab_cell *c, const struct alloclab_cell *ref, const char *where)
{
	int sliced = strcmp(c->pair_design, ALLOCLAB_PAIR_SLICES) == 0;
	int apart = strcmp(c->pair_design, ALLOCLAB_PAIR_PROCESSES) == 0;
	if (sliced && r->facts.slice_ops == 0)
		return alloclab_results_bad(rd, where, K_PAIR_DESIGN, "is slices, but the run was made without slices "
					    "(config.paired.slice_ops is 0)");
	if (strcmp(c->pair_design, ref->pair_design) != 0)
		return alloclab_results_bad(rd, where, K_PAIR_DESIGN, "'%s' is not the design of its reference's cell ('%.32s')",
					    c->pair_design, ref->pair_design);
	if (apart != (c->pair_why != NULL))
		return alloclab_results_bad(rd, where, K_PAIR_WHY, apart ? "is missing (a cell measured in processes of its "
								     "own says why)"
									   : "is there, but the cell was measured in one worker");
	for (unsigned p = 0; p < c->nprocs; p++)
		for (unsigned v = 0; v < c->procs[p].nvalues + c->procs[p].nwarmups; v++) {
			const struct alloclab_value *val = v < c->procs[p].nvalues ? &c->procs[p].values[v]
										  : &c->procs[p].warmups[v - c->procs[p].nvalues];
			if ((val->slices > 0) != sliced)
				return alloclab_results_bad(rd, where, K_RUNS, "process %u has a value %s slices, which a cell "
							    "measured in %s cannot", c->procs[p].index,
							    sliced ? "without" : "with", c->pair_design);
		}
	return 0;
}

/* Paired comparisons, once every cell is read: the group names plugins of
 * the run; a paired cell is one of the group's, with a design this
 * alloclab knows and the run could have used, and a reference cell; its
 * processes match the reference's. Pair fields came with version 3. */
static int check_pairs(const struct alloclab_results_reader *rd, const struct alloclab_results *r)
{
	static const char *const designs[] = {ALLOCLAB_PAIR_SLICES, ALLOCLAB_PAIR_VALUES, ALLOCLAB_PAIR_PROCESSES};
	for (unsigned k = 0; k < r->facts.npair; k++) {
		unsigned i = 0;
		while (i < r->nplugins && strcmp(r->plugins[i].label, r->facts.pair_plugins[k]) != 0)
			i++;
		if (i == r->nplugins)
			return alloclab_results_bad(rd, K_CONFIG "." K_PAIRED, K_PAIR_PLUGINS, "'%.64s' is no plugin of the run",
						    r->facts.pair_plugins[k]);
	}
	if (r->facts.npair && r->version < 3)
		return alloclab_results_bad(rd, K_CONFIG, K_PAIRED, "is a version 3 field in a version %d file", r->version);
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *c = &r->cells[i];
		char where[64];
		snprintf(where, sizeof where, "%s[%u]", K_CELLS, i);
		if (c->pair_design == NULL) {
			for (unsigned p = 0; p < c->nprocs; p++)
				for (unsigned v = 0; v < c->procs[p].nvalues; v++)
					if (c->procs[p].pair_ratio > 0 || c->procs[p].values[v].slices)
						return alloclab_results_bad(rd, where, K_RUNS, "a process of a cell that is not "
									    "paired has a %s", c->procs[p].pair_ratio > 0 ? "pair_ratio" : "value in slices");
			if (c->pair_why)
				return alloclab_results_bad(rd, where, K_PAIR_WHY, "is there, but the cell is not paired");
			continue;
		}
		unsigned d = 0;
		while (d < 3 && strcmp(c->pair_design, designs[d]) != 0)
			d++;
		if (d == 3)
			return alloclab_results_bad(rd, where, K_PAIR_DESIGN, "'%.32s' is not slices, values or processes",
						    c->pair_design);
		if (!in_group(r, c->plugin))
			return alloclab_results_bad(rd, where, K_PAIR_DESIGN, "'%.64s' is not in the paired group", c->plugin);
		const struct alloclab_cell *ref = alloclab_pair_reference(r, c);
		if (ref == NULL)
			return alloclab_results_bad(rd, where, K_PAIR_DESIGN, "no cell of the reference '%.64s' to pair with",
						    r->facts.pair_plugins[0]);
		if (check_design(rd, r, c, ref, where) != 0 || check_pair_processes(rd, c, ref, where) != 0)
			return -1;
	}
	return 0;
}

/* That doc is an alloclab results file, in a version this alloclab reads
 * and with the layout that version has; the version into r and rd. */
static int read_format(struct alloclab_results_reader *rd, const json_t *doc, struct alloclab_results *r)
{
	json_t *format = json_object_get(doc, K_FORMAT), *version = json_object_get(doc, K_FORMAT_VERSION);

	if (!json_is_object(doc)) {
		snprintf(rd->err, rd->err_len, "%s: not an alloclab results file (it is %s, not an object)", rd->name,
			 alloclab_json_type_name(doc));
		return -1;
	}
	if (!json_is_string(format) || strcmp(json_string_value(format), ALLOCLAB_RESULTS_FORMAT) != 0) {
		snprintf(rd->err, rd->err_len, "%s: not an alloclab results file (no \"format\": \"%s\")", rd->name,
			 ALLOCLAB_RESULTS_FORMAT);
		return -1;
	}
	if (version == NULL || !json_is_integer(version))
		return alloclab_results_bad(rd, "", K_FORMAT_VERSION, "is %s, not a whole number",
					    version ? alloclab_json_type_name(version) : "missing");
	if (json_integer_value(version) < ALLOCLAB_RESULTS_OLDEST_VERSION ||
	    json_integer_value(version) > ALLOCLAB_RESULTS_VERSION) {
		snprintf(rd->err, rd->err_len, "%s: results format version %lld; this alloclab reads versions %d to %d",
			 rd->name, (long long)json_integer_value(version), ALLOCLAB_RESULTS_OLDEST_VERSION,
			 ALLOCLAB_RESULTS_VERSION);
		return -1;
	}
	r->version = rd->version = (int)json_integer_value(version);
	/* The version a file claims must be the layout it has: a version 2
	 * file always says whether it is complete; version 1 never did. */
	if ((json_object_get(doc, K_COMPLETE) != NULL) != (r->version >= 2))
		return alloclab_results_bad(rd, "", K_FORMAT_VERSION, "is %d, but the file %s '%s' (which version 2 added)",
					    r->version, r->version >= 2 ? "lacks" : "has", K_COMPLETE);
	return 0;
}

static int read_plugins(const struct alloclab_results_reader *rd, const json_t *doc, struct alloclab_results *r)
{
	json_t *a, *x;
	size_t i;

	if (alloclab_results_get_array(rd, doc, "", K_PLUGINS, 0, ALLOCLAB_RESULTS_MAX_PLUGINS, &a) != 0)
		return -1;
	r->plugins = calloc(json_array_size(a) + 1, sizeof *r->plugins);
	json_array_foreach(a, i, x)
	{
		char w[64];
		snprintf(w, sizeof w, "%s[%zu]", K_PLUGINS, i);
		r->nplugins++;
		if (read_plugin(rd, x, w, &r->plugins[i]) != 0 || unique_label(rd, r, (unsigned)i, w) != 0)
			return -1;
	}
	return 0;
}

/* The cells, once the plugins are read: each cell's plugin is named by
 * its label, as version 2 writes it, whatever version the file is. */
static int read_cells(const struct alloclab_results_reader *rd, const json_t *doc, struct alloclab_results *r)
{
	json_t *a, *x;
	size_t i;

	if (alloclab_results_get_array(rd, doc, "", K_CELLS, 1, ALLOCLAB_RESULTS_MAX_CELLS, &a) != 0)
		return -1;
	r->cells = calloc(json_array_size(a) + 1, sizeof *r->cells);
	json_array_foreach(a, i, x)
	{
		char w[64];
		snprintf(w, sizeof w, "%s[%zu]", K_CELLS, i);
		r->ncells++;
		if (read_cell(rd, x, w, r->nplugins, &r->cells[i]) != 0)
			return -1;
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
		if (r->nplugins && r->version >= 2 && strcmp(c->plugin, r->plugins[c->plugin_index].label) != 0)
			return alloclab_results_bad(rd, w, K_PLUGIN, "'%.64s' is not the label of plugins[%u]", c->plugin,
						    c->plugin_index);
	}
	return 0;
}

/* Every cell's plugin_index names a plugin, whatever the file held:
 * version 1 files may list none, or index them loosely. A plugin no
 * list names is added, known by its label alone. */
static void index_plugins(struct alloclab_results *r)
{
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
}

struct alloclab_results *alloclab_results_from_json(const json_t *doc, const char *name,
						    alloclab_report_checker check, char *err, size_t err_len)
{
	struct alloclab_results_reader rd = {name, check, err, err_len, 0};
	struct alloclab_results *r = calloc(1, sizeof *r);

	if (read_format(&rd, doc, r) != 0)
		goto fail;
	r->metadata = json_object_get(doc, K_METADATA);
	r->config = json_object_get(doc, K_CONFIG);
	if (!json_is_object(r->metadata)) {
		r->metadata = NULL;
		alloclab_results_bad(&rd, "", K_METADATA, "is missing or not an object");
		goto fail;
	}
	json_incref(r->metadata);
	r->config = json_is_object(r->config) ? json_incref(r->config) : json_object();
	if (alloclab_results_read_facts(&rd, r) != 0)
		goto fail;
	if (alloclab_results_get_bool(&rd, doc, "", K_INTERRUPTED, &r->interrupted) != 0)
		goto fail;
	if (r->version < 2)
		r->complete = 1; /* version 1: always written whole */
	else if (alloclab_results_get_bool(&rd, doc, "", K_COMPLETE, &r->complete) != 0)
		goto fail;
	if (read_plugins(&rd, doc, r) != 0 || read_cells(&rd, doc, r) != 0 || alloclab_results_read_shard(&rd, r) != 0)
		goto fail;
	index_plugins(r);
	if (!r->complete)
		alloclab_results_fold_journal(r, &rd);
	if (check_pairs(&rd, r) != 0 || check_shard(&rd, r) != 0)
		goto fail;
	ALLOCLAB_CHECK_INVARIANT(alloclab_results_consistent(r, NULL, 0));
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
