/* Adding runs to the store and reading them back. See store.h. */
#define _GNU_SOURCE 1
#include "store/internal.h"

#include "files/file_hash.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

/* How far a stored document may inflate when read back. A store comes
 * from outside: a blob of 90 KB that inflated to 1 GB of JSON took 2.2 GB
 * before the parser gave up. Both bounds are checked on the size the
 * frames declare, before anything is allocated (a frame that holds more
 * than it declares fails to decompress into the room given). A results
 * file of 20,000 cells is about 100 MB of JSON; measured values compress
 * about tenfold, so neither bound refuses a run alloclab wrote, while the
 * ratio keeps a small blob from costing a reader hundreds of times its
 * size. Below MIN_RATIO_CHECKED the ratio is not asked: a small document
 * of repeated cells compresses far, and costs little. */
#define MAX_DOCUMENT_MIB 256
#define MAX_DOCUMENT_BYTES ((unsigned long long)MAX_DOCUMENT_MIB << 20)
#define MAX_DOCUMENT_RATIO 1000
#define MIN_RATIO_CHECKED (16ull << 20)

static const char *status_name(enum alloclab_cell_status s)
{
	switch (s) {
	case ALLOCLAB_CELL_OK: return "ok";
	case ALLOCLAB_CELL_ERROR: return "error";
	case ALLOCLAB_CELL_NOT_APPLICABLE: return "not applicable";
	default: return "pending";
	}
}

/* What makes a run the run it is, whatever became of it later: when and
 * where it started, the command, the order of its cells, its shard. A
 * copy of the file, or the same run finished after an interruption, has
 * the same identity. */
static void run_identity(const struct alloclab_results *r, char out[ALLOCLAB_SHA256_HEX])
{
	char *command = alloclab_results_command(r) ? json_dumps(alloclab_results_command(r), JSON_COMPACT) : NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	fprintf(f, "alloclab-run%c%s%c%s%c%s%c%llu%c%u/%u", 0, r->facts.date ? r->facts.date : "", 0,
		r->facts.host ? r->facts.host : "", 0, command ? command : "", 0, (unsigned long long)r->facts.order_seed, 0,
		r->facts.shard_index, r->facts.shard_count);
	fclose(f);
	alloclab_sha256_hex(text, len, out);
	free(text);
	free(command);
}

static unsigned processes_of(const struct alloclab_results *r)
{
	unsigned n = 0;
	for (unsigned i = 0; i < r->ncells; i++)
		n += r->cells[i].nprocs;
	return n;
}

static int bind_text(sqlite3_stmt *st, int k, const char *text)
{
	return sqlite3_bind_text(st, k, text ? text : "", -1, SQLITE_TRANSIENT);
}

/* Runs a statement that makes or finds one row and returns its id: the
 * insert (OR IGNORE), then the select with the same bindings. */
static int64_t upsert(struct alloclab_store *s, const char *insert, const char *select, const char *const *texts,
		      int ntexts, const int64_t *ints, int nints, char *err, size_t err_len)
{
	const char *sql[2] = {insert, select};
	int64_t id = -1;
	for (int q = 0; q < 2; q++) {
		sqlite3_stmt *st = alloclab_store_prepare(s, sql[q], err, err_len);
		if (st == NULL)
			return -1;
		for (int k = 0; k < ntexts; k++)
			bind_text(st, k + 1, texts[k]);
		for (int k = 0; k < nints; k++)
			sqlite3_bind_int64(st, ntexts + k + 1, ints[k]);
		int rc = sqlite3_step(st);
		if (q == 1 && rc == SQLITE_ROW)
			id = sqlite3_column_int64(st, 0);
		else if (rc != SQLITE_DONE && !(q == 1 && rc == SQLITE_ROW)) {
			alloclab_store_fail(s, "the store", err, err_len);
			sqlite3_finalize(st);
			return -1;
		}
		sqlite3_finalize(st);
	}
	if (id < 0)
		snprintf(err, err_len, "%.900s: the store: a row it made could not be found again", s->path);
	return id;
}

static int64_t machine_id(struct alloclab_store *s, const struct alloclab_results *r, char *err, size_t err_len)
{
	const struct alloclab_run_facts *f = &r->facts;
	const char *texts[3] = {f->host ? f->host : "unknown", f->cpu_model ? f->cpu_model : "unknown",
				f->kernel ? f->kernel : "unknown"};
	const int64_t cpus = f->cpus_allowed;
	return upsert(s, "INSERT OR IGNORE INTO machine (host, cpu_model, kernel, cpus) VALUES (?, ?, ?, ?)",
		      "SELECT id FROM machine WHERE host = ? AND cpu_model = ? AND kernel = ? AND cpus = ?", texts, 3, &cpus,
		      1, err, err_len);
}

static int64_t build_id(struct alloclab_store *s, const struct alloclab_plugin_info *p, char *err, size_t err_len)
{
	const char *texts[4] = {p->sha256 ? p->sha256 : "", p->name, p->options ? p->options : "",
				p->source_commit ? p->source_commit : ""};
	const int64_t dirty = p->source_commit ? p->source_dirty : -1;
	return upsert(s,
		      "INSERT OR IGNORE INTO build (sha256, name, options, source_commit, source_dirty) VALUES (?, ?, ?, ?, ?)",
		      "SELECT id FROM build WHERE sha256 = ? AND name = ? AND options = ? AND source_commit = ? AND "
		      "source_dirty = ?",
		      texts, 4, &dirty, 1, err, err_len);
}

/* The document, compressed, and the SHA-256 of its JSON: NULL with err. */
static void *compressed_document(const struct alloclab_results *r, size_t *n, char sha256[ALLOCLAB_SHA256_HEX],
				 char *err, size_t err_len)
{
	json_t *doc = alloclab_results_to_json(r);
	char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(doc);
	if (text == NULL) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	size_t len = strlen(text), cap = ZSTD_compressBound(len);
	alloclab_sha256_hex(text, len, sha256);
	void *out = malloc(cap);
	*n = out ? ZSTD_compress(out, cap, text, len, 3) : 0;
	free(text);
	if (out == NULL || ZSTD_isError(*n)) {
		snprintf(err, err_len, "cannot compress the run's document");
		free(out);
		return NULL;
	}
	return out;
}

/* One cell: its row, its processes and values. */
static int add_cell(struct alloclab_store *s, int64_t run, int64_t build, const struct alloclab_cell *c, char *err,
		    size_t err_len)
{
	char *params = json_dumps(c->params, JSON_SORT_KEYS | JSON_COMPACT);
	sqlite3_stmt *st = alloclab_store_prepare(
		s,
		"INSERT INTO cell (run, build, label, workload, params, threads, metric, status, message, pair_design) "
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		err, err_len);
	if (st == NULL) {
		free(params);
		return -1;
	}
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, build);
	bind_text(st, 3, c->plugin);
	bind_text(st, 4, c->workload);
	bind_text(st, 5, params);
	sqlite3_bind_int(st, 6, (int)c->threads);
	bind_text(st, 7, c->metric);
	bind_text(st, 8, status_name(c->status));
	c->message ? bind_text(st, 9, c->message) : sqlite3_bind_null(st, 9);
	c->pair_design ? bind_text(st, 10, c->pair_design) : sqlite3_bind_null(st, 10);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : alloclab_store_fail(s, "adding a cell", err, err_len);
	sqlite3_finalize(st);
	free(params);
	if (rc != 0)
		return -1;
	int64_t cell = sqlite3_last_insert_rowid(s->db);
	sqlite3_stmt *pst = alloclab_store_prepare(
		s, "INSERT INTO process (cell, idx, pair_ratio, peak_rss_kib) VALUES (?, ?, ?, ?)", err, err_len);
	sqlite3_stmt *vst = alloclab_store_prepare(s, "INSERT INTO value (cell, process, idx, per_op) VALUES (?, ?, ?, ?)",
						   err, err_len);
	for (unsigned p = 0; rc == 0 && pst && vst && p < c->nprocs; p++) {
		const struct alloclab_process *proc = &c->procs[p];
		sqlite3_reset(pst);
		sqlite3_bind_int64(pst, 1, cell);
		sqlite3_bind_int(pst, 2, (int)proc->index);
		proc->pair_ratio > 0 ? sqlite3_bind_double(pst, 3, proc->pair_ratio) : sqlite3_bind_null(pst, 3);
		proc->peak_rss_kib >= 0 ? sqlite3_bind_int64(pst, 4, proc->peak_rss_kib) : sqlite3_bind_null(pst, 4);
		if (sqlite3_step(pst) != SQLITE_DONE)
			rc = alloclab_store_fail(s, "adding a process", err, err_len);
		for (unsigned v = 0; rc == 0 && v < proc->nvalues; v++) {
			sqlite3_reset(vst);
			sqlite3_bind_int64(vst, 1, cell);
			sqlite3_bind_int(vst, 2, (int)proc->index);
			sqlite3_bind_int(vst, 3, (int)v);
			sqlite3_bind_double(vst, 4, proc->values[v].per_op);
			if (sqlite3_step(vst) != SQLITE_DONE)
				rc = alloclab_store_fail(s, "adding a value", err, err_len);
		}
	}
	if (pst == NULL || vst == NULL)
		rc = -1;
	sqlite3_finalize(pst);
	sqlite3_finalize(vst);
	return rc;
}

/* The run already stored under this identity: its id, whether it was
 * complete, its processes; 0 none found, 1 found, -1 error. */
static int find_run(struct alloclab_store *s, const char *identity, int64_t *id, int *complete, unsigned *processes,
		    char *err, size_t err_len)
{
	sqlite3_stmt *st = alloclab_store_prepare(s, "SELECT id, complete, processes FROM run WHERE identity = ?", err,
						  err_len);
	if (st == NULL)
		return -1;
	bind_text(st, 1, identity);
	int rc = sqlite3_step(st), found = 0;
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*complete = sqlite3_column_int(st, 1);
		*processes = (unsigned)sqlite3_column_int64(st, 2);
		found = 1;
	} else if (rc != SQLITE_DONE) {
		found = alloclab_store_fail(s, "the store", err, err_len);
	}
	sqlite3_finalize(st);
	return found;
}

static int insert_run(struct alloclab_store *s, const struct alloclab_results *r, const char *identity,
		      int64_t *run, char *err, size_t err_len)
{
	int64_t machine = machine_id(s, r, err, err_len);
	size_t blob_len;
	char sha256[ALLOCLAB_SHA256_HEX];
	void *blob = machine >= 0 ? compressed_document(r, &blob_len, sha256, err, err_len) : NULL;
	if (blob == NULL)
		return -1;
	char added[32];
	time_t t = time(NULL);
	struct tm tm;
	strftime(added, sizeof added, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	sqlite3_stmt *st = alloclab_store_prepare(
		s,
		"INSERT INTO run (identity, machine, date, alloclab_version, metric, paired, slice_ops, complete, processes, "
		"added, document, pair_reference, document_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		err, err_len);
	int rc = -1;
	if (st) {
		bind_text(st, 1, identity);
		sqlite3_bind_int64(st, 2, machine);
		bind_text(st, 3, r->facts.date ? r->facts.date : "unknown");
		bind_text(st, 4, r->facts.alloclab_version ? r->facts.alloclab_version : "unknown");
		bind_text(st, 5, r->ncells ? r->cells[0].metric : ALLOCLAB_METRIC_TIME);
		sqlite3_bind_int(st, 6, r->facts.npair > 0);
		sqlite3_bind_int64(st, 7, (int64_t)r->facts.slice_ops);
		sqlite3_bind_int(st, 8, r->complete && !r->interrupted);
		sqlite3_bind_int64(st, 9, processes_of(r));
		bind_text(st, 10, added);
		sqlite3_bind_blob64(st, 11, blob, blob_len, SQLITE_TRANSIENT);
		r->facts.npair > 0 ? bind_text(st, 12, r->facts.pair_plugins[0]) : sqlite3_bind_null(st, 12);
		bind_text(st, 13, sha256);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : alloclab_store_fail(s, "adding a run", err, err_len);
		*run = sqlite3_last_insert_rowid(s->db);
	}
	sqlite3_finalize(st);
	free(blob);
	return rc;
}

/* Every cell of the run, under the build of its plugin. */
static int add_cells(struct alloclab_store *s, const struct alloclab_results *r, int64_t run, char *err,
		     size_t err_len)
{
	int64_t *builds = calloc(r->nplugins + 1, sizeof *builds);
	int rc = builds ? 0 : -1;
	for (unsigned i = 0; rc == 0 && i < r->nplugins; i++)
		if ((builds[i] = build_id(s, &r->plugins[i], err, err_len)) < 0)
			rc = -1;
	for (unsigned i = 0; rc == 0 && i < r->ncells; i++)
		rc = add_cell(s, run, builds[r->cells[i].plugin_index], &r->cells[i], err, err_len);
	free(builds);
	return rc;
}

int alloclab_store_add_run(struct alloclab_store *s, const struct alloclab_results *r, enum alloclab_store_added *what,
			   int64_t *id, char *err, size_t err_len)
{
	char identity[ALLOCLAB_SHA256_HEX];
	int64_t old = 0, run = 0;
	int complete = 0;
	unsigned processes = 0;

	run_identity(r, identity);
	if (alloclab_store_exec(s, "BEGIN IMMEDIATE", err, err_len) != 0)
		return -1;
	int found = find_run(s, identity, &old, &complete, &processes, err, err_len);
	int now_complete = r->complete && !r->interrupted;
	*what = ALLOCLAB_STORE_ADDED;
	if (found == 1) {
		/* The same run: kept once, the copy that holds more. */
		if (complete >= now_complete && processes >= processes_of(r)) {
			*what = ALLOCLAB_STORE_KNOWN;
			if (id)
				*id = old;
			return alloclab_store_exec(s, "COMMIT", err, err_len);
		}
		*what = ALLOCLAB_STORE_REPLACED;
	}
	int rc = found < 0 ? -1 : 0;
	if (rc == 0 && found == 1) {
		char sql[96];
		snprintf(sql, sizeof sql, "DELETE FROM run WHERE id = %lld", (long long)old);
		rc = alloclab_store_exec(s, sql, err, err_len);
	}
	if (rc == 0)
		rc = insert_run(s, r, identity, &run, err, err_len);
	if (rc == 0)
		rc = add_cells(s, r, run, err, err_len);
	if (rc == 0 && alloclab_store_exec(s, "COMMIT", err, err_len) == 0) {
		if (id)
			*id = run;
		return 0;
	}
	alloclab_store_exec(s, "ROLLBACK", NULL, 0);
	return -1;
}

/* The size a stored document says it inflates to, or ZSTD_CONTENTSIZE_ERROR
 * with err saying why it is not read: damaged, of no declared size, or
 * past a bound (which one, and by how much). */
static unsigned long long inflated_size(const void *blob, size_t n, const char *name, char *err, size_t err_len)
{
	unsigned long long size = blob ? ZSTD_getFrameContentSize(blob, n) : ZSTD_CONTENTSIZE_ERROR;
	if (size == ZSTD_CONTENTSIZE_ERROR)
		snprintf(err, err_len, "%s: its document is damaged (not the zstd-compressed JSON the store writes)", name);
	else if (size == ZSTD_CONTENTSIZE_UNKNOWN)
		snprintf(err, err_len, "%s: its document does not say how large it inflates (the store's writer always "
			 "does): refused", name);
	else if (size > MAX_DOCUMENT_BYTES)
		snprintf(err, err_len, "%s's document would inflate past %d MiB (to %llu bytes, from %zu stored): refused",
			 name, MAX_DOCUMENT_MIB, size, n);
	else if (size > MIN_RATIO_CHECKED && size / MAX_DOCUMENT_RATIO > n)
		snprintf(err, err_len, "%s's document would inflate past %dx its stored size (to %llu bytes, from %zu): "
			 "refused", name, MAX_DOCUMENT_RATIO, size, n);
	else
		return size;
	return ZSTD_CONTENTSIZE_ERROR;
}

/* The document as its JSON text (NUL-terminated, *len bytes), inflated
 * within the bounds: NULL with err. */
static char *inflate(const void *blob, size_t n, const char *name, size_t *len, char *err, size_t err_len)
{
	unsigned long long size = inflated_size(blob, n, name, err, err_len);
	if (size == ZSTD_CONTENTSIZE_ERROR)
		return NULL;
	char *text = malloc(size + 1);
	if (text == NULL) {
		snprintf(err, err_len, "%s: its document of %llu bytes: out of memory", name, size);
		return NULL;
	}
	size_t got = ZSTD_decompress(text, size, blob, n);
	if (ZSTD_isError(got) || got != size) {
		snprintf(err, err_len, "%s: its document is damaged (not the zstd-compressed JSON the store writes)", name);
		free(text);
		return NULL;
	}
	text[got] = '\0';
	*len = got;
	return text;
}

/* The run's document as JSON text, its checksum compared where asked;
 * *sha256 the text's. NULL with err. */
static char *document_text(struct alloclab_store *s, int64_t id, int checksummed, const char *name, size_t *len,
			   char sha256[ALLOCLAB_SHA256_HEX], char *err, size_t err_len)
{
	sqlite3_stmt *st = alloclab_store_prepare(
		s, checksummed ? "SELECT document, document_sha256 FROM run WHERE id = ?" : "SELECT document FROM run WHERE id = ?",
		err, err_len);
	if (st == NULL)
		return NULL;
	sqlite3_bind_int64(st, 1, id);
	int step = sqlite3_step(st);
	if (step != SQLITE_ROW) {
		if (step == SQLITE_DONE)
			snprintf(err, err_len, "%s: no such run in the store", name);
		else
			alloclab_store_fail(s, "reading a run's document", err, err_len);
		sqlite3_finalize(st);
		return NULL;
	}
	char *text = inflate(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), name, len, err, err_len);
	if (text)
		alloclab_sha256_hex(text, *len, sha256);
	const char *stored = checksummed ? (const char *)sqlite3_column_text(st, 1) : NULL;
	if (text && checksummed && (stored == NULL || strcmp(stored, sha256) != 0)) {
		/* Anyone who can write the file can change a document; only one
		 * changed without its checksum is seen here (the rows are
		 * compared after). */
		snprintf(err, err_len, "%s's document %s: the store was changed outside alloclab", name,
			 stored ? "does not match its checksum" : "has no checksum (the store keeps one for every run)");
		free(text);
		text = NULL;
	}
	sqlite3_finalize(st);
	return text;
}

struct alloclab_results *alloclab_store_read_run(struct alloclab_store *s, int64_t id, int checksummed,
						 alloclab_report_checker check, char sha256[ALLOCLAB_SHA256_HEX],
						 char *err, size_t err_len)
{
	char name[1100], sum[ALLOCLAB_SHA256_HEX];
	size_t len;
	snprintf(name, sizeof name, "%.900s: run %lld", s->path, (long long)id);
	/* The document and its rows are read in one transaction (a savepoint:
	 * the migration reads inside its own): a writer replacing the run in
	 * between would otherwise make them differ, and an honest store be
	 * called forged. */
	if (alloclab_store_exec(s, "SAVEPOINT read_run", err, err_len) != 0)
		return NULL;
	char *text = document_text(s, id, checksummed, name, &len, sum, err, err_len);
	json_error_t je;
	struct alloclab_results *r = NULL;
	json_t *doc = text ? json_loadb(text, len, JSON_REJECT_DUPLICATES, &je) : NULL;
	int inflated = text != NULL;
	free(text);
	if (inflated && doc == NULL)
		snprintf(err, err_len, "%s: its document is damaged: %s", name, je.text);
	else if (doc)
		r = alloclab_results_from_json(doc, name, check, err, err_len);
	json_decref(doc);
	if (r && alloclab_store_rows_match(s, id, r, name, err, err_len) != 0) {
		alloclab_results_free(r);
		r = NULL;
	}
	alloclab_store_exec(s, "RELEASE read_run", NULL, 0);
	if (r && sha256)
		memcpy(sha256, sum, sizeof sum);
	return r;
}

struct alloclab_results *alloclab_store_load_run(struct alloclab_store *s, int64_t id, alloclab_report_checker check,
						 char *err, size_t err_len)
{
	return alloclab_store_read_run(s, id, s->schema >= 4, check, NULL, err, err_len);
}
