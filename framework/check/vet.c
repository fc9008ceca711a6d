/* See vet.h. */
#define _GNU_SOURCE 1
#include "check/vet.h"
#include "base/shell_word.h"
#include "plugin/loader.h"
#include "base/lengths.h"
#include "check/preflight.h"

#include <stdio.h>
#include <string.h>

int alloclab_vet_checks(enum alloclab_check_mode mode, const char *spec)
{
	return mode == ALLOCLAB_CHECK_ALL || (mode == ALLOCLAB_CHECK_PATHS && strchr(spec, '/') != NULL);
}

json_t *alloclab_vet_check(const struct alloclab_plugin_arg *plugin, const char *path, enum alloclab_check_mode mode,
			   double timeout_s)
{
	int cached;
	if (!alloclab_vet_checks(mode, plugin->spec))
		return NULL;
	return alloclab_preflight(plugin->spec, path, plugin->options, timeout_s < 30 ? timeout_s : 30, &cached);
}

int alloclab_vet(const char *command, const struct alloclab_plugin_arg *plugin, enum alloclab_check_mode mode,
		 double timeout_s, struct alloclab_probe *out)
{
	char err[ALLOCLAB_ERR_LEN];
	if (alloclab_probe_isolated(plugin, timeout_s, out, err, sizeof err) != 0) {
		alloclab_say("alloclab: %s", err);
		return -1;
	}
	json_t *failed = alloclab_vet_check(plugin, out->path, mode, timeout_s), *f;
	if (failed && json_array_size(failed)) {
		char line[1024];
		size_t used = 0, i;
		json_array_foreach(failed, i, f) {
			int n = snprintf(line + used, sizeof line - used, "%s%s", i ? ", " : "",
					 json_string_value(json_object_get(f, "case")));
			if (n < 0 || (size_t)n >= sizeof line - used)
				break;
			used += (size_t)n;
		}
		alloclab_say("alloclab: warning: plugin '%s' fails %zu of alloclab check's cases (%s); %s goes on with it "
			     "(see 'alloclab check %s')",
			     plugin->spec, json_array_size(failed), line, command, plugin->spec);
	}
	json_decref(failed);
	return 0;
}
