/*
 * `alloclab check PLUGIN[:options]...`: the conformance cases of check.c,
 * each in its own child process with a deadline. A crash fails the case
 * with the signal's name, a hang fails it as timed out; neither stops the
 * check. Exit status 0 only when every case passed or was skipped for a
 * stated reason.
 */
#include "check/check.h"
#include "base/lengths.h"
#include "process/child.h"
#include "plugin/loader.h"
#include "check/vet.h"
#include "cli.h"
#include "base/shell_word.h"
#include "base/numbers.h"
#include "results/results.h"
#include "plugin/plugin_arg.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: alloclab check PLUGIN[:k=v,...] [PLUGIN...] [options]\n"
	"\n"
	"Puts each plugin through the conformance cases, each in its own process:\n"
	"alignment, no-overlap, contents, guards, footprint, edge-sizes, usable-size,\n"
	"threads, thread-lifecycle, honesty, regions, cross-thread (and, asked for by the\n"
	"course's level 5 or by name, arenas and ownership). When a step every case shares (load,\n"
	"create, thread_attach, thread_detach, destroy) crashes or hangs, the rest\n"
	"are not run. What the plugin prints is captured and shown apart.\n"
	"\n"
	"options:\n"
	"      --json              print the results as JSON\n"
	"      --case NAME         run only this case (repeatable)\n"
	"      --level N           run the cases of the course's level N (1 bump, 2 free list,\n"
	"                          3 size classes, 4 thread caches, 5 arenas: docs/course/)\n"
	"      --timeout SECONDS   per case (default 60)\n"
	"  -h, --help\n"
	"\n"
	"exit status: 0 every case passed or was skipped, 1 a case failed, 2 bad input\n";

struct printing {
	int as_json;
	int shown_stop;
};

/* One case's line, as it finishes; the cases not run after a shared step
 * failed are said once. */
static void print_case(const json_t *rec, void *arg)
{
	struct printing *p = arg;
	const char *status = json_string_value(json_object_get(rec, "status"));
	const char *why = json_string_value(json_object_get(rec, "why"));
	const char *printed = json_string_value(json_object_get(rec, "plugin_output"));

	if (p->as_json)
		return;
	if (strcmp(status, "not run") == 0) {
		if (!p->shown_stop++)
			alloclab_tell("  the other cases were %s", why);
		return;
	}
	alloclab_tell("  %-17s %-5s %s", json_string_value(json_object_get(rec, "case")), status, why);
	/* Answers the ABI allows that are not glibc's: a line each. */
	size_t k;
	const json_t *d;
	json_array_foreach(json_object_get(rec, "differs"), k, d)
	{
		char shown[2 * ALLOCLAB_CHECK_DIFFER_LEN];
		printf("  %-17s       differs from glibc: %s\n", "",
		       alloclab_printable(json_string_value(d), shown, sizeof shown));
	}
	if (printed)
		alloclab_tell("  %-17s       (the plugin printed: %.200s)", "", printed);
	fflush(stdout);
}

int alloclab_cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},          {"case", required_argument, NULL, 'c'},
		{"timeout", required_argument, NULL, 'T'}, {"help", no_argument, NULL, 'h'},
		{"level", required_argument, NULL, 'L'},
		{NULL, 0, NULL, 0},
	};
	char *only[32], err[ALLOCLAB_ERR_LEN];
	int nonly = 0, as_json = 0, opt, failed = 0, leveled = 0;
	const char *const *required = NULL;
	double timeout = 60;
	json_t *report;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j': as_json = 1; break;
		case 'c': {
			int known = 0;
			if (leveled)
				return alloclab_usage_error("check", "give --level or --case, not both");
			for (size_t i = 0; alloclab_check_cases[i].name; i++)
				known |= strcmp(alloclab_check_cases[i].name, optarg) == 0;
			if (!known)
				return alloclab_usage_error("check", "no case '%s'", optarg);
			if (nonly < 32)
				only[nonly++] = optarg;
			break;
		}
		case 'T':
			if (alloclab_parse_timeout("check", optarg, 86400, &timeout) != 0)
				return 2;
			break;
		case 'L': {
			unsigned level;
			if (alloclab_parse_count("check", "--level", optarg, 1, ALLOCLAB_CHECK_LEVELS, &level) != 0)
				return 2;
			if (nonly)
				return alloclab_usage_error("check", "give --level or --case, not both");
			for (const char *const *c = alloclab_check_level(level); *c; c++)
				only[nonly++] = (char *)*c;
			required = alloclab_check_level_required(level);
			leveled = 1;
			break;
		}
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("check", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("check", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return alloclab_usage_error("check", "which plugin? give PLUGIN[:options]");
	alloclab_catch_interrupts();
	report = json_array();
	for (int pi = optind; pi < argc; pi++) {
		struct alloclab_plugin_arg plugin;
		struct printing printing = {as_json, 0};
		json_t *cases, *rec;
		int pass = 0, fail = 0, skip = 0, notrun = 0;
		size_t k;
		char path[ALLOCLAB_PATH_LEN];

		struct alloclab_probe probe;
		alloclab_plugin_arg_parse(argv[pi], &plugin);
		/* Vetted as every command vets a plugin (vet.h): a file that is
		 * not a plugin, or one that cannot load or take its options, is
		 * refused with one line naming it and the step, not checked. */
		if (alloclab_plugin_find(plugin.spec, path, sizeof path, err, sizeof err) != 0 ||
		    alloclab_probe_isolated(&plugin, timeout, &probe, err, sizeof err) != 0) {
			alloclab_say("alloclab: %s", err);
			free(plugin.spec);
			free(plugin.options);
			free(plugin.as);
			json_decref(report);
			return 2;
		}
		alloclab_probe_clear(&probe);
		if (!as_json)
			alloclab_tell("alloclab check %s", argv[pi]);
		cases = alloclab_check_plugin(plugin.spec, plugin.options, only, nonly, required, timeout, print_case, &printing,
					      &fail);
		json_array_foreach(cases, k, rec)
		{
			const char *st = json_string_value(json_object_get(rec, "status"));
			pass += strcmp(st, "pass") == 0;
			skip += strcmp(st, "skip") == 0;
			notrun += strcmp(st, "not run") == 0;
		}
		if (!as_json)
			printf("  %d passed, %d failed, %d skipped%s\n\n", pass, fail, skip,
			       notrun ? ", the rest not run" : "");
		failed += fail;
		free(plugin.spec);
		free(plugin.options);
		free(plugin.as);
		json_array_append_new(report, json_pack("{s:o,s:o,s:i,s:i,s:i,s:i}", "plugin", alloclab_json_text(argv[pi]),
							"cases", cases, "passed", pass, "failed", fail, "skipped", skip,
							"not_run", notrun));
	}
	if (as_json) {
		json_dumpf(report, stdout, JSON_INDENT(1));
		putchar('\n');
	}
	json_decref(report);
	if (alloclab_interrupted())
		return 130;
	return failed ? 1 : 0;
}
