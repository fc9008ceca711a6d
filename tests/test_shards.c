/*
 * Shards, their merge, and the exports, without a cluster: run --shard
 * splits the process rounds, merge refuses what is not one plan and says
 * what is missing, compare keeps to one CPU model where shards came from
 * several, and the pyperf and CSV exports follow their formats.
 */
#include "helpers.h"
#include "results/results.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PLAN "-p", "system", "-p", "mimalloc", "-w", "churn:ops=5000", "-t", "1", "-n", "6", "-v", "2", "--no-check", "-q"

static void run_shard(const char *dir, const char *k, const char *out)
{
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", PLAN, "--shard", k, "-o", out, NULL});
	cr_assert_eq(r.status, 0, "shard %s: %s", k, r.err);
	cmd_result_free(&r);
}

Test(shards, every_shard_measures_every_cell_in_its_rounds, .timeout = 120)
{
	char *dir = scratch_dir();
	run_shard(dir, "2/3", "s2.json");
	struct alloclab_results *r = load_results(dir, "s2.json");
	cr_assert_eq(r->ncells, 2);
	for (unsigned c = 0; c < r->ncells; c++) {
		cr_expect_eq(r->cells[c].status, ALLOCLAB_CELL_OK);
		cr_assert_eq(r->cells[c].nprocs, 2);
		/* Rounds 1 and 4 (from 0) of 6: r mod 3 = 1. */
		cr_expect_eq(r->cells[c].procs[0].index, 1);
		cr_expect_eq(r->cells[c].procs[1].index, 4);
	}
	cr_expect_eq(r->facts.shard_index, 2);
	cr_expect_eq(r->facts.shard_count, 3);
	cr_expect_eq(strlen(r->facts.shard_plan), 16);
	cr_expect_eq(r->facts.cell_processes[0], 6);
	alloclab_results_free(r);

	/* More shards than rounds, -n auto, and a bad K/N are refused. */
	const char *const *bad[] = {
		(const char *const[]){"run", PLAN, "--shard", "7/7", "-o", "x.json", NULL},
		(const char *const[]){"run", "-p", "system", "-w", "churn", "-n", "auto", "--shard", "1/2", NULL},
		(const char *const[]){"run", "-p", "system", "-w", "churn", "--shard", "3/2", NULL},
		(const char *const[]){"run", "-p", "system", "-w", "churn", "--shard", "1/2x", NULL},
		/* 4294967298 is 2 past 2^32: read as 32 bits it was 1 of 2. */
		(const char *const[]){"run", PLAN, "--shard", "1/4294967298", "-o", "x.json", NULL},
		(const char *const[]){"run", PLAN, "--shard", "1/1001", "-o", "x.json", NULL},
		/* Shard 1 of 7 has a round of a 6-process plan; shard 7 would not:
		 * the sweep cannot be whole. */
		(const char *const[]){"run", PLAN, "--shard", "1/7", "-o", "x.json", NULL},
		(const char *const[]){"run", PLAN, "--shard", "/2", "-o", "x.json", NULL},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct cmd_result b = run_alloclab(dir, bad[i]);
		cr_expect_eq(b.status, 2, "case %zu: %d %s", i, b.status, b.err);
		cr_expect_eq(count_lines(b.err), 1, "case %zu: %s", i, b.err);
		cmd_result_free(&b);
	}
	cr_expect_null(read_file(path_in(dir, "x.json")));
}

/* What a shard claims is checked against its plan: a process of a round
 * the shard does not own or past the plan, more shards than the format
 * allows; and a merge of a shard of a huge sweep says what is missing in
 * a bounded number of lines. */
Test(shards, a_shard_is_held_to_its_plan, .timeout = 120)
{
	char *dir = scratch_dir();
	run_shard(dir, "1/2", "s1.json");
	static const struct {
		const char *what, *says;
	} cases[] = {
		{"round past the plan", "is not one of shard 1 of 2's"},
		{"another shard's round", "is not one of shard 1 of 2's"},
		{"too many shards", "out of range"},
		{"fewer processes than shards", "the shards"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		json_t *doc = json_load_file(path_in(dir, "s1.json"), 0, NULL);
		json_t *shard = json_object_get(json_object_get(doc, "metadata"), "shard");
		json_t *run0 = json_array_get(json_object_get(json_array_get(json_object_get(doc, "cells"), 0), "runs"), 0);
		if (k == 0)
			json_object_set_new(run0, "process", json_integer(8));
		else if (k == 1)
			json_object_set_new(run0, "process", json_integer(1));
		else if (k == 2)
			json_object_set_new(shard, "count", json_integer(1000000));
		else
			json_array_set_new(json_object_get(shard, "cell_processes"), 0, json_integer(1));
		cr_assert_eq(json_dump_file(doc, path_in(dir, "bad.json"), 0), 0);
		json_decref(doc);
		struct cmd_result r = run_alloclab(dir, (const char *const[]){"show", "bad.json", NULL});
		cr_expect_eq(r.status, 2, "%s: %d %s", cases[k].what, r.status, r.out);
		cr_expect(strstr(r.err, cases[k].says) != NULL, "%s: %s", cases[k].what, r.err);
		cr_expect_eq(count_lines(r.err), 1, "%s: %s", cases[k].what, r.err);
		cmd_result_free(&r);
	}

	/* One shard of a thousand: the merge lists ten commands and a line. */
	json_t *doc = json_load_file(path_in(dir, "s1.json"), 0, NULL);
	json_t *shard = json_object_get(json_object_get(doc, "metadata"), "shard");
	json_object_set_new(shard, "count", json_integer(1000));
	json_t *cp = json_object_get(shard, "cell_processes");
	for (size_t i = 0; i < json_array_size(cp); i++)
		json_array_set_new(cp, i, json_integer(1000));
	/* Its processes: rounds 0 and 1000 would be shard 1's; keep round 0. */
	json_t *cells = json_object_get(doc, "cells"), *c;
	size_t i;
	json_array_foreach(cells, i, c)
	{
		json_t *runs = json_object_get(c, "runs");
		while (json_array_size(runs) > 1)
			json_array_remove(runs, 1);
		json_object_set_new(c, "processes", json_integer(1));
	}
	cr_assert_eq(json_dump_file(doc, path_in(dir, "huge.json"), 0), 0);
	json_decref(doc);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"merge", "-o", "hm.json", "huge.json", NULL});
	cr_expect_eq(r.status, 1, "%d %s", r.status, r.err);
	cr_expect(count_lines(r.err) <= 24, "%u lines", count_lines(r.err));
	cr_expect(strstr(r.err, "989 more shards of 1000 are missing"), "%s", r.err);
	cmd_result_free(&r);
}

Test(shards, dry_run_plans_and_writes_nothing, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", PLAN, "--shard", "1/2", "--dry-run", "-o",
								      "d.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "plan: 2 cells (0 not applicable), 6 worker processes in shard 1 of 2"), "%s", r.out);
	cr_expect_null(read_file(path_in(dir, "d.json")));
	cmd_result_free(&r);
}

Test(shards, merge_puts_them_together_and_refuses_what_is_not_one_plan, .timeout = 180)
{
	char *dir = scratch_dir();
	run_shard(dir, "1/3", "s1.json");
	run_shard(dir, "2/3", "s2.json");
	run_shard(dir, "3/3", "s3.json");

	/* -o naming one of the shards (by another path too) would lose it. */
	char *before = read_file(path_in(dir, "s1.json"));
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"merge", "-o", "./s1.json", "s3.json", "s1.json",
								      "s2.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "one of the shards"), "%s", r.err);
	cmd_result_free(&r);
	char *after = read_file(path_in(dir, "s1.json"));
	cr_expect(before && after && strcmp(before, after) == 0, "the shard was replaced");
	r = run_alloclab(dir, (const char *const[]){"merge", "-o", "m.json", "s3.json", "s1.json", "./s3.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "s3.json and ./s3.json are one file"), "%s", r.err);
	cmd_result_free(&r);

	r = run_alloclab(dir, (const char *const[]){"merge", "-o", "m.json", "s3.json", "s1.json", "s2.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *m = load_results(dir, "m.json");
	cr_assert_eq(m->ncells, 2);
	for (unsigned c = 0; c < m->ncells; c++) {
		cr_expect_eq(m->cells[c].status, ALLOCLAB_CELL_OK);
		cr_assert_eq(m->cells[c].nprocs, 6);
		cr_expect_eq(m->cells[c].planned, 6);
		for (unsigned p = 0; p < 6; p++) {
			cr_expect_eq(m->cells[c].procs[p].index, p);
			cr_expect_not_null(m->cells[c].procs[p].host);
			cr_expect_not_null(m->cells[c].procs[p].host_cpu_model);
		}
	}
	cr_expect(m->complete && !m->interrupted);
	cr_expect_eq(json_array_size(json_object_get(m->metadata, "shards")), 3);
	cr_expect_null(json_object_get(m->metadata, "shard"));
	alloclab_results_free(m);
	/* show, compare and plot take it as any other. */
	r = run_alloclab(dir, (const char *const[]){"compare", "m.json", "--plugins", "system,mimalloc", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"plot", "m.json", "-o", "pictures", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);

	/* A missing shard: merged all the same, named, with its command,
	 * exit 1; its cells pending. */
	r = run_alloclab(dir, (const char *const[]){"merge", "-o", "m2.json", "s1.json", "s3.json", NULL});
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.err, "shard 2 of 3 is missing") && strstr(r.err, "--shard 2/3 -o shard-2.json"), "%s", r.err);
	cmd_result_free(&r);
	m = load_results(dir, "m2.json");
	cr_expect_eq(m->cells[0].status, ALLOCLAB_CELL_PENDING);
	cr_expect_eq(m->cells[0].nprocs, 4);
	cr_expect_eq(m->cells[0].planned, 6);
	alloclab_results_free(m);

	/* A shard that stopped half-way (killed: its document says it is
	 * not complete, a cell pending with one process of its two): named as
	 * unfinished, exit 1, its cell pending. */
	{
		json_t *doc = json_load_file(path_in(dir, "s2.json"), 0, NULL);
		json_t *cell = json_array_get(json_object_get(doc, "cells"), 0);
		json_object_set_new(doc, "complete", json_false());
		json_object_set_new(cell, "status", json_string("pending"));
		json_array_remove(json_object_get(cell, "runs"), 1);
		cr_assert_eq(json_dump_file(doc, path_in(dir, "s2half.json"), JSON_COMPACT), 0);
		json_decref(doc);
	}
	r = run_alloclab(dir, (const char *const[]){"merge", "-o", "m3.json", "s1.json", "s2half.json", "s3.json", NULL});
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(strstr(r.err, "shard 2 of 3 (s2half.json) did not finish"), "%s", r.err);
	cmd_result_free(&r);
	m = load_results(dir, "m3.json");
	cr_expect_eq(m->cells[0].status, ALLOCLAB_CELL_PENDING);
	cr_expect_eq(m->cells[0].nprocs, 5);
	cr_expect_eq(m->cells[1].status, ALLOCLAB_CELL_OK);
	alloclab_results_free(m);

	/* Refused, exit 2, one line naming the shard: twice, another plan,
	 * not a shard. */
	run_shard(dir, "2/3", "s2again.json");
	struct cmd_result other = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=5000",
									  "-t", "1", "-n", "6", "-v", "2", "--no-check",
									  "-q", "--shard", "2/3", "-o", "o2.json", NULL});
	cr_assert_eq(other.status, 0, "%s", other.err);
	cmd_result_free(&other);
	struct cmd_result whole = run_alloclab(dir, (const char *const[]){"run", PLAN, "-o", "whole.json", NULL});
	cr_assert_eq(whole.status, 0, "%s", whole.err);
	cmd_result_free(&whole);
	static const struct {
		const char *second, *says;
	} refused[] = {
		{"s2again.json", "s2.json and s2again.json are both shard 2 of 3"},
		{"o2.json", "differ in metadata.shard.plan"},
		{"whole.json", "not a shard"},
	};
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		r = run_alloclab(dir, (const char *const[]){"merge", "-o", "bad.json", "s1.json", "s2.json",
							    refused[i].second, NULL});
		cr_expect_eq(r.status, 2, "%s: %d %s", refused[i].second, r.status, r.err);
		cr_expect(strstr(r.err, refused[i].second) && strstr(r.err, refused[i].says), "%s: %s", refused[i].second,
			  r.err);
		cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
		cmd_result_free(&r);
	}
	cr_expect_null(read_file(path_in(dir, "bad.json")));
}

/* What makes shards not one plan's, each said plainly in one line naming
 * the files: a shard named twice, by one path or two; two files that are
 * both one shard; a round a shard holds twice; shards measured with other
 * allocator settings in their environment. */
Test(shards, merge_says_plainly_what_makes_shards_not_one_plan, .timeout = 180)
{
	char *dir = scratch_dir();
	run_shard(dir, "1/2", "s1.json");
	run_shard(dir, "2/2", "s2.json");
	run_shard(dir, "2/2", "copy.json");
	struct cmd_result r = run_alloclab_env(
		dir, (const char *const[]){"run", PLAN, "--shard", "2/2", "-o", "arena.json", NULL},
		(const char *const[]){"MALLOC_ARENA_MAX=1", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	json_t *doc = json_load_file(path_in(dir, "s1.json"), 0, NULL);
	json_t *runs = json_object_get(json_array_get(json_object_get(doc, "cells"), 0), "runs");
	json_object_set_new(json_array_get(runs, 1), "process", json_integer(0));
	cr_assert_eq(json_dump_file(doc, path_in(dir, "dup.json"), 0), 0);
	json_decref(doc);
	static const struct {
		const char *first, *second, *says;
	} cases[] = {
		{"s1.json", "s1.json", "s1.json is named twice: name each shard once"},
		{"s1.json", "./s1.json", "s1.json and ./s1.json are one file"},
		{"s2.json", "copy.json", "s2.json and copy.json are both shard 2 of 2"},
		{"dup.json", "s2.json", "dup.json: cells[0].runs: holds process 0 twice"},
		{"s1.json", "arena.json", "arena.json ran with MALLOC_ARENA_MAX=1, s1.json without"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		r = run_alloclab(dir, (const char *const[]){"merge", "-o", "m.json", cases[k].first, cases[k].second, NULL});
		cr_expect_eq(r.status, 2, "%s: %d %s", cases[k].says, r.status, r.err);
		cr_expect(strstr(r.err, cases[k].says) && count_lines(r.err) == 1, "%s: %s", cases[k].says, r.err);
		cmd_result_free(&r);
	}
	cr_expect_null(read_file(path_in(dir, "m.json")));
}

/* Rewrites the metadata's cpu_model of a results file. */
static void set_cpu_model(const char *path, const char *model)
{
	json_t *doc = json_load_file(path, 0, NULL);
	cr_assert(doc, "%s", path);
	json_object_set_new(json_object_get(doc, "metadata"), "cpu_model", json_string(model));
	cr_assert_eq(json_dump_file(doc, path, JSON_COMPACT), 0);
	json_decref(doc);
}

Test(shards, compare_keeps_to_one_cpu_model_across_machines, .timeout = 180)
{
	char *dir = scratch_dir();
	run_shard(dir, "1/3", "s1.json");
	run_shard(dir, "2/3", "s2.json");
	run_shard(dir, "3/3", "s3.json");
	/* Shard 3 "ran" on another machine. */
	set_cpu_model(path_in(dir, "s3.json"), "Another CPU 9000");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"merge", "-o", "m.json", "s1.json", "s2.json",
								      "s3.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "different CPU models"), "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"compare", "m.json", "--plugins", "system,mimalloc", "-f", "json",
						    NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "compared within one CPU model") && strstr(r.out, "4 and 4 processes"), "%s", r.out);
	cmd_result_free(&r);
	json_t *doc = json_load_file(path_in(dir, "m.json"), 0, NULL);
	cr_expect(json_is_true(json_object_get(json_object_get(json_object_get(doc, "metadata"), "merged"),
					       "mixed_cpu_models")));
	json_decref(doc);
}

/* pyperf's JSON format 1.0, as its documentation and loader define it. */
static void check_pyperf(const json_t *doc, size_t benchmarks, size_t runs_each)
{
	cr_assert_str_eq(json_string_value(json_object_get(doc, "version")), "1.0");
	json_t *list = json_object_get(doc, "benchmarks"), *b;
	size_t i;
	cr_assert(json_is_array(list));
	cr_assert_eq(json_array_size(list), benchmarks);
	const char *names[64];
	json_array_foreach(list, i, b)
	{
		json_t *meta = json_object_get(b, "metadata"), *runs = json_object_get(b, "runs"), *run, *v;
		const char *name = json_string_value(json_object_get(meta, "name")), *key;
		size_t k;
		cr_assert(name && name[0], "benchmark %zu has no name", i);
		for (size_t j = 0; j < i; j++)
			cr_expect_str_neq(names[j], name, "two benchmarks are named %s", name);
		names[i] = name;
		cr_expect_str_eq(json_string_value(json_object_get(meta, "unit")), "second");
		json_object_foreach(meta, key, v)
		{
			cr_expect(json_is_string(v) || json_is_integer(v) || json_is_real(v), "%s.%s", name, key);
			if (json_is_string(v))
				cr_expect(json_string_value(v)[0] && !strpbrk(json_string_value(v), "\n\r"), "%s.%s", name, key);
		}
		cr_assert(json_is_array(runs));
		cr_expect_eq(json_array_size(runs), runs_each, "%s: a run per worker process", name);
		json_array_foreach(runs, k, run)
		{
			json_t *values = json_object_get(run, "values"), *warmups = json_object_get(run, "warmups"), *x;
			json_t *rm = json_object_get(run, "metadata");
			size_t j;
			cr_assert(json_is_array(values) && json_array_size(values) > 0);
			json_array_foreach(values, j, x)
				cr_expect(json_is_number(x) && json_number_value(x) > 0 && json_number_value(x) < 1e-3,
					  "%s: a time per op in seconds", name);
			json_array_foreach(warmups, j, x)
				cr_expect(json_is_array(x) && json_array_size(x) == 2 &&
						  json_is_integer(json_array_get(x, 0)) && json_integer_value(json_array_get(x, 0)) >= 1 &&
						  json_is_number(json_array_get(x, 1)) && json_number_value(json_array_get(x, 1)) >= 0,
					  "%s: warmups are [loops, value]", name);
			cr_expect(json_integer_value(json_object_get(rm, "loops")) >= 1);
			cr_expect(json_is_number(json_object_get(rm, "duration")) &&
				  json_number_value(json_object_get(rm, "duration")) >= 0);
			cr_expect(json_integer_value(json_object_get(rm, "mem_max_rss")) > 0);
			/* When this worker started, as pyperf writes a date. */
			const char *date = json_string_value(json_object_get(rm, "date"));
			cr_assert(date && strlen(date) == 26 && date[10] == ' ' && date[19] == '.', "%s: date %s", name,
				  date ? date : "(none)");
			for (size_t e = 0; e < k; e++)
				cr_expect_str_neq(json_string_value(json_object_get(
							  json_object_get(json_array_get(runs, e), "metadata"), "date")),
						  date, "%s: runs %zu and %zu have one date", name, e, k);
		}
	}
}

Test(export, pyperf_and_csv_follow_their_formats, .timeout = 120)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", PLAN, "-o", "r.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);

	r = run_alloclab(dir, (const char *const[]){"export", "--format", "pyperf", "r.json", "-o", "r.pyperf.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	json_t *doc = json_load_file(path_in(dir, "r.pyperf.json"), 0, NULL);
	cr_assert(doc);
	check_pyperf(doc, 2, 6);
	/* Two plugins: the names carry the label. */
	cr_expect_str_eq(json_string_value(json_object_get(
				 json_object_get(json_array_get(json_object_get(doc, "benchmarks"), 0), "metadata"), "name")),
			 "system: churn");
	json_decref(doc);

	/* One plugin's cells, named by their rows alone (pyperf compare_to
	 * matches benchmarks by name). */
	r = run_alloclab(dir, (const char *const[]){"export", "-f", "pyperf", "-p", "mimalloc", "r.json", "-o", "mi.json",
						    NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	doc = json_load_file(path_in(dir, "mi.json"), 0, NULL);
	check_pyperf(doc, 1, 6);
	cr_expect_str_eq(json_string_value(json_object_get(
				 json_object_get(json_array_get(json_object_get(doc, "benchmarks"), 0), "metadata"), "name")),
			 "churn");
	json_decref(doc);

	r = run_alloclab(dir, (const char *const[]){"export", "-f", "csv", "r.json", "-o", "r.csv", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	char *csv = read_file(path_in(dir, "r.csv"));
	cr_assert(csv);
	static const char header[] = "plugin,workload,params,threads,cache_aligned,process_index,value_index,metric,per_op,"
				     "per_op_unit,op,value_wall_ns,value_ops,host,cpu_model\r\n";
	cr_expect_eq(strncmp(csv, header, strlen(header)), 0, "%s", csv);
	/* A header and a row per value: 2 cells x 6 processes x 2 values. */
	cr_expect_eq(count_lines(csv), 1 + 24, "%s", csv);
	cr_expect(strstr(csv, "\"{\"\"max_size\"\":512,"), "params quoted as RFC 4180 says: %s", csv);
	cr_expect(strstr(csv, ",ns_per_op,") && strstr(csv, ",ns,free+malloc,"), "the unit and what an op is: %s", csv);
	free(csv);

	/* "-": standard output, whole or nothing. */
	r = run_alloclab(dir, (const char *const[]){"export", "-f", "csv", "r.json", "-o", "-", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(strncmp(r.out, header, strlen(header)), 0, "%s", r.out);
	cr_expect_eq(count_lines(r.out), 1 + 24);
	cmd_result_free(&r);
	cr_expect_null(read_file(path_in(dir, "-")), "a file named - was written");
	r = run_alloclab(dir, (const char *const[]){"export", "-f", "pyperf", "-p", "nosuch", "r.json", "-o", "-", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect_str_empty(r.out, "a refused export wrote %s", r.out);
	cmd_result_free(&r);

	/* A label a spreadsheet would run as a formula stays text. */
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system:as==cmd|' /C calc'!A0", "-w", "churn:ops=2000",
						    "-t", "1", "-n", "1", "-v", "1", "--no-check", "-q", "-o", "f.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"export", "-f", "csv", "f.json", "-o", "f.csv", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	csv = read_file(path_in(dir, "f.csv"));
	cr_assert(csv);
	cr_expect(strstr(csv, "\r\n'=cmd|' /C calc'!A0,churn,") != NULL, "%s", csv);
	free(csv);
	/* And in compare's CSV, which names rows by the label: one writer of
	 * a CSV field for every CSV (it lacked the guard). */
	r = run_alloclab(dir, (const char *const[]){"compare", "f.json", "f.json", "--format", "csv", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "'=cmd|' /C calc'!A0") && !strstr(r.out, "\n=cmd") && !strstr(r.out, ",=cmd") &&
			  !strstr(r.out, "\"=cmd"),
		  "%s", r.out);
	cmd_result_free(&r);

	/* Bad input: one line, exit 2; nothing replaced that is not an export. */
	r = run_alloclab(dir, (const char *const[]){"export", "-f", "xml", "r.json", "-o", "x", NULL});
	cr_expect_eq(r.status, 2);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"export", "-f", "csv", "r.json", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "not a pyperf JSON file or an alloclab CSV export"), "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"export", "-f", "pyperf", "-p", "nosuch", "r.json", "-o", "n.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "no measured cell of plugin nosuch"), "%s", r.err);
	cmd_result_free(&r);
	cr_expect_null(read_file(path_in(dir, "n.json")));
}

/* Two rows of one name (two files of a folder that register the same
 * benchmark name, as pyperformance's do): pyperf refuses a suite with a
 * name twice, so the export tells them apart. */
Test(export, every_pyperf_name_is_unique, .timeout = 120)
{
	char *dir = scratch_dir();
	mkdir(path_in(dir, "bm"), 0755);
	for (int i = 0; i < 2; i++) {
		FILE *f = fopen(path_in(dir, i ? "bm/b.py" : "bm/a.py"), "w");
		fprintf(f, "import pyperf\npyperf.Runner().bench_func('btree', lambda: [None] * %d)\n", 10 + i);
		fclose(f);
	}
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "python:pyperf=bm", "-t", "1",
								      "-n", "2", "-v", "1", "--no-check", "-o", "b.json", "-q",
								      NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"export", "-f", "pyperf", "b.json", "-o", "b.pyperf.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	json_t *doc = json_load_file(path_in(dir, "b.pyperf.json"), 0, NULL);
	cr_assert_not_null(doc);
	json_t *list = json_object_get(doc, "benchmarks");
	cr_assert_eq(json_array_size(list), 2);
	const char *a = json_string_value(json_object_get(json_object_get(json_array_get(list, 0), "metadata"), "name"));
	const char *b = json_string_value(json_object_get(json_object_get(json_array_get(list, 1), "metadata"), "name"));
	cr_assert(a && b);
	cr_expect_str_neq(a, b, "two benchmarks named %s", a);
	cr_expect(strstr(a, "btree") && strstr(b, "btree"), "%s / %s", a, b);
	json_decref(doc);
}

/* Instruction counts leave as whole numbers per 1000 operations (pyperf's
 * "integer" unit prints values as they are), with nothing of valgrind's
 * own process passed off as the benchmark's memory. */
Test(export, pyperf_counts_are_whole_numbers, .timeout = 240)
{
	skip_unless_valgrind_counts();
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--measure", "instructions", "-p", "system",
								      "-w", "churn:ops=3000,slots=64", "-t", "1", "-n", "2",
								      "-v", "2", "--no-check", "-q", "-o", "i.json", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"export", "-f", "pyperf", "i.json", "-o", "i.pyperf.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	struct alloclab_results *res = load_results(dir, "i.json");
	json_t *doc = json_load_file(path_in(dir, "i.pyperf.json"), 0, NULL);
	cr_assert(doc);
	json_t *bench = json_array_get(json_object_get(doc, "benchmarks"), 0);
	json_t *meta = json_object_get(bench, "metadata"), *runs = json_object_get(bench, "runs");
	cr_expect_str_eq(json_string_value(json_object_get(meta, "unit")), "integer");
	cr_expect_str_eq(json_string_value(json_object_get(meta, "alloclab_value")), "instructions per 1000 operations");
	cr_assert_eq(json_array_size(runs), 2);
	for (size_t k = 0; k < 2; k++) {
		json_t *run = json_array_get(runs, k), *rm = json_object_get(run, "metadata"), *x;
		json_t *values = json_object_get(run, "values");
		size_t j;
		cr_expect_null(json_object_get(rm, "mem_max_rss"), "valgrind's peak is not the benchmark's");
		cr_expect_null(json_object_get(rm, "loops"), "counts are per 1000 operations, not per loop");
		cr_assert_eq(json_array_size(values), 2);
		json_array_foreach(values, j, x)
		{
			double per_op = res->cells[0].procs[k].values[j].per_op;
			cr_expect(json_is_integer(x), "run %zu value %zu is not a whole number", k, j);
			cr_expect(fabs((double)json_integer_value(x) - per_op * 1000) <= 0.5, "%lld for %g per op",
				  (long long)json_integer_value(x), per_op);
		}
		json_array_foreach(json_object_get(run, "warmups"), j, x)
			cr_expect(json_is_integer(json_array_get(x, 1)), "warm-up %zu of run %zu", j, k);
	}
	json_decref(doc);
	alloclab_results_free(res);

	/* A count pyperf cannot take as a whole number per 1000 operations
	 * (it would round to 0, or pass a JSON integer): refused, saying
	 * where, nothing written. */
	static const double bad[] = {1e17, 0.0001};
	for (size_t k = 0; k < 2; k++) {
		json_t *run = json_load_file(path_in(dir, "i.json"), 0, NULL);
		cr_assert(run);
		json_t *v0 = json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(run, "cells"), 0), "runs"), 0), "values"), 0);
		json_object_set_new(v0, "instructions_per_op", json_real(bad[k]));
		cr_assert_eq(json_dump_file(run, path_in(dir, "bad.json"), 0), 0);
		json_decref(run);
		r = run_alloclab(dir, (const char *const[]){"export", "-f", "pyperf", "bad.json", "-o", "bad.pyperf.json", NULL});
		cr_expect_eq(r.status, 2, "%g: %s", bad[k], r.err);
		cr_expect(strstr(r.err, "bad.json") && strstr(r.err, "process 1") && strstr(r.err, "per 1000 operations"), "%s",
			  r.err);
		cmd_result_free(&r);
		cr_expect_null(read_file(path_in(dir, "bad.pyperf.json")));
	}
}

/* A Python benchmark's value is one inner iteration; pyperf's loops and
 * inner_loops say how many made it, apart. */
Test(export, pyperf_keeps_inner_loops_apart, .timeout = 120)
{
	char *dir = scratch_dir();
	FILE *f = fopen(path_in(dir, "inner.py"), "w");
	cr_assert(f);
	fputs("import pyperf\npyperf.Runner().bench_func('inner', lambda: [None] * 10, inner_loops=20)\n", f);
	fclose(f);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "python:pyperf=inner.py,loops=3",
								      "-t", "1", "-n", "2", "-v", "2", "--no-check", "-q", "-o",
								      "p.json", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"export", "-f", "pyperf", "p.json", "-o", "p.pyperf.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	json_t *doc = json_load_file(path_in(dir, "p.pyperf.json"), 0, NULL);
	cr_assert(doc);
	json_t *runs = json_object_get(json_array_get(json_object_get(doc, "benchmarks"), 0), "runs");
	cr_assert_eq(json_array_size(runs), 2);
	for (size_t k = 0; k < 2; k++) {
		json_t *rm = json_object_get(json_array_get(runs, k), "metadata");
		cr_expect_eq(json_integer_value(json_object_get(rm, "loops")), 3, "run %zu", k);
		cr_expect_eq(json_integer_value(json_object_get(rm, "inner_loops")), 20, "run %zu", k);
	}
	json_decref(doc);

	/* Processes that disagree on inner_loops (a file edited by hand):
	 * pyperf refuses runs of one benchmark that do, so none says it and
	 * loops counts every iteration (value x loops is still the wall
	 * time). */
	json_t *run = json_load_file(path_in(dir, "p.json"), 0, NULL);
	cr_assert(run);
	json_t *report = json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(run, "cells"), 0), "runs"), 0), "report"), 0);
	json_object_set_new(report, "inner_loops", json_integer(2));
	cr_assert_eq(json_dump_file(run, path_in(dir, "q.json"), 0), 0);
	json_decref(run);
	r = run_alloclab(dir, (const char *const[]){"export", "-f", "pyperf", "q.json", "-o", "q.pyperf.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	doc = json_load_file(path_in(dir, "q.pyperf.json"), 0, NULL);
	cr_assert(doc);
	runs = json_object_get(json_array_get(json_object_get(doc, "benchmarks"), 0), "runs");
	for (size_t k = 0; k < 2; k++) {
		json_t *rm = json_object_get(json_array_get(runs, k), "metadata");
		cr_expect_null(json_object_get(rm, "inner_loops"), "run %zu", k);
		cr_expect_eq(json_integer_value(json_object_get(rm, "loops")), 60, "run %zu", k);
	}
	json_decref(doc);

	/* The run's date is read as a date, or the file is refused. */
	run = json_load_file(path_in(dir, "p.json"), 0, NULL);
	json_object_set_new(json_object_get(run, "metadata"), "date", json_string("hello world this is not a date"));
	cr_assert_eq(json_dump_file(run, path_in(dir, "d.json"), 0), 0);
	json_decref(run);
	r = run_alloclab(dir, (const char *const[]){"export", "-f", "pyperf", "d.json", "-o", "d.pyperf.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "d.json") && strstr(r.err, "date"), "%s", r.err);
	cmd_result_free(&r);
}

Test(slurm, scripts_are_written_and_arguments_checked_without_a_cluster, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"slurm", "--shards", "3", "-o", "sweep", "--partition",
								      "big", "--nodes-at-once", "2", "--dry-run", "--", PLAN,
								      NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	char *shards = read_file(path_in(dir, "sweep/shards.sh")), *merge = read_file(path_in(dir, "sweep/merge.sh"));
	cr_assert(shards && merge);
	cr_expect(strstr(shards, "#SBATCH --array=1-3%2") && strstr(shards, "#SBATCH --exclusive") &&
			  strstr(shards, "#SBATCH --partition=big") && strstr(shards, "--shard \"$SLURM_ARRAY_TASK_ID/3\"") &&
			  strstr(shards, "--order-seed ") && strstr(shards, "srun --cpu-bind=cores"),
		  "%s", shards);
	cr_expect(strstr(merge, " merge -o ") && strstr(merge, "/sweep/merged.json") && strstr(merge, "/sweep/shard-3.json"),
		  "%s", merge);
	free(shards);
	free(merge);

	/* A folder that holds a sweep, arguments a shard sets itself, a plan
	 * with fewer rounds than shards: refused before anything is written
	 * or submitted. */
	const char *const *bad[] = {
		(const char *const[]){"slurm", "--shards", "2", "-o", "sweep", "--dry-run", "--", PLAN, NULL},
		(const char *const[]){"slurm", "--shards", "2", "-o", "s2", "--dry-run", "--", PLAN, "-o", "x.json", NULL},
		(const char *const[]){"slurm", "--shards", "9", "-o", "s3", "--dry-run", "--", PLAN, NULL},
		(const char *const[]){"slurm", "-o", "s4", "--", PLAN, NULL},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		r = run_alloclab(dir, bad[i]);
		cr_expect_eq(r.status, 2, "case %zu: %d %s", i, r.status, r.err);
		cmd_result_free(&r);
	}
	cr_expect_null(read_file(path_in(dir, "s3/shards.sh")));
}
