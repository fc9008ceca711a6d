/* Opening a store, checking it is one, migrating it (schema.c). See store.h. */
#define _GNU_SOURCE 1
#include "store/internal.h"

#include "base/shell_word.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How long a writer waits for another to finish before it gives up: a
 * `history run` adds a run in well under a second, so a minute is many
 * writers deep. ALLOCLAB_STORE_WAIT (seconds) sets another, up to an
 * hour: a store shared with a slow reader's long query may need more. */
#define BUSY_TIMEOUT_MS 60000
#define MAX_WAIT_S 3600

/* The wait in milliseconds, or -1 with err (the variable is outside
 * input: a value that is not a whole number of seconds is refused, not
 * read as some other wait). */
static int wait_ms(char *err, size_t err_len)
{
	const char *env = getenv("ALLOCLAB_STORE_WAIT");
	if (env == NULL)
		return BUSY_TIMEOUT_MS;
	char *end;
	errno = 0;
	long v = strtol(env, &end, 10);
	if (env[0] < '0' || env[0] > '9' || *end != '\0' || errno != 0 || v > MAX_WAIT_S) {
		snprintf(err, err_len, "ALLOCLAB_STORE_WAIT: '%.40s' is not a whole number of seconds from 0 to %d", env,
			 MAX_WAIT_S);
		return -1;
	}
	return (int)v * 1000;
}

/* What the file is: a store of some schema (0, s->schema_found set), or
 * not one (-1 with err). Reads only. */
static int identify(struct alloclab_store *s, char *err, size_t err_len)
{
	/* The second is not asked where the first failed: on a locked store
	 * it would wait as long again. */
	int app = alloclab_store_pragma_int(s, "PRAGMA application_id"),
	    schema = app < 0 ? -1 : alloclab_store_user_version(s);
	if ((app < 0 || schema < 0) && alloclab_store_locked(s, err, err_len))
		return -1;
	if (app < 0 || schema < 0) {
		/* SQLite reads the header on the first statement: a file that
		 * is not SQLite, or a damaged one, fails here. */
		snprintf(err, err_len, "%.900s: not an alloclab history store (%s)", s->path, sqlite3_errmsg(s->db));
		return -1;
	}
	if (app != ALLOCLAB_STORE_APPLICATION_ID || schema < 1) {
		snprintf(err, err_len, "%.900s: not an alloclab history store (another program's SQLite file%s): give a new "
			 "path for a store", s->path, app == 0 && schema == 0 ? ", or an empty one" : "");
		return -1;
	}
	if (schema > ALLOCLAB_STORE_SCHEMA) {
		snprintf(err, err_len, "%.900s: a store of schema %d, newer than this alloclab's (%d): use a newer alloclab",
			 s->path, schema, ALLOCLAB_STORE_SCHEMA);
		return -1;
	}
	s->schema_found = s->schema = schema;
	return 0;
}

/* A whole check of the file's pages: a damaged store is refused before
 * anything is read from it or written to it. */
static int check_intact(struct alloclab_store *s, char *err, size_t err_len)
{
	sqlite3_stmt *st = NULL;
	int ok = 0;
	if (sqlite3_prepare_v2(s->db, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		const char *said = (const char *)sqlite3_column_text(st, 0);
		ok = said && strcmp(said, "ok") == 0;
		if (!ok)
			snprintf(err, err_len, "%.900s: a damaged store (SQLite's check: %.200s)", s->path, said ? said : "?");
	} else if (!alloclab_store_locked(s, err, err_len)) {
		snprintf(err, err_len, "%.900s: a damaged store (%s)", s->path, sqlite3_errmsg(s->db));
	}
	sqlite3_finalize(st);
	return ok ? 0 : -1;
}

/* A new store made whole under a temporary name beside path, then linked
 * to path: a writer that opens path meanwhile sees no file or a whole
 * store, never half of one, and of two writers making it at once the
 * second takes the first's. 0, or -1 with err. */
static int create_store(const char *path, char *err, size_t err_len)
{
	char tmp[PATH_MAX];
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.new-XXXXXX", path) >= sizeof tmp) {
		snprintf(err, err_len, "%.900s: the path is too long", path);
		return -1;
	}
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, err_len, "%.900s: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	struct alloclab_store s = {.path = (char *)path, .writable = 1};
	int rc = -1;
	if (sqlite3_open_v2(tmp, &s.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) == SQLITE_OK)
		rc = alloclab_store_migrate(&s, 0, err, err_len);
	else
		snprintf(err, err_len, "%.900s: %s", path, sqlite3_errmsg(s.db));
	sqlite3_close_v2(s.db);
	if (rc == 0 && link(tmp, path) != 0 && errno != EEXIST) {
		snprintf(err, err_len, "%.900s: %s", path, strerror(errno));
		rc = -1;
	}
	unlink(tmp);
	return rc;
}

/* Where the link at path leads, as printable text, into shown; whether
 * anything is there in *dangling. */
static void link_target(const char *path, char *shown, size_t len, int *dangling)
{
	char target[PATH_MAX];
	struct stat sb;
	ssize_t n = readlink(path, target, sizeof target - 1);
	target[n > 0 ? n : 0] = '\0';
	/* Where it leads is whoever made the link's text. */
	if (n > 0)
		alloclab_printable(target, shown, len);
	else
		snprintf(shown, len, "?");
	*dangling = stat(path, &sb) != 0 && errno == ENOENT;
}

/* A store is opened by its own name only, for reading as for writing (see
 * store.h): a
 * link in a shared folder could send a store's writes to a file its
 * owner never meant (and SQLite keeps a journal beside the name it was
 * given, not beside the file). A link among the path's folders does the
 * same as a link in its place ("shared/proj" a link to someone else's
 * folder), so every component is looked at, as the path is written: a
 * relative one from the current folder, which the kernel already knows
 * by its own name. -1 with err when one is a link, saying which, where it
 * leads, whether anything is there and, where it resolves, the store's
 * own path to give instead. */
int alloclab_store_refuse_link(const char *path, char *err, size_t err_len)
{
	char prefix[PATH_MAX], shown[1000], own[PATH_MAX], own_shown[1200] = "";
	struct stat lsb;
	size_t len = strlen(path);
	if (len >= sizeof prefix)
		return 0; /* too long to be opened: said where it is */
	for (size_t at = 1; at <= len; at++) {
		if (at < len && path[at] != '/')
			continue;
		if (at < len && path[at - 1] == '/')
			continue; /* "a//b": the same component */
		memcpy(prefix, path, at);
		prefix[at] = '\0';
		if (lstat(prefix, &lsb) != 0 || !S_ISLNK(lsb.st_mode))
			continue;
		int dangling;
		link_target(prefix, shown, sizeof shown, &dangling);
		if (at == len) {
			snprintf(err, err_len, "%.900s: a symbolic link to %s%s: give the store's own path, not a link (alloclab "
				 "opens no store through one: a link could send its writes elsewhere)", path, shown,
				 dangling ? " (dangling: nothing is there)" : "");
			return -1;
		}
		/* A folder of the path: the store's own path where it resolves. */
		if (!dangling && realpath(prefix, own) != NULL) {
			size_t k = strlen(own);
			snprintf(own + k, sizeof own - k, "%s", path + at);
			char resolved[1000];
			snprintf(own_shown, sizeof own_shown, " (%s)", alloclab_printable(own, resolved, sizeof resolved));
		}
		snprintf(err, err_len, "%.900s: its folder %.900s is a symbolic link to %s%s: give the store's own path%s, "
			 "not one through a link (alloclab opens no store through one: a link could send its writes "
			 "elsewhere)", path, prefix, shown, dangling ? ", which does not exist" : "", own_shown);
		return -1;
	}
	return 0;
}

struct alloclab_store *alloclab_store_open(const char *path, enum alloclab_store_mode mode, char *err, size_t err_len)
{
	struct stat sb;
	int wait = wait_ms(err, err_len);
	if (wait < 0 || alloclab_store_refuse_link(path, err, err_len) != 0)
		return NULL;
	int exists = stat(path, &sb) == 0;

	if (!exists && errno == ENOENT && mode == ALLOCLAB_STORE_CREATE) {
		if (create_store(path, err, err_len) != 0)
			return NULL;
		exists = stat(path, &sb) == 0;
	}

	if (exists && !S_ISREG(sb.st_mode)) {
		snprintf(err, err_len, "%.900s: not a regular file (a store is one file)", path);
		return NULL;
	}
	if (!exists) {
		snprintf(err, err_len, "%.900s: %s", path, errno == ENOENT ? "no such store (history add makes one)"
										: strerror(errno));
		return NULL;
	}
	if (exists && sb.st_size == 0) {
		/* An empty file is SQLite's empty database: taken for a new
		 * store it would be written, and it may be someone's. */
		snprintf(err, err_len, "%.900s: an empty file, not an alloclab history store: remove it or give a new path",
			 path);
		return NULL;
	}
	struct alloclab_store *s = calloc(1, sizeof *s);
	s->path = strdup(path);
	s->writable = mode != ALLOCLAB_STORE_READ;
	s->wait_ms = wait;
	int flags = (s->writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOFOLLOW;
	if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
		snprintf(err, err_len, "%.900s: %s", path, s->db ? sqlite3_errmsg(s->db) : "cannot open");
		alloclab_store_close(s);
		return NULL;
	}
	sqlite3_busy_timeout(s->db, wait);
	sqlite3_extended_result_codes(s->db, 1);
	/* A damaged store is refused before anything is written to it. */
	if (identify(s, err, err_len) != 0 || (s->writable && check_intact(s, err, err_len) != 0)) {
		alloclab_store_close(s);
		return NULL;
	}
	/* Only now is the file known to be a store: the migration (a store
	 * opened to read is read as it is: what a newer step adds is missing,
	 * and what asks for it finds nothing). The rollback journal, not
	 * WAL: a reader without write access to the folder can still read. */
	if (alloclab_store_exec(s, "PRAGMA foreign_keys = ON", err, err_len) != 0 ||
	    (s->writable && alloclab_store_migrate(s, s->schema_found, err, err_len) != 0)) {
		alloclab_store_close(s);
		return NULL;
	}
	return s;
}

void alloclab_store_close(struct alloclab_store *s)
{
	if (s == NULL)
		return;
	sqlite3_close_v2(s->db);
	free(s->path);
	free(s);
}

int alloclab_store_scratch(struct alloclab_store *s, char *err, size_t err_len)
{
	return alloclab_store_exec(s, "PRAGMA synchronous = OFF", err, err_len);
}

int alloclab_store_schema_found(const struct alloclab_store *s)
{
	return s->schema_found;
}
