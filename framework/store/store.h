/*
 * The history store: runs kept together in one SQLite file, so that a
 * plugin can be followed across builds. This room is the one owner of the
 * file's format (its schema, its migrations, every query); nothing else
 * opens it.
 *
 * What it holds, and what identifies each (schema.c has the tables,
 * docs/reference/store.md documents them for those who query the file):
 *
 *   machine  the host, its CPU model, CPUs, kernel and C library: runs of
 *            different machines are never one series
 *   build    a plugin file by its contents (SHA-256) and the options it
 *            was run with; its source commit and whether the tree was
 *            dirty where alloclab built it (ab, history run), else unknown
 *   run      a results file by its identity (date, host, command, order
 *            seed, shard): added twice, it is kept once (a run that grew,
 *            an interrupted one finished later, replaces its older copy)
 *   cell     a build on a workload (canonical parameters), thread count
 *            and metric, in a run; its processes' values and paired ratios
 *   commit   a repository's commits as `history run` met them: their
 *            order, and whether each built (with the log's first error)
 *
 * A run's whole document is kept too (compressed), so that anything
 * derived from it (a comparison, a report page) is computed again through
 * the one validating reader, never from a second copy of its logic. The
 * rows hold the values and paired ratios, for queries of the file and for
 * listing every run without decompressing every document (runs.c).
 *
 * Files from outside are untrusted: a file that is not an alloclab store,
 * one that is damaged, one of a newer schema, or a symbolic link to any
 * is refused with one line and never modified. A document is believed
 * only when it matches the checksum kept beside it (schema 4) and the
 * run's rows: one changed outside alloclab is refused, not shown. Writers
 * wait for each other (SQLite's locks, a busy timeout): two `history add`
 * at once lose nothing; one that waits past the timeout says the store is
 * locked, and by which process.
 */
#ifndef ALLOCLAB_STORE_H
#define ALLOCLAB_STORE_H

#include "results/results.h"

#include <stddef.h>
#include <stdint.h>

/* The schema this build reads and writes; an older store is migrated
 * forward when opened for writing. */
#define ALLOCLAB_STORE_SCHEMA 6

struct alloclab_store;

enum alloclab_store_mode {
	ALLOCLAB_STORE_READ,   /* an existing store, read only (an older schema is read as it is) */
	ALLOCLAB_STORE_WRITE,  /* an existing store, migrated forward if older */
	ALLOCLAB_STORE_CREATE, /* as WRITE, made when the path does not exist */
};

/* NULL with one line in err naming the file and what is wrong with it. */
struct alloclab_store *alloclab_store_open(const char *path, enum alloclab_store_mode mode, char *err, size_t err_len);
void alloclab_store_close(struct alloclab_store *s);

/* For a store made to be thrown away (a test's synthetic history of
 * thousands of commits): what is written is no longer flushed to disk at
 * each transaction's end, which otherwise costs each added commit a few
 * synchronous writes. A crash of the machine may leave such a store
 * damaged; a crash of the program does not. 0, or -1 with err. */
int alloclab_store_scratch(struct alloclab_store *s, char *err, size_t err_len);

/* 0 when no component of path (as written: a relative path from the
 * current folder) is a symbolic link; else -1 with the line
 * alloclab_store_open refuses it with: which component, where it leads,
 * whether anything is there, and the store's own path where it resolves. */
int alloclab_store_refuse_link(const char *path, char *err, size_t err_len);

/* The schema the file had when opened (before any migration). */
int alloclab_store_schema_found(const struct alloclab_store *s);

/* What adding a run did. */
enum alloclab_store_added {
	ALLOCLAB_STORE_ADDED,     /* new */
	ALLOCLAB_STORE_KNOWN,     /* the same run was there already, as complete: nothing changed */
	ALLOCLAB_STORE_REPLACED,  /* the same run was there, less complete: replaced by this copy */
};

/* Adds a checked run. 0 with *what set and *id its id in the store (NULL:
 * not wanted), or -1 with err. One transaction: a failure leaves the store
 * as it was. */
int alloclab_store_add_run(struct alloclab_store *s, const struct alloclab_results *r, enum alloclab_store_added *what,
			   int64_t *id, char *err, size_t err_len);

/* ---- a repository's commits (history run) ---- */

enum alloclab_commit_state {
	ALLOCLAB_COMMIT_PENDING,  /* known, not yet measured */
	ALLOCLAB_COMMIT_MEASURED, /* built and measured: its runs are in the store, or none when
				   * its build loads the same code as the commit measured
				   * before it (code_sha256: history run measures it as that one) */
	ALLOCLAB_COMMIT_BROKEN,   /* did not build (or its plugin did not load): why says how */
};

struct alloclab_commit {
	char *commit;          /* the full hash */
	char *subject;         /* its first line, one line */
	char *date;            /* its committer date, ISO 8601; NULL unknown (a store of schema 4 or older) */
	unsigned ordinal;      /* its place on the first-parent line, from its first commit (0): one order for every range */
	enum alloclab_commit_state state;
	char *why;             /* BROKEN: the first error; else NULL */
	char *sha256;          /* MEASURED: its plugin file's */
	char *code_sha256;     /* MEASURED: what its plugin file loads (files/code_hash.h); NULL unknown */
};

/* Records a commit of repository `repo` (an identity the caller chose: the
 * repository's path) at its place; an existing one keeps its state. */
int alloclab_store_put_commit(struct alloclab_store *s, const char *repo, const struct alloclab_commit *c, char *err,
			      size_t err_len);
/* Sets a commit's state (and why, and its plugin file's hash and its
 * code's; NULL: none). */
int alloclab_store_set_commit(struct alloclab_store *s, const char *repo, const char *commit,
			      enum alloclab_commit_state state, const char *why, const char *sha256,
			      const char *code_sha256, char *err, size_t err_len);
/* The repository's commits, oldest first. 0 with *out (n of them), or -1. */
int alloclab_store_commits(struct alloclab_store *s, const char *repo, struct alloclab_commit **out, size_t *n,
			   char *err, size_t err_len);
void alloclab_store_commits_free(struct alloclab_commit *c, size_t n);
/* Records that run `id` measured the commit, as `kind` ("time",
 * "instructions", "memory"), against `base` (a commit; NULL none). */
int alloclab_store_link_run(struct alloclab_store *s, const char *repo, const char *commit, int64_t id,
			    const char *kind, const char *base, char *err, size_t err_len);
/* The runs of that kind that measured the commit, newest first, with the
 * commit each was against (malloc'd; NULL none). */
int alloclab_store_commit_runs(struct alloclab_store *s, const char *repo, const char *commit, const char *kind,
			       int64_t **ids, char ***bases, size_t *n, char *err, size_t err_len);
void alloclab_store_commit_runs_free(int64_t *ids, char **bases, size_t n);
/* The repositories the store has commits of. */
int alloclab_store_repos(struct alloclab_store *s, char ***out, size_t *n, char *err, size_t err_len);

/* ---- reading runs back ---- */

/* The runs that measured a build (by its file's hash), newest first:
 * their store ids. */
int alloclab_store_runs_of_build(struct alloclab_store *s, const char *sha256, int64_t **ids, size_t *n, char *err,
				 size_t err_len);
/* Every run, oldest first. */
int alloclab_store_runs(struct alloclab_store *s, int64_t **ids, size_t *n, char *err, size_t err_len);
/* A run as it was added, read and checked again by the results reader,
 * and refused where it disagrees with its checksum or its rows. */
struct alloclab_results *alloclab_store_load_run(struct alloclab_store *s, int64_t id, alloclab_report_checker check,
						 char *err, size_t err_len);
/* Its machine as one line ("host, CPU model, N CPUs, kernel"), for
 * telling series apart. */
int alloclab_store_run_machine(struct alloclab_store *s, int64_t id, char *out, size_t len, char *err, size_t err_len);

/* A run's cell as its rows say it (runs.c). */
struct alloclab_store_cell_row {
	char *label, *workload, *params, *metric, *status; /* as the cell table has them */
	unsigned threads;
	char *sha256, *source_commit;                        /* its build's; "" unknown */
	double *process_means; /* each process's mean value (per_op), processes without values left out */
	size_t nprocesses;
};

/* A run as its rows say it, its document not read: what a listing of
 * every run prints. */
struct alloclab_store_run_row {
	int64_t id;
	char *date, *alloclab_version;
	char machine[1200]; /* as alloclab_store_run_machine says it */
	struct alloclab_store_cell_row *cells; /* in the run's order */
	size_t ncells;
};

/* 0 with *out (alloclab_store_run_row_clear frees it), or -1 with err. */
int alloclab_store_run_row(struct alloclab_store *s, int64_t id, struct alloclab_store_run_row *out, char *err,
			   size_t err_len);
void alloclab_store_run_row_clear(struct alloclab_store_run_row *r);

#endif
