/*
 * A repository's history of N commits in a store, made without building
 * or measuring anything, for the report's tests and its benchmark of long
 * histories (tests/test_report.c, tests/browser/load_time.py). Each step
 * is a copy of a template run (an instructions run of two builds, as
 * `alloclab ab --metrics instructions` keeps it) with the builds named as
 * the commits and the base build's counts, scaled, as both builds': each
 * commit's level is the template base's, 5% higher after each commit
 * listed as a change.
 *
 *   synthetic_history TEMPLATE.json STORE.db N [CHANGE...]
 *
 * The commits are /synthetic/repo's, named by their ordinal in hex (12 digits,
 * what a commit label shows), then c0ffee and zeros.
 */
#include "results/results.h"
#include "store/store.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char repo[] = "/synthetic/repo";

static void hash_of(unsigned k, char *out, size_t len)
{
	snprintf(out, len, "%012xc0ffee%022x", k, 0u);
}

/* The level of commit k over the template's. */
static double level(unsigned k, int nchanges, char **changes)
{
	double l = 1;
	for (int i = 0; i < nchanges; i++)
		if ((unsigned)atoi(changes[i]) <= k)
			l *= 1.05;
	return l;
}

static void scale_values(json_t *list, double by)
{
	size_t i;
	json_t *v;
	json_array_foreach(list, i, v) {
		json_t *x = json_object_get(v, ALLOCLAB_METRIC_INSTRUCTIONS);
		json_object_set_new(v, ALLOCLAB_METRIC_INSTRUCTIONS, json_real(json_number_value(x) * by));
	}
}

/* The template as the step from commit k-1 to k. */
static json_t *step(const json_t *template, unsigned k, double base_by, double head_by)
{
	json_t *doc = json_deep_copy(template);
	char hash[2][48], label[2][16], date[32];
	const char *old[2];
	json_t *plugins = json_object_get(doc, "plugins"), *cells = json_object_get(doc, "cells"), *c;
	size_t i;
	for (int side = 0; side < 2; side++) {
		json_t *p = json_array_get(plugins, (size_t)side);
		hash_of(k - 1 + (unsigned)side, hash[side], sizeof hash[side]);
		snprintf(label[side], sizeof label[side], "%.12s", hash[side]);
		old[side] = json_string_value(json_object_get(p, "label"));
		json_object_set_new(p, "source", json_pack("{s:s,s:b}", "commit", hash[side], "dirty", 0));
	}
	/* Both builds' counts are the base's, each then scaled to its level. */
	json_t *base_runs = NULL;
	json_array_foreach(cells, i, c)
		if (strcmp(json_string_value(json_object_get(c, "plugin")), old[0]) == 0)
			base_runs = json_deep_copy(json_object_get(c, "runs"));
	json_array_foreach(cells, i, c) {
		int side = strcmp(json_string_value(json_object_get(c, "plugin")), old[0]) == 0 ? 0 : 1;
		if (side && base_runs)
			json_object_set_new(c, "runs", json_deep_copy(base_runs));
		json_object_set_new(c, "plugin", json_string(label[side]));
		json_t *run;
		size_t r;
		json_array_foreach(json_object_get(c, "runs"), r, run) {
			scale_values(json_object_get(run, "values"), side ? head_by : base_by);
			scale_values(json_object_get(run, "warmups"), side ? head_by : base_by);
		}
	}
	json_decref(base_runs);
	for (int side = 0; side < 2; side++)
		json_object_set_new(json_array_get(plugins, (size_t)side), "label", json_string(label[side]));
	snprintf(date, sizeof date, "2026-01-%02uT%02u:%02u:%02uZ", 1 + k / 86400 % 28, k / 3600 % 24, k / 60 % 60, k % 60);
	json_object_set_new(json_object_get(doc, "metadata"), "date", json_string(date));
	return doc;
}

int main(int argc, char **argv)
{
	char err[2048];
	if (argc < 4) {
		fprintf(stderr, "usage: synthetic_history TEMPLATE.json STORE.db N [CHANGE...]\n");
		return 2;
	}
	unsigned n = (unsigned)atoi(argv[3]);
	json_t *template = json_load_file(argv[1], 0, NULL);
	struct alloclab_store *s = alloclab_store_open(argv[2], ALLOCLAB_STORE_CREATE, err, sizeof err);
	if (template == NULL || s == NULL || n < 2) {
		fprintf(stderr, "synthetic_history: %s\n", s ? "cannot read the template, or N < 2" : err);
		return 2;
	}
	if (alloclab_store_scratch(s, err, sizeof err) != 0)
		goto fail;
	for (unsigned k = 0; k < n; k++) {
		char hash[48], subject[64], date[40];
		hash_of(k, hash, sizeof hash);
		snprintf(subject, sizeof subject, "commit %u of the synthetic history", k);
		/* A commit an hour, from the start of 2026. */
		snprintf(date, sizeof date, "2026-%02u-%02uT%02u:00:00+00:00", 1 + k / 24 / 28 % 12, 1 + k / 24 % 28, k % 24);
		struct alloclab_commit c = {.commit = hash, .subject = subject, .date = date, .ordinal = k};
		if (alloclab_store_put_commit(s, repo, &c, err, sizeof err) != 0 ||
		    alloclab_store_set_commit(s, repo, hash, ALLOCLAB_COMMIT_MEASURED, NULL, NULL, NULL, err, sizeof err) != 0)
			goto fail;
		if (k == 0)
			continue;
		json_t *doc = step(template, k, level(k - 1, argc - 4, argv + 4), level(k, argc - 4, argv + 4));
		struct alloclab_results *r = alloclab_results_from_json(doc, "step", NULL, err, sizeof err);
		json_decref(doc);
		enum alloclab_store_added what;
		int64_t id;
		char base[48];
		hash_of(k - 1, base, sizeof base);
		int rc = r ? alloclab_store_add_run(s, r, &what, &id, err, sizeof err) : -1;
		alloclab_results_free(r);
		if (rc != 0 || alloclab_store_link_run(s, repo, hash, id, "instructions", base, err, sizeof err) != 0)
			goto fail;
	}
	alloclab_store_close(s);
	json_decref(template);
	return 0;
fail:
	fprintf(stderr, "synthetic_history: %s\n", err);
	return 1;
}
