/*
 * `alloclab merge -o OUT SHARD.json...`: the shards of one plan
 * (`alloclab run --shard K/N`) as one results file (framework/results/merge.h),
 * which show, compare and plot read as any other. Says which shards are
 * missing or incomplete and how to measure them; exits 0 when the merge is
 * whole, 1 when shards are missing or incomplete (the file is written all
 * the same), 2 on bad input (shards of different plans, a shard twice).
 */
#include "cli.h"
#include "base/shell_word.h"
#include "run_options.h"
#include "results/merge.h"
#include "plugin/loader.h"
#include "files/output_path.h"
#include "registry.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: alloclab merge -o OUT.json SHARD.json [SHARD.json ...]\n"
	"\n"
	"Puts the shards of one plan (alloclab run --shard K/N) together into one results\n"
	"file. Shards of another plan, another alloclab or given twice are refused; missing\n"
	"or interrupted shards are named, with the command that measures them, and their\n"
	"cells stay pending until a merge has every shard. docs/guides/cluster.md.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE   the merged results (a results file there is replaced, any other file is not)\n"
	"  -q, --quiet         print only problems\n"
	"  -h, --help\n"
	"\n"
	"exit status: 0 every shard merged, 1 shards missing or incomplete (merged anyway), 2 bad input\n";

#define MAX_SHARDS ALLOCLAB_MAX_SHARDS
/* Missing shards whose commands are printed whole. */
#define MISSING_LISTED 10

int alloclab_cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'}, {"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	struct alloclab_results *shards[MAX_SHARDS] = {0}, *merged = NULL;
	const char *files[MAX_SHARDS], *output = NULL;
	struct alloclab_merge_report rep = {0};
	char err[ALLOCLAB_ERR_LEN + 600];
	int opt, quiet = 0, rc = 2, n;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'q': quiet = 1; break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("merge", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("merge", "unknown option '%s'", argv[optind - 1]);
		}
	}
	n = argc - optind;
	if (output == NULL || output[0] == '\0')
		return alloclab_usage_error("merge", "where to? give -o OUT.json");
	if (n < 1)
		return alloclab_usage_error("merge", "give the shards' results files");
	if (n > MAX_SHARDS)
		return alloclab_usage_error("merge", "at most %d shards", MAX_SHARDS);
	if (alloclab_output_usable(output, ALLOCLAB_OUTPUT_RESULTS, err, sizeof err) != 0)
		return alloclab_usage_error("merge", "%s", err);
	char named[2][ALLOCLAB_PRINTED_LEN];
	for (int i = 0; i < n; i++) {
		files[i] = argv[optind + i];
		/* The merge replaces -o whole: were it a shard, that shard would
		 * be lost to a partial merge. */
		if (strcmp(files[i], output) == 0 || alloclab_output_is_input(output, files[i]))
			return alloclab_usage_error("merge", "-o %s is one of the shards to merge (%s): give the merge a "
							     "file of its own",
						    alloclab_printable(output, named[0], sizeof named[0]),
						    alloclab_printable(files[i], named[1], sizeof named[1]));
		for (int k = 0; k < i; k++)
			if (strcmp(files[k], files[i]) == 0)
				return alloclab_usage_error("merge", "%s is named twice: name each shard once",
							    alloclab_printable(files[i], named[0], sizeof named[0]));
			else if (alloclab_output_is_input(files[k], files[i]))
				return alloclab_usage_error("merge", "%s and %s are one file: name each shard once",
							    alloclab_printable(files[k], named[0], sizeof named[0]),
							    alloclab_printable(files[i], named[1], sizeof named[1]));
	}
	for (int i = 0; i < n; i++)
		if ((shards[i] = alloclab_cli_load(files[i])) == NULL)
			goto out;
	merged = alloclab_merge(shards, files, (unsigned)n, &rep, err, sizeof err);
	if (merged == NULL) {
		alloclab_say("alloclab: %s", err);
		goto out;
	}
	if (alloclab_results_write(merged, output, err, sizeof err) != 0) {
		alloclab_say("alloclab: %s", err);
		goto out;
	}
	unsigned procs = 0;
	for (unsigned c = 0; c < merged->ncells; c++)
		procs += merged->cells[c].nprocs;
	if (!quiet)
		alloclab_tell("merged %u of %u shards into %s: %u cells, %u processes", (unsigned)n - 0u, rep.count, output,
		       merged->ncells, procs);
	if (rep.mixed_cpu_models || rep.mixed_kernels)
		alloclab_say("alloclab merge: warning: the shards ran on %s (%u hosts): compare compares processes within "
			     "one CPU model where it can, and says when it pooled them",
			     rep.mixed_cpu_models ? "different CPU models" : "different kernels", rep.hosts);
	const json_t *command = alloclab_results_command(shards[0]);
	/* Each missing shard's command, whole, for the first few; the rest by
	 * number, so that a sweep of a thousand shards with one given does not
	 * print a thousand commands. */
	for (unsigned i = 0; i < rep.nmissing && i < MISSING_LISTED; i++) {
		char path[64];
		snprintf(path, sizeof path, "shard-%u.json", rep.missing[i]);
		fprintf(stderr, "alloclab merge: shard %u of %u is missing; measure it with:\n  ", rep.missing[i], rep.count);
		alloclab_shard_command(stderr, command, rep.missing[i], rep.count, path);
		fputc('\n', stderr);
	}
	if (rep.nmissing > MISSING_LISTED)
		fprintf(stderr, "alloclab merge: %u more shards of %u are missing (%u to %u among them): the same command "
				"with their numbers\n",
			rep.nmissing - MISSING_LISTED, rep.count, rep.missing[MISSING_LISTED], rep.missing[rep.nmissing - 1]);
	for (unsigned i = 0; i < rep.nincomplete; i++) {
		const char *file = NULL;
		for (int k = 0; k < n; k++)
			if (shards[k]->facts.shard_index == rep.incomplete[i])
				file = files[k];
		char shown[ALLOCLAB_PRINTED_LEN];
		fprintf(stderr, "alloclab merge: shard %u of %u (%s) did not finish; measure it again with:\n  ",
			rep.incomplete[i], rep.count, alloclab_printable(file, shown, sizeof shown));
		alloclab_shard_command(stderr, command, rep.incomplete[i], rep.count, file);
		fputc('\n', stderr);
	}
	rc = rep.nmissing || rep.nincomplete ? 1 : 0;
out:
	alloclab_merge_report_clear(&rep);
	alloclab_results_free(merged);
	for (int i = 0; i < n && i < MAX_SHARDS; i++)
		alloclab_results_free(shards[i]);
	return rc;
}
