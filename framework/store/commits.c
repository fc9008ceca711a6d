/* A repository's commits in the store, and listing its runs. See store.h. */
#include "store/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const state_names[] = {"pending", "measured", "broken"};

static enum alloclab_commit_state state_of(const char *name)
{
	for (int k = 0; k < 3; k++)
		if (name && strcmp(name, state_names[k]) == 0)
			return (enum alloclab_commit_state)k;
	return ALLOCLAB_COMMIT_PENDING;
}

/* A store of schema 1 (read as it is) has no commits. */
static int has_commits(struct alloclab_store *s)
{
	return s->schema_found >= 2 || s->writable;
}

static char *column_text(sqlite3_stmt *st, int k)
{
	const unsigned char *t = sqlite3_column_text(st, k);
	return t ? strdup((const char *)t) : NULL;
}

int alloclab_store_put_commit(struct alloclab_store *s, const char *repo, const struct alloclab_commit *c, char *err,
			      size_t err_len)
{
	sqlite3_stmt *st = alloclab_store_prepare(
		s,
		"INSERT INTO repo_commit (repo, commit_hash, ordinal, subject, state, commit_date) "
		"VALUES (?, ?, ?, ?, 'pending', ?) "
		"ON CONFLICT (repo, commit_hash) DO UPDATE SET ordinal = excluded.ordinal, subject = excluded.subject, "
		"commit_date = coalesce(excluded.commit_date, commit_date)",
		err, err_len);
	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, repo, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, c->commit, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, c->ordinal);
	sqlite3_bind_text(st, 4, c->subject ? c->subject : "", -1, SQLITE_TRANSIENT);
	c->date && c->date[0] ? sqlite3_bind_text(st, 5, c->date, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, 5);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : alloclab_store_fail(s, "recording a commit", err, err_len);
	sqlite3_finalize(st);
	return rc;
}

int alloclab_store_set_commit(struct alloclab_store *s, const char *repo, const char *commit,
			      enum alloclab_commit_state state, const char *why, const char *sha256,
			      const char *code_sha256, char *err, size_t err_len)
{
	sqlite3_stmt *st = alloclab_store_prepare(
		s, "UPDATE repo_commit SET state = ?, why = ?, sha256 = ?, code_sha256 = ? WHERE repo = ? AND commit_hash = ?",
		err, err_len);
	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, state_names[state], -1, SQLITE_STATIC);
	why ? sqlite3_bind_text(st, 2, why, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, 2);
	sha256 ? sqlite3_bind_text(st, 3, sha256, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, 3);
	code_sha256 ? sqlite3_bind_text(st, 4, code_sha256, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, 4);
	sqlite3_bind_text(st, 5, repo, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, commit, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : alloclab_store_fail(s, "recording a commit", err, err_len);
	sqlite3_finalize(st);
	return rc;
}

int alloclab_store_commits(struct alloclab_store *s, const char *repo, struct alloclab_commit **out, size_t *n,
			   char *err, size_t err_len)
{
	*out = NULL;
	*n = 0;
	if (!has_commits(s))
		return 0;
	/* A store of an older schema read where it may not be migrated
	 * (read-only) has no dates (4 or older) and no code hashes (5 or
	 * older). */
	sqlite3_stmt *st = alloclab_store_prepare(
		s,
		s->schema >= 6	 ? "SELECT commit_hash, subject, ordinal, state, why, sha256, commit_date, code_sha256 "
				   "FROM repo_commit WHERE repo = ? ORDER BY ordinal"
		: s->schema >= 5 ? "SELECT commit_hash, subject, ordinal, state, why, sha256, commit_date, NULL "
				   "FROM repo_commit WHERE repo = ? ORDER BY ordinal"
				 : "SELECT commit_hash, subject, ordinal, state, why, sha256, NULL, NULL FROM repo_commit "
				   "WHERE repo = ? ORDER BY ordinal",
		err, err_len);
	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, repo, -1, SQLITE_TRANSIENT);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			*out = realloc(*out, cap * sizeof **out);
		}
		struct alloclab_commit *c = &(*out)[(*n)++];
		c->commit = column_text(st, 0);
		c->subject = column_text(st, 1);
		c->ordinal = (unsigned)sqlite3_column_int64(st, 2);
		c->state = state_of((const char *)sqlite3_column_text(st, 3));
		c->why = column_text(st, 4);
		c->sha256 = column_text(st, 5);
		c->date = column_text(st, 6);
		c->code_sha256 = column_text(st, 7);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		alloclab_store_commits_free(*out, *n);
		*out = NULL;
		*n = 0;
		return alloclab_store_fail(s, "reading commits", err, err_len);
	}
	return 0;
}

void alloclab_store_commits_free(struct alloclab_commit *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].commit);
		free(c[i].subject);
		free(c[i].date);
		free(c[i].why);
		free(c[i].sha256);
		free(c[i].code_sha256);
	}
	free(c);
}

/* The first column of every row of a query with one text binding (or
 * none), as strings or as ids. */
static int column_list(struct alloclab_store *s, const char *sql, const char *bind, char ***texts, int64_t **ids,
		       size_t *n, char *err, size_t err_len)
{
	sqlite3_stmt *st = alloclab_store_prepare(s, sql, err, err_len);
	size_t cap = 0;
	int rc;
	*n = 0;
	if (texts)
		*texts = NULL;
	if (ids)
		*ids = NULL;
	if (st == NULL)
		return -1;
	if (bind)
		sqlite3_bind_text(st, 1, bind, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			if (texts)
				*texts = realloc(*texts, cap * sizeof **texts);
			if (ids)
				*ids = realloc(*ids, cap * sizeof **ids);
		}
		if (texts)
			(*texts)[*n] = column_text(st, 0);
		if (ids)
			(*ids)[*n] = sqlite3_column_int64(st, 0);
		(*n)++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : alloclab_store_fail(s, "reading the store", err, err_len);
}

int alloclab_store_link_run(struct alloclab_store *s, const char *repo, const char *commit, int64_t id,
			    const char *kind, const char *base, char *err, size_t err_len)
{
	sqlite3_stmt *st = alloclab_store_prepare(
		s, "INSERT OR REPLACE INTO commit_run (repo, commit_hash, run, kind, base) VALUES (?, ?, ?, ?, ?)", err,
		err_len);
	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, repo, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, commit, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, id);
	sqlite3_bind_text(st, 4, kind, -1, SQLITE_TRANSIENT);
	base ? sqlite3_bind_text(st, 5, base, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, 5);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : alloclab_store_fail(s, "recording a commit's run", err, err_len);
	sqlite3_finalize(st);
	return rc;
}

int alloclab_store_commit_runs(struct alloclab_store *s, const char *repo, const char *commit, const char *kind,
			       int64_t **ids, char ***bases, size_t *n, char *err, size_t err_len)
{
	*ids = NULL;
	*bases = NULL;
	*n = 0;
	if (!has_commits(s))
		return 0;
	sqlite3_stmt *st = alloclab_store_prepare(
		s,
		"SELECT commit_run.run, commit_run.base FROM commit_run JOIN run ON commit_run.run = run.id WHERE "
		"commit_run.repo = ? AND commit_run.commit_hash = ? AND commit_run.kind = ? ORDER BY run.date DESC, run.id DESC",
		err, err_len);
	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, repo, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, commit, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, kind, -1, SQLITE_TRANSIENT);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*ids = realloc(*ids, cap * sizeof **ids);
			*bases = realloc(*bases, cap * sizeof **bases);
		}
		(*ids)[*n] = sqlite3_column_int64(st, 0);
		(*bases)[(*n)++] = column_text(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : alloclab_store_fail(s, "reading a commit's runs", err, err_len);
}

int alloclab_store_repos(struct alloclab_store *s, char ***out, size_t *n, char *err, size_t err_len)
{
	if (!has_commits(s)) {
		*out = NULL;
		*n = 0;
		return 0;
	}
	return column_list(s, "SELECT DISTINCT repo FROM repo_commit ORDER BY repo", NULL, out, NULL, n, err, err_len);
}

int alloclab_store_runs_of_build(struct alloclab_store *s, const char *sha256, int64_t **ids, size_t *n, char *err,
				 size_t err_len)
{
	return column_list(s,
			   "SELECT DISTINCT run.id FROM run JOIN cell ON cell.run = run.id JOIN build ON cell.build = "
			   "build.id WHERE build.sha256 = ? ORDER BY run.date DESC, run.id DESC",
			   sha256, NULL, ids, n, err, err_len);
}

int alloclab_store_runs(struct alloclab_store *s, int64_t **ids, size_t *n, char *err, size_t err_len)
{
	return column_list(s, "SELECT id FROM run ORDER BY date, id", NULL, NULL, ids, n, err, err_len);
}

int alloclab_store_run_machine(struct alloclab_store *s, int64_t id, char *out, size_t len, char *err, size_t err_len)
{
	sqlite3_stmt *st = alloclab_store_prepare(
		s,
		"SELECT machine.host, machine.cpu_model, machine.cpus, machine.kernel FROM run JOIN machine ON run.machine = "
		"machine.id WHERE run.id = ?",
		err, err_len);
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	int rc = -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(out, len, "%s, %s, %d CPUs, %s", sqlite3_column_text(st, 0), sqlite3_column_text(st, 1),
			 sqlite3_column_int(st, 2), sqlite3_column_text(st, 3));
		rc = 0;
	} else {
		snprintf(err, err_len, "%.900s: no run %lld", s->path, (long long)id);
	}
	sqlite3_finalize(st);
	return rc;
}

void alloclab_store_commit_runs_free(int64_t *ids, char **bases, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(bases[k]);
	free(bases);
	free(ids);
}
