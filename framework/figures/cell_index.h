/*
 * Cells found by what they are, in time that grows with their number: a
 * cell's row identity as one text, and a hash table of texts. The table,
 * compare, the pictures and the report pair cells through these instead
 * of looking through every cell for each one's partners: a results file
 * of 20,000 cells kept show busy for minutes that way.
 */
#ifndef ALLOCLAB_CELL_INDEX_H
#define ALLOCLAB_CELL_INDEX_H

#include "results/results.h"

#include <stddef.h>

/* What makes a cell the row it is: its workload, parameters (keys sorted)
 * and thread count, and with_plugin its plugin and whether it was measured
 * aligned. Two cells give the same text exactly when they are the same
 * row (their parameters json_equal). malloc'd; NULL out of memory. */
char *alloclab_cell_row_key(const struct alloclab_cell *c, int with_plugin);

/* Texts, each with a number, found by hashing. The hash is seeded at
 * random once a process: a file's texts cannot be chosen to collide. */
struct alloclab_text_index;

/* NULL out of memory. */
struct alloclab_text_index *alloclab_text_index_new(void);
void alloclab_text_index_free(struct alloclab_text_index *x);

/* The number kept for text, or -1 when it holds no such text. */
long alloclab_text_index_get(const struct alloclab_text_index *x, const char *text);

/* The number kept for text: value where it held no such text (the text is
 * copied), the earlier one where it did. -1 out of memory. */
long alloclab_text_index_put(struct alloclab_text_index *x, const char *text, long value);

/* How many texts it holds. */
size_t alloclab_text_index_count(const struct alloclab_text_index *x);

/* Equal texts as groups, numbered from 0 in the order their first text
 * comes: group[i] is texts[i]'s, and group k's texts are member[start[k]]
 * to member[start[k + 1] - 1], in order. */
struct alloclab_text_groups {
	size_t n; /* groups */
	size_t *group, *start, *member;
};

/* 0, or -1 out of memory. */
int alloclab_text_groups_make(const char *const *texts, size_t count, struct alloclab_text_groups *g);
void alloclab_text_groups_free(struct alloclab_text_groups *g);

#endif
