/*
 * The SQL helpers every query of the store uses (internal.h): the bottom
 * of the room, calling nothing of it, so that opening (store.c) calls the
 * schema (schema.c) and both call here, never each other.
 */
#include "store/internal.h"

#include <stdio.h>

int alloclab_store_fail(struct alloclab_store *s, const char *what, char *err, size_t err_len)
{
	if (err)
		snprintf(err, err_len, "%.900s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
	return -1;
}

int alloclab_store_exec(struct alloclab_store *s, const char *sql, char *err, size_t err_len)
{
	char *msg = NULL;
	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		if (err)
			snprintf(err, err_len, "%.900s: %s", s->path, msg ? msg : sqlite3_errmsg(s->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

sqlite3_stmt *alloclab_store_prepare(struct alloclab_store *s, const char *sql, char *err, size_t err_len)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		alloclab_store_fail(s, "the store", err, err_len);
		return NULL;
	}
	return st;
}

int alloclab_store_pragma_int(struct alloclab_store *s, const char *pragma)
{
	sqlite3_stmt *st = NULL;
	int v = -1;
	/* No message: the first statement on a file that is not SQLite fails
	 * here, and the caller says what the file is instead. */
	if (sqlite3_prepare_v2(s->db, pragma, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

int alloclab_store_user_version(struct alloclab_store *s)
{
	return alloclab_store_pragma_int(s, "PRAGMA user_version");
}
