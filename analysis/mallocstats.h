/*
 * Prints a plugin's statistics. Statistics in obmalloc's vocabulary (the
 * obmalloc-* and cpython plugins: class.N.*, arenas.*, bytes.*) are laid out
 * as CPython's sys._debugmallocstats() prints them, and their identities
 * are checked: the parts add up to arenas x arena size, pool headers are
 * pools x 48. Anything else is printed as name = value lines.
 */
#ifndef ALLOCLAB_MALLOCSTATS_H
#define ALLOCLAB_MALLOCSTATS_H

#include <jansson.h>
#include <stdio.h>

/* 0: printed, identities hold (or none apply); 1: an identity is broken
 * (said in the output). */
int alloclab_print_stats(const json_t *stats, FILE *out);

#endif
