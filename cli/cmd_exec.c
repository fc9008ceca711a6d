/*
 * `alloclab exec -p PLUGIN[:options] -- PROGRAM ARGS...`: runs one program
 * with the plugin as its malloc (liballoclab-preload.so), then prints its
 * wall time, CPU time, peak RSS and how it ended. The program's input and
 * output are the terminal's; alloclab exits with the program's status.
 */
#include "cli.h"
#include "program.h"
#include "runner.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
	"usage: alloclab exec -p PLUGIN[:k=v,...] [--record FILE] -- PROGRAM [ARGS...]\n"
	"\n"
	"Runs the program with the plugin serving all of its malloc, free, calloc,\n"
	"realloc and aligned allocations (liballoclab-preload.so, LD_PRELOAD), then\n"
	"prints its wall time, CPU time, peak RSS and exit status on stderr. The\n"
	"option gil=1 puts one lock around every call (a plugin that is not\n"
	"thread-safe gets one anyway). Exits with the program's status.\n"
	"\n"
	"options:\n"
	"  -p, --plugin NAME|PATH[:k=v,...]  the plugin\n"
	"      --record FILE                 also record the program's calls to a new trace\n"
	"                                    (replay: -w trace:file=FILE)\n"
	"  -h, --help\n";

int alloclab_cmd_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"plugin", required_argument, NULL, 'p'},
		{"record", required_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct alloclab_plugin_arg plugin = {0};
	struct alloclab_program prog = {0};
	struct alloclab_program_result res;
	const char *plugin_text = NULL, *record = NULL;
	char err[ALLOCLAB_ERR_LEN], how[128];
	struct stat st;
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:p:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p': plugin_text = optarg; break;
		case 'R': record = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("exec", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("exec", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (plugin_text == NULL)
		return alloclab_usage_error("exec", "which plugin? give -p PLUGIN[:options]");
	if (optind >= argc)
		return alloclab_usage_error("exec", "which program? give it after --");
	if (record && stat(record, &st) == 0)
		return alloclab_usage_error("exec", "'%s' exists: a trace is never written over", record);
	alloclab_plugin_arg_parse(plugin_text, &plugin);
	/* A plugin that cannot load or take its options is a usage error,
	 * found in a child before the program starts. */
	struct alloclab_probe probe;
	if (alloclab_probe_isolated(&plugin, 60, &probe, err, sizeof err) != 0) {
		fprintf(stderr, "alloclab: %s\n", err);
		free(plugin.spec);
		free(plugin.options);
		free(plugin.as);
		return 2;
	}
	alloclab_probe_clear(&probe);
	prog.argv = (const char *const *)argv + optind;
	prog.pass_through = 1;
	prog.plugin = plugin.spec;
	prog.plugin_options = plugin.options;
	prog.gil = plugin.gil;
	prog.record_path = record;
	if (alloclab_program_run(&prog, &res, err, sizeof err) != 0) {
		fprintf(stderr, "alloclab: %s\n", err);
		free(plugin.spec);
		free(plugin.options);
		free(plugin.as);
		return 2;
	}
	alloclab_program_describe(&res, how, sizeof how);
	fprintf(stderr, "alloclab exec: %s under %s: %s, wall %.3f s, CPU %.3f s (user %.3f, sys %.3f), peak RSS %.1f MiB\n",
		argv[optind], plugin_text, how, res.wall_s, res.user_s + res.sys_s, res.user_s, res.sys_s,
		(double)res.peak_rss_kib / 1024);
	free(plugin.spec);
	free(plugin.options);
	free(plugin.as);
	return res.exited ? res.status : 128 + res.signal;
}
