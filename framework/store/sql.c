/*
 * The SQL helpers every query of the store uses (internal.h): the bottom
 * of the room, calling nothing of it, so that opening (store.c) calls the
 * schema (schema.c) and both call here, never each other.
 */
#define _GNU_SOURCE 1
#include "store/internal.h"

#include "base/shell_word.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The processes other than this one that hold a lock on the file, as
 * /proc/locks lists them: the first one's pid in *pid (0 none known), and
 * how many. Read there rather than asked of the file with F_GETLK: opening
 * and closing the file in this process would drop SQLite's own POSIX
 * locks on it. OFD locks name no process (-1): they are not counted. */
static unsigned lock_holders(const char *path, long *pid)
{
	struct stat sb;
	unsigned n = 0;
	*pid = 0;
	FILE *f = stat(path, &sb) == 0 ? fopen("/proc/locks", "r") : NULL;
	if (f == NULL)
		return 0;
	char line[256];
	long seen[8];
	while (fgets(line, sizeof line, f)) {
		long holder;
		unsigned maj, min;
		unsigned long ino;
		/* "1: POSIX  ADVISORY  WRITE 3568 fd:00:2531452 1073741824 1073741825";
		 * a waiter's line has "->" after its number and holds nothing. */
		if (strstr(line, "->") || sscanf(line, "%*d: %*s %*s %*s %ld %x:%x:%lu", &holder, &maj, &min, &ino) != 4)
			continue;
		if (holder <= 0 || holder == (long)getpid() || maj != major(sb.st_dev) || min != minor(sb.st_dev) ||
		    ino != (unsigned long)sb.st_ino)
			continue;
		int known = 0;
		for (unsigned k = 0; k < n && k < 8; k++)
			known |= seen[k] == holder;
		if (!known && n < 8)
			seen[n++] = holder;
	}
	fclose(f);
	*pid = n ? seen[0] : 0;
	return n;
}

int alloclab_store_locked(struct alloclab_store *s, char *err, size_t err_len)
{
	int code = sqlite3_errcode(s->db) & 0xff;
	if (code != SQLITE_BUSY && code != SQLITE_LOCKED)
		return 0;
	if (err == NULL)
		return 1;
	long pid;
	unsigned holders = lock_holders(s->path, &pid);
	char who[300] = "another process", comm[32], name[64] = "", shown[128];
	if (holders) {
		snprintf(comm, sizeof comm, "/proc/%ld/comm", pid);
		FILE *f = fopen(comm, "r");
		if (f && fgets(name, sizeof name, f))
			name[strcspn(name, "\n")] = '\0';
		if (f)
			fclose(f);
		/* The name is the other process's to set: not every caller
		 * prints this line through alloclab_printable. */
		snprintf(who, sizeof who, "another process (pid %ld%s%s%s)", pid, name[0] ? ", " : "",
			 alloclab_printable(name, shown, sizeof shown), holders > 1 ? "; others hold it too" : "");
	}
	snprintf(err, err_len, "%.900s: the store is locked: %s has held it longer than alloclab waits (%d s): wait for "
		 "it to finish and try again (fuser %.900s names the processes that have it open)",
		 s->path, who, s->wait_ms / 1000, s->path);
	return 1;
}

int alloclab_store_fail(struct alloclab_store *s, const char *what, char *err, size_t err_len)
{
	if (err && !alloclab_store_locked(s, err, err_len))
		snprintf(err, err_len, "%.900s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
	return -1;
}

int alloclab_store_exec(struct alloclab_store *s, const char *sql, char *err, size_t err_len)
{
	char *msg = NULL;
	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		if (err && !alloclab_store_locked(s, err, err_len))
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
