/*
 * What `alloclab history` prints: a repository's series with their change
 * points (framework/history/series.h), as text or JSON; the runs of a
 * store kept without a repository, run by run; what a `history run` did;
 * and a bisection's steps and answer.
 */
#ifndef ALLOCLAB_HISTORY_REPORT_H
#define ALLOCLAB_HISTORY_REPORT_H

#include "history/history.h"
#include "history/series.h"
#include "store/store.h"

#include <jansson.h>
#include <stdio.h>

void alloclab_history_print(const struct alloclab_history_view *v, int json, FILE *out);

/* How the table says a commit's level ("72.174", "24.4 ns", "3.4 MiB";
 * "-" below 0), a series' level at a commit (< 0: none), and a change
 * point's size ("2.1% slower", "+95.000 instr/op (+131.63%)", "15.2%
 * larger") from its step and the level before it. */
void alloclab_history_level_text(enum alloclab_ab_metric m, double v, char *out, size_t len);
double alloclab_history_level_at(const struct alloclab_history_series *s, size_t commit);
void alloclab_history_change_text(enum alloclab_ab_metric m, const struct alloclab_history_point *p, double base,
				  char *out, size_t len);

/* The view as JSON (what history show -f json prints and the report's
 * history pages read). */
json_t *alloclab_history_json(const struct alloclab_history_view *v);

/* Every run of the store, oldest first: when, where, and each cell's
 * level with its ±95%, from the store's rows (its documents are not
 * read: a listing of thousands of runs would parse them all). 0, or -1
 * with err. */
int alloclab_history_print_runs(struct alloclab_store *s, FILE *out, char *err, size_t err_len);

void alloclab_history_print_outcome(const struct alloclab_history_outcome *o, const char *db, FILE *out);
void alloclab_bisect_print(const struct alloclab_bisect_outcome *o, enum alloclab_ab_metric metric, FILE *out);

#endif
