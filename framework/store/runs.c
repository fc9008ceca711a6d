/*
 * A run as its rows say it, its document left compressed: what a listing
 * of every run needs (store.h). A store of thousands of runs is listed
 * without decompressing and parsing thousands of documents.
 */
#define _GNU_SOURCE 1
#include "store/internal.h"

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
