/*
 * A history store's pages. For a repository's history
 * (framework/history/series.h): the index (the latest verdict of every
 * series, its change points, one chart per series, the newest commits),
 * a page of every commit, a page per commit with its steps and links to
 * its runs' pages, and those pages (run_page.h). For a store of runs
 * alone: an index of its runs and each run's page.
 */
#ifndef ALLOCLAB_HISTORY_PAGES_H
#define ALLOCLAB_HISTORY_PAGES_H

#include "report_options.h"
#include "site.h"
#include "store/store.h"

/* db: the store's path as given, for the pages' words. */
int alloclab_history_site(struct alloclab_site *s, struct alloclab_store *store, const char *db,
			  const struct alloclab_report_options *o, char *err, size_t err_len);

#endif
