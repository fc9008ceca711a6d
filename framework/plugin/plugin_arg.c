/* A plugin as a command line names it. See plugin_arg.h. */
#define _GNU_SOURCE 1
#include "plugin/plugin_arg.h"

#include <alloclab/plugin_options.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void alloclab_plugin_arg_parse(const char *text, struct alloclab_plugin_arg *out)
{
	const char *colon = strchr(text, ':'), *slash = strchr(text, '/');
	const char *cursor;

	/* A path ends at ".so:" (its options may hold paths themselves); a
	 * name at the first ':'. */
	if (slash && (colon == NULL || slash < colon)) {
		const char *so = strstr(text, ".so:");
		colon = so ? so + 3 : NULL;
	}
	cursor = colon ? colon + 1 : "";
	struct alloclab_option opt;
	size_t len = strlen(cursor), used = 0;

	out->spec = colon ? strndup(text, (size_t)(colon - text)) : strdup(text);
	out->as = NULL;
	out->source = NULL;
	out->gil = 0;
	out->options = calloc(1, len + 1);
	/* Copies every option but as=, which names the plugin in this run. */
	while (alloclab_option_next(&cursor, &opt) > 0) {
		if (alloclab_option_is(&opt, "as")) {
			free(out->as);
			out->as = strndup(opt.value, opt.value_len);
			continue;
		}
		if (alloclab_option_is(&opt, "source")) {
			free(out->source);
			out->source = strndup(opt.value, opt.value_len);
			continue;
		}
		if (alloclab_option_is(&opt, "gil") && (alloclab_option_value_is(&opt, "1") || alloclab_option_value_is(&opt, "0"))) {
			out->gil = alloclab_option_value_is(&opt, "1");
			continue;
		}
		used += (size_t)snprintf(out->options + used, len + 1 - used, "%s%.*s=%.*s", used ? "," : "",
					 (int)opt.key_len, opt.key, (int)opt.value_len, opt.value);
	}
	if (*cursor) /* malformed: left for the plugin to refuse */
		snprintf(out->options + used, len + 1 - used, "%s%s", used ? "," : "", cursor);
}

int alloclab_source_parse(const char *text, char commit[65], int *dirty)
{
	size_t n = strspn(text, "0123456789abcdef");
	if (n < 7 || n > 64 || (text[n] != '\0' && strcmp(text + n, "+dirty") != 0))
		return -1;
	memcpy(commit, text, n);
	commit[n] = '\0';
	*dirty = text[n] != '\0';
	return 0;
}

void alloclab_plugin_arg_clear(struct alloclab_plugin_arg *arg)
{
	free(arg->spec);
	free(arg->options);
	free(arg->as);
	free(arg->source);
	memset(arg, 0, sizeof *arg);
}
