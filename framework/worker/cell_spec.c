/*
 * A cell spec: what one worker measures, and its hand-off to a freshly
 * executed worker as JSON, checked on arrival. See cell_spec.h.
 */
#include "worker/cell_spec.h"
#include "base/hash.h"
#include "base/json_text.h"
#include "measure/heapmap.h"
#include "measure/latency.h"
#include "results/results.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

const char *alloclab_cell_spec_metric(const struct alloclab_cell_spec *cell)
{
	return cell->callgrind_dir ? ALLOCLAB_METRIC_INSTRUCTIONS : ALLOCLAB_METRIC_TIME;
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
	if (cell->npair) {
		json_t *pair = json_array();
		for (unsigned k = 0; k < cell->npair; k++)
			json_array_append_new(pair, json_pack("{s:o,s:o,s:b,s:b,s:o?}", "plugin",
							      alloclab_json_text(cell->pair[k].plugin), "options",
							      alloclab_json_text(cell->pair[k].plugin_options), "gil",
							      cell->pair[k].gil, "private_copy", cell->pair[k].private_copy,
							      "label", cell->pair[k].label ? alloclab_json_text(cell->pair[k].label)
											   : NULL));
		json_object_set_new(obj, "pair", pair);
		json_object_set_new(obj, "slice_ops", json_integer((json_int_t)cell->slice_ops));
		json_object_set_new(obj, "slice_warm", json_integer((json_int_t)cell->slice_warm));
		json_object_set_new(obj, "pair_seed", json_integer((json_int_t)cell->pair_seed));
	}
	json_object_set_new(obj, "workload", json_string(cell->workload->name));
	json_object_set_new(obj, "v", v);
	json_object_set_new(obj, "text", text);
	return obj;
}

/* The paired plugins, when there are: 2 to ALLOCLAB_MAX_PAIR of them, the
 * first the cell's own. 0, or -1 when malformed. */
static int pair_from_json(const json_t *obj, struct alloclab_cell_spec *cell)
{
	json_t *pair = json_object_get(obj, "pair"), *slice = json_object_get(obj, "slice_ops"),
	       *warm = json_object_get(obj, "slice_warm"), *seed = json_object_get(obj, "pair_seed"), *m;
	size_t k;

	if (pair == NULL)
		return slice || warm || seed ? -1 : 0;
	if (!json_is_array(pair) || json_array_size(pair) < 2 || json_array_size(pair) > ALLOCLAB_MAX_PAIR ||
	    !json_is_integer(slice) || json_integer_value(slice) < 0 || !json_is_integer(warm) ||
	    json_integer_value(warm) < 0 || !json_is_integer(seed) ||
	    json_integer_value(seed) < 0)
		return -1;
	json_array_foreach(pair, k, m)
	{
		json_t *p = json_object_get(m, "plugin"), *o = json_object_get(m, "options"), *g = json_object_get(m, "gil"),
		       *c = json_object_get(m, "private_copy"), *l = json_object_get(m, "label");
		if (!json_is_string(p) || !json_is_string(o) || !json_is_boolean(g) || !json_is_boolean(c) ||
		    (l && !json_is_string(l)))
			return -1;
		cell->pair[k] = (struct alloclab_pair_member){json_string_value(p), json_string_value(o), json_is_true(g),
							      json_is_true(c), l ? json_string_value(l) : NULL};
	}
	if (strcmp(cell->pair[0].plugin, cell->plugin) != 0 || strcmp(cell->pair[0].plugin_options, cell->plugin_options) != 0)
		return -1;
	cell->npair = (unsigned)json_array_size(pair);
	cell->slice_ops = (uint64_t)json_integer_value(slice);
	cell->slice_warm = (uint64_t)json_integer_value(warm);
	cell->pair_seed = (uint64_t)json_integer_value(seed);
	return 0;
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
	if (pair_from_json(obj, cell) != 0)
		goto malformed;
	if (alloclab_params_check(cell->workload, &cell->params, err, err_len) != 0)
		return -1;
	if (cell->callgrind_dir == NULL)
		cell->cache_sim = 0;
	return 0;
malformed:
	snprintf(err, err_len, "malformed worker spec");
	return -1;
}
