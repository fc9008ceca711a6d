/*
 * A comparison (statistics/comparison.h) as JSON: `compare --format json`
 * and whatever else hands a comparison on as data. The one writer of that
 * layout, which docs/guides/comparing.md describes key by key.
 */
#ifndef ALLOCLAB_COMPARISON_JSON_H
#define ALLOCLAB_COMPARISON_JSON_H

#include "statistics/comparison.h"

#include <jansson.h>

json_t *alloclab_comparison_to_json(const struct alloclab_comparison *cmp);

#endif
