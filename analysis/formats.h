/*
 * The output formats of `alloclab compare` and `alloclab show`: one table
 * (formats.c) that the commands and their usage texts take names from.
 */
#ifndef ALLOCLAB_FORMATS_H
#define ALLOCLAB_FORMATS_H

#include "results/results.h"
#include "statistics/comparison.h"

#include <stdio.h>

struct alloclab_output_format {
	const char *name;
	const char *help;
	/* Prints a comparison; NULL: not for compare. */
	void (*compare)(const struct alloclab_comparison *cmp, FILE *out);
	/* Prints a run; NULL: not for show. */
	void (*show)(const struct alloclab_results *r, FILE *out);
};

/* NULL-terminated. */
extern const struct alloclab_output_format alloclab_output_formats[];

/* The format of that name usable for compare (for_show 0) or show; NULL. */
const struct alloclab_output_format *alloclab_output_format_find(const char *name, int for_show);

/* "rst, markdown, csv or json": the names usable for compare or show. */
void alloclab_output_format_names(int for_show, char *out, size_t len);

#endif
