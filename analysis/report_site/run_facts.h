/*
 * The head of a run's page: what the run measured and where. The title
 * and the machine, the load while it ran, alloclab's version and the
 * command that made it, from the run's typed facts; notes that change
 * how its figures read (an interrupted run, a plugin that printed while
 * measured); and everything the file records of the run, as it records
 * it, one click away. And, further down the page, the plugins measured.
 */
#ifndef ALLOCLAB_RUN_FACTS_H
#define ALLOCLAB_RUN_FACTS_H

#include "results/results.h"

#include <stdio.h>

/* source: where the run came from, in words ("r.json"; "run 3 of h.db"). */
void alloclab_run_facts_write(FILE *f, const struct alloclab_results *r, const char *source);

/* The plugins measured: file, hash, source, what alloclab check found. */
void alloclab_run_plugins_write(FILE *f, const struct alloclab_results *r);

/* A JSON value as a person reads it: a string as it is, anything else as
 * compact JSON (escaped by the caller's writer). */
void alloclab_json_value_text(FILE *f, const json_t *v);

#endif
