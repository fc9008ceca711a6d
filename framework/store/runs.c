/*
 * A run as its rows say it, its document left compressed: what a listing
 * of every run needs (store.h). A store of thousands of runs is listed
 * without decompressing and parsing thousands of documents. And the rows
 * against a document read (add.c): what the rows hold, the document must
 * say too, or it was changed outside alloclab.
 */
#define _GNU_SOURCE 1
#include "store/internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *text_of(sqlite3_stmt *st, int k)
{
	const unsigned char *t = sqlite3_column_text(st, k);
	return strdup(t ? (const char *)t : "");
}

/* Each process's mean value, from its value rows in the order the
 * document had them (idx), so that the means are the reader's to the
 * last bit. */
static int process_means(struct alloclab_store *s, int64_t cell, struct alloclab_store_cell_row *c, char *err,
			 size_t err_len)
{
	sqlite3_stmt *st = alloclab_store_prepare(
		s, "SELECT process, per_op FROM value WHERE cell = ? ORDER BY process, idx", err, err_len);
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, cell);
	size_t cap = 0, nvalues = 0;
	int64_t process = -1;
	double sum = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t p = sqlite3_column_int64(st, 0);
		if (p != process && nvalues) {
			c->process_means[c->nprocesses++] = sum / (double)nvalues;
			sum = 0;
			nvalues = 0;
		}
		if (c->nprocesses + 1 >= cap) {
			cap = cap ? cap * 2 : 16;
			double *grown = realloc(c->process_means, cap * sizeof *grown);
			if (grown == NULL) {
				sqlite3_finalize(st);
				snprintf(err, err_len, "%.900s: out of memory", s->path);
				return -1;
			}
			c->process_means = grown;
		}
		process = p;
		sum += sqlite3_column_double(st, 1);
		nvalues++;
	}
	if (nvalues)
		c->process_means[c->nprocesses++] = sum / (double)nvalues;
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : alloclab_store_fail(s, "reading a cell's values", err, err_len);
}

/* The run's cells in the document's order (the order they were added). */
static int cells_of(struct alloclab_store *s, struct alloclab_store_run_row *r, char *err, size_t err_len)
{
	sqlite3_stmt *st = alloclab_store_prepare(
		s,
		"SELECT cell.id, cell.label, cell.workload, cell.params, cell.metric, cell.status, cell.threads, build.sha256, "
		"build.source_commit FROM cell JOIN build ON cell.build = build.id WHERE cell.run = ? ORDER BY cell.id",
		err, err_len);
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, r->id);
	size_t cap = 0;
	int rc = 0, step;
	while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
		if (r->ncells == cap) {
			cap = cap ? cap * 2 : 16;
			struct alloclab_store_cell_row *grown = realloc(r->cells, cap * sizeof *grown);
			if (grown == NULL) {
				snprintf(err, err_len, "%.900s: out of memory", s->path);
				rc = -1;
				break;
			}
			r->cells = grown;
		}
		struct alloclab_store_cell_row *c = &r->cells[r->ncells++];
		memset(c, 0, sizeof *c);
		c->label = text_of(st, 1);
		c->workload = text_of(st, 2);
		c->params = text_of(st, 3);
		c->metric = text_of(st, 4);
		c->status = text_of(st, 5);
		c->threads = (unsigned)sqlite3_column_int(st, 6);
		c->sha256 = text_of(st, 7);
		c->source_commit = text_of(st, 8);
		rc = process_means(s, sqlite3_column_int64(st, 0), c, err, err_len);
	}
	if (rc == 0 && step != SQLITE_DONE)
		rc = alloclab_store_fail(s, "reading a run's cells", err, err_len);
	sqlite3_finalize(st);
	return rc;
}

int alloclab_store_run_row(struct alloclab_store *s, int64_t id, struct alloclab_store_run_row *out, char *err,
			   size_t err_len)
{
	memset(out, 0, sizeof *out);
	out->id = id;
	sqlite3_stmt *st = alloclab_store_prepare(s, "SELECT date, alloclab_version FROM run WHERE id = ?", err, err_len);
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->date = text_of(st, 0);
		out->alloclab_version = text_of(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			snprintf(err, err_len, "%.900s: no run %lld", s->path, (long long)id);
		else
			alloclab_store_fail(s, "reading a run", err, err_len);
		return -1;
	}
	if (alloclab_store_run_machine(s, id, out->machine, sizeof out->machine, err, err_len) != 0 ||
	    cells_of(s, out, err, err_len) != 0) {
		alloclab_store_run_row_clear(out);
		return -1;
	}
	return 0;
}

void alloclab_store_run_row_clear(struct alloclab_store_run_row *r)
{
	for (size_t i = 0; i < r->ncells; i++) {
		struct alloclab_store_cell_row *c = &r->cells[i];
		free(c->label);
		free(c->workload);
		free(c->params);
		free(c->metric);
		free(c->status);
		free(c->sha256);
		free(c->source_commit);
		free(c->process_means);
	}
	free(r->cells);
	free(r->date);
	free(r->alloclab_version);
	memset(r, 0, sizeof *r);
}

/* ---- a document against its rows ---- */

/* Whether a document's value and its row's are one: the JSON keeps 17
 * digits and the row the double itself, so they agree to the last bit;
 * a part in 10^9 refuses no store alloclab wrote and lets no forgery
 * worth making through. */
static int same(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

static const struct alloclab_process *process_of(const struct alloclab_cell *c, int64_t index)
{
	for (unsigned p = 0; p < c->nprocs; p++)
		if ((int64_t)c->procs[p].index == index)
			return &c->procs[p];
	return NULL;
}

/* err = how the document and its rows differ, in cell k; returns -1. */
static int differ(char *err, size_t err_len, const char *name, unsigned k, const struct alloclab_cell *c,
		  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int differ(char *err, size_t err_len, const char *name, unsigned k, const struct alloclab_cell *c,
		  const char *fmt, ...)
{
	char what[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(err, err_len, "%s's document does not match its rows (cells[%u], %.100s on %.100s: %s): the store was "
		 "changed outside alloclab", name, k, c->plugin ? c->plugin : "?", c->workload ? c->workload : "?", what);
	return -1;
}

/* A cell's process rows against the document's processes. */
static int processes_match(struct alloclab_store *s, sqlite3_stmt *st, int64_t cell, const struct alloclab_cell *c,
			   unsigned k, const char *name, char *err, size_t err_len)
{
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, cell);
	unsigned rows = 0;
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t idx = sqlite3_column_int64(st, 0);
		const struct alloclab_process *p = process_of(c, idx);
		rows++;
		if (p == NULL)
			return differ(err, err_len, name, k, c, "process %lld is in the rows only", (long long)idx);
		double ratio = sqlite3_column_type(st, 1) == SQLITE_NULL ? 0 : sqlite3_column_double(st, 1);
		long peak = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : (long)sqlite3_column_int64(st, 2);
		if (!same(ratio, p->pair_ratio > 0 ? p->pair_ratio : 0))
			return differ(err, err_len, name, k, c, "process %lld's paired ratio: %.6g in the document, %.6g in "
				      "the rows", (long long)idx, p->pair_ratio, ratio);
		if (peak != (p->peak_rss_kib >= 0 ? p->peak_rss_kib : -1))
			return differ(err, err_len, name, k, c, "process %lld's peak: %ld KiB in the document, %ld in the rows",
				      (long long)idx, p->peak_rss_kib, peak);
	}
	if (step != SQLITE_DONE)
		return alloclab_store_fail(s, "reading a cell's processes", err, err_len);
	if (rows != c->nprocs)
		return differ(err, err_len, name, k, c, "%u processes in the document, %u in the rows", c->nprocs, rows);
	return 0;
}

/* A cell's value rows against the document's values. */
static int values_match(struct alloclab_store *s, sqlite3_stmt *st, int64_t cell, const struct alloclab_cell *c,
			unsigned k, const char *name, char *err, size_t err_len)
{
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, cell);
	size_t rows = 0, values = 0;
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t process = sqlite3_column_int64(st, 0), idx = sqlite3_column_int64(st, 1);
		double per_op = sqlite3_column_double(st, 2);
		const struct alloclab_process *p = process_of(c, process);
		rows++;
		if (p == NULL || idx < 0 || idx >= (int64_t)p->nvalues)
			return differ(err, err_len, name, k, c, "process %lld's value %lld is in the rows only",
				      (long long)process, (long long)idx);
		if (!same(per_op, p->values[idx].per_op))
			return differ(err, err_len, name, k, c, "process %lld's value %lld: %.6g in the document, %.6g in "
				      "the rows", (long long)process, (long long)idx, p->values[idx].per_op, per_op);
	}
	if (step != SQLITE_DONE)
		return alloclab_store_fail(s, "reading a cell's values", err, err_len);
	for (unsigned p = 0; p < c->nprocs; p++)
		values += c->procs[p].nvalues;
	if (rows != values)
		return differ(err, err_len, name, k, c, "%zu values in the document, %zu in the rows", values, rows);
	return 0;
}

/* Each cell's row against the document's cell of the same place. */
static int cells_match(struct alloclab_store *s, sqlite3_stmt *cst, sqlite3_stmt *pst, sqlite3_stmt *vst,
		       const struct alloclab_results *r, const char *name, char *err, size_t err_len)
{
	unsigned k = 0;
	int step, rc = 0;
	while (rc == 0 && (step = sqlite3_step(cst)) == SQLITE_ROW) {
		if (k >= r->ncells) {
			snprintf(err, err_len, "%s's document does not match its rows (%u cells in the document, more in the "
				 "rows): the store was changed outside alloclab", name, r->ncells);
			return -1;
		}
		const struct alloclab_cell *c = &r->cells[k];
		const char *label = (const char *)sqlite3_column_text(cst, 1),
			   *workload = (const char *)sqlite3_column_text(cst, 2),
			   *metric = (const char *)sqlite3_column_text(cst, 4);
		if (!label || !workload || !metric || strcmp(label, c->plugin ? c->plugin : "") != 0 ||
		    strcmp(workload, c->workload ? c->workload : "") != 0 || strcmp(metric, c->metric ? c->metric : "") != 0 ||
		    sqlite3_column_int64(cst, 3) != (int64_t)c->threads)
			return differ(err, err_len, name, k, c, "its label, workload, threads or metric");
		int64_t cell = sqlite3_column_int64(cst, 0);
		rc = processes_match(s, pst, cell, c, k, name, err, err_len);
		if (rc == 0)
			rc = values_match(s, vst, cell, c, k, name, err, err_len);
		k++;
	}
	if (rc != 0)
		return -1;
	if (step != SQLITE_DONE)
		return alloclab_store_fail(s, "reading a run's cells", err, err_len);
	if (k != r->ncells) {
		snprintf(err, err_len, "%s's document does not match its rows (%u cells in the document, %u in the rows): the "
			 "store was changed outside alloclab", name, r->ncells, k);
		return -1;
	}
	return 0;
}

int alloclab_store_rows_match(struct alloclab_store *s, int64_t id, const struct alloclab_results *r, const char *name,
			      char *err, size_t err_len)
{
	sqlite3_stmt *cst = alloclab_store_prepare(
		s, "SELECT id, label, workload, threads, metric FROM cell WHERE run = ? ORDER BY id", err, err_len);
	sqlite3_stmt *pst = cst ? alloclab_store_prepare(
		s, "SELECT idx, pair_ratio, peak_rss_kib FROM process WHERE cell = ? ORDER BY idx", err, err_len) : NULL;
	sqlite3_stmt *vst = pst ? alloclab_store_prepare(
		s, "SELECT process, idx, per_op FROM value WHERE cell = ? ORDER BY process, idx", err, err_len) : NULL;
	int rc = -1;
	if (vst) {
		sqlite3_bind_int64(cst, 1, id);
		rc = cells_match(s, cst, pst, vst, r, name, err, err_len);
	}
	sqlite3_finalize(cst);
	sqlite3_finalize(pst);
	sqlite3_finalize(vst);
	return rc;
}
