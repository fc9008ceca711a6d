/*
 * `alloclab list`: the plugins found by name (each probed in a child
 * process, so a broken plugin in a search folder is reported, not fatal) and
 * the built-in workloads with their parameters.
 */
#define _GNU_SOURCE 1
#include "process/child.h"
#include "base/shell_word.h"
#include "base/lengths.h"
#include "cli.h"
#include "plugin/loader.h"
#include "registry.h"
#include "check/probe.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIST_TIMEOUT_S 10.0

struct listing {
	char names[256][64];
	unsigned count;
};

static void print_plugin(const char *name, const char *path)
{
	struct alloclab_child_result res;
	struct alloclab_probe probe;
	char err[ALLOCLAB_ERR_LEN], caps[512];
	json_t *info = NULL;
	struct alloclab_plugin_arg arg = {.spec = (char *)path, .options = ""};

	if (alloclab_child_run(alloclab_probe_child, &arg, LIST_TIMEOUT_S, &res, err, sizeof err) != 0) {
		alloclab_tell("  %s: %s", path, err);
		return;
	}
	/* Described; or the plugin's own reason (one line, shown safely), or
	 * how its probe ended, with the step it was in (its entry function,
	 * create). */
	int na, refused = res.exited && res.exit_code == 1;
	info = alloclab_child_answer(&res, name, LIST_TIMEOUT_S, &na, err, sizeof err);
	if (info == NULL) {
		alloclab_tell("  %-12s cannot be %s: %s", name, refused ? "used" : "probed", err);
	} else if (alloclab_probe_from_json(info, &probe, err, sizeof err) != 0) {
		alloclab_tell("  %-12s cannot be probed: %s", name, err);
	} else {
		alloclab_tell("  %-12s %s", probe.name, probe.description);
		alloclab_tell("  %-12s version %s; min alignment %llu", "", probe.version, (unsigned long long)probe.min_align);
		alloclab_caps_format(probe.caps, caps, sizeof caps);
		printf("  %-12s caps: %s\n", "", caps);
		alloclab_tell("  %-12s %s", "", probe.path);
		if (probe.options_help) {
			char *save = NULL;
			for (char *line = strtok_r(probe.options_help, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
				alloclab_tell("  %-12s option %s", "", line);
		}
		alloclab_probe_clear(&probe);
	}
	if (res.printed_len)
		printf("  %-12s (it printed %zu bytes while probed)\n", "", res.printed_len);
	json_decref(info);
	alloclab_child_result_free(&res);
}

static void list_dir(const char *dir, void *arg)
{
	struct listing *seen = arg;
	struct dirent **entries;
	int n = scandir(dir, &entries, NULL, alphasort);

	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		const char *name = entries[i]->d_name;
		size_t len = strlen(name);
		char path[ALLOCLAB_PATH_LEN], short_name[64];
		int shadowed = 0;

		if (len > 3 && strcmp(name + len - 3, ".so") == 0 && len - 3 < sizeof short_name) {
			snprintf(short_name, sizeof short_name, "%.*s", (int)(len - 3), name);
			for (unsigned k = 0; k < seen->count; k++)
				shadowed |= strcmp(seen->names[k], short_name) == 0;
			snprintf(path, sizeof path, "%s/%s", dir, name);
			if (shadowed)
				alloclab_tell("  %-12s %s (shadowed by an earlier folder)", short_name, path);
			else {
				if (seen->count < 256)
					snprintf(seen->names[seen->count++], 64, "%s", short_name);
				print_plugin(short_name, path);
			}
		}
		free(entries[i]);
	}
	free(entries);
}

static void print_search_dir(const char *dir, void *arg)
{
	(void)arg;
	alloclab_tell("  %s%s", dir, access(dir, F_OK) == 0 ? "" : " (absent)");
}

int alloclab_cmd_list(int argc, char **argv)
{
	struct listing seen = {.count = 0};

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		puts("usage: alloclab list\n\nShows the plugins found in the search folders and the built-in workloads.");
		return 0;
	}
	if (argc > 1)
		return alloclab_usage_error("list", "unexpected argument '%s'", argv[1]);
	printf("plugin search folders, in order:\n");
	alloclab_plugin_search_dirs(print_search_dir, NULL);
	printf("\nplugins:\n");
	alloclab_plugin_search_dirs(list_dir, &seen);
	if (seen.count == 0)
		printf("  (none found)\n");
	printf("\nworkloads:\n");
	for (size_t i = 0; alloclab_workloads[i]; i++) {
		const struct alloclab_workload *w = alloclab_workloads[i];
		printf("  %-12s %s\n", w->name, w->description);
		printf("  %-12s one op = %s%s\n", "", w->unit_op,
		       w->flags & ALLOCLAB_WORKLOAD_CROSS_THREAD_FREE		? "; frees across threads"
		       : w->flags & ALLOCLAB_WORKLOAD_CROSS_THREAD_FREE_IN_THREADS ? "; frees across threads when threaded"
										   : "");
		if (w->max_threads)
			printf("  %-12s at most %u threads\n", "", w->max_threads);
		for (unsigned p = 0; p < w->nparams; p++) {
			const struct alloclab_param *d = &w->params[p];
			if (d->type == ALLOCLAB_PARAM_CHOICE) {
				printf("  %-12s %-10s default %-10s %s (", "", d->name,
				       d->def_text ? d->def_text : d->choices[d->def], d->help);
				for (unsigned g = 0; d->groups && d->groups[g]; g += 2)
					printf("%s|", d->groups[g]);
				for (unsigned c = 0; d->choices[c]; c++)
					printf("%s%s", c ? "|" : "", d->choices[c]);
				printf(")\n");
			} else if (d->type == ALLOCLAB_PARAM_TEXT) {
				printf("  %-12s %-10s default %s: %s\n", "", d->name, d->def_text, d->help);
			} else {
				printf("  %-12s %-10s default %-10llu %s (%llu..%llu)\n", "", d->name,
				       (unsigned long long)d->def, d->help, (unsigned long long)d->min,
				       (unsigned long long)d->max);
			}
		}
	}
	return 0;
}
