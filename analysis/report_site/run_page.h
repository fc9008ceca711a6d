/*
 * A run's page: its facts (run_facts.h), its comparison and every cell
 * (run_tables.h), each workload's pictures beside its table, the memory
 * and latency sections with theirs, the run as `alloclab show` prints
 * it, and the raw values one click away (data/STEM/: the run's whole
 * document as the results writer writes it, each cell's part of it, and
 * the comparison as comparison_json.h writes it).
 */
#ifndef ALLOCLAB_RUN_PAGE_H
#define ALLOCLAB_RUN_PAGE_H

#include "results/results.h"
#include "site.h"

#include <stddef.h>

struct alloclab_run_page {
	const char *file;     /* the page: "index.html", "run-12.html" */
	const char *stem;     /* its pictures and data: figures/STEM/, data/STEM/ */
	const char *source;   /* where the run came from, in words */
	const char *baseline; /* the plugin others are compared with; NULL: the first */
	const char *up, *up_text; /* a link back (a commit's page), or NULL */
};

/* 0, or -1 with err. */
int alloclab_run_page_write(struct alloclab_site *s, const struct alloclab_results *r, const struct alloclab_run_page *p,
			    char *err, size_t err_len);

#endif
