/*
 * The unicode workload's own report (unicode_report.c): its hooks for the
 * results reader, `alloclab show` and `alloclab plot`, and the 2008
 * benchmark's line format.
 */
#ifndef ALLOCLAB_UNICODE_REPORT_H
#define ALLOCLAB_UNICODE_REPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

struct alloclab_cell;
struct alloclab_figure_list;

/* One line as the benchmark printed it: "Variant 2chars, 1024 words,
 * Unicode: 0.005503 seconds = 0.054 us per object" and "(best of 50
 * rounds)". `seconds` is one round; a round allocates words x reps objects. */
void alloclab_unicode_seed_line(FILE *out, const char *variant, unsigned words, int bytes, double seconds,
				unsigned reps, unsigned rounds);

/* Checks a value's or a process's report as read from a results file. */
int alloclab_unicode_check_report(int per_process, const json_t *report, char *err, size_t err_len);
/* The cell's lines in the 2008 benchmark's format and their placement. */
void alloclab_unicode_print_cell(const struct alloclab_cell *cell, FILE *out);
/* Its pictures. */
void alloclab_unicode_figures(const struct alloclab_cell *const *cells, size_t n, struct alloclab_figure_list *out);

#endif
