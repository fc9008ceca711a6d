/*
 * A plugin's statistics (the stats op, plugin.h) as alloclab keeps them:
 * {name: value}, a value a whole number from 0 to 2^64-1, kept as a JSON
 * integer up to INT64_MAX (where jansson's integers stop) and past it as
 * a string of its decimal digits. The standard names come first in every
 * table, in one order.
 */
#ifndef ALLOCLAB_STATS_H
#define ALLOCLAB_STATS_H

#include "alloclab/plugin.h"

#include <jansson.h>
#include <stdint.h>

/* The standard statistic names (plugin.h's ALLOCLAB_STAT_*), in the order
 * every keeper of them uses. */
#define ALLOCLAB_NSTANDARD_STATS 6
extern const char *const alloclab_standard_stats[ALLOCLAB_NSTANDARD_STATS];

/* A statistic's value as kept; 0 for anything else. */
uint64_t alloclab_stat_value(const json_t *v);

/* The form a statistic is kept in: an integer, or its digits past
 * INT64_MAX. A new reference. */
json_t *alloclab_stat_json(uint64_t value);

/* 1 when digits are a value past INT64_MAX written canonically (the only
 * values kept as digits), else 0. */
int alloclab_stat_digits_exact(const char *digits);

/* The longest statistic name kept. */
#define ALLOCLAB_STAT_NAME_MAX 128

/* Calls the plugin's stats op with emit guarded: a name that is NULL,
 * empty, longer than ALLOCLAB_STAT_NAME_MAX or holds a control character
 * never reaches emit (the statistic is dropped), so that a plugin's bad
 * call is its own statistic lost, not the worker crashed and the cell
 * with it. The op's return value. */
int alloclab_plugin_stats(const struct alloclab_plugin *ops, void *instance, alloclab_stat_fn emit, void *emit_arg);

#endif
