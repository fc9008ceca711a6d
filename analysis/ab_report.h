/*
 * The A/B table (`alloclab ab`, history/ab.h): one row per metric and
 * workload row, HEAD over BASE with the ratio's interval and the verdict,
 * and the gate's outcome where a threshold was given; as text for a
 * terminal, Markdown for a pull-request comment, or JSON.
 */
#ifndef ALLOCLAB_AB_REPORT_H
#define ALLOCLAB_AB_REPORT_H

#include "ab_functions.h"
#include "history/ab.h"

#include <stdio.h>

struct alloclab_ab_report {
	const struct alloclab_ab_result *result;
	const char *base_name, *head_name; /* what each side is, for people (a path, a revision) */
	/* The gate's thresholds (ab.h); NULL: no gate. */
	const struct alloclab_ab_gate *thresholds;
	/* Where the instructions went, per changed instructions row
	 * (ab_functions.h); NULL, 0: not read. */
	const struct alloclab_ab_functions *functions;
	size_t nfunctions;
};

struct alloclab_ab_format {
	const char *name;
	void (*print)(const struct alloclab_ab_report *rep, FILE *out);
};

/* A row's verdict as the table says it: "1.02x slower (+2.0%)", "+2.053
 * instr/op (1.97% more)", "not resolved", "the same". */
void alloclab_ab_verdict_text(const struct alloclab_ab_row *r, char *out, size_t len);

/* NULL-terminated: text, md (markdown), json. */
extern const struct alloclab_ab_format alloclab_ab_formats[];
const struct alloclab_ab_format *alloclab_ab_format_find(const char *name);

#endif
