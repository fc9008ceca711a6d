/*
 * alloclab: load allocators as plugins, run workloads against them in
 * threads, measure. This file dispatches subcommands.
 */
#include "cli.h"
#include "files/self_exe.h"
#include "plugin/static_tls.h"

#include <alloclab/plugin.h>

#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: alloclab COMMAND [options]\n"
	"\n"
	"Allocator research framework: loads allocators as plugins and runs\n"
	"workloads against them in threads, in isolated worker processes.\n"
	"\n"
	"commands:\n"
	"  run     measure plugins x workloads x thread counts (no options: the default suite)\n"
	"  list    show the plugins found and the workloads with their parameters\n"
	"  check   put plugins through the conformance cases, each case in its own process\n"
	"  compare compare runs, or plugins within a run: significance, tables (rst, markdown, csv, json)\n"
	"  plot    draw a run's results with gnuplot (PNG and SVG)\n"
	"  report  a static site of a run or of a history store, to open in a browser\n"
	"  show    print the table and workload reports of a results file\n"
	"  merge   put the shards of a run (run --shard K/N) together into one results file\n"
	"  export  write a results file in pyperf's JSON format or as CSV, for other tools\n"
	"  slurm   run a sweep as a Slurm job array of shards, then merge them; follow it\n"
	"  new     start a plugin from a template of the course (bump, freelist, segregated)\n"
	"  explain where two plugins' instructions per op differ, function by function (callgrind)\n"
	"  heapmap pictures of a plugin's heap: its regions and where live blocks lie\n"
	"  grade   put course submissions through a level's cases and time them: one row each\n"
	"  ab      measure two builds of a plugin against each other: instructions, time side\n"
	"          by side, memory; one table, and an exit status for a pull request's gate\n"
	"  history keep a plugin's runs in a store; build and measure a repository's commits;\n"
	"          show each series with its change points; bisect a change\n"
	"  stats   run a workload once and print a plugin's statistics (obmalloc: as CPython does)\n"
	"  record  run a workload once and record its allocator calls to a trace (replay: -w trace)\n"
	"  exec    run any program with a plugin as its malloc; print its time and peak memory\n"
	"  help    show this text; 'alloclab COMMAND --help' for a command's options\n"
	"\n"
	"environment:\n"
	"  ALLOCLAB_PLUGIN_PATH   colon-separated folders searched first for plugins by name\n"
	"\n"
	"exit status: 0 success, 1 some cells failed, 2 bad input, 130 interrupted\n";

int main(int argc, char **argv)
{
	alloclab_command_keep(argc, argv);
	alloclab_self_init(argv[0]);
	alloclab_ensure_static_tls(argv);

	if (argc < 2) {
		fputs(usage, stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("alloclab %s (plugin ABI %u)\n", ALLOCLAB_VERSION, ALLOCLAB_PLUGIN_ABI_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "run") == 0)
		return alloclab_cmd_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0)
		return alloclab_cmd_list(argc - 1, argv + 1);
	if (strcmp(argv[1], "__worker") == 0)
		return alloclab_cmd_worker(argc - 1, argv + 1);
	if (strcmp(argv[1], "__grade-inside") == 0)
		return alloclab_cmd_grade_inside(argc - 1, argv + 1);
	if (strcmp(argv[1], "check") == 0)
		return alloclab_cmd_check(argc - 1, argv + 1);
	if (strcmp(argv[1], "compare") == 0)
		return alloclab_cmd_compare(argc - 1, argv + 1);
	if (strcmp(argv[1], "plot") == 0)
		return alloclab_cmd_plot(argc - 1, argv + 1);
	if (strcmp(argv[1], "report") == 0)
		return alloclab_cmd_report(argc - 1, argv + 1);
	if (strcmp(argv[1], "show") == 0)
		return alloclab_cmd_show(argc - 1, argv + 1);
	if (strcmp(argv[1], "stats") == 0)
		return alloclab_cmd_stats(argc - 1, argv + 1);
	if (strcmp(argv[1], "record") == 0)
		return alloclab_cmd_record(argc - 1, argv + 1);
	if (strcmp(argv[1], "exec") == 0)
		return alloclab_cmd_exec(argc - 1, argv + 1);
	if (strcmp(argv[1], "merge") == 0)
		return alloclab_cmd_merge(argc - 1, argv + 1);
	if (strcmp(argv[1], "export") == 0)
		return alloclab_cmd_export(argc - 1, argv + 1);
	if (strcmp(argv[1], "slurm") == 0)
		return alloclab_cmd_slurm(argc - 1, argv + 1);
	if (strcmp(argv[1], "new") == 0)
		return alloclab_cmd_new(argc - 1, argv + 1);
	if (strcmp(argv[1], "explain") == 0)
		return alloclab_cmd_explain(argc - 1, argv + 1);
	if (strcmp(argv[1], "heapmap") == 0)
		return alloclab_cmd_heapmap(argc - 1, argv + 1);
	if (strcmp(argv[1], "grade") == 0)
		return alloclab_cmd_grade(argc - 1, argv + 1);
	if (strcmp(argv[1], "ab") == 0)
		return alloclab_cmd_ab(argc - 1, argv + 1);
	if (strcmp(argv[1], "history") == 0)
		return alloclab_cmd_history(argc - 1, argv + 1);
	return alloclab_usage_error(NULL, "unknown command '%s'", argv[1]);
}
