/*
 * `alloclab exec -p PLUGIN[:options] -- PROGRAM ARGS...`: runs one program
 * with the plugin as its malloc (liballoclab-preload.so), then prints its
 * wall time, CPU time, peak RSS and how it ended. The program's input and
 * output are the terminal's; alloclab exits with the program's status, or
 * 2 when the plugin never served it (the preload library says when it has:
 * program.h), so that a program that ran on its own malloc, or never ran,
 * is never taken for one measured under the plugin.
 */
#include "cli.h"
#include "process/program.h"
#include "plugin/plugin_arg.h"
#include "check/vet.h"
#include "files/output_path.h"
#include "trace/trace.h"
#include "measure/latency.h"
#include "latency_report.h"
#include "base/lengths.h"
#include "base/numbers.h"
#include "base/shell_word.h"
#include "files/scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
	"usage: alloclab exec -p PLUGIN[:k=v,...] [options] -- PROGRAM [ARGS...]\n"
	"\n"
	"Runs the program with the plugin serving all of its malloc, free, calloc,\n"
	"realloc and aligned allocations (liballoclab-preload.so, LD_PRELOAD), then\n"
	"prints its wall time, CPU time, peak RSS and exit status on stderr. The\n"
	"option gil=1 puts one lock around every call (a plugin that is not\n"
	"thread-safe gets one anyway). Exits with the program's status; 2 when the\n"
	"plugin never served it (a static program, or a plugin that ended it while\n"
	"being loaded).\n"
	"\n"
	"options:\n"
	"  -p, --plugin NAME|PATH[:k=v,...]  the plugin\n"
	"      --record FILE                 also record the program's calls to a trace (one there is\n"
	"                                    replaced; any other file is not)\n"
	"                                    (replay: -w trace:file=FILE)\n"
	"      --timeout SECONDS             kill the program (and what it started) after this long\n"
	"                                    (default 600; loading and creating the plugin first: at\n"
	"                                    most 60 of them)\n"
	"      --latency                     also time every allocator call of the program (its\n"
	"                                    percentiles per op, on stderr; docs/guides/latency.md)\n"
	"      --latency-every K             time every K-th call of each thread only\n"
	"      --check / --no-check          put the plugin through 'alloclab check' first / not; by\n"
	"                                    default a plugin given by path is checked (cached per build)\n" ALLOCLAB_MEMORY_LIMIT_HELP
	"  -h, --help\n";

/* What the command line asks for. */
struct exec_args {
	const char *plugin_text, *record;
	double timeout;
	unsigned latency; /* 0: calls not timed; else every latency-th */
	enum alloclab_check_mode check;
};

/* The options into a. -1 to go on (the program at argv[optind]), or the
 * exit status. */
static int parse_options(int argc, char **argv, struct exec_args *a)
{
	static const struct option longopts[] = {
		{"plugin", required_argument, NULL, 'p'},       {"record", required_argument, NULL, 'R'},
		{"timeout", required_argument, NULL, 'T'},      {"check", no_argument, NULL, 'C'},
		{"no-check", no_argument, NULL, 'N'},           {"memory-limit", required_argument, NULL, 'L'},
		{"latency", no_argument, NULL, 'y'},            {"latency-every", required_argument, NULL, 'Y'},
		{"help", no_argument, NULL, 'h'},               {NULL, 0, NULL, 0},
	};
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:p:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			/* One program, one malloc: a second plugin would silently
			 * replace the first. Plugins side by side are the exec
			 * workload's (run -w exec:cmd=...). */
			if (a->plugin_text) {
				char first[ALLOCLAB_PRINTED_LEN], second[ALLOCLAB_PRINTED_LEN];
				return alloclab_usage_error("exec",
							    "-p given twice ('%s' and '%s'): exec runs the program under "
							    "one plugin; to compare plugins on a program, use alloclab run "
							    "-p A -p B -w exec:cmd=...",
							    alloclab_printable(a->plugin_text, first, sizeof first),
							    alloclab_printable(optarg, second, sizeof second));
			}
			a->plugin_text = optarg;
			break;
		case 'R': a->record = optarg; break;
		case 'T':
			if (alloclab_parse_timeout("exec", optarg, 86400 * 365, &a->timeout) != 0)
				return 2;
			break;
		case 'C': a->check = ALLOCLAB_CHECK_ALL; break;
		case 'N': a->check = ALLOCLAB_CHECK_NONE; break;
		case 'L':
			if (alloclab_parse_memory_limit("exec", optarg) != 0)
				return 2;
			break;
		case 'y':
			if (a->latency == 0)
				a->latency = 1;
			break;
		case 'Y':
			if (alloclab_parse_count("exec", "--latency-every", optarg, 1, ALLOCLAB_LATENCY_MAX_EVERY,
						 &a->latency) != 0)
				return 2;
			break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("exec", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("exec", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (a->plugin_text == NULL)
		return alloclab_usage_error("exec", "which plugin? give -p PLUGIN[:options]");
	if (optind >= argc)
		return alloclab_usage_error("exec", "which program? give it after --");
	return -1;
}

/* The recorded trace named `record` once it reads back valid; else said
 * why it is not kept. */
static void keep_trace(const char *trace_path, struct alloclab_output_file *trace, const char *record)
{
	char err[ALLOCLAB_ERR_LEN];
	struct alloclab_trace *t = alloclab_trace_open(trace_path, err, sizeof err);
	if (t == NULL || alloclab_trace_validate(t, NULL, err, sizeof err) != 0 ||
	    alloclab_output_commit(trace, record, ALLOCLAB_OUTPUT_TRACE, err, sizeof err) != 0)
		alloclab_say("alloclab: the program's trace is not kept: %s", err);
	if (t)
		alloclab_trace_close(t);
}

/* The times of the program's calls, from the record it left, on stderr. */
static void print_latency(const char *latency_path, unsigned latency)
{
	char err[ALLOCLAB_ERR_LEN];
	struct alloclab_latency *l;
	if (alloclab_program_latency(latency_path, &l, err, sizeof err) != 0) {
		alloclab_say("alloclab exec: %s", err);
	} else {
		char every[48] = "every call";
		if (latency > 1)
			snprintf(every, sizeof every, "1 call in %u of each thread", latency);
		alloclab_say("alloclab exec: the calls' times (%s; %.1f ns of measuring subtracted from each):", every,
			     l->overhead_ns);
		alloclab_latency_table(l, 2, stderr);
		alloclab_latency_free(l);
	}
}

int alloclab_cmd_exec(int argc, char **argv)
{
	/* Every program alloclab runs has a deadline: a plugin that hangs
	 * the program must not hang alloclab. */
	struct exec_args a = {.check = ALLOCLAB_CHECK_PATHS, .timeout = 600};
	char latency_dir[ALLOCLAB_PATH_LEN] = "", latency_path[ALLOCLAB_PATH_LEN + 16];
	struct alloclab_plugin_arg plugin = {0};
	struct alloclab_program prog = {0};
	struct alloclab_program_result res;
	struct alloclab_probe probe;
	char err[ALLOCLAB_ERR_LEN], how[600];
	struct alloclab_output_file trace = {.fd = -1};
	char trace_path[64];
	int parsed, rc = 2, handed = -1;

	if ((parsed = parse_options(argc, argv, &a)) >= 0)
		return parsed;
	/* The trace under the one output policy (output_path.h), as record's:
	 * written by the program's preload library into an unnamed file it
	 * inherits, named only once it reads back valid. */
	if (a.record && alloclab_output_usable(a.record, ALLOCLAB_OUTPUT_TRACE, err, sizeof err) != 0)
		return alloclab_usage_error("exec", "%s", err);
	alloclab_plugin_arg_parse(a.plugin_text, &plugin);
	/* A plugin that cannot load or take its options is a usage error,
	 * found in a child before the program starts; one that fails the
	 * check is said so. A hang in loading has the --timeout given, at
	 * most a minute. */
	if (alloclab_vet("exec", &plugin, a.check, a.timeout < 60 ? a.timeout : 60, &probe) != 0)
		goto done;
	alloclab_probe_clear(&probe);
	prog.argv = (const char *const *)argv + optind;
	prog.pass_through = 1;
	prog.timeout_s = a.timeout;
	prog.plugin = plugin.spec;
	prog.plugin_options = plugin.options;
	prog.gil = plugin.gil;
	if (a.record) {
		if (alloclab_output_begin(a.record, ALLOCLAB_OUTPUT_TRACE, &trace, err, sizeof err) != 0 ||
		    (handed = fcntl(trace.fd, F_DUPFD, 10)) < 0) {
			alloclab_say("alloclab: %s", handed < 0 && trace.fd >= 0 ? strerror(errno) : err);
			goto done;
		}
		snprintf(trace_path, sizeof trace_path, "/proc/self/fd/%d", handed);
		prog.record_path = trace_path;
	}
	if (a.latency) {
		if (alloclab_scratch_make("exec-latency", latency_dir, sizeof latency_dir) != 0) {
			alloclab_say("alloclab: cannot create a temporary folder: %s", strerror(errno));
			latency_dir[0] = '\0';
			goto done;
		}
		snprintf(latency_path, sizeof latency_path, "%s/latency.json", latency_dir);
		prog.latency_every = a.latency;
		prog.latency_path = latency_path;
	}
	if (alloclab_program_run(&prog, &res, err, sizeof err) != 0) {
		alloclab_say("alloclab: %s", err);
		goto done;
	}
	if (a.record)
		keep_trace(trace_path, &trace, a.record);
	alloclab_program_describe(&prog, &res, how, sizeof how);
	char program[ALLOCLAB_PRINTED_LEN], plugin_shown[ALLOCLAB_PRINTED_LEN], shown[sizeof how + 64];
	alloclab_say("alloclab exec: %s under %s: %s%s, wall %.3f s, CPU %.3f s (user %.3f, sys %.3f), peak RSS %.1f MiB",
		alloclab_printable(argv[optind], program, sizeof program),
		alloclab_printable(a.plugin_text, plugin_shown, sizeof plugin_shown),
		alloclab_printable(how, shown, sizeof shown),
		/* Which deadline ended it, and how to give it more. */
		res.timed_out ? " (exec's --timeout: give --timeout SECONDS for longer)" : "", res.wall_s,
		res.user_s + res.sys_s, res.user_s, res.sys_s, (double)res.peak_rss_kib / 1024);
	rc = res.served != ALLOCLAB_SERVED_YES ? 2 : res.exited ? res.status : 128 + res.signal;
	if (a.latency && res.served == ALLOCLAB_SERVED_YES)
		print_latency(latency_path, a.latency);
done:
	if (latency_dir[0])
		alloclab_scratch_remove(latency_dir);
	if (handed >= 0)
		close(handed);
	alloclab_output_discard(&trace);
	free(plugin.spec);
	free(plugin.options);
	free(plugin.as);
	return rc;
}
