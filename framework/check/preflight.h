/* `alloclab run`'s pre-flight check of its plugins. See preflight.c. */
#ifndef ALLOCLAB_PREFLIGHT_H
#define ALLOCLAB_PREFLIGHT_H

#include "process/child.h"

#include <jansson.h>

/* Where outcomes are cached: $XDG_CACHE_HOME/alloclab/check, else
 * ~/.cache/alloclab/check. -1 when neither is set. */
int alloclab_check_cache_dir(char *out, size_t len);

/* The check cases the plugin at path (given as spec, with options) fails,
 * as [{case, why}] (empty: it passed), from the cache when it is there
 * (*cached set), else by running them with a deadline of timeout per case. */
json_t *alloclab_preflight(const char *spec, const char *path, const char *options, double timeout, int *cached);

#endif
