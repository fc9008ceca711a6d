/* Results files: written atomically, read back identical, bad files refused. */
#include "helpers.h"
#include "results.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *sample_doc(void)
{
	char *argv[] = {"alloclab", "run"};
	return json_pack("{s:s,s:i,s:o,s:{s:i},s:[],s:[{s:s,s:s,s:i,s:s,s:{s:i},s:[{s:i,s:[{s:I,s:[I],s:[I],s:f}]}]}],s:b}",
			 "format", ALLOCLAB_RESULTS_FORMAT, "format_version", ALLOCLAB_RESULTS_VERSION, "metadata",
			 alloclab_metadata(2, argv), "config", "processes", 1, "plugins", "cells", "plugin", "system",
			 "workload", "churn", "threads", 1, "status", "ok", "params", "ops", 10, "runs", "process", 0,
			 "values", "wall_ns", (json_int_t)1234567, "thread_ns", (json_int_t)1234567, "thread_ops",
			 (json_int_t)10, "ns_per_op", 123456.7, "interrupted", 0);
}

Test(results, round_trip_is_identical)
{
	char *dir = scratch_dir(), path[4200], err[512];
	json_t *doc = sample_doc(), *back;

	snprintf(path, sizeof path, "%s/sub/dir/r.json", dir);
	cr_assert_eq(alloclab_results_write(doc, path, err, sizeof err), 0, "%s", err);
	back = alloclab_results_load(path, err, sizeof err);
	cr_assert_not_null(back, "%s", err);
	cr_expect(json_equal(doc, back), "read back differs");
	/* No temporary file is left beside it. */
	snprintf(path, sizeof path, "%s/sub/dir", dir);
	DIR *d = opendir(path);
	struct dirent *e;
	int files = 0;
	while ((e = readdir(d)))
		files += e->d_name[0] != '.';
	closedir(d);
	cr_expect_eq(files, 1);
	json_decref(doc);
	json_decref(back);
}

static void expect_load_fails(const char *content, const char *needle)
{
	char *dir = scratch_dir(), path[4200], err[512] = "";
	snprintf(path, sizeof path, "%s/bad.json", dir);
	FILE *f = fopen(path, "w");
	fputs(content, f);
	fclose(f);
	cr_expect_null(alloclab_results_load(path, err, sizeof err));
	cr_expect(strstr(err, needle) != NULL, "'%s' not in: %s", needle, err);
}

Test(results, truncated_file_is_refused)
{
	json_t *doc = sample_doc();
	char *text = json_dumps(doc, 0);
	text[strlen(text) / 2] = '\0';
	expect_load_fails(text, "not valid JSON");
	free(text);
	json_decref(doc);
}

Test(results, foreign_json_is_refused)
{
	expect_load_fails("{\"benchmarks\": []}", "not an alloclab results file");
}

Test(results, newer_format_is_refused)
{
	expect_load_fails("{\"format\": \"alloclab-run\", \"format_version\": 99, \"metadata\": {}, \"cells\": []}",
			  "format version 99");
}

Test(results, cell_without_values_is_refused)
{
	expect_load_fails("{\"format\": \"alloclab-run\", \"format_version\": 1, \"metadata\": {}, \"cells\": "
			  "[{\"plugin\": \"a\", \"workload\": \"b\", \"status\": \"ok\", \"threads\": 1, "
			  "\"params\": {}, \"runs\": [{}]}]}",
			  "has no values array");
}

Test(results, missing_file_names_it)
{
	char err[512];
	cr_expect_null(alloclab_results_load("/nonexistent/r.json", err, sizeof err));
	cr_expect(strstr(err, "/nonexistent/r.json: No such file") != NULL, "%s", err);
}
