/*
 * What the store's files share (store.h is its public face): the open
 * database and the helpers every query uses. Nothing outside the room
 * includes this.
 */
#ifndef ALLOCLAB_STORE_INTERNAL_H
#define ALLOCLAB_STORE_INTERNAL_H

#include "store/store.h"

#include "files/file_hash.h"

#include <sqlite3.h>

/* "alcl": what PRAGMA application_id says of a file this room made, so
 * that another program's SQLite file is never taken for a store. */
#define ALLOCLAB_STORE_APPLICATION_ID 0x616c636c

struct alloclab_store {
	sqlite3 *db;
	char *path;
	int schema_found; /* user_version when opened */
	int schema;       /* the tables as they are now: schema_found, or what a migration has made them */
	int writable;
	int wait_ms;      /* how long a statement waits for another connection's lock */
};

/* sql.c, the bottom of the room: opening (store.c) calls the schema
 * (schema.c), both call these, and these call neither. */

/* Runs SQL that returns no rows (err may be NULL). 0, or -1 with err. */
int alloclab_store_exec(struct alloclab_store *s, const char *sql, char *err, size_t err_len);
/* The one integer a PRAGMA answers, or -1 (not a database). */
int alloclab_store_pragma_int(struct alloclab_store *s, const char *pragma);
/* PRAGMA user_version, or -1. */
int alloclab_store_user_version(struct alloclab_store *s);
/* A prepared statement, or NULL with err ("PATH: the store: ..."). */
sqlite3_stmt *alloclab_store_prepare(struct alloclab_store *s, const char *sql, char *err, size_t err_len);
/* err = "PATH: what: SQLite's message", or where another connection's
 * lock was the failure what alloclab_store_locked says; returns -1. */
int alloclab_store_fail(struct alloclab_store *s, const char *what, char *err, size_t err_len);
/* Whether the last failure on the store was another connection holding
 * it past the wait (SQLITE_BUSY, SQLITE_LOCKED); then err (if not NULL)
 * says that it is locked, by which process where the system says, and
 * what to do. */
int alloclab_store_locked(struct alloclab_store *s, char *err, size_t err_len);

/* schema.c: takes the store from schema `from` to ALLOCLAB_STORE_SCHEMA
 * in one transaction. */
int alloclab_store_migrate(struct alloclab_store *s, int from, char *err, size_t err_len);

/* add.c: run id's document through the results reader, checked against
 * the run's rows, and against its checksum where `checksummed` (the
 * schema 4 migration reads documents that have none yet). sha256 (NULL:
 * not wanted) is the SHA-256 of its JSON as stored. NULL with err. */
struct alloclab_results *alloclab_store_read_run(struct alloclab_store *s, int64_t id, int checksummed,
						 alloclab_report_checker check, char sha256[ALLOCLAB_SHA256_HEX],
						 char *err, size_t err_len);

/* runs.c: 0 when the run's cell, process and value rows say what its
 * document r says, or -1 with err naming the first difference (name:
 * "PATH: run N"). */
int alloclab_store_rows_match(struct alloclab_store *s, int64_t id, const struct alloclab_results *r, const char *name,
			      char *err, size_t err_len);

#endif
