/*
 * `alloclab check PLUGIN[:options]...`: the conformance cases of check.c,
 * each in its own child process with a deadline. A crash fails the case
 * with the signal's name, a hang fails it as timed out; neither stops the
 * check. Exit status 0 only when every case passed or was skipped for a
 * stated reason.
 */
#include "check.h"
#include "child.h"
#include "loader.h"
#include "cli.h"
#include "results.h"
#include "runner.h"

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
	"threads, thread-lifecycle, honesty. When a step every case shares (load,\n"
	"create, thread_attach, thread_detach, destroy) crashes or hangs, the rest\n"
	"are not run. What the plugin prints is captured and shown apart.\n"
	"\n"
	"options:\n"
	"      --json              print the results as JSON\n"
	"      --case NAME         run only this case (repeatable)\n"
	"      --timeout SECONDS   per case (default 60)\n"
	"  -h, --help\n"
	"\n"
	"exit status: 0 every case passed or was skipped, 1 a case failed, 2 bad input\n";

struct case_arg {
	const struct alloclab_plugin_arg *plugin;
	const struct alloclab_check_case *c;
};

static int case_child(void *arg, int fd)
{
	const struct case_arg *ca = arg;
	struct alloclab_loaded_plugin p;
	struct alloclab_allocator a;
	struct alloclab_check_result r;
	char err[ALLOCLAB_ERR_LEN];
	const char *step = "load";
	json_t *out;

	alloclab_phase("load");
	if (alloclab_plugin_load(ca->plugin->spec, &p, err, sizeof err) != 0 ||
	    (alloclab_phase(step = "create"), alloclab_allocator_create(&a, &p, ca->plugin->options, err, sizeof err)) != 0) {
		r.status = ALLOCLAB_CHECK_FAIL;
		snprintf(r.why, sizeof r.why, "%s", err);
		out = json_pack("{s:s,s:o,s:s}", "status", "fail", "why", alloclab_json_text(r.why), "step", step);
		return alloclab_child_send_json(fd, out);
	}
	alloclab_check_run_case(ca->c, &a, &r);
	alloclab_phase("destroy");
	alloclab_allocator_destroy(&a);
	alloclab_phase("exit");
	out = json_pack("{s:s,s:o}", "status",
			r.status == ALLOCLAB_CHECK_PASS ? "pass" : r.status == ALLOCLAB_CHECK_SKIP ? "skip" : "fail", "why",
			alloclab_json_text(r.why));
	return alloclab_child_send_json(fd, out);
}

/* The steps every case goes through: when one crashes or hangs there, the
 * other cases would only do the same. */
static int shared_step(const char *step)
{
	return strcmp(step, "load") == 0 || strcmp(step, "create") == 0 || strcmp(step, "thread_attach") == 0 ||
	       strcmp(step, "thread_detach") == 0 || strcmp(step, "destroy") == 0;
}

static int wanted(const char *name, char **only, int nonly)
{
	if (nonly == 0)
		return 1;
	for (int i = 0; i < nonly; i++)
		if (strcmp(only[i], name) == 0)
			return 1;
	return 0;
}

int alloclab_cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},          {"case", required_argument, NULL, 'c'},
		{"timeout", required_argument, NULL, 'T'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *only[32], err[ALLOCLAB_ERR_LEN];
	int nonly = 0, as_json = 0, opt, failed = 0;
	double timeout = 60;
	json_t *report;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j': as_json = 1; break;
		case 'c': {
			int known = 0;
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
		json_t *cases = json_array();
		int pass = 0, fail = 0, skip = 0, notrun = 0;
		char stopped[700] = "";

		alloclab_plugin_arg_parse(argv[pi], &plugin);
		{
			char path[4096];
			if (alloclab_plugin_find(plugin.spec, path, sizeof path, err, sizeof err) != 0) {
				fprintf(stderr, "alloclab: %s\n", err);
				free(plugin.spec);
				free(plugin.options);
				free(plugin.as);
				json_decref(report);
				return 2;
			}
		}
		if (!as_json)
			printf("alloclab check %s\n", argv[pi]);
		for (size_t i = 0; alloclab_check_cases[i].name && !alloclab_interrupted(); i++) {
			const struct alloclab_check_case *c = &alloclab_check_cases[i];
			struct case_arg ca = {&plugin, c};
			struct alloclab_child_result res;
			char why[900], step[64];
			const char *status;
			json_t *out = NULL, *entry;

			if (!wanted(c->name, only, nonly))
				continue;
			if (stopped[0]) {
				/* A shared step failed: every other case would too. */
				if (!as_json && notrun++ == 0)
					printf("  the other cases were %s\n", stopped);
				json_array_append_new(cases, json_pack("{s:s,s:s,s:o}", "case", c->name, "status", "not run",
								       "why", alloclab_json_text(stopped)));
				continue;
			}
			if (alloclab_child_run(case_child, &ca, timeout, &res, err, sizeof err) != 0) {
				fprintf(stderr, "alloclab: %s\n", err);
				return 2;
			}
			snprintf(step, sizeof step, "%s", res.phase);
			if (res.exited && res.exit_code <= 1 && !res.flooded)
				out = json_loads(res.output, 0, NULL);
			if (json_is_string(json_object_get(out, "status")) && json_is_string(json_object_get(out, "why"))) {
				status = json_string_value(json_object_get(out, "status"));
				snprintf(why, sizeof why, "%s", json_string_value(json_object_get(out, "why")));
				if (json_is_string(json_object_get(out, "step"))) {
					/* The plugin cannot be loaded or created: one line, once. */
					snprintf(step, sizeof step, "%s", json_string_value(json_object_get(out, "step")));
					snprintf(stopped, sizeof stopped, "not run: %s failed in case %s", step, c->name);
				}
			} else {
				char how[256];
				alloclab_child_describe(&res, timeout, how, sizeof how);
				status = "fail";
				snprintf(why, sizeof why, "plugin %s: the case's process %s", plugin.spec, how);
				if (shared_step(step))
					snprintf(stopped, sizeof stopped, "not run: %s %s in case %s",
						 step, res.timed_out ? "hung" : "failed", c->name);
			}
			pass += strcmp(status, "pass") == 0;
			fail += strcmp(status, "fail") == 0;
			skip += strcmp(status, "skip") == 0;
			entry = json_pack("{s:s,s:s,s:o}", "case", c->name, "status", status, "why", alloclab_json_text(why));
			if (res.printed_len) {
				/* The plugin's own chatter: kept and flagged, never mixed
				 * into alloclab's output. */
				char *printed = alloclab_child_printed(&res);
				json_object_set_new(entry, "plugin_output", alloclab_json_text(printed));
				if (!as_json)
					printf("  %-17s %-5s %s\n  %-17s       (the plugin printed: %.200s)\n", c->name, status,
					       why, "", printed);
				free(printed);
			} else if (!as_json) {
				printf("  %-17s %-5s %s\n", c->name, status, why);
			}
			json_array_append_new(cases, entry);
			json_decref(out);
			alloclab_child_result_free(&res);
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
