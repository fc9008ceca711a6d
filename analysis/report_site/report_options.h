/*
 * What `alloclab report` is asked for (cli/cmd_report.c): where the site
 * goes and what it shows of a run or a store.
 */
#ifndef ALLOCLAB_REPORT_OPTIONS_H
#define ALLOCLAB_REPORT_OPTIONS_H

#include "results/results.h"

struct alloclab_report_options {
	const char *dir;      /* where the site goes */
	const char *baseline; /* the plugin others are compared with; NULL: the first */
	const char *repo;     /* a store's repository; NULL: its only one */
	/* A history's run pages: for the newest this many measured commits
	 * and every change point (0: every commit); a store of runs alone:
	 * for its newest this many runs. */
	unsigned run_pages;
	alloclab_report_checker check; /* how a store's runs' workload reports are checked */
};

#endif
