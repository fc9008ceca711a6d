/*
 * `alloclab explain A B -w WORKLOAD [-t N] [--top K]`: where two plugins'
 * instructions per op differ, function by function. One cell of each is
 * measured as `run --measure instructions` measures it (a worker under
 * callgrind, collecting in the timed region of one value after a warm-up),
 * its dump kept and read with callgrind_annotate (analysis/profile.h), and
 * the functions printed by how much they differ per op, with each side's
 * total: the sum over its functions, which equals the measured count.
 */
#include "cli.h"
#include "base/shell_word.h"
#include "plugin/loader.h"
#include "measure/measure.h"
#include "base/numbers.h"
#include "profile.h"
#include "registry.h"
#include "plugin/plugin_arg.h"
#include "files/scratch.h"
#include "check/vet.h"
#include "worker/worker.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: alloclab explain PLUGIN-A PLUGIN-B -w WORKLOAD[:k=v,...] [options]\n"
	"\n"
	"Counts one value of each plugin's cell under callgrind (as --measure instructions\n"
	"does) and prints, function by function, where their instructions per op differ,\n"
	"with each side's functions summed to its measured count.\n"
	"\n"
	"options:\n"
	"  -w, --workload SPEC   the workload (one cell: lists like a+b are refused)\n"
	"  -t, --threads N       threads (default 1)\n"
	"      --top K           the K functions that differ most (default 25)\n"
	"      --timeout SECONDS per plugin (default 600)\n"
	"  -h, --help\n";

struct side {
	struct alloclab_plugin_arg plugin;
	char dir[ALLOCLAB_PATH_LEN];
	struct alloclab_profile profile;
	double per_op;      /* the worker's measured instructions per op */
	uint64_t ops;
};

static int measure_side(struct side *s, const struct alloclab_workload_spec *ws, unsigned threads, double timeout,
			char *err, size_t err_len)
{
	struct alloclab_cell_spec spec = {
		.plugin = s->plugin.spec, .plugin_options = s->plugin.options, .workload = ws->workload,
		.params = ws->params, .threads = threads, .warmups = 1, .values = 1, .gil = s->plugin.gil,
		.keep_dumps = 1,
	};
	struct alloclab_process proc;
	char dump[ALLOCLAB_PATH_PLUS_LEN], why[ALLOCLAB_ERR_LEN + 200];
	int interrupted;

	if (alloclab_scratch_make("explain", s->dir, sizeof s->dir) != 0) {
		snprintf(err, err_len, "cannot make a scratch folder: %s", strerror(errno));
		s->dir[0] = '\0';
		return -1;
	}
	spec.callgrind_dir = s->dir;
	int rc = alloclab_measure_isolated(&spec, timeout, &proc, &interrupted, why, sizeof why);
	if (rc != 0) {
		snprintf(err, err_len, "%s: %s%s", s->plugin.spec, rc == -2 ? "not applicable: " : "", why);
		return -1;
	}
	s->per_op = proc.values[0].per_op;
	s->ops = 0;
	for (unsigned i = 0; i < threads; i++)
		s->ops += proc.values[0].thread_ops[i];
	alloclab_process_clear(&proc);
	if (alloclab_profile_last_dump(s->dir, dump, sizeof dump) != 0) {
		snprintf(err, err_len, "%s: callgrind left no dump in %s", s->plugin.spec, s->dir);
		return -1;
	}
	return alloclab_profile_read(dump, &s->profile, err, err_len);
}

/* Every function of either side, per op, the largest differences first;
 * then each side's total, against its functions' sum and its measured
 * count. */
static void print_functions(const struct side *sides, const char *workload, unsigned threads, unsigned top)
{
	struct alloclab_function_change *rows;
	size_t nrows;
	if (alloclab_profile_diff(&sides[0].profile, (double)sides[0].ops, &sides[1].profile, (double)sides[1].ops, &rows,
				  &nrows) != 0) {
		fprintf(stderr, "alloclab: out of memory\n");
		return;
	}
	alloclab_tell("instructions per op of %s, one value after a warm-up, %u thread%s (callgrind, the timed region):",
		      workload, threads, threads == 1 ? "" : "s");
	printf("  %-52s %12s %12s %12s\n", "function [object]", "A", "B", "B - A");
	for (size_t i = 0; i < nrows && i < top; i++) {
		if (rows[i].a == 0 && rows[i].b == 0)
			break;
		alloclab_tell("  %-52.52s %12.3f %12.3f %+12.3f", rows[i].function, rows[i].a, rows[i].b, rows[i].b - rows[i].a);
	}
	if (nrows > top)
		printf("  (%zu more functions)\n", nrows - top);
	for (int k = 0; k < 2; k++) {
		uint64_t sum = 0;
		for (size_t i = 0; i < sides[k].profile.n; i++)
			sum += sides[k].profile.e[i].ir;
		alloclab_tell("%s %s: %.3f instructions per op over %llu ops; its functions sum to %.3f, measured %.3f",
			      k ? "B" : "A", sides[k].plugin.spec, (double)sides[k].profile.total / (double)sides[k].ops,
		       (unsigned long long)sides[k].ops, (double)sum / (double)sides[k].ops, sides[k].per_op);
	}
	free(rows);
}

int alloclab_cmd_explain(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"workload", required_argument, NULL, 'w'}, {"threads", required_argument, NULL, 't'},
		{"top", required_argument, NULL, 'K'},      {"timeout", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
	};
	const char *workload = NULL;
	unsigned threads = 1, top = 25;
	double timeout = 600;
	struct side sides[2];
	struct alloclab_workload_spec ws;
	char err[ALLOCLAB_ERR_LEN + 600];
	int opt, rc = 2;

	memset(sides, 0, sizeof sides);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":w:t:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'w': workload = optarg; break;
		case 't':
			if (alloclab_parse_count("explain", "--threads", optarg, 1, ALLOCLAB_MAX_THREADS, &threads) != 0)
				return 2;
			break;
		case 'K':
			if (alloclab_parse_count("explain", "--top", optarg, 1, 100000, &top) != 0)
				return 2;
			break;
		case 'T':
			if (alloclab_parse_timeout("explain", optarg, 86400, &timeout) != 0)
				return 2;
			break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("explain", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("explain", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return alloclab_usage_error("explain", "give two plugins, A and B");
	if (workload == NULL)
		return alloclab_usage_error("explain", "which workload? give -w WORKLOAD[:k=v,...]");
	if (alloclab_workload_parse(workload, &ws, err, sizeof err) != 0)
		return alloclab_usage_error("explain", "%s", err);
	if (alloclab_measure_available(ALLOCLAB_MEASURE_INSTRUCTIONS, err, sizeof err) != 0) {
		alloclab_say("alloclab: %s", err);
		return 2;
	}
	for (int k = 0; k < 2; k++) {
		struct alloclab_probe probe;
		alloclab_plugin_arg_parse(argv[optind + k], &sides[k].plugin);
		if (alloclab_vet("explain", &sides[k].plugin, ALLOCLAB_CHECK_NONE, 60, &probe) != 0)
			goto out;
		alloclab_probe_clear(&probe);
	}
	for (int k = 0; k < 2; k++) {
		if (isatty(2))
			alloclab_say("alloclab explain: counting %s under callgrind...", sides[k].plugin.spec);
		if (measure_side(&sides[k], &ws, threads, timeout, err, sizeof err) != 0) {
			alloclab_say("alloclab: %s", err);
			rc = 1;
			goto out;
		}
	}

	print_functions(sides, ws.workload->name, threads, top);
	rc = 0;
out:
	for (int k = 0; k < 2; k++) {
		alloclab_profile_clear(&sides[k].profile);
		if (sides[k].dir[0])
			alloclab_scratch_remove(sides[k].dir);
		free(sides[k].plugin.spec);
		free(sides[k].plugin.options);
		free(sides[k].plugin.as);
	}
	return rc;
}
