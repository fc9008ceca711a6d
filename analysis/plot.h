/* Pictures of a run through gnuplot. See plot.c. */
#ifndef ALLOCLAB_PLOT_H
#define ALLOCLAB_PLOT_H

#include <jansson.h>
#include <stddef.h>

/* Whether a gnuplot command is on the PATH. */
int alloclab_plot_available(void);

/* Writes WORKLOAD-plugins.{png,svg}, WORKLOAD-scaling.{png,svg} (with two
 * or more thread counts) and unicode-offsets.{png,svg} (when the run has
 * placement data) into dir. baseline: the plugin label the others are
 * normalised to (NULL: the first). 0, or -1 with err set. */
int alloclab_plot(const json_t *doc, const char *dir, const char *baseline, char *err, size_t err_len);

#endif
