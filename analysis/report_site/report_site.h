/*
 * `alloclab report`: a static site of a run, or of a history store
 * (docs/guides/report.md). The pages open from the file system, fetch
 * nothing from elsewhere and run no script but their own (html.h); the
 * folder is written whole (site.h).
 */
#ifndef ALLOCLAB_REPORT_SITE_H
#define ALLOCLAB_REPORT_SITE_H

#include "report_options.h"
#include "results/results.h"
#include "store/store.h"

#include <stddef.h>

/* A run's site: its page as index.html. source names the run in words.
 * 0, or -1 with err (nothing changed at dir). */
int alloclab_report_run(const struct alloclab_results *r, const char *source, const struct alloclab_report_options *o,
			char *err, size_t err_len);

/* A store's site: a repository's history (an index, every commit, the
 * runs), or, for a store of runs alone, an index of its runs. */
int alloclab_report_store(struct alloclab_store *s, const char *db, const struct alloclab_report_options *o, char *err,
			  size_t err_len);

#endif
