/*
 * The store's schema, as the steps that made it: step k takes a store of
 * schema k-1 to schema k. A new store runs every step; an older one the
 * steps it lacks, in one transaction. A step, once released, is never
 * edited: what changes is a new step.
 *
 *   1  runs kept together (history add): machines, builds, runs with
 *      their documents, cells, processes, values
 *   2  a repository's history (history run): its commits in order, what
 *      became of each, and the runs that measured it
 *   3  run.pair_reference: the cell a paired run's ratios are over, which
 *      only the document said, so that the rows alone read as a series
 *      (docs/reference/store.md); filled in for the runs already there
 *      from their documents
 *   4  run.document_sha256: the SHA-256 of each run's document as its
 *      JSON, checked whenever the document is read, so that a document
 *      replaced outside alloclab is refused rather than believed; computed
 *      for the runs already there once each document has been checked
 *      against its rows
 */
#include "store/internal.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const steps[ALLOCLAB_STORE_SCHEMA] = {
	/* 1 */
	"CREATE TABLE machine ("
	"  id INTEGER PRIMARY KEY,"
	"  host TEXT NOT NULL, cpu_model TEXT NOT NULL, cpus INTEGER NOT NULL, kernel TEXT NOT NULL,"
	"  UNIQUE (host, cpu_model, cpus, kernel));"
	"CREATE TABLE build ("
	"  id INTEGER PRIMARY KEY,"
	"  sha256 TEXT NOT NULL,"         /* the plugin file's contents; '' unknown (a file of an older format) */
	"  name TEXT NOT NULL,"           /* the plugin's own name (its descriptor's) */
	"  options TEXT NOT NULL,"        /* the options it was run with */
	"  source_commit TEXT NOT NULL,"  /* '' unknown (not NULL: UNIQUE takes NULLs for different values) */
	"  source_dirty INTEGER NOT NULL," /* -1 unknown, 0, 1 */
	"  UNIQUE (sha256, name, options, source_commit, source_dirty));"
	"CREATE TABLE run ("
	"  id INTEGER PRIMARY KEY,"
	"  identity TEXT NOT NULL UNIQUE," /* date, host, command, order seed, shard */
	"  machine INTEGER NOT NULL REFERENCES machine(id),"
	"  date TEXT NOT NULL, alloclab_version TEXT NOT NULL, metric TEXT NOT NULL,"
	"  paired INTEGER NOT NULL, slice_ops INTEGER NOT NULL,"
	"  complete INTEGER NOT NULL,"    /* the run finished (not interrupted, its final document written) */
	"  processes INTEGER NOT NULL,"   /* every cell's processes: a copy with more replaces one with fewer */
	"  added TEXT NOT NULL,"
	"  document BLOB NOT NULL);"      /* the results document, zstd-compressed JSON */
	"CREATE TABLE cell ("
	"  id INTEGER PRIMARY KEY,"
	"  run INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
	"  build INTEGER NOT NULL REFERENCES build(id),"
	"  label TEXT NOT NULL, workload TEXT NOT NULL,"
	"  params TEXT NOT NULL,"         /* canonical JSON: keys sorted, compact */
	"  threads INTEGER NOT NULL, metric TEXT NOT NULL, status TEXT NOT NULL, message TEXT,"
	"  pair_design TEXT);"
	"CREATE INDEX cell_by_build ON cell (build);"
	"CREATE INDEX cell_by_run ON cell (run);"
	"CREATE TABLE process ("
	"  cell INTEGER NOT NULL REFERENCES cell(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL,"
	"  pair_ratio REAL,"              /* NULL: not paired */
	"  peak_rss_kib INTEGER,"
	"  PRIMARY KEY (cell, idx));"
	"CREATE TABLE value ("
	"  cell INTEGER NOT NULL REFERENCES cell(id) ON DELETE CASCADE,"
	"  process INTEGER NOT NULL, idx INTEGER NOT NULL,"
	"  per_op REAL NOT NULL,"         /* in the cell's metric's unit */
	"  PRIMARY KEY (cell, process, idx));",
	/* 2 */
	"CREATE TABLE repo_commit ("
	"  repo TEXT NOT NULL, commit_hash TEXT NOT NULL, ordinal INTEGER NOT NULL, subject TEXT NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN ('pending', 'measured', 'broken')),"
	"  why TEXT, sha256 TEXT,"
	"  PRIMARY KEY (repo, commit_hash));"
	"CREATE TABLE commit_run ("
	"  repo TEXT NOT NULL, commit_hash TEXT NOT NULL,"
	"  run INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,"
	"  kind TEXT NOT NULL,"           /* time, instructions, memory */
	"  base TEXT,"                    /* the commit it was measured against; NULL none */
	"  PRIMARY KEY (repo, commit_hash, kind, run));",
	/* 3 */
	"ALTER TABLE run ADD COLUMN pair_reference TEXT;", /* the group reference's label; NULL not paired */
	/* 4 */
	"ALTER TABLE run ADD COLUMN document_sha256 TEXT;", /* of the document's JSON, uncompressed; 64 hex digits */
	/* 5 */
	"ALTER TABLE repo_commit ADD COLUMN commit_date TEXT;", /* git's %cI; NULL unknown (recorded before schema 5) */
	/* 6 */
	"ALTER TABLE repo_commit ADD COLUMN code_sha256 TEXT;", /* what its plugin loads; NULL unknown */
};

/* Step 3 for the runs a store of schema 2 holds: their reference is in
 * their documents, read through the results reader. A document it cannot
 * read fails the migration (a damaged store is refused, not half
 * migrated). */
static int fill_pair_references(struct alloclab_store *s, char *err, size_t err_len)
{
	/* The ids first: a table updated while a query reads it may be read
	 * past or again. */
	sqlite3_stmt *st = alloclab_store_prepare(s, "SELECT id FROM run WHERE paired = 1", err, err_len);
	int64_t *ids = NULL, *grown;
	size_t n = 0, cap = 0;
	int rc = st ? 0 : -1, step = SQLITE_DONE;
	while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((grown = realloc(ids, cap * sizeof *ids)) == NULL) {
				snprintf(err, err_len, "%.900s: out of memory", s->path);
				rc = -1;
				break;
			}
			ids = grown;
		}
		ids[n++] = sqlite3_column_int64(st, 0);
	}
	if (rc == 0 && step != SQLITE_DONE)
		rc = alloclab_store_fail(s, "filling in run.pair_reference", err, err_len);
	sqlite3_finalize(st);
	st = rc == 0 ? alloclab_store_prepare(s, "UPDATE run SET pair_reference = ? WHERE id = ?", err, err_len) : NULL;
	if (rc == 0 && st == NULL)
		rc = -1;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct alloclab_results *r = alloclab_store_load_run(s, ids[i], NULL, err, err_len);
		if (r == NULL)
			rc = -1;
		else if (r->facts.npair > 0) {
			sqlite3_reset(st);
			sqlite3_bind_text(st, 1, r->facts.pair_plugins[0], -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(st, 2, ids[i]);
			if (sqlite3_step(st) != SQLITE_DONE)
				rc = alloclab_store_fail(s, "filling in run.pair_reference", err, err_len);
		}
		alloclab_results_free(r);
	}
	sqlite3_finalize(st);
	free(ids);
	return rc;
}

/* Step 4 for the runs already there. A document is believed only once it
 * agrees with its rows: the checksum made here is what every later read
 * trusts, and a document forged before the migration would otherwise be
 * blessed by it. */
static int fill_checksums(struct alloclab_store *s, char *err, size_t err_len)
{
	int64_t *ids;
	size_t n;
	if (alloclab_store_runs(s, &ids, &n, err, err_len) != 0)
		return -1;
	sqlite3_stmt *st = alloclab_store_prepare(s, "UPDATE run SET document_sha256 = ? WHERE id = ?", err, err_len);
	int rc = st ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char sha256[ALLOCLAB_SHA256_HEX];
		struct alloclab_results *r = alloclab_store_read_run(s, ids[i], 0, NULL, sha256, err, err_len);
		if (r == NULL) {
			rc = -1;
			break;
		}
		alloclab_results_free(r);
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, sha256, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 2, ids[i]);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = alloclab_store_fail(s, "filling in run.document_sha256", err, err_len);
	}
	sqlite3_finalize(st);
	free(ids);
	return rc;
}

/* What a step needs beyond its SQL: rows of the runs already there that
 * the new columns' writer (add.c) fills for new runs. */
static int fill(struct alloclab_store *s, int step, char *err, size_t err_len)
{
	switch (step) {
	case 3: return fill_pair_references(s, err, err_len);
	case 4: return fill_checksums(s, err, err_len);
	default: return 0;
	}
}

int alloclab_store_migrate(struct alloclab_store *s, int from, char *err, size_t err_len)
{
	if (from >= ALLOCLAB_STORE_SCHEMA)
		return 0;
	if (alloclab_store_exec(s, "BEGIN IMMEDIATE", err, err_len) != 0)
		return -1;
	/* Another writer may have migrated it while this one waited. */
	int now = alloclab_store_user_version(s);
	if (now == 0) {
		char id[64];
		snprintf(id, sizeof id, "PRAGMA application_id = %d", ALLOCLAB_STORE_APPLICATION_ID);
		if (alloclab_store_exec(s, id, err, err_len) != 0) {
			alloclab_store_exec(s, "ROLLBACK", NULL, 0);
			return -1;
		}
	}
	/* A step's fill reads documents as the tables are at that step (the
	 * checksum is asked of a document only once its column is there). */
	int before = s->schema;
	for (int k = now; k < ALLOCLAB_STORE_SCHEMA; k++) {
		int rc = alloclab_store_exec(s, steps[k], err, err_len);
		s->schema = k + 1;
		if (rc != 0 || fill(s, k + 1, err, err_len) != 0) {
			alloclab_store_exec(s, "ROLLBACK", NULL, 0);
			s->schema = before;
			return -1;
		}
	}
	char set[64];
	snprintf(set, sizeof set, "PRAGMA user_version = %d", ALLOCLAB_STORE_SCHEMA);
	if (alloclab_store_exec(s, set, err, err_len) != 0 || alloclab_store_exec(s, "COMMIT", err, err_len) != 0) {
		alloclab_store_exec(s, "ROLLBACK", NULL, 0);
		s->schema = before;
		return -1;
	}
	s->schema = ALLOCLAB_STORE_SCHEMA;
	return 0;
}
