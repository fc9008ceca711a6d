/*
 * Reading the cells of a results document (results.h): what the run table,
 * the comparisons and the pictures all need to say about a cell.
 */
#ifndef ALLOCLAB_CELLS_H
#define ALLOCLAB_CELLS_H

#include <jansson.h>
#include <stddef.h>

/* The cell's plugin as a user wrote it: "name", "name:options", with
 * " +align" when measured through the cache-line wrapper. */
void alloclab_cell_label(const json_t *cell, char *out, size_t len);

/* Every measured ns_per_op of a cell, in a malloc'd array; *n its length. */
double *alloclab_cell_values(const json_t *cell, size_t *n);

/* The parameters whose values differ between the objects of `items` (each
 * with a "params" object): a new object whose keys are those names. Only
 * they tell rows or bars apart. */
json_t *alloclab_varying_params(const json_t *items);

/* Appends " key=value" for each varying parameter of `params` to out. */
void alloclab_append_params(const json_t *params, const json_t *varying, char *out, size_t len);

#endif
