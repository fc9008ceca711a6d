/*
 * Vetting a plugin: what every command that loads one (run, exec, record,
 * stats) does before it measures anything, so that no command trusts a
 * plugin another would refuse. Two steps, both in child processes:
 *   probe  load it and create an instance with its options (a crash or a
 *          hang there names the plugin and the step);
 *   check  `alloclab check`'s cases (cached per build of the plugin), by
 *          default for plugins given by path (under development, so buggy
 *          until shown otherwise), for all with --check, none with
 *          --no-check. A failed case does not stop the command: it is
 *          recorded (run) or said on one line (the others).
 */
#ifndef ALLOCLAB_VET_H
#define ALLOCLAB_VET_H

#include "check/probe.h"

#include <jansson.h>

enum alloclab_check_mode { ALLOCLAB_CHECK_PATHS, ALLOCLAB_CHECK_ALL, ALLOCLAB_CHECK_NONE };

/* Whether the mode puts the plugin given as spec through the check. */
int alloclab_vet_checks(enum alloclab_check_mode mode, const char *spec);

/* The check: the cases it fails, [{case, why}] (empty: none), or NULL when
 * the mode does not check it. Per case a deadline of timeout_s (at most
 * 30 s). */
json_t *alloclab_vet_check(const struct alloclab_plugin_arg *plugin, const char *path, enum alloclab_check_mode mode,
			   double timeout_s);

/* Both, for a command that then measures: on a failed check prints one
 * line, "alloclab: warning: ...", naming the cases. 0, or -1 after
 * printing the probe's error. */
int alloclab_vet(const char *command, const struct alloclab_plugin_arg *plugin, enum alloclab_check_mode mode,
		 double timeout_s, struct alloclab_probe *out);

#endif
