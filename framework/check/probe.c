/* The probe of a plugin, in a child. See probe.h. */
#define _GNU_SOURCE 1
#include "check/probe.h"
#include "base/json_text.h"
#include "base/lengths.h"
#include "plugin/allocator.h"
#include "plugin/interpose.h"
#include "plugin/loader.h"
#include "process/child.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *error_object(const char *err)
{
	return json_pack("{s:s}", "error", err);
}

static json_t *probe_describe(const char *spec, const char *options, int gil)
{
	struct alloclab_loaded_plugin plugin;
	struct alloclab_allocator alloc;
	char err[ALLOCLAB_ERR_LEN];
	const struct alloclab_plugin *d;

	alloclab_phase("load");
	if (alloclab_plugin_load(spec, &plugin, err, sizeof err) != 0)
		return error_object(err);
	alloclab_phase("create");
	if (alloclab_allocator_create(&alloc, &plugin, options, err, sizeof err) != 0)
		return error_object(err);
	if (gil)
		alloclab_allocator_global_lock(&alloc);
	d = &plugin.desc;
	json_t *info = json_pack("{s:o,s:o,s:o,s:o,s:o,s:I,s:I}", "name", alloclab_json_text(d->name), "version",
				 alloclab_json_text(d->version), "description", alloclab_json_text(d->description),
				 "options_help", d->options_help ? alloclab_json_text(d->options_help) : json_null(), "path",
				 alloclab_json_text(plugin.path), "caps", (json_int_t)alloc.caps, "min_align",
				 (json_int_t)alloc.min_align);
	alloclab_phase("destroy");
	alloclab_allocator_destroy(&alloc);
	alloclab_phase("exit");
	return info;
}

int alloclab_probe_child(void *plugin_arg, int fd)
{
	const struct alloclab_plugin_arg *p = plugin_arg;
	return alloclab_child_send_json(fd, probe_describe(p->spec, p->options, p->gil));
}

int alloclab_probe_from_json(const json_t *obj, struct alloclab_probe *out, char *err, size_t err_len)
{
	const char *name = NULL, *version = NULL, *description = NULL, *path = NULL;
	json_t *help = NULL;
	json_int_t caps = 0, align = 0;

	memset(out, 0, sizeof *out);
	if (json_unpack((json_t *)obj, "{s:s,s:s,s:s,s?o,s:s,s:I,s:I}", "name", &name, "version", &version,
			"description", &description, "options_help", &help, "path", &path, "caps", &caps, "min_align",
			&align) != 0 ||
	    caps < 0 || align < 0 || (help && !json_is_null(help) && !json_is_string(help))) {
		snprintf(err, err_len, "the probe's answer is malformed");
		return -1;
	}
	out->name = strdup(name);
	out->version = strdup(version);
	out->description = strdup(description);
	out->options_help = json_is_string(help) ? strdup(json_string_value(help)) : NULL;
	out->path = strdup(path);
	out->caps = (uint64_t)caps;
	out->min_align = (uint64_t)align;
	return 0;
}

void alloclab_probe_clear(struct alloclab_probe *p)
{
	free(p->name);
	free(p->version);
	free(p->description);
	free(p->options_help);
	free(p->path);
	memset(p, 0, sizeof *p);
}

int alloclab_probe_isolated(const struct alloclab_plugin_arg *plugin, double timeout_s, struct alloclab_probe *out,
			    char *err, size_t err_len)
{
	struct alloclab_child_result res;
	char why[ALLOCLAB_ERR_LEN];
	json_t *obj;
	int na; /* a probe never says so */

	if (alloclab_child_run(alloclab_probe_child, (void *)plugin, timeout_s, &res, err, err_len) != 0)
		return -1;
	obj = alloclab_child_answer(&res, plugin->spec, timeout_s, &na, why, sizeof why);
	if (obj == NULL || alloclab_probe_from_json(obj, out, why, sizeof why) != 0) {
		alloclab_child_add_printed(&res, why, sizeof why);
		/* Named as the run's tables name it too: its label, then its
		 * file where the words do not already hold it. */
		if (plugin->as && (strchr(plugin->spec, '/') || strstr(why, plugin->spec)))
			snprintf(err, err_len, "plugin '%s': %s", plugin->as, why);
		else if (plugin->as)
			snprintf(err, err_len, "plugin '%s' (%s): %s", plugin->as, plugin->spec, why);
		else if (strchr(plugin->spec, '/') || strstr(why, plugin->spec))
			snprintf(err, err_len, "%s", why);
		else
			snprintf(err, err_len, "plugin '%s': %s", plugin->spec, why);
		json_decref(obj);
		alloclab_child_result_free(&res);
		return -1;
	}
	json_decref(obj);
	alloclab_child_result_free(&res);
	return 0;
}
