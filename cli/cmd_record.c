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
	"options:\n"
	"  -p, --plugin NAME|PATH[:k=v,...]  the plugin to record under (gil=1 as for run)\n"
	"  -w, --workload NAME[:k=v,...]     the workload\n"
	"  -t, --threads N                   workload threads (default 1)\n"
	"  -o, --output FILE                 the trace (a trace there is replaced; any other file is not)\n"
	"      --timeout SECONDS             (default 600)\n"
	"      --check / --no-check          put the plugin through 'alloclab check' first / not; by\n"
	"                                    default a plugin given by path is checked (cached per build)\n" ALLOCLAB_MEMORY_LIMIT_HELP
	"  -h, --help\n";

static int record_status(const char *path, char *err, size_t err_len, uint64_t *events, unsigned *threads)
{
	struct alloclab_trace *t = alloclab_trace_open(path, err, err_len);
	if (t == NULL)
		return -1;
	if (alloclab_trace_validate(t, NULL, err, err_len) != 0) {
		alloclab_trace_close(t);
		return -1;
	}
	*threads = alloclab_trace_threads(t);
	*events = 0;
	for (unsigned i = 0; i < *threads; i++)
		*events += alloclab_trace_events(t, i);
	alloclab_trace_close(t);
	return 0;
}

int alloclab_cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"plugin", required_argument, NULL, 'p'},  {"workload", required_argument, NULL, 'w'},
		{"threads", required_argument, NULL, 't'}, {"output", required_argument, NULL, 'o'},
		{"timeout", required_argument, NULL, 'T'}, {"help", no_argument, NULL, 'h'},
		{"check", no_argument, NULL, 'C'},         {"no-check", no_argument, NULL, 'N'},
		{"memory-limit", required_argument, NULL, 'L'}, {NULL, 0, NULL, 0},
	};
	struct alloclab_cell_spec spec;
	struct alloclab_plugin_arg plugin = {0};
	struct alloclab_workload_spec parsed;
	struct alloclab_process proc;
	const char *plugin_text = NULL, *workload = NULL, *out = NULL;
	char err[ALLOCLAB_ERR_LEN], tmp[64];
	struct alloclab_output_file file = {.fd = -1};
	struct alloclab_probe probe;
	enum alloclab_check_mode check = ALLOCLAB_CHECK_PATHS;
	int handed = -1; /* the file's descriptor as the worker inherits it */
	unsigned threads = 1, trace_threads = 0;
	uint64_t events = 0;
	double timeout = 600;
	int opt, interrupted = 0, rc = 2;
	struct stat st;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":p:w:t:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p': plugin_text = optarg; break;
		case 'w': workload = optarg; break;
		case 'o': out = optarg; break;
		case 't':
			if (alloclab_parse_count("record", "thread count", optarg, 1, ALLOCLAB_MAX_THREADS, &threads) != 0)
				return 2;
			break;
		case 'T':
			if (alloclab_parse_timeout("record", optarg, 86400, &timeout) != 0)
				return 2;
			break;
		case 'C': check = ALLOCLAB_CHECK_ALL; break;
		case 'N': check = ALLOCLAB_CHECK_NONE; break;
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
	if (!plugin_text || !workload || !out)
		return alloclab_usage_error("record", "give a plugin (-p), a workload (-w) and an output file (-o)");
	if (alloclab_output_usable(out, ALLOCLAB_OUTPUT_TRACE, err, sizeof err) != 0)
		return alloclab_usage_error("record", "%s", err);
	if (alloclab_workload_parse(workload, &parsed, err, sizeof err) != 0)
		return alloclab_usage_error("record", "%s", err);
	memset(&spec, 0, sizeof spec);
	alloclab_plugin_arg_parse(plugin_text, &plugin);
	if (alloclab_vet("record", &plugin, check, timeout, &probe) != 0)
		goto done;
	alloclab_probe_clear(&probe);
	spec.plugin = plugin.spec;
	spec.plugin_options = plugin.options;
	spec.gil = plugin.gil;
	spec.workload = parsed.workload;
	spec.params = parsed.params;
	spec.threads = threads;
	spec.values = 1;
	/* The unnamed file, inherited by the worker at a number above the
	 * ones it uses for itself (its result and phase descriptors). */
	if (alloclab_output_begin(out, ALLOCLAB_OUTPUT_TRACE, &file, err, sizeof err) != 0 ||
	    (handed = fcntl(file.fd, F_DUPFD, 10)) < 0) {
		fprintf(stderr, "alloclab: %s\n", handed < 0 && file.fd >= 0 ? strerror(errno) : err);
		goto done;
	}
	snprintf(tmp, sizeof tmp, "/proc/self/fd/%d", handed);
	spec.record_path = tmp;
	alloclab_catch_interrupts();
	if (alloclab_measure_isolated(&spec, timeout, &proc, &interrupted, err, sizeof err) != 0) {
		/* Nothing of it is kept: the trace was an unnamed file, and a
		 * trace that ends where the plugin crashed replays nothing whole. */
		struct stat there;
		int existed = lstat(out, &there) == 0;
		fprintf(stderr, "alloclab: recording %s under %s stopped: %s; no trace of it is kept (%s %s)\n", workload,
			plugin_text, err, out, existed ? "is left as it was" : "is not written");
		rc = interrupted ? 130 : 1;
		goto done;
	}
	alloclab_process_clear(&proc);
	if (record_status(tmp, err, sizeof err, &events, &trace_threads) != 0) {
		fprintf(stderr, "alloclab: the recorded trace does not read back: %s\n", err);
		rc = 1;
		goto done;
	}
	if (alloclab_output_commit(&file, out, ALLOCLAB_OUTPUT_TRACE, err, sizeof err) != 0) {
		fprintf(stderr, "alloclab: %s\n", err);
		rc = 1;
		goto done;
	}
	stat(out, &st);
	printf("recorded %" PRIu64 " events in %u thread%s: %s, %.1f MiB (%.2f bytes per event)\n", events,
	       trace_threads, trace_threads == 1 ? "" : "s", out, (double)st.st_size / (1 << 20),
	       events ? (double)st.st_size / (double)events : 0.0);
	rc = 0;
done:
	if (handed >= 0)
		close(handed);
	alloclab_output_discard(&file);
	free(plugin.spec);
	free(plugin.options);
	free(plugin.as);
	return rc;
}
