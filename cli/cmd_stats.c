/*
 * `alloclab stats PLUGIN[:options] [--workload W[:params]] [--threads N]`:
 * runs the workload once (one worker process, one value), then prints the
 * plugin's statistics as they stood at the end of the run with the working
 * set still live, in sys._debugmallocstats() layout for obmalloc plugins,
 * with the identities checked.
 */
#include "process/child.h"
#include "cli.h"
#include "base/shell_word.h"
#include "mallocstats.h"
#include "check/vet.h"
#include "registry.h"
#include "plugin/plugin_arg.h"
#include "worker/worker.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: alloclab stats PLUGIN[:k=v,...] [options]\n"
	"\n"
	"Runs a workload once against the plugin and prints the plugin's statistics\n"
	"as they stand at the end of the run, working set still live. obmalloc-style\n"
	"statistics are printed as sys._debugmallocstats() prints them, with their\n"
	"identities checked (exit status 1 if one is broken).\n"
	"\n"
	"options:\n"
	"  -w, --workload NAME[:k=v,...]  the workload (default churn)\n"
	"  -t, --threads N                threads (default 1)\n"
	"      --after-finish             the statistics after the working set is freed\n"
	"      --timeout SECONDS          (default 120)\n"
	"      --check / --no-check       put the plugin through 'alloclab check' first / not; by\n"
	"                                 default a plugin given by path is checked (cached per build)\n"
	"      --memory-limit SIZE|none   kill the worker whose resident memory passes SIZE (K, M, G, T);\n"
	"                                 default three quarters of the memory available\n"
	"  -h, --help\n";

int alloclab_cmd_stats(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"workload", required_argument, NULL, 'w'}, {"threads", required_argument, NULL, 't'},
		{"timeout", required_argument, NULL, 'T'},  {"after-finish", no_argument, NULL, 'A'},
		{"check", no_argument, NULL, 'C'},          {"no-check", no_argument, NULL, 'N'},
		{"memory-limit", required_argument, NULL, 'L'},
		{"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
	};
	struct alloclab_cell_spec spec;
	struct alloclab_plugin_arg plugin;
	const char *workload = "churn";
	enum alloclab_check_mode check = ALLOCLAB_CHECK_PATHS;
	char err[ALLOCLAB_ERR_LEN];
	unsigned threads = 1;
	double timeout = 120;
	int opt, after = 0, interrupted, rc;
	struct alloclab_process proc;
	json_t *stats;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":w:t:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'w': workload = optarg; break;
		case 't':
			if (alloclab_parse_count("stats", "thread count", optarg, 1, ALLOCLAB_MAX_THREADS, &threads) != 0)
				return 2;
			break;
		case 'T':
			if (alloclab_parse_timeout("stats", optarg, 86400, &timeout) != 0)
				return 2;
			break;
		case 'C': check = ALLOCLAB_CHECK_ALL; break;
		case 'N': check = ALLOCLAB_CHECK_NONE; break;
		case 'L':
			if (alloclab_parse_memory_limit("stats", optarg) != 0)
				return 2;
			break;
		case 'A': after = 1; break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("stats", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("stats", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return alloclab_usage_error("stats", optind >= argc ? "which plugin? give one PLUGIN[:options]"
								   : "give exactly one plugin");
	memset(&spec, 0, sizeof spec);
	{
		struct alloclab_workload_spec parsed;
		if (alloclab_workload_parse(workload, &parsed, err, sizeof err) != 0)
			return alloclab_usage_error("stats", "%s", err);
		spec.workload = parsed.workload;
		spec.params = parsed.params;
	}
	alloclab_plugin_arg_parse(argv[optind], &plugin);
	struct alloclab_probe probe;
	if (alloclab_vet("stats", &plugin, check, timeout, &probe) != 0) {
		free(plugin.spec);
		free(plugin.options);
		free(plugin.as);
		return 2;
	}
	alloclab_probe_clear(&probe);
	spec.plugin = plugin.spec;
	spec.plugin_options = plugin.options;
	spec.gil = plugin.gil;
	spec.threads = threads;
	spec.values = 1;
	alloclab_catch_interrupts();
	if (alloclab_measure_isolated(&spec, timeout, &proc, &interrupted, err, sizeof err) != 0) {
		alloclab_say("alloclab: %s", err);
		free(plugin.spec);
		free(plugin.options);
		free(plugin.as);
		return interrupted ? 130 : 2;
	}
	stats = after ? proc.stats_after_finish : proc.stats;
	if (stats == NULL) {
		alloclab_say("alloclab: plugin '%s' offers no statistics (no stats op)", plugin.spec);
		alloclab_process_clear(&proc);
		free(plugin.spec);
		free(plugin.options);
		free(plugin.as);
		return 2;
	}
	alloclab_tell("%s%s%s after %s (%u thread%s)%s:", plugin.spec, plugin.options[0] ? ":" : "", plugin.options,
		      workload, spec.threads, spec.threads > 1 ? "s" : "", after ? ", working set freed" : "");
	putchar('\n');
	rc = alloclab_print_stats(stats, stdout);
	alloclab_process_clear(&proc);
	free(plugin.spec);
	free(plugin.options);
	free(plugin.as);
	return rc;
}
