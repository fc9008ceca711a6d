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

/* The view as JSON (what history show -f json prints and the report's
 * history pages read). */
json_t *alloclab_history_json(const struct alloclab_history_view *v);

/* Every run of the store, oldest first: when, where, and each cell's
 * level with its ±95%. 0, or -1 with err. */
int alloclab_history_print_runs(struct alloclab_store *s, alloclab_report_checker check, FILE *out, char *err,
				size_t err_len);

void alloclab_history_print_outcome(const struct alloclab_history_outcome *o, const char *db, FILE *out);
void alloclab_bisect_print(const struct alloclab_bisect_outcome *o, enum alloclab_ab_metric metric, FILE *out);

#endif
