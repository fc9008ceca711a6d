/*
 * `alloclab record -p PLUGIN -w WORKLOAD -o FILE`: runs the workload once,
 * in one worker process, with every call reaching the plugin written to an
 * allocation trace (framework/trace/recorder.h, docs/guides/traces.md). FILE is under
 * the one output policy (output_path.h): checked before the workload
 * starts, and the trace is written to an unnamed file in its folder, handed
 * to the worker as a descriptor, and named FILE only when it is complete
 * and reads back valid; killed at any point, even with SIGKILL, record
 * leaves nothing behind.
 */
#define _GNU_SOURCE 1
#include "process/child.h"
#include "cli.h"
#include "base/shell_word.h"
#include "registry.h"
#include "plugin/plugin_arg.h"
#include "worker/worker.h"
#include "trace/trace.h"
#include "files/output_path.h"
#include "check/vet.h"

#include <fcntl.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"usage: alloclab record -p PLUGIN[:k=v,...] -w WORKLOAD[:k=v,...] -o FILE [options]\n"
	"\n"
	"Runs the workload once against the plugin and records every call that\n"
	"reaches the plugin (malloc, calloc, realloc, aligned_alloc, free, sized\n"
	"free) with its thread, size and the object's identity, to an allocation\n"
	"trace. Nothing is measured: the trace is the product. Replay it against\n"
	"any plugin with '-w trace:file=FILE'.\n"
	"\n"
	"Each measured value's run is marked in the trace as a window: what the\n"
	"workload times, apart from what comes before it (start-up, set-up, the\n"
	"warm-ups) and after it (teardown). A replay times the windows alone,\n"
	"with the heap they found built untimed (trace:part=steady, the default);\n"
	"part=startup, part=teardown and part=whole replay the rest.\n"
	"\n"
	"options:\n"
	"  -p, --plugin NAME|PATH[:k=v,...]  the plugin to record under (gil=1 as for run)\n"
	"  -w, --workload NAME[:k=v,...]     the workload\n"
	"  -t, --threads N                   workload threads (default 1)\n"
	"  -W, --warmups N                   values run before the recorded windows (default 1)\n"
	"  -v, --values N                    values recorded as windows, the steady state (default 3)\n"
	"  -o, --output FILE                 the trace (a trace there is replaced; any other file is not)\n"
	"      --timeout SECONDS             (default 600)\n"
	"      --check / --no-check          put the plugin through 'alloclab check' first / not; by\n"
	"                                    default a plugin given by path is checked (cached per build)\n" ALLOCLAB_MEMORY_LIMIT_HELP
	"  -h, --help\n";

static int record_status(const char *path, char *err, size_t err_len, uint64_t *events, unsigned *threads,
			 uint64_t *in_windows, unsigned *windows)
{
	struct alloclab_trace *t = alloclab_trace_open(path, err, err_len);
	if (t == NULL)
		return -1;
	if (alloclab_trace_validate(t, NULL, err, err_len) != 0) {
		alloclab_trace_close(t);
		return -1;
	}
	*threads = alloclab_trace_threads(t);
	*events = *in_windows = 0;
	*windows = alloclab_trace_windows(t);
	for (unsigned i = 0; i < *threads; i++) {
		*events += alloclab_trace_events(t, i);
		for (unsigned k = 0; k < *windows; k++) {
			uint64_t b, e;
			alloclab_trace_window(t, k, i, &b, &e);
			*in_windows += e - b;
		}
	}
	alloclab_trace_close(t);
	return 0;
}

/* What the command line asks for. */
struct record_args {
	const char *plugin_text, *workload, *out;
	unsigned threads, warmups, values;
	int windows_given; /* -W or -v on the command line */
	double timeout;
	enum alloclab_check_mode check;
	struct alloclab_workload_spec parsed;
};

/* The options into a, the output checked and the workload parsed. -1 to
 * go on, or the exit status. */
static int parse_options(int argc, char **argv, struct record_args *a)
{
	static const struct option longopts[] = {
		{"plugin", required_argument, NULL, 'p'},  {"workload", required_argument, NULL, 'w'},
		{"threads", required_argument, NULL, 't'}, {"output", required_argument, NULL, 'o'},
		{"warmups", required_argument, NULL, 'W'}, {"values", required_argument, NULL, 'v'},
		{"timeout", required_argument, NULL, 'T'}, {"help", no_argument, NULL, 'h'},
		{"check", no_argument, NULL, 'C'},         {"no-check", no_argument, NULL, 'N'},
		{"memory-limit", required_argument, NULL, 'L'}, {NULL, 0, NULL, 0},
	};
	char err[ALLOCLAB_ERR_LEN];
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":p:w:t:o:W:v:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p': a->plugin_text = optarg; break;
		case 'w': a->workload = optarg; break;
		case 'o': a->out = optarg; break;
		case 't':
			if (alloclab_parse_count("record", "thread count", optarg, 1, ALLOCLAB_MAX_THREADS, &a->threads) != 0)
				return 2;
			break;
		case 'W':
			if (alloclab_parse_count("record", "warm-up count", optarg, 0, 1000, &a->warmups) != 0)
				return 2;
			a->windows_given = 1;
			break;
		case 'v':
			if (alloclab_parse_count("record", "value count", optarg, 1, ALLOCLAB_TRACE_MAX_WINDOWS, &a->values) != 0)
				return 2;
			a->windows_given = 1;
			break;
		case 'T':
			if (alloclab_parse_timeout("record", optarg, 86400, &a->timeout) != 0)
				return 2;
			break;
		case 'C': a->check = ALLOCLAB_CHECK_ALL; break;
		case 'N': a->check = ALLOCLAB_CHECK_NONE; break;
		case 'L':
			if (alloclab_parse_memory_limit("record", optarg) != 0)
				return 2;
			break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("record", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("record", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return alloclab_usage_error("record", "unexpected argument '%s'", argv[optind]);
	if (!a->plugin_text || !a->workload || !a->out)
		return alloclab_usage_error("record", "give a plugin (-p), a workload (-w) and an output file (-o)");
	if (alloclab_output_usable(a->out, ALLOCLAB_OUTPUT_TRACE, err, sizeof err) != 0)
		return alloclab_usage_error("record", "%s", err);
	if (alloclab_workload_parse(a->workload, &a->parsed, err, sizeof err) != 0)
		return alloclab_usage_error("record", "%s", err);
	/* A workload that records the program it starts (exec) writes the
	 * trace of one run of it, which has no windows: it runs once. */
	if (a->parsed.workload->flags & ALLOCLAB_WORKLOAD_RECORDS_ITSELF) {
		if (a->windows_given)
			return alloclab_usage_error("record", "workload '%s' records the program it runs, once and whole: -W "
							      "and -v do not apply to it",
						    a->parsed.workload->name);
		a->warmups = 0;
		a->values = 1;
	}
	return -1;
}

/* The recording, read back through path (the unnamed file), named out
 * only when it is a valid trace, and what it holds said on stdout. The
 * exit status. */
static int keep_trace(struct alloclab_output_file *file, const char *path, const char *out)
{
	char err[ALLOCLAB_ERR_LEN];
	unsigned trace_threads = 0, windows = 0;
	uint64_t events = 0, in_windows = 0;
	struct stat st;

	if (record_status(path, err, sizeof err, &events, &trace_threads, &in_windows, &windows) != 0) {
		alloclab_say("alloclab: the recorded trace does not read back: %s", err);
		return 1;
	}
	if (alloclab_output_commit(file, out, ALLOCLAB_OUTPUT_TRACE, err, sizeof err) != 0) {
		alloclab_say("alloclab: %s", err);
		return 1;
	}
	stat(out, &st);
	char windowed[96] = "";
	if (windows)
		snprintf(windowed, sizeof windowed, ", %" PRIu64 " of them in %u window%s", in_windows, windows,
			 windows == 1 ? "" : "s");
	printf("recorded %" PRIu64 " events in %u thread%s%s: %s, %.1f MiB (%.2f bytes per event)\n", events,
	       trace_threads, trace_threads == 1 ? "" : "s", windowed, out, (double)st.st_size / (1 << 20),
	       events ? (double)st.st_size / (double)events : 0.0);
	return 0;
}

int alloclab_cmd_record(int argc, char **argv)
{
	struct record_args a = {.threads = 1, .warmups = 1, .values = 3, .timeout = 600, .check = ALLOCLAB_CHECK_PATHS};
	struct alloclab_cell_spec spec;
	struct alloclab_plugin_arg plugin = {0};
	struct alloclab_process proc;
	char err[ALLOCLAB_ERR_LEN], tmp[64];
	struct alloclab_output_file file = {.fd = -1};
	struct alloclab_probe probe;
	int handed = -1; /* the file's descriptor as the worker inherits it */
	int interrupted = 0, rc = parse_options(argc, argv, &a);

	if (rc >= 0)
		return rc;
	rc = 2;
	memset(&spec, 0, sizeof spec);
	alloclab_plugin_arg_parse(a.plugin_text, &plugin);
	if (alloclab_vet("record", &plugin, a.check, a.timeout, &probe) != 0)
		goto done;
	alloclab_probe_clear(&probe);
	spec.plugin = plugin.spec;
	spec.plugin_options = plugin.options;
	spec.gil = plugin.gil;
	spec.workload = a.parsed.workload;
	spec.params = a.parsed.params;
	spec.threads = a.threads;
	spec.warmups = a.warmups;
	spec.values = a.values;
	/* The unnamed file, inherited by the worker at a number above the
	 * ones it uses for itself (its result and phase descriptors). */
	if (alloclab_output_begin(a.out, ALLOCLAB_OUTPUT_TRACE, &file, err, sizeof err) != 0 ||
	    (handed = fcntl(file.fd, F_DUPFD, 10)) < 0) {
		alloclab_say("alloclab: %s", handed < 0 && file.fd >= 0 ? strerror(errno) : err);
		goto done;
	}
	snprintf(tmp, sizeof tmp, "/proc/self/fd/%d", handed);
	spec.record_path = tmp;
	alloclab_catch_interrupts();
	if (alloclab_measure_isolated(&spec, a.timeout, &proc, &interrupted, err, sizeof err) != 0) {
		/* Nothing of it is kept: the trace was an unnamed file, and a
		 * trace that ends where the plugin crashed replays nothing whole. */
		struct stat there;
		int existed = lstat(a.out, &there) == 0;
		alloclab_say("alloclab: recording %s under %s stopped: %s; no trace of it is kept (%s %s)",
			     a.workload, a.plugin_text, err, a.out, existed ? "is left as it was" : "is not written");
		rc = interrupted ? 130 : 1;
		goto done;
	}
	alloclab_process_clear(&proc);
	rc = keep_trace(&file, tmp, a.out);
done:
	if (handed >= 0)
		close(handed);
	alloclab_output_discard(&file);
	free(plugin.spec);
	free(plugin.options);
	free(plugin.as);
	return rc;
}
