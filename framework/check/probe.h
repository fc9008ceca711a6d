/*
 * The probe: what every command that loads a plugin does first, in a
 * child process (a crash or a hang there names the plugin and the step):
 * load it, create an instance with its options, say what it is, destroy
 * it.
 */
#ifndef ALLOCLAB_PROBE_H
#define ALLOCLAB_PROBE_H

#include "plugin/plugin_arg.h"

#include <jansson.h>
#include <stdint.h>

/* What a probe learns of a plugin: loads it, creates an instance, destroys
 * it. Strings are malloc'd (alloclab_probe_clear frees them). */
struct alloclab_probe {
	char *name, *version, *description, *options_help, *path;
	uint64_t caps;      /* the instance's capability bits */
	uint64_t min_align;
};
/* In a child (process/child.h's alloclab_child_run), the probe of the
 * struct alloclab_plugin_arg given: its answer on fd is what the plugin
 * is, or {"error": why}. */
int alloclab_probe_child(void *plugin_arg, int fd);

/* The child's answer (caps as a number), checked. */
int alloclab_probe_from_json(const json_t *obj, struct alloclab_probe *out, char *err, size_t err_len);
void alloclab_probe_clear(struct alloclab_probe *p);

/* Loads the plugin and creates an instance in a child process (a crash or
 * hang there is reported, never suffered): 0 with *out filled, or -1 with
 * one line in err. */
int alloclab_probe_isolated(const struct alloclab_plugin_arg *plugin, double timeout_s, struct alloclab_probe *out,
			    char *err, size_t err_len);

#endif
