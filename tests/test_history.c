/*
 * A plugin's history: the store (files that are not stores refused and
 * left as they were, a run kept once, many writers at once, stores of the
 * first and second schemas migrated), ab's exit status as a gate (a change of a few
 * instructions, an A/A, a build that crashes), and a small repository's
 * history run (a commit that does not build, one that changes the count),
 * resumed, shown, and bisected; a build that hangs; hostile names, a
 * repository's configuration that names programs, and a revision's links
 * that lead out of it.
 *
 * The repository is the helpers' (make_history_repo: the fixture
 * tests/fixtures/history/plugin.c, its commits changing config.h); its
 * builds use --build with the C compiler and the SDK's header folder. The measurements are instruction counts
 * (deterministic, and quick at a few thousand operations); one ab measures
 * time, to show its table and design.
 */
#define _GNU_SOURCE 1
#include "helpers.h"
#include "files/code_hash.h"
#include "store/store.h"

#include <criterion/criterion.h>
#include <glob.h>
#include <libgen.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *source_root(void)
{
	return getenv("ALLOCLAB_SOURCE_ROOT");
}

/* A plugin of the fixture built with config.h's knobs, into path. */
static void build_plugin(const char *dir, const char *name, int extra, int slack)
{
	sh("mkdir -p %s/%s-src && cp %s/tests/fixtures/history/plugin.c %s/%s-src/ && "
	   "printf '#define EXTRA_WORK %d\\n#define SLACK_PERCENT %d\\n' > %s/%s-src/config.h && "
	   "cc -O2 -shared -fPIC -I%s/framework/include %s/%s-src/plugin.c -o %s/%s.so",
	   dir, name, source_root(), dir, name, extra, slack, dir, name, source_root(), dir, name, dir, name);
}

/* A results file to add: a quick run of the system plugin. */
static void quick_run(const char *dir, const char *name)
{
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=2000", "-t", "1",
								      "-n", "2", "-v", "1", "-q", "-o", name, NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
}

static char *file_sum(const char *path)
{
	char cmd[4400], *out = calloc(1, 200);
	snprintf(cmd, sizeof cmd, "sha256sum < %s", path);
	FILE *p = popen(cmd, "r");
	if (p) {
		if (fgets(out, 200, p) == NULL)
			out[0] = '\0';
		pclose(p);
	}
	return out;
}

/* `history add` refuses the file in one line, exit status 2, and leaves
 * it byte for byte as it was. */
static void expect_refused_unchanged(const char *dir, const char *db, const char *text)
{
	char *before = file_sum(db);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "add", "run.json", "--db", db, NULL});
	cr_expect_eq(r.status, 2, "%s: status %d: %s", db, r.status, r.err);
	cr_expect(strstr(r.err, text) != NULL, "expected '%s', got: %s", text, r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	char *after = file_sum(db);
	cr_expect_str_eq(before, after, "%s was modified", db);
	free(before);
	free(after);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", db, NULL});
	cr_expect_eq(r.status, 2, "show %s: %s", db, r.out);
	cmd_result_free(&r);
}

Test(history, files_that_are_not_stores_are_refused_and_left_alone, .timeout = 120)
{
	char *dir = scratch_dir();
	quick_run(dir, "run.json");
	sh("cd %s && printf 'not a database\\n' > text.db && head -c 5000 /dev/urandom > random.db && : > empty.db", dir);
	sh("cd %s && sqlite3 other.db 'CREATE TABLE t (x); INSERT INTO t VALUES (1);'", dir);
	/* A real store of a newer schema, and a damaged one. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "add", "run.json", "--db", "real.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	sh("cd %s && cp real.db newer.db && sqlite3 newer.db 'PRAGMA user_version = 99;' && cp real.db damaged.db && "
	   "dd if=/dev/urandom of=damaged.db bs=1024 seek=2 count=8 conv=notrunc 2>/dev/null",
	   dir);
	expect_refused_unchanged(dir, "text.db", "not an alloclab history store");
	expect_refused_unchanged(dir, "random.db", "not an alloclab history store");
	expect_refused_unchanged(dir, "empty.db", "an empty file");
	expect_refused_unchanged(dir, "other.db", "another program's SQLite file");
	expect_refused_unchanged(dir, "newer.db", "newer than this alloclab's");
	expect_refused_unchanged(dir, "damaged.db", "damaged");
}

static int runs_in(const char *dir, const char *db)
{
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", db, NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	int n = 0;
	for (const char *p = r.out; p && *p;) {
		n += strncmp(p, "run ", 4) == 0;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	cmd_result_free(&r);
	return n;
}

Test(history, a_run_added_twice_is_kept_once, .timeout = 120)
{
	char *dir = scratch_dir();
	quick_run(dir, "a.json");
	quick_run(dir, "b.json");
	sh("cd %s && cp a.json copy-of-a.json", dir);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "add", "a.json", "b.json", "--db", "h.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"history", "add", "a.json", "copy-of-a.json", "--db", "h.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "already there") != NULL, "%s", r.out);
	cmd_result_free(&r);
	cr_expect_eq(runs_in(dir, "h.db"), 2);
}

/* Copies of one run with dates of their own: each a run of its own. */
static void distinct_runs(const char *dir, int n)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/run.json", dir);
	json_t *doc = json_load_file(path, 0, NULL);
	cr_assert_not_null(doc);
	for (int i = 0; i < n; i++) {
		char date[32], out[4300];
		snprintf(date, sizeof date, "2026-01-%02dT%02d:%02d:00Z", 1 + i / 60, (i / 60) % 24, i % 60);
		json_object_set_new(json_object_get(doc, "metadata"), "date", json_string(date));
		snprintf(out, sizeof out, "%s/r%02d.json", dir, i);
		cr_assert_eq(json_dump_file(doc, out, JSON_COMPACT), 0);
	}
	json_decref(doc);
}

/* The level the runs' listing prints for a file's first cell: the mean of
 * its processes' mean values, as "%.4g METRIC". */
static void first_cell_level(const json_t *doc, char *out, size_t len)
{
	json_t *cell = json_array_get(json_object_get(doc, "cells"), 0), *proc, *v;
	const char *metric = json_string_value(json_object_get(cell, "metric"));
	size_t i, k, nprocs = 0;
	double means = 0;
	cr_assert_not_null(metric);
	json_array_foreach(json_object_get(cell, "runs"), i, proc) {
		double sum = 0;
		size_t n = 0;
		json_array_foreach(json_object_get(proc, "values"), k, v) {
			sum += json_number_value(json_object_get(v, metric));
			n++;
		}
		if (n) {
			means += sum / (double)n;
			nprocs++;
		}
	}
	cr_assert_gt(nprocs, 0);
	snprintf(out, len, "%.4g %s", means / (double)nprocs, metric);
}

/* The listing of a store's runs reads its rows, never the documents: with
 * every document damaged it still says each run's date, alloclab's
 * version and each cell's level, as the file had them. */
Test(history, the_runs_listing_reads_the_rows_not_the_documents, .timeout = 120)
{
	char *dir = scratch_dir(), level[128];
	quick_run(dir, "run.json");
	json_t *doc = json_load_file(path_in(dir, "run.json"), 0, NULL);
	cr_assert_not_null(doc);
	json_t *meta = json_object_get(doc, "metadata");
	json_object_set_new(meta, "date", json_string("2031-05-06T07:08:09Z"));
	json_object_set_new(meta, "alloclab_version", json_string("9.8.7-listed"));
	cr_assert_eq(json_dump_file(doc, path_in(dir, "dated.json"), JSON_COMPACT), 0);
	first_cell_level(doc, level, sizeof level);
	json_decref(doc);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "add", "dated.json", "--db", "h.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	sh("cd %s && sqlite3 h.db 'UPDATE run SET document = zeroblob(16);'", dir);
	r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "h.db", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "run 1, 2031-05-06T07:08:09Z on ") != NULL, "the run's date: %s", r.out);
	cr_expect(strstr(r.out, "(alloclab 9.8.7-listed)\n") != NULL, "alloclab's version: %s", r.out);
	cr_expect(strstr(r.out, level) != NULL, "the cell's level, %s: %s", level, r.out);
	cmd_result_free(&r);
	/* One process has no interval: its level ends the line. */
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=2000", "-n", "1", "-v", "1", "-q",
						     "-o", "one.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	doc = json_load_file(path_in(dir, "one.json"), 0, NULL);
	cr_assert_not_null(doc);
	first_cell_level(doc, level, sizeof level);
	json_decref(doc);
	strcat(level, "\n");
	r = run_alloclab(dir, (const char *const[]){"history", "add", "one.json", "--db", "one.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "one.db", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, level) != NULL, "%s", r.out);
	cmd_result_free(&r);
}

/* Replaces run 1's document in dir/db with `bytes` bytes of JSON (blanks,
 * then {}) compressed as the store compresses, its size in its header: a
 * zstd bomb of a few kilobytes. */
static void store_bomb(const char *dir, const char *db, unsigned long long bytes)
{
	sh("cd %s && { head -c %llu /dev/zero | tr '\\0' ' '; printf '{}'; } | zstd -q -1 --stream-size=%llu > %s.zst && "
	   "sqlite3 %s \"UPDATE run SET document = readfile('%s.zst') WHERE id = 1;\"",
	   dir, bytes - 2, bytes, db, db, db);
}

/* A stored document that would inflate past 256 MiB, or past 1000 times
 * its stored size, is refused before it is inflated, in one line saying
 * which bound (before, 90 KB that inflated to 1 GB took 2.2 GB and was
 * refused with an empty reason). */
Test(history, a_document_that_would_inflate_past_its_bounds_is_refused, .timeout = 120)
{
	char *dir = scratch_dir();
	quick_run(dir, "run.json");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "add", "run.json", "--db", "big.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	sh("cd %s && cp big.db far.db", dir);
	store_bomb(dir, "big.db", 300ull << 20);
	store_bomb(dir, "far.db", 20ull << 20);
	static const char *const cases[][2] = {
		{"big.db", "run 1's document would inflate past 256 MiB (to 314572800 bytes, from "},
		{"far.db", "run 1's document would inflate past 1000x its stored size (to 20971520 bytes, from "},
	};
	for (size_t k = 0; k < 2; k++) {
		r = run_alloclab(dir, (const char *const[]){"report", cases[k][0], "-o", "site", NULL});
		cr_expect_eq(r.status, 2, "%s: %d %s", cases[k][0], r.status, r.err);
		cr_expect(strstr(r.err, cases[k][1]) && strstr(r.err, "): refused\n"), "%s: %s", cases[k][0], r.err);
		cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
		cmd_result_free(&r);
	}
}

Test(history, many_writers_at_once_lose_no_run, .timeout = 300)
{
	char *dir = scratch_dir(), exe[4200];
	quick_run(dir, "run.json");
	distinct_runs(dir, 40);
	snprintf(exe, sizeof exe, "%s", getenv("ALLOCLAB_EXE"));
	/* Eight writers, five runs each, started together. */
	for (int w = 0; w < 8; w++) {
		pid_t pid = fork();
		if (pid == 0) {
			char *argv[12] = {exe, "history", "add", "--db", "h.db"};
			char names[5][16];
			for (int k = 0; k < 5; k++) {
				snprintf(names[k], sizeof names[k], "r%02d.json", w * 5 + k);
				argv[5 + k] = names[k];
			}
			argv[10] = NULL;
			if (chdir(dir) != 0 || freopen("/dev/null", "w", stdout) == NULL)
				_exit(3);
			execv(exe, argv);
			_exit(4);
		}
	}
	int failed = 0, status;
	while (wait(&status) > 0)
		failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	cr_expect_eq(failed, 0, "%d writers failed", failed);
	cr_expect_eq(runs_in(dir, "h.db"), 40);
}

/* The first line of what sqlite3 answers to sql on dir/db ("" none). */
static void sqlite_line(const char *dir, const char *db, const char *sql, char *out, size_t len)
{
	char cmd[4600];
	snprintf(cmd, sizeof cmd, "sqlite3 '%s/%s' \"%s\"", dir, db, sql);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	if (fgets(out, (int)len, p) == NULL)
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

/* Makes dir/db what an older alloclab's store of schema `to` is: each
 * step's additions taken away, newest first (schema.c's steps). */
static void downgrade(const char *dir, const char *db, int to)
{
	if (to < 6)
		sh("cd %s && sqlite3 %s 'ALTER TABLE repo_commit DROP COLUMN code_sha256;'", dir, db);
	if (to < 5)
		sh("cd %s && sqlite3 %s 'ALTER TABLE repo_commit DROP COLUMN commit_date;'", dir, db);
	if (to < 4)
		sh("cd %s && sqlite3 %s 'ALTER TABLE run DROP COLUMN document_sha256;'", dir, db);
	if (to < 3)
		sh("cd %s && sqlite3 %s 'ALTER TABLE run DROP COLUMN pair_reference;'", dir, db);
	if (to < 2)
		sh("cd %s && sqlite3 %s 'DROP TABLE commit_run; DROP TABLE repo_commit;'", dir, db);
	sh("cd %s && sqlite3 %s 'PRAGMA user_version = %d;'", dir, db, to);
}

Test(history, a_store_of_the_first_schema_is_migrated, .timeout = 120)
{
	char *dir = scratch_dir();
	quick_run(dir, "a.json");
	quick_run(dir, "b.json");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "add", "a.json", "--db", "old.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	downgrade(dir, "old.db", 1);
	r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "old.db", NULL});
	cr_expect_eq(r.status, 0, "read as it is: %s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"history", "add", "b.json", "--db", "old.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	cr_expect_eq(runs_in(dir, "old.db"), 2);
	char line[64];
	sqlite_line(dir, "old.db", "PRAGMA user_version;", line, sizeof line);
	cr_expect_eq(atoi(line), ALLOCLAB_STORE_SCHEMA, "schema after the migration: %s", line);
}

/* Schema 3 gave each run the label of the cell its paired ratios are
 * over: a store of schema 2 gets it from its runs' documents. */
Test(history, a_store_of_schema_2_gets_its_runs_pair_references, .timeout = 120)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--paired", "-p", "system:as=ref", "-p",
								      "system:as=other", "-w", "churn:ops=2000", "-n", "2", "-v",
								      "1", "-q", "-o", "paired.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	quick_run(dir, "alone.json");
	quick_run(dir, "later.json");
	r = run_alloclab(dir, (const char *const[]){"history", "add", "paired.json", "alone.json", "--db", "old.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	char line[256];
	sqlite_line(dir, "old.db", "SELECT group_concat(r, ' ') FROM (SELECT ifnull(pair_reference, 'NULL') AS r FROM run ORDER BY id);", line,
		    sizeof line);
	cr_expect_str_eq(line, "ref NULL", "as added: %s", line);
	downgrade(dir, "old.db", 2);
	r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "old.db", NULL});
	cr_expect_eq(r.status, 0, "read as it is: %s", r.err);
	cmd_result_free(&r);
	sqlite_line(dir, "old.db", "PRAGMA user_version;", line, sizeof line);
	cr_expect_eq(atoi(line), 2, "reading migrated it: %s", line);
	r = run_alloclab(dir, (const char *const[]){"history", "add", "later.json", "--db", "old.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	sqlite_line(dir, "old.db", "PRAGMA user_version;", line, sizeof line);
	cr_expect_eq(atoi(line), ALLOCLAB_STORE_SCHEMA, "schema after the migration: %s", line);
	sqlite_line(dir, "old.db", "SELECT group_concat(r, ' ') FROM (SELECT ifnull(pair_reference, 'NULL') AS r FROM run ORDER BY id);", line,
		    sizeof line);
	cr_expect_str_eq(line, "ref NULL NULL", "migrated: %s", line);
	cr_expect_eq(runs_in(dir, "old.db"), 3);
}

/* A store of one paired run of two builds labelled as commits, and a
 * repository whose second commit that run measured against the first:
 * `history show` reads the run's document for the step. */
static void store_of_one_step(const char *dir, const char *db)
{
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--paired", "-p", "system:as=aaaaaaaaaaaa", "-p",
								      "system:as=bbbbbbbbbbbb", "-w", "churn:ops=2000", "-n", "2", "-v",
								      "1", "-q", "-o", "step.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"history", "add", "step.json", "--db", db, NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	const char *a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", *b = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
	sh("cd %s && sqlite3 %s \"INSERT INTO repo_commit (repo, commit_hash, ordinal, subject, state, why, sha256) "
	   "VALUES ('/r', '%s', 0, 'first', 'measured', NULL, NULL), "
	   "('/r', '%s', 1, 'second', 'measured', NULL, NULL); INSERT INTO commit_run VALUES ('/r', '%s', 1, 'time', '%s');\"",
	   dir, db, a, b, b, a);
}

/* Replaces run 1's document in dir/db with a valid one, compressed as
 * the store compresses: its every value five times the stored one's
 * ("values"), or only what no row holds changed ("load": the load average
 * the run started at); with `checksum`, run.document_sha256 is made that
 * of the forgery too. */
static void forge_document(const char *dir, const char *db, const char *what, int checksum)
{
	FILE *f = fopen(path_in(dir, "forge.py"), "w");
	cr_assert_not_null(f);
	fputs("import json, sys\n"
	      "d = json.load(open(sys.argv[1]))\n"
	      "if sys.argv[3] == 'load':\n"
	      "    d['metadata']['load_average_start'] = 0.25\n"
	      "for c in d['cells'] if sys.argv[3] == 'values' else []:\n"
	      "    for p in c.get('runs', []):\n"
	      "        for v in p.get('values', []):\n"
	      "            v[c['metric']] *= 5\n"
	      "json.dump(d, open(sys.argv[2], 'w'), separators=(',', ':'))\n",
	      f);
	fclose(f);
	sh("cd %s && sqlite3 %s \"SELECT writefile('doc.zst', document) FROM run WHERE id = 1;\" > /dev/null && "
	   "zstd -qdf doc.zst -o doc.json && /usr/bin/python3.11 forge.py doc.json forged.json %s && "
	   "zstd -qf forged.json -o forged.zst && sqlite3 %s \"UPDATE run SET document = readfile('forged.zst') WHERE id = 1;\"",
	   dir, db, what, db);
	if (checksum)
		sh("cd %s && sqlite3 %s \"UPDATE run SET document_sha256 = '$(sha256sum < forged.json | cut -c1-64)' WHERE id = 1;\"",
		   dir, db);
}

/* `history show` and `report` refuse the store in one line, exit status
 * 2, printing none of what it holds. */
static void expect_store_refused(const char *dir, const char *db, const char *text)
{
	const char *const commands[][6] = {{"history", "show", "--db", db, NULL}, {"report", db, "-o", "site", NULL}};
	for (size_t k = 0; k < 2; k++) {
		struct cmd_result r = run_alloclab(dir, commands[k]);
		cr_expect_eq(r.status, 2, "%s %s: %d %s%s", commands[k][0], db, r.status, r.out, r.err);
		cr_expect(strstr(r.err, text) != NULL, "%s %s: expected '%s', got: %s", commands[k][0], db, text, r.err);
		cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
		cr_expect(strstr(r.out, " ns ") == NULL, "%s %s printed a level: %s", commands[k][0], db, r.out);
		cmd_result_free(&r);
	}
}

/* A run's document replaced by a valid one of five times its values was
 * shown as it said, though the store's value rows disagreed: a document
 * changed without its checksum is refused (one changed only where no row
 * could tell too), and one whose checksum was changed with it disagrees
 * with its rows. */
Test(history, a_forged_document_is_refused, .timeout = 120)
{
	char *dir = scratch_dir();
	store_of_one_step(dir, "h.db");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "h.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "bbbbbbbbbbbb") != NULL, "the step is shown: %s", r.out);
	cmd_result_free(&r);
	sh("cd %s && cp h.db forged.db && cp h.db loaded.db && cp h.db summed.db", dir);
	forge_document(dir, "forged.db", "values", 0);
	expect_store_refused(dir, "forged.db",
			     "forged.db: run 1's document does not match its checksum: the store was changed outside alloclab");
	forge_document(dir, "loaded.db", "load", 0);
	expect_store_refused(dir, "loaded.db", "loaded.db: run 1's document does not match its checksum");
	forge_document(dir, "summed.db", "values", 1);
	expect_store_refused(dir, "summed.db", "summed.db: run 1's document does not match its rows (cells[0], "
					       "aaaaaaaaaaaa on churn: process 0's value 0: ");
}

/* Schema 4 keeps each document's checksum: a store of schema 3 gets its
 * runs' when migrated, each document first checked against its rows, so
 * that one forged before the migration is refused, not blessed. */
Test(history, a_store_of_schema_3_gets_its_documents_checksums, .timeout = 120)
{
	char *dir = scratch_dir();
	store_of_one_step(dir, "old.db");
	quick_run(dir, "later.json");
	downgrade(dir, "old.db", 3);
	sh("cd %s && cp old.db forged.db", dir);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "add", "later.json", "--db", "old.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	char line[256], want[256];
	sqlite_line(dir, "old.db", "PRAGMA user_version;", line, sizeof line);
	cr_expect_eq(atoi(line), ALLOCLAB_STORE_SCHEMA, "schema after the migration: %s", line);
	for (int id = 1; id <= 2; id++) {
		char sql[128], cmd[4400];
		snprintf(sql, sizeof sql, "SELECT document_sha256 FROM run WHERE id = %d;", id);
		sqlite_line(dir, "old.db", sql, line, sizeof line);
		snprintf(cmd, sizeof cmd, "cd %s && sqlite3 old.db \"SELECT writefile('d.zst', document) FROM run WHERE id = %d;\" "
			 ">/dev/null && zstd -qdc d.zst | sha256sum | cut -c1-64", dir, id);
		FILE *p = popen(cmd, "r");
		cr_assert_not_null(p);
		if (fgets(want, sizeof want, p) == NULL)
			want[0] = '\0';
		pclose(p);
		want[strcspn(want, "\n")] = '\0';
		cr_expect(strlen(want) == 64 && strcmp(line, want) == 0, "run %d: '%s', its document's '%s'", id, line, want);
	}
	r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "old.db", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	/* Forged while it was of schema 3: read as it is, and refused to be
	 * migrated, the file left as it was. */
	forge_document(dir, "forged.db", "values", 0);
	expect_store_refused(dir, "forged.db", "forged.db: run 1's document does not match its rows");
	sh("cd %s && cp later.json run.json", dir);
	expect_refused_unchanged(dir, "forged.db", "forged.db: run 1's document does not match its rows");
}

/* `history add` made the store before it read the files: a refused file
 * left an empty store behind. */
Test(history, a_refused_results_file_makes_no_store, .timeout = 120)
{
	char *dir = scratch_dir();
	quick_run(dir, "good.json");
	sh("cd %s && printf '{}' > bad.json", dir);
	const char *const cases[][7] = {{"history", "add", "bad.json", "--db", "new.db", NULL},
					{"history", "add", "missing.json", "--db", "new.db", NULL},
					{"history", "add", "bad.json", "missing.json", "--db", "new.db", NULL}};
	for (size_t k = 0; k < 3; k++) {
		struct cmd_result r = run_alloclab(dir, cases[k]);
		cr_expect_eq(r.status, 2, "%s: %d %s", cases[k][2], r.status, r.err);
		cr_expect(access(path_in(dir, "new.db"), F_OK) != 0, "%s made the store", cases[k][2]);
		cmd_result_free(&r);
	}
	/* A good file beside a refused one is added. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "add", "bad.json", "good.json", "--db", "new.db",
								      NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cmd_result_free(&r);
	cr_expect_eq(runs_in(dir, "new.db"), 1);
}

/* Starts a process that holds dir/h.db with a transaction begun as `how`
 * (EXCLUSIVE: no reader either; IMMEDIATE: no other writer) for 100 s;
 * returns its pid once it holds it. */
static long hold_store(const char *dir, const char *how)
{
	FILE *f = fopen(path_in(dir, "hold.py"), "w");
	cr_assert_not_null(f);
	fprintf(f,
		"import sqlite3, time\n"
		"c = sqlite3.connect('h.db', isolation_level=None)\n"
		"c.execute('BEGIN %s')\n"
		"open('held', 'w').close()\n"
		"time.sleep(100)\n",
		how);
	fclose(f);
	sh("cd %s && rm -f held && { /usr/bin/python3.11 hold.py > /dev/null 2>&1 & echo $! > holder.pid; } && "
	   "for i in $(seq 300); do [ -e held ] && break; sleep 0.1; done; [ -e held ]", dir);
	char *pid = read_file(path_in(dir, "holder.pid"));
	cr_assert_not_null(pid);
	long holder = atol(pid);
	free(pid);
	return holder;
}

/* The command is refused in one line saying the store is locked by the
 * holder, and what to do. */
static void expect_locked(const char *dir, const char *const *command, long holder)
{
	char pid[64];
	snprintf(pid, sizeof pid, "(pid %ld, python3.11)", holder);
	struct cmd_result r = run_alloclab_env(dir, command, (const char *const[]){"ALLOCLAB_STORE_WAIT=1", NULL});
	cr_expect_eq(r.status, 2, "%s: %d %s", command[1], r.status, r.err);
	cr_expect(strstr(r.err, "h.db: the store is locked: another process ") && strstr(r.err, pid) &&
		  strstr(r.err, "has held it longer than alloclab waits (1 s): wait for it to finish and try again "
				"(fuser h.db names"),
		  "%s: %s", command[1], r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cmd_result_free(&r);
}

/* A store another process held past the wait was "not an alloclab
 * history store (database is locked)", or to a writer only "database is
 * locked": it is said to be locked, by which process, and what to do. */
Test(history, a_store_held_by_another_process_is_said_to_be_locked, .timeout = 120)
{
	char *dir = scratch_dir();
	quick_run(dir, "run.json");
	quick_run(dir, "other.json");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "add", "run.json", "--db", "h.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	char *before = file_sum(path_in(dir, "h.db"));
	const char *const show[] = {"history", "show", "--db", "h.db", NULL},
			  *const add[] = {"history", "add", "other.json", "--db", "h.db", NULL};
	long holder = hold_store(dir, "EXCLUSIVE");
	expect_locked(dir, show, holder);
	expect_locked(dir, add, holder);
	kill((pid_t)holder, SIGTERM);
	/* Another writer: readers read on, a writer is told. */
	holder = hold_store(dir, "IMMEDIATE");
	r = run_alloclab_env(dir, show, (const char *const[]){"ALLOCLAB_STORE_WAIT=1", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	expect_locked(dir, add, holder);
	kill((pid_t)holder, SIGTERM);
	char *after = file_sum(path_in(dir, "h.db"));
	cr_expect_str_eq(before, after, "h.db was modified");
	/* The wait is outside input too. */
	r = run_alloclab_env(dir, show, (const char *const[]){"ALLOCLAB_STORE_WAIT=soon", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "ALLOCLAB_STORE_WAIT: 'soon' is not a whole number of seconds") != NULL, "%s", r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cmd_result_free(&r);
}

/* A store given as a symbolic link was refused in SQLite's words, and a
 * dangling one made nothing but said "no such store": each is refused
 * saying it is a link, where it leads, and what to give instead; nothing
 * is made where a dangling link points. */
Test(history, a_store_given_as_a_link_is_refused_in_words, .timeout = 120)
{
	char *dir = scratch_dir();
	quick_run(dir, "run.json");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "add", "run.json", "--db", "h.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	sh("cd %s && ln -s h.db link.db && ln -s gone.db dangling.db", dir);
	static const char *const cases[][2] = {
		{"link.db", "link.db: a symbolic link to h.db: give the store's own path, not a link"},
		{"dangling.db", "dangling.db: a symbolic link to gone.db (dangling: nothing is there): give the store's own "
				"path, not a link"},
	};
	for (size_t k = 0; k < 2; k++) {
		const char *const commands[][6] = {{"history", "show", "--db", cases[k][0], NULL},
						   {"history", "add", "run.json", "--db", cases[k][0], NULL},
						   {"report", cases[k][0], "-o", "site", NULL}};
		/* report takes a dangling link for a results file that is not
		 * there (cmd_report.c tells a store by its first bytes). */
		for (size_t c = 0; c < (k == 0 ? 3 : 2); c++) {
			r = run_alloclab(dir, commands[c]);
			cr_expect_eq(r.status, 2, "%s %s: %d %s", commands[c][1], cases[k][0], r.status, r.err);
			cr_expect(strstr(r.err, cases[k][1]) != NULL, "%s %s: %s", commands[c][1], cases[k][0], r.err);
			cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
			cmd_result_free(&r);
		}
	}
	cr_expect(access(path_in(dir, "gone.db"), F_OK) != 0, "a store was made where the dangling link points");
	cr_expect_eq(runs_in(dir, "h.db"), 1);
}

/* The first ```sql block of docs/reference/store.md, written to path: the
 * query the doc shows is the one tested. */
static void doc_query(const char *path)
{
	char doc[4200];
	snprintf(doc, sizeof doc, "%s/docs/reference/store.md", source_root());
	char *text = read_file(doc);
	cr_assert_not_null(text, "%s", doc);
	char *start = strstr(text, "```sql\n"), *end = start ? strstr(start + 7, "\n```") : NULL;
	cr_assert(start && end, "%s has no ```sql block", doc);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fwrite(start + 7, 1, (size_t)(end + 1 - (start + 7)), f);
	fclose(f);
	free(text);
}

/* What a commit's series point should be, from the results files of the
 * steps: the geometric mean of its build's processes' paired ratios. */
static void expected_point(const char *dir, const char (*steps)[64], int nsteps, const char *commit, double *ratio,
			   int *processes)
{
	double logs = 0;
	*processes = 0;
	for (int s = 0; s < nsteps; s++) {
		char pattern[4400], path[4400];
		glob_t g;
		/* A step's folder is its commit and its plan's key. */
		snprintf(pattern, sizeof pattern, "%s/hist/steps/%s-*/time.json", dir, steps[s]);
		cr_assert(glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc == 1, "%s", pattern);
		snprintf(path, sizeof path, "%s", g.gl_pathv[0]);
		globfree(&g);
		json_t *doc = json_load_file(path, 0, NULL), *cell, *proc;
		cr_assert_not_null(doc, "%s", path);
		size_t i, k;
		json_array_foreach(json_object_get(doc, "cells"), i, cell) {
			if (strncmp(json_string_value(json_object_get(cell, "plugin")), commit, 12) != 0)
				continue;
			json_array_foreach(json_object_get(cell, "runs"), k, proc) {
				logs += log(json_number_value(json_object_get(proc, "pair_ratio")));
				(*processes)++;
			}
		}
		json_decref(doc);
	}
	cr_assert_gt(*processes, 0, "no process measured %s", commit);
	*ratio = exp(logs / *processes);
}

/* The series query of docs/reference/store.md, as written there, on a
 * store `history run` made: a row per commit in commit order, each the
 * commit's processes' ratio to the reference as the results files have
 * them. The first two commits build the same file: a query that joined on
 * it rather than on the commit would mix them. */
Test(history, the_documented_series_query_gives_each_commits_ratio, .timeout = 300)
{
	char *dir = scratch_dir(), repo[4300], real[PATH_MAX], build[4400], commits[3][64];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_history_repo(repo);
	cr_assert_not_null(realpath(repo, real));
	history_build_command(build, sizeof build);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "run", "--repo", repo, "HEAD~5..HEAD~3", "--db",
								      "h.db", "-o", "hist", "--build", build, "--plugin",
								      "plugin.so", "--metrics", "time", "-w", "churn:ops=20000",
								      "-n", "2", "-v", "2", "--measure-same-code", NULL});
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cmd_result_free(&r);
	for (int i = 0; i < 3; i++) {
		char cmd[4600];
		snprintf(cmd, sizeof cmd, "git -C '%s' rev-parse HEAD~%d", repo, 5 - i);
		FILE *p = popen(cmd, "r");
		cr_assert(p && fgets(commits[i], sizeof commits[i], p));
		pclose(p);
		commits[i][strcspn(commits[i], "\n")] = '\0';
	}
	char query[4400], cmd[9000], line[512];
	snprintf(query, sizeof query, "%s/series.sql", dir);
	doc_query(query);
	/* The reference: the range's first commit's build, by its label. */
	snprintf(cmd, sizeof cmd,
		 "sqlite3 -readonly -cmd \".param set :repo '%s'\" -cmd '.param set :workload churn' "
		 "-cmd '.param set :reference first-%.12s' -cmd '.param set :kind time' '%s/h.db' < '%s'",
		 real, commits[0], dir, query);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	int rows = 0;
	while (fgets(line, sizeof line, p)) {
		long machine, ordinal;
		int processes, want_processes;
		char label[64];
		double ratio, want;
		cr_assert_lt(rows, 3, "more rows than commits: %s", line);
		cr_assert_eq(sscanf(line, "%ld|%ld|%63[^|]|%lf|%d", &machine, &ordinal, label, &ratio, &processes), 5, "%s",
			     line);
		expected_point(dir, (const char(*)[64])commits + 1, 2, commits[rows], &want, &want_processes);
		cr_expect_eq(ordinal, rows, "commit order: %s", line);
		cr_expect(strncmp(label, commits[rows], 12) == 0 && strlen(label) == 12, "commit %d: %s", rows, line);
		cr_expect_eq(processes, want_processes, "commit %d: %s", rows, line);
		cr_expect(fabs(ratio - want) <= 1e-4, "commit %d: %.6f, the files say %.6f", rows, ratio, want);
		rows++;
	}
	cr_expect_eq(pclose(p), 0);
	cr_expect_eq(rows, 3, "a row per commit");
}

Test(history, ab_gates_on_a_change_of_a_few_instructions, .timeout = 300)
{
	char *dir = scratch_dir();
	build_plugin(dir, "base", 0, 0);
	build_plugin(dir, "head", 16, 0);
	build_plugin(dir, "twin", 0, 0);
	const char *common[] = {"--metrics", "instructions", "-w", "churn:ops=2000", "--fail-above", "1%", NULL};
	const char *args[20] = {"ab", "base.so", "head.so", "-o", "ab1"};
	int n = 5;
	for (int k = 0; common[k]; k++)
		args[n++] = common[k];
	args[n] = NULL;
	struct cmd_result r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 1, "a resolved regression above 1%%: %s%s", r.out, r.err);
	cr_expect(strstr(r.out, "FAIL") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "instr/op") != NULL, "%s", r.out);
	/* Where they went: the one function the change is in, by name, the
	 * two builds' copies named as one object. */
	cr_expect(strstr(r.out, "where the instructions went") && strstr(r.out, "sc_malloc [plugin]"), "%s", r.out);
	cr_expect(strstr(r.out, "load the same code") == NULL, "%s", r.out);
	cmd_result_free(&r);
	/* twin.so is base.so built again: another file, the same code. */
	args[2] = "twin.so";
	args[4] = "ab2";
	r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 0, "an A/A: %s%s", r.out, r.err);
	cr_expect(strstr(r.out, "the same") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "BASE and HEAD load the same code") != NULL, "%s", r.out);
	cmd_result_free(&r);
	args[2] = test_plugin("crash_nth");
	args[4] = "ab3";
	r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 2, "a crashing HEAD: %s%s", r.out, r.err);
	cr_expect(strstr(r.err, "HEAD") != NULL, "the message names the side: %s", r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cmd_result_free(&r);
}

Test(history, ab_measures_time_side_by_side, .timeout = 300)
{
	char *dir = scratch_dir();
	build_plugin(dir, "base", 0, 0);
	build_plugin(dir, "head", 0, 0);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"ab", "base.so", "head.so", "--metrics", "time,memory",
								      "-w", "churn:ops=20000", "-n", "3", "-v", "2",
								      "--memory-processes", "3", "-o", "t", "-f", "md", NULL});
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "| time |") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "| peak memory |") != NULL, "%s", r.out);
	/* By default whether from slices, how much from whole values: each
	 * named, and each a results file of its own. */
	cr_expect(strstr(r.out, "whether from paired, slices of 100000 operations") != NULL, "the design is named: %s", r.out);
	cr_expect(strstr(r.out, "how much from paired whole values") != NULL, "the design is named: %s", r.out);
	cr_expect(strstr(r.out, ": slices ") != NULL, "the verdict gives the slices' figures: %s", r.out);
	cmd_result_free(&r);
	/* Its results are ordinary results files. */
	r = run_alloclab(dir, (const char *const[]){"show", "t/time.json", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"show", "t/time-size.json", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	/* One design when named: whole values alone. */
	r = run_alloclab(dir, (const char *const[]){"ab", "base.so", "head.so", "--metrics", "time", "--design", "values", "-w",
						    "churn:ops=20000", "-n", "3", "-v", "2", "-o", "v", NULL});
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "time: paired, whole values") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "time-size.json") == NULL, "%s", r.out);
	cmd_result_free(&r);
}

static json_t *show_json(const char *dir, const char *db)
{
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", db, "-f", "json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	json_t *doc = json_loads(r.out, 0, NULL);
	cr_assert_not_null(doc, "%s", r.out);
	cmd_result_free(&r);
	return doc;
}

Test(history, a_repositorys_history_finds_its_change_and_its_broken_commit, .timeout = 600)
{
	char *dir = scratch_dir(), repo[4300], build[4400];
	/* A repository path with a space and a quote in it. */
	snprintf(repo, sizeof repo, "%s/my repo", dir);
	make_history_repo(repo);
	history_build_command(build, sizeof build);
	const char *args[] = {"history", "run", "--repo", repo, "HEAD~5..HEAD", "--db", "h.db", "-o", "hist", "--build", build,
			      "--plugin", "plugin.so", "--metrics", "instructions", "-w", "churn:ops=2000", "--measure-same-code",
			      NULL};
	struct cmd_result r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 1, "a commit did not build: %s%s", r.out, r.err);
	cr_expect(strstr(r.out, "6 commits: 4 steps measured now") != NULL, "%s", r.out);
	cmd_result_free(&r);
	/* Again: nothing measured again, nothing added twice. */
	r = run_alloclab(dir, args);
	cr_expect(strstr(r.out, "0 steps measured now, 4 measured before") != NULL, "%s%s", r.out, r.err);
	cmd_result_free(&r);
	/* Again on the same folder with another suite (and another store):
	 * the steps are measured anew, not read from the first suite's. */
	const char *other[] = {"history", "run", "--repo", repo, "HEAD~5..HEAD", "--db", "h2.db", "-o", "hist", "--build",
			       build, "--plugin", "plugin.so", "--metrics", "instructions", "-w", "churn:ops=3000", "--measure-same-code",
			       NULL};
	r = run_alloclab(dir, other);
	cr_expect(strstr(r.out, "4 steps measured now") != NULL, "%s%s", r.out, r.err);
	cmd_result_free(&r);
	glob_t g;
	char pattern[4400];
	int with_3000 = 0;
	snprintf(pattern, sizeof pattern, "%s/hist/steps/*/instructions.json", dir);
	cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "%s", pattern);
	for (size_t k = 0; k < g.gl_pathc; k++) {
		char *text = read_file(g.gl_pathv[k]);
		with_3000 += text && (strstr(text, "\"ops\": 3000,") || strstr(text, "\"ops\":3000,"));
		free(text);
	}
	cr_expect_eq(with_3000, 4, "steps measured with the second suite: %d of %zu files", with_3000, g.gl_pathc);
	globfree(&g);
	json_t *doc = show_json(dir, "h.db");
	json_t *series = json_array_get(json_object_get(doc, "series"), 0), *p;
	size_t i;
	int changes = 0, at = -1;
	json_array_foreach(json_object_get(series, "points"), i, p)
	{
		json_t *step = json_object_get(p, "step");
		if (json_is_true(json_object_get(step, "change"))) {
			changes++;
			at = (int)json_integer_value(json_object_get(p, "index"));
		}
	}
	cr_expect_eq(changes, 1, "one change point");
	cr_expect_eq(at, 2, "at the commit that added work");
	json_t *broken = json_array_get(json_object_get(doc, "commits"), 3);
	cr_expect_str_eq(json_string_value(json_object_get(broken, "state")), "broken");
	cr_expect(strstr(json_string_value(json_object_get(broken, "why")), "#error") != NULL);
	json_decref(doc);
}

Test(history, bisect_finds_the_commit_that_changed_the_count, .timeout = 600)
{
	char *dir = scratch_dir(), repo[4300], build[4400];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_history_repo(repo);
	history_build_command(build, sizeof build);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "bisect", "--repo", repo, "--good", "HEAD~5",
								      "--bad", "HEAD", "--metric", "instructions", "--build",
								      build, "--plugin", "plugin.so", "-w", "churn:ops=2000",
								      "-o", "b", NULL});
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	char cmd[4400], third[64] = "";
	snprintf(cmd, sizeof cmd, "git -C %s rev-parse HEAD~3", repo);
	FILE *f = popen(cmd, "r");
	cr_assert(f && fgets(third, sizeof third, f));
	pclose(f);
	third[strcspn(third, "\n")] = '\0';
	cr_expect(strstr(r.out, third) != NULL, "the first commit with the change is %s: %s", third, r.out);
	/* Its probes build good's code (a README) or bad's (more work): each
	 * classed so, unmeasured. */
	cr_expect(strstr(r.out, "loads bad's code: changed (like bad), not measured") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "loads good's code: unchanged (like good), not measured") != NULL, "%s", r.out);
	cmd_result_free(&r);
	/* fixed and readme2 load more work's code: nothing to find. */
	r = run_alloclab(dir, (const char *const[]){"history", "bisect", "--repo", repo, "--good", "HEAD~1", "--bad", "HEAD",
						    "--metric", "instructions", "--build", build, "--plugin", "plugin.so", "-w",
						    "churn:ops=2000", "-o", "b2", NULL});
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "good and bad load the same code") != NULL, "%s", r.out);
	cmd_result_free(&r);
}

Test(history, a_build_that_hangs_is_ended_at_its_deadline, .timeout = 120)
{
	char *dir = scratch_dir(), repo[4300];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_history_repo(repo);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"ab", "HEAD~1", "HEAD", "--repo", repo, "--build",
								      "sleep 100", "--build-timeout", "2", "-o", "o", NULL});
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "BASE") != NULL && strstr(r.err, "time") != NULL, "%s", r.err);
	cmd_result_free(&r);
}

Test(history, hostile_revisions_run_nothing, .timeout = 120)
{
	char *dir = scratch_dir(), repo[4300], marker[4400], rev[4600];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	snprintf(marker, sizeof marker, "%s/ran", dir);
	make_history_repo(repo);
	/* A revision that reads as an option of git's, and a hook that would
	 * run on checkout. */
	snprintf(rev, sizeof rev, "--output=%s", marker);
	sh("printf '#!/bin/sh\\ntouch %s\\n' > '%s/.git/hooks/post-checkout' && chmod +x '%s/.git/hooks/post-checkout'", marker,
	   repo, repo);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"ab", rev, "HEAD", "--repo", repo, "-o", "o", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cmd_result_free(&r);
	char build[4400];
	history_build_command(build, sizeof build);
	r = run_alloclab(dir, (const char *const[]){"ab", "HEAD~1", "HEAD", "--repo", repo, "--build", build, "--plugin",
						     "plugin.so", "--metrics", "instructions", "-w", "churn:ops=2000", "-o", "p",
						     NULL});
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cmd_result_free(&r);
	struct stat st;
	cr_expect_neq(stat(marker, &st), 0, "something of the repository's ran");
}

Test(history, shards_measure_the_steps_and_a_last_run_keeps_them, .timeout = 600)
{
	char *dir = scratch_dir(), repo[4300], build[4400];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_history_repo(repo);
	history_build_command(build, sizeof build);
	const char *common[] = {"--repo", repo, "HEAD~5..HEAD", "-o", "hist", "--build", build, "--plugin", "plugin.so",
				"--metrics", "instructions", "-w", "churn:ops=2000", "--measure-same-code",
				NULL};
	for (int k = 1; k <= 2; k++) {
		const char *args[24] = {"history", "run", "--shard", k == 1 ? "1/2" : "2/2"};
		int n = 4;
		for (int i = 0; common[i]; i++)
			args[n++] = common[i];
		args[n] = NULL;
		struct cmd_result r = run_alloclab(dir, args);
		cr_expect_eq(r.status, 1, "shard %d (a commit does not build): %s%s", k, r.out, r.err);
		cr_expect(strstr(r.out, "left to other shards") != NULL, "%s", r.out);
		cmd_result_free(&r);
	}
	struct stat st;
	cr_expect_neq(stat(path_in(dir, "alloclab-history.db"), &st), 0, "a shard wrote a store");
	/* The last run measures nothing again: it reads what the shards kept. */
	char marker[4400];
	snprintf(marker, sizeof marker, "%s/hist/steps", dir);
	sh("touch -d '2000-01-01' $(find %s -name '*.json')", marker);
	const char *args[24] = {"history", "run", "--db", "h.db"};
	int n = 4;
	for (int i = 0; common[i]; i++)
		args[n++] = common[i];
	args[n] = NULL;
	struct cmd_result r = run_alloclab(dir, args);
	cr_expect(strstr(r.out, "4 steps measured now") != NULL, "%s%s", r.out, r.err);
	cmd_result_free(&r);
	char cmd[4600], line[32] = "";
	snprintf(cmd, sizeof cmd, "find %s -name '*.json' -newermt 2001-01-01 | wc -l", marker);
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f);
	if (fgets(line, sizeof line, f) == NULL)
		line[0] = '\0';
	pclose(f);
	cr_expect_eq(atoi(line), 0, "%s results files measured again", line);
	json_t *doc = show_json(dir, "h.db");
	cr_expect_eq(json_array_size(json_object_get(json_array_get(json_object_get(doc, "series"), 0), "points")), 5,
		     "every built commit in the series");
	json_decref(doc);
}

/* Rewrites the repository's HEAD as signed, of the kind given ("PGP",
 * "SSH"): a signature that no key made, which only a check would read. */
static void sign_head(const char *repo, const char *kind)
{
	sh("cd '%s' && git cat-file commit HEAD | awk '/^committer/ {print; print \"gpgsig -----BEGIN %s SIGNATURE-----\"; "
	   "print \" x\"; print \" -----END %s SIGNATURE-----\"; next} 1' > ../signed && "
	   "git update-ref HEAD $(git hash-object -t commit -w ../signed)",
	   repo, kind, kind);
}

/* Programs a repository's configuration names, each leaving its marker
 * in dir/ran when it runs (and passing its input through, as a filter
 * must); the repository's commits made first, then its configuration:
 * filters of every kind (one in an included file), a textconv, signature
 * checks of both kinds on signed commits, the file-system monitor,
 * pagers, askpass and hooks. */
static void configure_hostile(const char *dir, const char *repo)
{
	static const char *const programs[] = {"smudge", "clean", "process", "included", "textconv", "gpg", "gpgssh",
					       "fsmonitor", "pager", "logpager", "askpass", "hook", NULL};
	sh("mkdir -p %s/ran %s/bin %s/hooks && : > %s/allowed", dir, dir, dir, dir);
	for (int k = 0; programs[k]; k++)
		sh("printf '#!/bin/sh\\ntouch %s/ran/%s\\ncat\\n' > %s/bin/%s && chmod +x %s/bin/%s", dir, programs[k], dir,
		   programs[k], dir, programs[k]);
	sh("cd %s/hooks && for h in post-checkout reference-transaction post-index-change; do cp ../bin/hook $h; done", dir);
	sh("cd '%s' && printf '* filter=x diff=y\\nREADME filter=p\\nconfig.h filter=z\\n' > .gitattributes && "
	   "git add .gitattributes && git commit -qm attributes && echo pgp >> README && git commit -qam pgp",
	   repo);
	sign_head(repo, "PGP");
	sh("cd '%s' && echo ssh >> README && git commit -qam ssh", repo);
	sign_head(repo, "SSH");
	sh("cd '%s' && printf '[filter \"z\"]\\n\\tsmudge = %s/bin/included\\n\\tclean = %s/bin/included\\n' > .git/extra.conf",
	   repo, dir, dir);
	sh("cd '%s' && git config filter.x.smudge %s/bin/smudge && git config filter.x.clean %s/bin/clean && "
	   "git config filter.x.required true && git config filter.p.process %s/bin/process && "
	   "git config include.path extra.conf && git config diff.y.textconv %s/bin/textconv && "
	   "git config log.showSignature true && git config gpg.program %s/bin/gpg && "
	   "git config gpg.ssh.program %s/bin/gpgssh && git config gpg.ssh.allowedSignersFile %s/allowed && "
	   "git config core.fsmonitor %s/bin/fsmonitor && git config core.pager %s/bin/pager && "
	   "git config pager.log %s/bin/logpager && git config core.askPass %s/bin/askpass && "
	   "git config core.hooksPath %s/hooks",
	   repo, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir);
}

/* What ran of the programs configure_hostile named: "" when none did. */
static char *ran(const char *dir)
{
	char cmd[4400], *out = calloc(1, 512);
	snprintf(cmd, sizeof cmd, "ls %s/ran | tr '\\n' ' '", dir);
	FILE *p = popen(cmd, "r");
	if (p) {
		if (fgets(out, 512, p) == NULL)
			out[0] = '\0';
		pclose(p);
	}
	return out;
}

/* Nothing a repository's configuration names runs, in ab, history run
 * and bisect of its revisions (signed ones among them) nor in ab of its
 * folder (its files touched, so that git's status would read them
 * through the clean filters), and every build still builds. */
Test(history, a_repositorys_configuration_runs_nothing, .timeout = 300)
{
	char *dir = scratch_dir(), repo[4300], build[4400];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_history_repo(repo);
	configure_hostile(dir, repo);
	history_build_command(build, sizeof build);
	const char *measure[] = {"--build", build, "--plugin", "plugin.so", "-w", "churn:ops=2000", NULL};
	const char *calls[][12] = {
		{"ab", "HEAD~1", "HEAD", "--repo", repo, "--metrics", "instructions", "-o", "ab"},
		{"history", "run", "--repo", repo, "HEAD~3..HEAD", "--db", "h.db", "-o", "hist", "--metrics", "instructions"},
		{"history", "bisect", "--repo", repo, "--good", "HEAD~3", "--bad", "HEAD", "--metric", "instructions", "-o", "b"},
		{"ab", repo, repo, "--metrics", "instructions", "-o", "folder"},
	};
	const char *expect[] = {"the same", "4 commits", "nothing to find", "the same"};
	for (int c = 0; c < 4; c++) {
		const char *args[24];
		int n = 0;
		for (int k = 0; k < 12 && calls[c][k]; k++)
			args[n++] = calls[c][k];
		for (int k = 0; measure[k]; k++)
			args[n++] = measure[k];
		args[n] = NULL;
		if (c == 3)
			sh("touch '%s'/*", repo);
		struct cmd_result r = run_alloclab(dir, args);
		cr_expect_neq(r.status, 2, "%s %s: %s%s", args[0], args[1], r.out, r.err);
		cr_expect(strstr(r.out, expect[c]) != NULL, "%s %s: %s%s", args[0], args[1], r.out, r.err);
		cmd_result_free(&r);
	}
	char *what = ran(dir);
	cr_expect_str_eq(what, "", "the repository's configuration ran: %s", what);
	free(what);
}

/* A revision's folder, build file and plugin are its own: a link it
 * commits that leads out of its files (or a --subdir that climbs out) is
 * refused in one line, exit status 2, before anything is built there;
 * a folder inside builds as before. */
Test(history, a_revisions_paths_stay_inside_it, .timeout = 300)
{
	char *dir = scratch_dir(), repo[4300], build[4600];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_history_repo(repo);
	sh("mkdir %s/outside && cd '%s' && cp plugin.c config.h %s/outside/ && "
	   "cc -O2 -shared -fPIC -I%s/framework/include plugin.c -o %s/outside/plugin.so && "
	   "printf 'all:\\n\\ttouch %s/outside/made\\n' > %s/outside/Makefile && "
	   "ln -s %s/outside plug && ln -s %s/outside/plugin.so out.so && mkdir sub real && "
	   "ln -s %s/outside/Makefile sub/Makefile && cp plugin.c config.h real/ && "
	   "git add plug out.so sub real && git commit -qm links",
	   dir, repo, dir, source_root(), dir, dir, dir, dir, dir, dir);
	history_build_command(build, sizeof build);
	strcat(build, " && touch built-here");
	const char *cases[][5] = {
		{"--subdir", "plug", "--build", build},
		{"--subdir", "../outside", "--build", build},
		{"--plugin", "out.so", "--build", "true"},
		{"--subdir", "sub"},
	};
	const char *expect[] = {"--subdir plug leaves the revision's files (plug is a symbolic link to ",
				"--subdir ../outside leaves the revision's files ('..' climbs out of it)",
				"--plugin out.so leaves the revision's files (out.so is a symbolic link to ",
				"Makefile leaves the revision's files (sub/Makefile is a symbolic link to "};
	for (int c = 0; c < 4; c++) {
		const char *args[16] = {"ab", "HEAD", "HEAD", "--repo", repo, "--metrics", "instructions", "-w",
					"churn:ops=2000", "-o", "o"};
		int n = 11;
		for (int k = 0; k < 5 && cases[c][k]; k++)
			args[n++] = cases[c][k];
		args[n] = NULL;
		struct cmd_result r = run_alloclab(dir, args);
		cr_expect_eq(r.status, 2, "case %d: %s%s", c, r.out, r.err);
		cr_expect(strstr(r.err, expect[c]) != NULL, "case %d: %s", c, r.err);
		cr_expect_eq(count_lines(r.err), 1, "case %d: %s", c, r.err);
		cmd_result_free(&r);
	}
	struct stat st;
	cr_expect_neq(stat(path_in(dir, "outside/built-here"), &st), 0, "a build ran outside the revision's files");
	cr_expect_neq(stat(path_in(dir, "outside/made"), &st), 0, "make read a Makefile outside the revision's files");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"ab", "HEAD", "HEAD", "--repo", repo, "--subdir",
								      "real", "--build", build, "--plugin", "plugin.so",
								      "--metrics", "instructions", "-w", "churn:ops=2000",
								      "-o", "inside", NULL});
	cr_expect_eq(r.status, 0, "a folder inside: %s%s", r.out, r.err);
	cmd_result_free(&r);
}

/* --sandbox: a revision's build sees none of the user's files and
 * writes only its own folder, which is the user's again after (root's
 * files given to the sandbox's own user while it builds are given back);
 * without it the same build runs with the user's rights, as the guide
 * says. Only a repository's revisions build confined: a folder of the
 * user's is refused with --sandbox. */
Test(history, a_sandboxed_build_reaches_only_its_own_folder, .timeout = 300)
{
	char *dir = scratch_dir(), repo[4300], build[4600], probe[9000];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_history_repo(repo);
	sh("echo hush-hush > %s/private", dir);
	history_build_command(build, sizeof build);
	/* The probe writes into the build folder (kept). */
	snprintf(probe, sizeof probe,
		 "%s && { mkdir -p ../build; cat %s/private > ../build/read.txt 2>&1; touch %s/written; id -u > ../build/uid.txt; true; }",
		 build, dir, dir);
	const char *confined[] = {"ab", "HEAD~1", "HEAD", "--repo", repo, "--build", probe, "--plugin", "plugin.so",
				  "--metrics", "instructions", "-w", "churn:ops=2000", "-o", "inside", "--sandbox", NULL};
	struct cmd_result r = run_alloclab(dir, confined);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cmd_result_free(&r);
	char *read = file_in(dir, "inside/base-build/build/read.txt");
	cr_expect(strstr(read, "hush-hush") == NULL, "a sandboxed build read the user's file: %s", read);
	cr_expect_neq(access(path_in(dir, "written"), F_OK), 0, "a sandboxed build wrote outside its folder");
	struct stat st;
	cr_assert_eq(stat(path_in(dir, "inside/base-build/build/read.txt"), &st), 0);
	cr_expect_eq(st.st_uid, getuid(), "the build's files are not the user's again (uid %u)", (unsigned)st.st_uid);
	cr_assert_eq(stat(path_in(dir, "inside/base-build/plugin.so"), &st), 0, "the confined build's plugin");
	if (getuid() == 0)
		cr_expect_neq(atoi(file_in(dir, "inside/base-build/build/uid.txt")), 0, "as root, the build ran as root");

	const char *free_run[] = {"ab", "HEAD~1", "HEAD", "--repo", repo, "--build", probe, "--plugin", "plugin.so",
				  "--metrics", "instructions", "-w", "churn:ops=2000", "-o", "outside", NULL};
	r = run_alloclab(dir, free_run);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cmd_result_free(&r);
	cr_expect(strstr(file_in(dir, "outside/base-build/build/read.txt"), "hush-hush") != NULL, "the control: an unconfined build");
	cr_expect_eq(access(path_in(dir, "written"), F_OK), 0, "the control: an unconfined build writes where it likes");

	r = run_alloclab(dir, (const char *const[]){"ab", test_plugin("two_faced"), test_plugin("two_faced"), "--sandbox",
						    "--metrics", "instructions", NULL});
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "--sandbox confines the builds of a repository's revisions") != NULL, "%s", r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cmd_result_free(&r);
}

/* What a build leaves cannot be turned against alloclab or the machine:
 * a FIFO where alloclab keeps the log or copies the plugin to is
 * replaced, not waited on (an unconfined build can plant one); and
 * confined, a tree deeper than PATH_MAX is walked whole (nothing of the
 * sandbox's user left, the revision's files removed), modes that would
 * let another user in are taken away, and the folder that holds the log
 * and the plugin is out of the build's reach. */
Test(history, a_builds_leftovers_are_harmless, .timeout = 300)
{
	char *dir = scratch_dir(), repo[4300], build[4600], probe[9000];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_history_repo(repo);
	history_build_command(build, sizeof build);
	snprintf(probe, sizeof probe, "%s && { mkfifo ../plugin.so ../build.log; true; }", build);
	const char *fifo[] = {"ab", "HEAD~1", "HEAD", "--repo", repo, "--build", probe, "--plugin", "plugin.so",
			      "--metrics", "instructions", "-w", "churn:ops=2000", "-o", "fifo", NULL};
	for (int again = 0; again < 2; again++) {
		struct cmd_result r = run_alloclab(dir, fifo);
		cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
		cmd_result_free(&r);
	}
	struct stat st;
	cr_expect(stat(path_in(dir, "fifo/base-build/plugin.so"), &st) == 0 && S_ISREG(st.st_mode), "the plugin a file");

	/* 45 folders of 100 letters, below the build folder: 4,500 bytes of path. */
	snprintf(probe, sizeof probe,
		 "%s && mkdir ../build/sg && chmod 3777 ../build/sg && chmod 777 . && cp /bin/true ../build/sg/t && "
		 "chmod 4755 ../build/sg/t && { touch ../planted 2>/dev/null; true; } && "
		 "deep='import os; [(os.mkdir(\"d\" * 100), os.chdir(\"d\" * 100)) for i in range(45)]; open(\"deep\", \"w\")' "
		 "&& (cd ../build && python3 -c \"$deep\") && python3 -c \"$deep\"",
		 build);
	const char *deep[] = {"ab", "HEAD~1", "HEAD", "--repo", repo, "--build", probe, "--plugin", "plugin.so",
			      "--metrics", "instructions", "-w", "churn:ops=2000", "-o", "deep", "--sandbox", NULL};
	struct cmd_result r = run_alloclab(dir, deep);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cmd_result_free(&r);
	cr_expect_neq(access(path_in(dir, "deep/base-build/planted"), F_OK), 0, "the build wrote beside its log");
	cr_expect_neq(access(path_in(dir, "deep/base-build/tree"), F_OK), 0, "the revision's files were not removed");
	cr_assert_eq(stat(path_in(dir, "deep/base-build/build/sg"), &st), 0);
	cr_expect_eq(st.st_mode & 07022, 0, "a folder others may write, or set-id: %o", (unsigned)st.st_mode);
	cr_assert_eq(stat(path_in(dir, "deep/base-build/build/sg/t"), &st), 0);
	cr_expect_eq(st.st_mode & 06000, 0, "a set-id file left: %o", (unsigned)st.st_mode);
	cr_expect_eq(st.st_uid, getuid());
	char left[64] = "";
	if (getuid() == 0) {
		/* Nothing of the sandbox users' (0x7ff00000 and up), to the bottom. */
		char cmd[5000];
		snprintf(cmd, sizeof cmd, "find %s/deep -xdev -uid +2146435071 -print -quit", dir);
		FILE *f = popen(cmd, "r");
		cr_assert_not_null(f);
		if (fgets(left, sizeof left, f) == NULL)
			left[0] = '\0';
		pclose(f);
		cr_expect_eq(left[0], '\0', "a file of a sandbox user's is left: %s", left);
	}
}

/* An A/A stays an A/A: one file against itself is never told apart, even
 * by a plugin that looks at the name of the file it was loaded from (it
 * works more when that name says "head", as ab's HEAD copy was once
 * called). Instructions are exact, so any tell would show. */
Test(history, ab_of_one_file_against_itself_is_never_a_change, .timeout = 300)
{
	char *dir = scratch_dir();
	const char *p = test_plugin("two_faced");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"ab", p, p, "--metrics", "instructions", "-w",
								      "churn:ops=2000", "-o", "aa", "--fail-above", "0%",
								      NULL});
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "the same") != NULL, "the copies were told apart: %s", r.out);
	cmd_result_free(&r);
	/* Neither copy is named for its side. */
	cr_expect(access(path_in(dir, "aa/head.so"), F_OK) != 0 && access(path_in(dir, "aa/base.so"), F_OK) != 0);
	/* One file with other options is another allocator, not the same
	 * code: its gate still gates. */
	char radix[4200], other[4300];
	snprintf(radix, sizeof radix, "%s/../plugins/obmalloc-radix.so", dirname(strdup(getenv("ALLOCLAB_EXE"))));
	snprintf(other, sizeof other, "%s:mode=none", radix);
	r = run_alloclab(dir, (const char *const[]){"ab", radix, other, "--metrics", "instructions", "-w", "churn:ops=2000",
						    "-o", "options", "--fail-above", "200%", NULL});
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "load the same code") == NULL, "%s", r.out);
	cr_expect(strstr(r.out, "fewer") != NULL || strstr(r.out, "more") != NULL, "%s", r.out);
	cmd_result_free(&r);
}

/* A HEAD that crashes in the paired time run is HEAD's failure alone:
 * BASE, lost with the worker they shared, is not blamed. */
Test(history, a_crash_is_blamed_on_its_side_alone, .timeout = 300)
{
	char *dir = scratch_dir();
	build_plugin(dir, "base", 0, 0);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"ab", "base.so", test_plugin("crash_nth"),
								      "--metrics", "time", "-w", "churn:ops=20000", "-n", "3",
								      "-v", "2", "-o", "t", NULL});
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "HEAD (head) failed") != NULL && strstr(r.err, "both") == NULL, "%s", r.err);
	cmd_result_free(&r);
}

/* A CI job's history: --steps N measures every N-th commit (the first
 * and the last always), and a line for each step says how far it is and
 * about how long the rest will take, with no terminal. */
Test(history, every_nth_commit_with_progress_on_a_log, .timeout = 600)
{
	char *dir = scratch_dir(), repo[4300], build[4400];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_history_repo(repo);
	history_build_command(build, sizeof build);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "run", "--repo", repo, "HEAD~5..HEAD",
								      "--db", "h.db", "-o", "hist", "--build", build,
								      "--plugin", "plugin.so", "--metrics", "instructions",
								      "-w", "churn:ops=2000", "--steps", "2", "--measure-same-code", NULL});
	/* Commits 0, 2, 4 and 5 of six: three steps, the broken fourth
	 * commit never built. */
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "3 steps measured now") != NULL, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "min left") != NULL && strstr(r.err, "of 6 commits done") != NULL, "%s", r.err);
	cmd_result_free(&r);
}

/* Memory that sees what the processes see: a build that holds 12% more
 * at its peak (slack in every chunk) is a resolved change, with the
 * verdict its interval says; one file against itself is not. */
Test(history, ab_sees_a_memory_step_and_no_memory_step_in_an_aa, .timeout = 300)
{
	char *dir = scratch_dir();
	build_plugin(dir, "base", 0, 0);
	build_plugin(dir, "padded", 0, 12);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"ab", "base.so", "padded.so", "--metrics", "memory",
								      "-w", "churn", "-o", "m1", "-f", "json", NULL});
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	json_t *doc = json_loads(r.out, 0, NULL), *row = json_array_get(json_object_get(doc, "rows"), 0);
	cr_assert_not_null(row, "%s", r.out);
	const json_t *iv = json_object_get(row, "interval");
	double lo = json_number_value(json_array_get(iv, 0));
	cr_expect(lo > 1, "the step is resolved: %s", r.out);
	cr_expect_str_eq(json_string_value(json_object_get(row, "verdict")), "more", "%s", r.out);
	json_decref(doc);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"ab", "base.so", "base.so", "--metrics", "memory", "-w", "churn", "-o",
						    "m2", "-f", "json", NULL});
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	doc = json_loads(r.out, 0, NULL);
	row = json_array_get(json_object_get(doc, "rows"), 0);
	iv = json_object_get(row, "interval");
	lo = json_number_value(json_array_get(iv, 0));
	double hi = json_number_value(json_array_get(iv, 1));
	const char *verdict = json_string_value(json_object_get(row, "verdict"));
	/* Whatever the noise did, the verdict and the interval agree. */
	cr_expect((lo <= 1 && hi >= 1) == (strcmp(verdict, "not resolved") == 0), "%s", r.out);
	json_decref(doc);
	cmd_result_free(&r);
}

/* A gate's threshold per workload and metric: a workload's own wins over
 * its metric's, and a row without one is gated by the metric's. */
Test(history, a_workloads_own_threshold_gates_its_rows, .timeout = 300)
{
	char *dir = scratch_dir();
	build_plugin(dir, "base", 0, 0);
	build_plugin(dir, "head", 16, 0);
	/* 16 counters in every malloc: churn's instructions grow by far more
	 * than 1%. Its own threshold of 1000% lets it pass. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"ab", "base.so", "head.so", "--metrics", "instructions",
								      "-w", "churn:ops=2000", "--fail-above", "1%",
								      "--fail-above", "churn/instructions=1000%", "-o", "g1",
								      "-f", "json", NULL});
	cr_expect_eq(r.status, 0, "churn's own threshold is 1000%%: %s%s", r.out, r.err);
	json_t *doc = json_loads(r.out, 0, NULL);
	cr_assert_not_null(doc, "%s", r.out);
	json_t *row = json_array_get(json_object_get(doc, "rows"), 0);
	cr_expect_float_eq(json_real_value(json_object_get(row, "threshold_percent")), 1000.0, 1e-9, "%s", r.out);
	cr_expect(json_is_false(json_object_get(row, "fails")), "%s", r.out);
	json_decref(doc);
	cmd_result_free(&r);
	/* Another workload's threshold does not apply to churn's row. */
	r = run_alloclab(dir, (const char *const[]){"ab", "base.so", "head.so", "--metrics", "instructions", "-w",
						    "churn:ops=2000", "--fail-above", "instructions=1%,unicode/instructions=1000%",
						    "-o", "g2", NULL});
	cr_expect_eq(r.status, 1, "churn is gated at 1%%: %s%s", r.out, r.err);
	cr_expect(strstr(r.out, "FAIL") != NULL, "%s", r.out);
	cmd_result_free(&r);
	/* A threshold of a metric that is not one is refused, naming it. */
	r = run_alloclab(dir, (const char *const[]){"ab", "base.so", "head.so", "--fail-above", "churn/speed=2%", NULL});
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "'speed' is not a metric") != NULL, "%s", r.err);
	cmd_result_free(&r);
}

/* The drift's guard: every step measured beside the range's first commit
 * (a build of the same allocator, so that commits that build the same
 * code read alike against it), the last commit's ratio to it beside the
 * steps multiplied, and whether the two agree. */
Test(history, the_first_commit_is_every_steps_reference, .timeout = 600)
{
	char *dir = scratch_dir(), repo[4300], build[4400];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_history_repo(repo);
	history_build_command(build, sizeof build);
	/* first, readme, more work (16 counters a malloc), broken, fixed,
	 * readme2: the first is the reference, the broken one skipped. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "run", "--repo", repo, "HEAD~5..HEAD", "--db",
								      "h.db", "-o", "hist", "--build", build, "--plugin",
								      "plugin.so", "--metrics", "time", "-w", "churn:ops=20000",
								      "-n", "8", "-v", "2", NULL});
	cr_expect_eq(r.status, 1, "a commit did not build: %s%s", r.out, r.err);
	cmd_result_free(&r);
	char cmd[4400], first[64] = "";
	snprintf(cmd, sizeof cmd, "git -C '%s' rev-parse HEAD~5", repo);
	FILE *f = popen(cmd, "r");
	cr_assert(f && fgets(first, sizeof first, f));
	pclose(f);
	first[12] = '\0';
	json_t *doc = show_json(dir, "h.db");
	char want[40];
	snprintf(want, sizeof want, "first-%s", first);
	cr_expect_str_eq(json_string_value(json_object_get(doc, "reference")), want, "the reference is the first commit");
	json_t *series = json_array_get(json_object_get(doc, "series"), 0), *p;
	size_t i;
	int with_reference = 0;
	json_array_foreach(json_object_get(series, "points"), i, p)
		with_reference += json_object_get(p, "reference") != NULL;
	cr_expect_eq(with_reference, 5, "every commit that built has its ratio to the first: %d", with_reference);
	/* 16 counters in every malloc more than double churn's time: the
	 * drift and the steps multiplied both see it, however busy the
	 * machine. */
	json_t *drift = json_object_get(series, "drift"), *chained = json_object_get(series, "steps_chained");
	cr_assert_not_null(drift);
	cr_assert_not_null(chained, "the steps multiplied are shown beside the drift");
	cr_expect_gt(json_real_value(json_object_get(drift, "ratio")), 1.5);
	cr_expect_gt(json_real_value(json_object_get(chained, "ratio")), 1.5);
	cr_expect(json_is_boolean(json_object_get(chained, "drift_agrees")));
	json_decref(doc);
	r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "h.db", NULL});
	cr_expect(strstr(r.out, "the steps between, multiplied:") != NULL, "%s", r.out);
	cmd_result_free(&r);
}

/* What history's progress line quotes of a commit that does not build
 * reaches the terminal harmless. */
Test(history, a_builds_error_reaches_the_terminal_harmless, .timeout = 300)
{
	char *dir = scratch_dir(), repo[4300], build[4800], plain[4400];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_history_repo(repo);
	sh("cd '%s' && touch bad && git add bad && git commit -qm bad", repo);
	history_build_command(plain, sizeof plain);
	/* A window title and a screen clear in the command itself (a command
	 * line is text from outside too), quoted when the commit that has
	 * bad does not build. */
	snprintf(build, sizeof build, "if test -f bad; then echo '\033]0;pwned\007\033[2J' >&2; exit 1; fi; %s", plain);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "run", "--repo", repo, "HEAD~1..HEAD", "--db",
								      "h.db", "-o", "hist", "--build", build, "--plugin",
								      "plugin.so", "--metrics", "instructions", "-w", "churn:ops=2000",
								      NULL});
	cr_expect_eq(r.status, 1, "the last commit does not build: %s%s", r.out, r.err);
	cr_expect(strstr(r.err, "does not build") != NULL, "%s", r.err);
	cr_expect(strchr(r.err, '\033') == NULL && strchr(r.err, '\007') == NULL, "raw escapes on stderr: %s", r.err);
	cmd_result_free(&r);
}

/* Schema 5 keeps each commit's date: history show gives it, a store of
 * schema 4 is read as it is (no dates) and, run again, gets them. */
Test(history, a_commits_date_is_kept_and_an_older_store_gets_it, .timeout = 300)
{
	char *dir = scratch_dir(), repo[4300], build[4400];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_history_repo(repo);
	history_build_command(build, sizeof build);
	const char *args[] = {"history", "run", "--repo", repo, "HEAD~2..HEAD", "--db", "h.db", "-o", "hist", "--build", build,
			      "--plugin", "plugin.so", "--metrics", "instructions", "-w", "churn:ops=2000", NULL};
	struct cmd_result r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 1, "a commit did not build: %s%s", r.out, r.err);
	cmd_result_free(&r);
	char want[64] = "", cmd[4400];
	snprintf(cmd, sizeof cmd, "git -C '%s' log -1 --format=%%cI HEAD", repo);
	FILE *f = popen(cmd, "r");
	cr_assert(f && fgets(want, sizeof want, f));
	pclose(f);
	want[strcspn(want, "\n")] = '\0';
	json_t *doc = show_json(dir, "h.db");
	json_t *last = json_array_get(json_object_get(doc, "commits"), 2);
	cr_expect_str_eq(json_string_value(json_object_get(last, "date")), want);
	json_decref(doc);
	downgrade(dir, "h.db", 4);
	doc = show_json(dir, "h.db");
	cr_expect(json_is_null(json_object_get(json_array_get(json_object_get(doc, "commits"), 2), "date")),
		  "a store of schema 4 has no dates");
	json_decref(doc);
	r = run_alloclab(dir, args);
	cmd_result_free(&r);
	doc = show_json(dir, "h.db");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(doc, "commits"), 2), "date")), want,
			 "migrated and run again, the dates are filled in");
	json_decref(doc);
}

/* A commit whose plugin loads the same code as the one before it (a
 * README, a comment; built with debugging information in a folder of its
 * own, so that the files differ) is not measured: its step is 1 exactly,
 * never a change point, its level the one before's; the next commit is
 * measured against the last one measured. --measure-same-code measures
 * them all. */
Test(history, a_commit_that_loads_the_same_code_is_not_measured, .timeout = 600)
{
	char *dir = scratch_dir(), repo[4300], build[4400];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_history_repo(repo);
	snprintf(build, sizeof build, "cc -O2 -g -shared -fPIC -I%s/framework/include \"$PWD/plugin.c\" -o plugin.so",
		 getenv("ALLOCLAB_SOURCE_ROOT"));
	/* first, readme, more work, broken, fixed (more work's code), readme2. */
	const char *args[] = {"history", "run", "--repo", repo, "HEAD~5..HEAD", "--db", "h.db", "-o", "hist", "--build", build,
			      "--plugin", "plugin.so", "--metrics", "instructions,memory", "-w", "churn:ops=2000",
			      "--memory-processes", "4", NULL};
	struct cmd_result r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 1, "a commit did not build: %s%s", r.out, r.err);
	cr_expect(strstr(r.out, "6 commits: 1 steps measured now") != NULL, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "3 not measured (the same code as the commit before)") != NULL, "%s", r.out);
	cr_expect(strstr(r.err, "loads the same code as") != NULL, "%s", r.err);
	cmd_result_free(&r);
	/* The files differ (each folder is in its build's debugging
	 * information): the code is what is compared. */
	char cmd[4600], line[64] = "";
	snprintf(cmd, sizeof cmd,
		 "cd %s && sqlite3 h.db \"SELECT COUNT(DISTINCT sha256), COUNT(DISTINCT code_sha256) FROM repo_commit "
		 "WHERE state = 'measured'\"",
		 dir);
	FILE *f = popen(cmd, "r");
	cr_assert(f && fgets(line, sizeof line, f));
	pclose(f);
	cr_expect_str_eq(line, "5|2\n", "five builds, two codes: %s", line);

	json_t *doc = show_json(dir, "h.db"), *series;
	size_t si, i;
	int seen = 0;
	json_array_foreach(json_object_get(doc, "series"), si, series)
	{
		json_t *p;
		double level[6] = {-1, -1, -1, -1, -1, -1};
		int same[6] = {0}, change[6] = {0};
		json_array_foreach(json_object_get(series, "points"), i, p)
		{
			int at = (int)json_integer_value(json_object_get(p, "index"));
			json_t *step = json_object_get(p, "step");
			cr_assert(at >= 0 && at < 6);
			level[at] = json_real_value(json_object_get(p, "level"));
			same[at] = json_is_true(json_object_get(step, "same_code"));
			change[at] = json_is_true(json_object_get(step, "change"));
			if (same[at]) {
				json_t *iv = json_object_get(step, "interval");
				cr_expect_eq(json_real_value(json_object_get(step, "ratio")), 1.0);
				cr_expect(json_real_value(json_array_get(iv, 0)) == 1 && json_real_value(json_array_get(iv, 1)) == 1);
			}
		}
		const char *metric = json_string_value(json_object_get(series, "metric"));
		cr_expect(same[1] && same[4] && same[5] && !same[2], "%s: the same code at 1, 4 and 5", metric);
		cr_expect(!change[1] && !change[4] && !change[5], "%s: a same-code step is no change point", metric);
		cr_expect_eq(level[1], level[0], "%s: readme's level is the first's", metric);
		cr_expect_eq(level[5], level[2], "%s: readme2's level is more work's", metric);
		if (strcmp(metric, "instructions") == 0)
			cr_expect(change[2], "more work is a change of instructions");
		seen++;
	}
	cr_expect_eq(seen, 2, "a series of instructions and one of memory");
	json_decref(doc);
	r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "h.db", NULL});
	cr_expect(strstr(r.out, "same code") != NULL, "%s", r.out);
	cmd_result_free(&r);

	/* Measured all the same when asked. */
	const char *all[] = {"history", "run", "--repo", repo, "HEAD~5..HEAD", "--db", "all.db", "-o", "hist", "--build", build,
			     "--plugin", "plugin.so", "--metrics", "instructions", "-w", "churn:ops=2000",
			     "--measure-same-code", NULL};
	r = run_alloclab(dir, all);
	cr_expect(strstr(r.out, "6 commits: 4 steps measured now") != NULL, "%s%s", r.out, r.err);
	cmd_result_free(&r);
}

/* A repository of A, B, A again, a README, B again: its steps' ratios of
 * instructions per op, commit by commit (0 none; -1 no point), from the
 * store's history. */
static void aba_repo(const char *repo)
{
	sh("mkdir -p '%s' && cd '%s' && git init -q && git config user.email t@example.org && git config user.name t && "
	   "cp %s/tests/fixtures/history/plugin.c . && w() { printf '#define EXTRA_WORK %%d\\n#define SLACK_PERCENT 0\\n' "
	   "$1 > config.h; } && w 0 && git add . && git commit -qm A && w 20 && git commit -qam B && w 0 && "
	   "git commit -qam 'A again' && echo r > README && git add README && git commit -qm readme && w 20 && "
	   "git commit -qam 'B again'",
	   repo, repo, getenv("ALLOCLAB_SOURCE_ROOT"));
}

static void aba_run(const char *dir, const char *repo, const char *db, const char *range, const char *extra)
{
	char build[4400];
	history_build_command(build, sizeof build);
	const char *args[24] = {"history", "run", "--repo", repo, range, "--db", db, "-o", "hist", "--build", build,
				"--plugin", "plugin.so", "--metrics", "instructions", "-w", "churn:ops=2000", extra, NULL};
	struct cmd_result r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 0, "%s %s: %s%s", range, extra ? extra : "", r.out, r.err);
	cmd_result_free(&r);
}

/* Each of the five commits' step in the store's history: its ratio, 1
 * for same code (same[k] set), 0 for none, -1 for no point. */
static void aba_steps(const char *dir, const char *db, double ratio[5], int same[5])
{
	json_t *doc = show_json(dir, db), *p;
	size_t i;
	for (int k = 0; k < 5; k++)
		ratio[k] = -1, same[k] = 0;
	json_array_foreach(json_object_get(json_array_get(json_object_get(doc, "series"), 0), "points"), i, p)
	{
		int at = (int)json_integer_value(json_object_get(p, "index"));
		json_t *step = json_object_get(p, "step");
		cr_assert(at >= 0 && at < 5, "index %d", at);
		ratio[at] = step ? json_real_value(json_object_get(step, "ratio")) : 0;
		same[at] = json_is_true(json_object_get(step, "same_code"));
	}
	json_decref(doc);
}

/* However a history is measured (--steps first, then whole; two ranges
 * that overlap; a store made before code hashes, migrated), every commit
 * is in it in its place, B -> A is measured (fewer instructions), the
 * README is the same code as A, and B again is B's count over A's. */
Test(history, runs_that_skip_overlap_or_predate_code_hashes_make_one_history, .timeout = 600)
{
	char *dir = scratch_dir(), repo[4300];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	aba_repo(repo);
	const char *ways[3] = {"steps", "overlap", "older"};
	for (int w = 0; w < 3; w++) {
		char db[32];
		snprintf(db, sizeof db, "%s.db", ways[w]);
		if (w == 0) {
			aba_run(dir, repo, db, "HEAD~4..HEAD", "--steps=2");
			aba_run(dir, repo, db, "HEAD~4..HEAD", NULL);
		} else {
			aba_run(dir, repo, db, "HEAD~4..HEAD~2", NULL);
			if (w == 2)
				sh("cd %s && sqlite3 %s 'ALTER TABLE repo_commit DROP COLUMN code_sha256; PRAGMA user_version = 5;'",
				   dir, db);
			aba_run(dir, repo, db, w == 1 ? "HEAD~2..HEAD" : "HEAD~4..HEAD", NULL);
		}
		double ratio[5];
		int same[5];
		aba_steps(dir, db, ratio, same);
		cr_expect(ratio[1] > 1.5, "%s: B over A: %g", ways[w], ratio[1]);
		cr_expect(ratio[2] > 0 && ratio[2] < 0.7, "%s: A again over B: %g", ways[w], ratio[2]);
		cr_expect(same[3] && ratio[3] == 1, "%s: the README is A's code: %g", ways[w], ratio[3]);
		cr_expect(ratio[4] > 1.5, "%s: B again over A: %g", ways[w], ratio[4]);
	}
}

/* A note made to look like a build ID (which the code hash zeroes) that
 * holds the work a malloc does: the two builds hash alike, but their
 * instruction counts differ, so ab does not call them the same code and
 * its gate gates. */
Test(history, a_note_dressed_as_a_build_id_does_not_pass_the_gate, .timeout = 300)
{
	char *dir = scratch_dir();
	for (int k = 0; k < 2; k++)
		sh("mkdir -p %s/n%d && cd %s/n%d && cp %s/tests/fixtures/history/plugin.c . && "
		   "printf 'struct nt { unsigned namesz, descsz, type; char name[4]; unsigned desc; };\n"
		   "__attribute__((section(\".note.tune\"), used, aligned(4)))\n"
		   "const volatile struct nt tune = {4, 4, 3, \"GNU\", %d};\n"
		   "#define EXTRA_WORK ((int)tune.desc)\n#define SLACK_PERCENT 0\n' > config.h && "
		   "cc -O2 -shared -fPIC -I%s/framework/include plugin.c -o ../n%d.so",
		   dir, k, dir, k, getenv("ALLOCLAB_SOURCE_ROOT"), k ? 40 : 0, getenv("ALLOCLAB_SOURCE_ROOT"), k);
	char a[4400], b[4400], ha[ALLOCLAB_SHA256_HEX], hb[ALLOCLAB_SHA256_HEX], err[1400];
	snprintf(a, sizeof a, "%s/n0.so", dir);
	snprintf(b, sizeof b, "%s/n1.so", dir);
	cr_assert_eq(alloclab_plugin_code_sha256(a, ha, err, sizeof err), 0, "%s", err);
	cr_assert_eq(alloclab_plugin_code_sha256(b, hb, err, sizeof err), 0, "%s", err);
	cr_expect_str_eq(ha, hb, "the note was expected to fool the hash (else this test tests nothing)");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"ab", "n0.so", "n1.so", "--metrics", "instructions", "-w",
								      "churn:ops=2000", "-o", "ab", "--fail-above", "1%", NULL});
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "load the same code") == NULL, "%s", r.out);
	cmd_result_free(&r);
}

/* Every run of commit `label`'s cell in a time results file made
 * `factor` times slower (what a neighbour on the machine's caches did to
 * one step for a few minutes). */
static void slow_down(const char *file, const char *label, double factor)
{
	json_t *doc = json_load_file(file, 0, NULL), *cell, *run, *value;
	cr_assert_not_null(doc, "%s", file);
	size_t i, j, k;
	int found = 0;
	json_array_foreach(json_object_get(doc, "cells"), i, cell)
	{
		if (strcmp(json_string_value(json_object_get(cell, "plugin")), label) != 0)
			continue;
		found = 1;
		json_array_foreach(json_object_get(cell, "runs"), j, run)
		{
			json_t *ratio = json_object_get(run, "pair_ratio");
			if (ratio)
				json_object_set_new(run, "pair_ratio", json_real(json_number_value(ratio) * factor));
			json_array_foreach(json_object_get(run, "values"), k, value)
			{
				json_object_set_new(value, "ns_per_op",
						    json_real(json_number_value(json_object_get(value, "ns_per_op")) * factor));
				json_object_set_new(value, "wall_ns",
						    json_integer((json_int_t)(json_number_value(json_object_get(value, "wall_ns")) *
									      factor)));
				json_t *threads = json_object_get(value, "thread_ns"), *t;
				size_t m;
				json_array_foreach(threads, m, t)
					json_array_set_new(threads, m, json_integer((json_int_t)(json_number_value(t) * factor)));
			}
		}
	}
	cr_assert(found, "no cell of %s in %s", label, file);
	cr_assert_eq(json_dump_file(doc, file, JSON_COMPACT), 0);
	json_decref(doc);
}

/* A repository of the history fixture with one commit for each EXTRA_WORK
 * value in `works`; the commit at index `crashing` (-1: none) aborts in
 * create while DIR/CRASH exists (how "CRASH_IF"), or from its second
 * create on ("CRASH_AFTER"). */
static void make_work_repo(const char *dir, const char *repo, const char *works, int crashing, const char *how)
{
	sh("mkdir -p '%s' && cd '%s' && git init -q && git config user.email t@example.org && git config user.name t && "
	   "cp %s/tests/fixtures/history/plugin.c . && i=0 && for w in %s; do printf '#define EXTRA_WORK %%s\\n#define "
	   "SLACK_PERCENT 0\\n' $w > config.h && if [ $i = %d ]; then printf '#define %s \"%%s/CRASH\"\\n' '%s' "
	   ">> config.h; fi && git add . && git commit -qm \"work $w\" && i=$((i+1)); done",
	   repo, repo, getenv("ALLOCLAB_SOURCE_ROOT"), works, crashing, how, dir);
}

/* The arguments of a history run over the last four commits of repo into
 * dir/hist, time only and small: `extra` (two words) first. */
static void small_run_args(const char *args[32], const char *extra1, const char *extra2, const char *repo,
			   const char *build)
{
	const char *common[] = {"--repo", repo, "HEAD~3..HEAD", "-o", "hist", "--build", build, "--plugin", "plugin.so",
				"--metrics", "time", "-w", "churn:ops=20000", "-n", "8", "-v", "2", NULL};
	int n = 0;
	args[n++] = "history";
	args[n++] = "run";
	args[n++] = extra1;
	args[n++] = extra2;
	for (int i = 0; common[i]; i++)
		args[n++] = common[i];
	args[n] = NULL;
}

/* The four commits' steps measured into dir/hist by a shard (which keeps
 * no store), then the third commit's step made 50% slower for it (what a
 * neighbour on the machine's caches did to one step for a few minutes);
 * c2: that commit. */
static void shard_then_disturb(const char *dir, const char *repo, const char *build, char c2[64])
{
	const char *args[32];
	small_run_args(args, "--shard", "1/1", repo, build);
	struct cmd_result r = run_alloclab(dir, args);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cmd_result_free(&r);
	char cmd[4600], step[4800] = "";
	snprintf(cmd, sizeof cmd, "git -C '%s' rev-parse HEAD~1", repo);
	FILE *f = popen(cmd, "r");
	cr_assert(f && fgets(c2, 64, f));
	pclose(f);
	c2[40] = '\0';
	snprintf(cmd, sizeof cmd, "ls -d %s/hist/steps/%s-*", dir, c2);
	f = popen(cmd, "r");
	cr_assert(f && fgets(step, sizeof step, f), "%s", cmd);
	pclose(f);
	step[strcspn(step, "\n")] = '\0';
	char file[4900], label[13];
	snprintf(label, sizeof label, "%.12s", c2);
	snprintf(file, sizeof file, "%s/time.json", step);
	slow_down(file, label, 1.5);
	snprintf(file, sizeof file, "%s/time-size.json", step);
	slow_down(file, label, 1.5);
}

/* A step measured while the machine was otherwise reads its commit apart
 * against the reference from the next step, which measured the same build
 * beside the same reference: history run sees it and measures the step
 * again, and the drift then equals the steps multiplied. Before, the
 * disturbed step stayed and the guard said the two disagree. Steps that
 * another machine measured (a shard's) are left as they are: measured
 * again here they would not stand for that machine's. */
Test(history, a_step_the_machine_disturbed_is_measured_again, .timeout = 600)
{
	char *dir = scratch_dir(), repo[4300], build[4400], c2[64] = "";
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_work_repo(dir, repo, "0 4 8 12", -1, "");
	history_build_command(build, sizeof build);
	shard_then_disturb(dir, repo, build, c2);
	/* As if another machine had measured the steps: nothing measured again. */
	sh("cd '%s' && cp -r hist elsewhere && sed -i 's/\"host\": *\"[^\"]*\"/\"host\": \"node-a\"/' "
	   "elsewhere/steps/*/*.json",
	   dir);
	const char *args[32];
	small_run_args(args, "--db", "elsewhere.db", repo, build);
	args[8] = "elsewhere";
	struct cmd_result r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "measured again") == NULL, "another machine's steps measured here: %s%s", r.out, r.err);
	cmd_result_free(&r);
	small_run_args(args, "--db", "h.db", repo, build);
	/* The run that keeps them in a store reads them. */
	r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "1 measured again") != NULL || strstr(r.out, "2 measured again") != NULL, "%s%s", r.out,
		  r.err);
	cr_expect(strstr(r.err, "the machine changed between them") != NULL, "%s", r.err);
	cmd_result_free(&r);
	json_t *doc = show_json(dir, "h.db");
	json_t *series = json_array_get(json_object_get(doc, "series"), 0), *p, *chained;
	size_t i;
	json_array_foreach(json_object_get(series, "points"), i, p)
	{
		json_t *next = json_object_get(json_object_get(p, "reference"), "next_step");
		if (strcmp(json_string_value(json_object_get(p, "commit")), c2) == 0) {
			cr_expect_not_null(next, "the commit has two readings against the reference");
			cr_expect(!json_is_true(json_object_get(next, "moved")), "the step measured again agrees");
			double step_ratio = json_real_value(json_object_get(json_object_get(p, "step"), "ratio"));
			/* Four counters more: about 1.1; disturbed, half as much again. */
			cr_expect_lt(step_ratio, 1.35, "the disturbed step is not the one shown: %g", step_ratio);
		}
	}
	chained = json_object_get(series, "steps_chained");
	cr_assert_not_null(chained);
	cr_expect(json_is_true(json_object_get(chained, "drift_agrees")), "the drift equals the steps multiplied");
	json_decref(doc);
	/* Another store over the same folder reads the step measured again
	 * back, measures nothing again, and holds the same history. */
	small_run_args(args, "--db", "h2.db", repo, build);
	r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "measured again") == NULL, "%s%s", r.out, r.err);
	cmd_result_free(&r);
	doc = show_json(dir, "h2.db");
	chained = json_object_get(json_array_get(json_object_get(doc, "series"), 0), "steps_chained");
	cr_expect(json_is_true(json_object_get(chained, "drift_agrees")), "the second store's drift agrees too");
	json_decref(doc);
	/* And history show says so. */
	r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "h.db", NULL});
	cr_expect(strstr(r.out, "the drift agrees with them") != NULL, "%s", r.out);
	cmd_result_free(&r);
}

/* A build that fails when its step is measured again keeps its first
 * measurement (it measured fine then); the run says so and ends with
 * status 1. Before, the commit was recorded broken after the steps
 * around it had used it, and the run ended with 0. */
Test(history, a_build_that_fails_when_measured_again_keeps_its_measurement, .timeout = 600)
{
	char *dir = scratch_dir(), repo[4300], build[4400], c2[64] = "";
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_work_repo(dir, repo, "0 4 8 12", 2, "CRASH_IF");
	history_build_command(build, sizeof build);
	shard_then_disturb(dir, repo, build, c2);
	sh("touch '%s/CRASH'", dir);
	const char *args[32];
	small_run_args(args, "--db", "h.db", repo, build);
	struct cmd_result r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "1 failed when measured again") != NULL, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "failed when measured again (its first measurement is kept)") != NULL, "%s", r.err);
	cmd_result_free(&r);
	json_t *doc = show_json(dir, "h.db"), *c;
	size_t i;
	int broken = 0;
	json_array_foreach(json_object_get(doc, "commits"), i, c)
		broken += strcmp(json_string_value(json_object_get(c, "state")), "broken") == 0;
	cr_expect_eq(broken, 0, "no commit recorded broken");
	cr_expect_eq(json_array_size(json_object_get(json_array_get(json_object_get(doc, "series"), 0), "points")), 4,
		     "every commit in the series");
	json_decref(doc);
	/* Measured anew while it fails in create: recorded broken, and the
	 * commit after it measured against the one before (the run's own
	 * check of its plugins once ended the history without saying whose). */
	small_run_args(args, "--db", "anew.db", repo, build);
	args[8] = "anew";
	r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "2 steps measured now, 0 measured before, 1 broken") != NULL, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "killed by signal 6") != NULL && strstr(r.err, "in create") != NULL, "%s", r.err);
	cmd_result_free(&r);
	/* Measured fine, then failing as the base of the next step: which of
	 * the build and the machine is at fault is not known, so nothing is
	 * recorded, and the run says which base failed. */
	sh("rm '%s/CRASH'", dir);
	small_run_args(args, "--db", "base.db", repo, build);
	args[6] = "HEAD~3..HEAD~1";
	args[8] = "histbase";
	r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cmd_result_free(&r);
	sh("touch '%s/CRASH'", dir);
	args[6] = "HEAD~3..HEAD";
	r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_expect(strstr(r.err, "its base") != NULL && strstr(r.err, "fails now (nothing recorded)") != NULL, "%s",
		  r.err);
	cmd_result_free(&r);
	doc = show_json(dir, "base.db");
	broken = 0;
	json_array_foreach(json_object_get(doc, "commits"), i, c)
		broken += strcmp(json_string_value(json_object_get(c, "state")), "broken") == 0;
	cr_expect_eq(broken, 0, "a base that fails now is not recorded broken");
	json_decref(doc);
}

/* A build that is created fine once and fails the next time (its load
 * and create are checked alone before a step, then again by the run):
 * HEAD's failure all the same, recorded broken, the history goes on. */
Test(history, a_build_that_fails_only_the_second_time_is_blamed, .timeout = 600)
{
	char *dir = scratch_dir(), repo[4300], build[4400];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_work_repo(dir, repo, "0 4 8 12", 2, "CRASH_AFTER");
	history_build_command(build, sizeof build);
	const char *args[32];
	small_run_args(args, "--db", "h.db", repo, build);
	struct cmd_result r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "2 steps measured now, 0 measured before, 1 broken") != NULL, "%s%s", r.out, r.err);
	cmd_result_free(&r);
}

/* Ranges that overlap, each with its own first commit as the reference:
 * a commit's readings against two references are not one thing read
 * twice (not compared, nothing measured again), and the drift is taken
 * against one reference. */
Test(history, readings_against_two_references_are_not_compared, .timeout = 600)
{
	char *dir = scratch_dir(), repo[4300], build[4400];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_work_repo(dir, repo, "0 4 60 64", -1, "");
	history_build_command(build, sizeof build);
	const char *args[32];
	small_run_args(args, "--db", "h.db", repo, build);
	args[6] = "HEAD~3..HEAD~1";
	struct cmd_result r = run_alloclab(dir, args);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cmd_result_free(&r);
	args[6] = "HEAD~2..HEAD";
	r = run_alloclab(dir, args);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "measured again") == NULL, "%s%s", r.out, r.err);
	cmd_result_free(&r);
	json_t *doc = show_json(dir, "h.db"), *p;
	json_t *series = json_array_get(json_object_get(doc, "series"), 0);
	size_t i;
	json_array_foreach(json_object_get(series, "points"), i, p)
	{
		json_t *next = json_object_get(json_object_get(p, "reference"), "next_step");
		cr_expect(next == NULL || !json_is_true(json_object_get(next, "moved")), "a reading against another reference "
											 "called moved: %s",
			  json_dumps(p, 0));
	}
	/* A drift over commits read against one reference equals its steps:
	 * one of a reading against the first range's reference over one
	 * against the second's would not. */
	json_t *drift = json_object_get(series, "drift"), *chained = json_object_get(series, "steps_chained");
	cr_expect(drift == NULL || json_is_true(json_object_get(chained, "drift_agrees")), "%s",
		  json_dumps(series, 0));
	json_decref(doc);
	r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "h.db", NULL});
	cr_expect(strstr(r.out, "the machine changed") == NULL, "%s", r.out);
	cmd_result_free(&r);
}
