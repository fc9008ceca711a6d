/*
 * `alloclab compare BASE.json OTHER.json [MORE.json...]` and
 * `alloclab compare RUN.json --plugins A,B[,...]`: the comparison
 * (statistics/comparison.h) in one of the output formats (analysis/formats.h),
 * with one-line errors for bad input.
 */
#include "cells.h"
#include "cli.h"
#include "base/shell_word.h"
#include "formats.h"
#include "plugin/loader.h"
#include "base/numbers.h"

#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: alloclab compare BASE.json OTHER.json [MORE.json ...] [options]\n"
	"       alloclab compare RUN.json --plugins BASE,OTHER[,...] [options]\n"
	"\n"
	"Compares runs cell by cell (or plugins within one run): each other column\n"
	"against the first, as 'N.NNx faster/slower (+P%%)' or 'not significant'.\n"
	"\n"
	"options:\n"
	"  -p, --plugins A,B[,...]        compare these plugins (labels as in the run table) within one run\n"
	"  -f, --format FORMAT            %s (default rst: pyperf's --table grid)\n"
	"  -t, --test rank|pyperf         rank (default): Mann-Whitney U on per-process means;\n"
	"                                 pyperf: Student's t-test on every value, as pyperf does\n"
	"  -m, --min-speed PERCENT        smaller differences are not significant (default 1)\n"
	"  -M, --metric p50|p90|p99|p999|p9999|max  compare a latency percentile of the calls\n"
	"                                 (runs made with --latency) instead of the time per op:\n"
	"                                 each process's, with the same test\n"
	"  -M, --metric rss|fragmentation|kept|faults|hwm  compare a memory figure instead, one per\n"
	"                                 process: peak resident net of the harness (sampled), resident\n"
	"                                 over requested-live at the peak, resident kept once the\n"
	"                                 workload freed everything (net of the harness), minor faults\n"
	"                                 per value, the kernel's exact high-water mark net of the\n"
	"                                 harness's baseline\n"
	"      --op all|malloc|calloc|realloc|aligned_alloc|free  the calls --metric takes (default all)\n"
	"  -h, --help\n"
	"\n"
	"Plugins are named by their labels in the run (alloclab show RUN.json): two builds\n"
	"of one plugin get their paths, or the names given with the option as=LABEL.\n";

#define MAX_FILES 64

static void free_columns(struct alloclab_column *cols, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)cols[i].name);
		free((char *)cols[i].plugin);
	}
}

/* What the command line asks for. */
struct compare_args {
	struct alloclab_compare_opts o;
	const struct alloclab_output_format *format;
	char *plugins; /* --plugins, or NULL */
};

/* The options into a (names: the formats, for messages). -1 to go on, or
 * the exit status. */
static int parse_options(int argc, char **argv, struct compare_args *a, const char *names)
{
	static const struct option longopts[] = {
		{"plugins", required_argument, NULL, 'p'}, {"format", required_argument, NULL, 'f'},
		{"test", required_argument, NULL, 't'},    {"min-speed", required_argument, NULL, 'm'},
		{"metric", required_argument, NULL, 'M'},  {"op", required_argument, NULL, 'O'},
		{"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
	};
	struct alloclab_compare_opts *o = &a->o;
	int op_given = 0, opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":p:f:t:m:M:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p': a->plugins = optarg; break;
		case 'f':
			a->format = alloclab_output_format_find(optarg, 0);
			if (a->format == NULL)
				return alloclab_usage_error("compare", "--format takes %s, not '%s'", names, optarg);
			break;
		case 't':
			if (strcmp(optarg, "rank") == 0)
				o->test = ALLOCLAB_TEST_RANK;
			else if (strcmp(optarg, "pyperf") == 0)
				o->test = ALLOCLAB_TEST_PYPERF;
			else
				return alloclab_usage_error("compare", "--test takes rank or pyperf, not '%s'", optarg);
			break;
		case 'm':
			if (alloclab_parse_seconds(optarg, &o->min_speed) != 0 || o->min_speed > 1000)
				return alloclab_usage_error("compare", "--min-speed '%s' is not a percentage (0..1000)",
							    optarg);
			break;
		case 'M':
			o->measure.memory = ALLOCLAB_MEMORY_NONE;
			for (unsigned k = 1; k < ALLOCLAB_MEMORY_NMETRICS; k++)
				if (strcmp(optarg, alloclab_memory_metric_names[k]) == 0)
					o->measure.memory = (enum alloclab_memory_metric)k;
			o->measure.quantile = 0;
			if (!o->measure.memory && (o->measure.quantile = alloclab_lat_quantile_named(optarg)) < 0)
				return alloclab_usage_error("compare",
							    "--metric takes p50, p90, p99, p999, p9999, max, rss, fragmentation, "
							    "kept or faults, not '%s'",
							    optarg);
			break;
		case 'O': {
			int k = -1;
			for (unsigned i = 0; i < ALLOCLAB_LAT_OPS; i++)
				if (strcmp(optarg, alloclab_lat_op_names[i]) == 0)
					k = (int)i;
			if (k < 0 && strcmp(optarg, "all") != 0)
				return alloclab_usage_error("compare",
							    "--op takes all, malloc, calloc, realloc, aligned_alloc or free, not '%s'",
							    optarg);
			o->measure.op = k;
			op_given = 1;
			break;
		}
		case 'h': printf(usage, names); return 0;
		case ':': return alloclab_usage_error("compare", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("compare", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (op_given && o->measure.quantile <= 0)
		return alloclab_usage_error("compare", "--op goes with --metric (a latency percentile)");
	return -1;
}

/* --plugins: a column per plugin of the one run, its label as its name.
 * Labels may hold commas (name:a=1,b=2): at each item take the longest run
 * of items that is a label of the run. 0, or the exit status. */
static int plugin_columns(const char *plugins, struct alloclab_results *run, const char *file,
			  struct alloclab_column *cols, size_t *ncols)
{
	char *copy = strdup(plugins), *cursor = copy, *items[256], *p;
	size_t nitems = 0;
	while ((p = strsep(&cursor, ",")) != NULL && nitems < 256)
		items[nitems++] = p;
	for (size_t i = 0; i < nitems;) {
		char label[512], best[512] = "";
		size_t next = i + 1;
		for (size_t j = i; j < nitems; j++) {
			size_t used = 0;
			label[0] = '\0';
			for (size_t k = i; k <= j && used < sizeof label; k++)
				used += (size_t)snprintf(label + used, sizeof label - used, "%s%s", k > i ? "," : "", items[k]);
			for (unsigned c = 0; c < run->ncells; c++) {
				char have[512];
				alloclab_cell_label(&run->cells[c], have, sizeof have);
				if (strcmp(have, label) == 0) {
					snprintf(best, sizeof best, "%s", label);
					next = j + 1;
					break;
				}
			}
		}
		if (best[0] == '\0') {
			alloclab_say("alloclab: plugin '%s' is not in %s (see its table: alloclab show %s)", items[i],
				     file, file);
			free(copy);
			return 2;
		}
		if (*ncols == MAX_FILES) {
			free(copy);
			return alloclab_usage_error("compare", "--plugins takes at most %d plugins", MAX_FILES);
		}
		for (size_t k = 0; k < *ncols; k++)
			if (strcmp(cols[k].plugin, best) == 0) {
				free(copy);
				return alloclab_usage_error("compare", "--plugins names '%s' twice", best);
			}
		cols[(*ncols)++] = (struct alloclab_column){strdup(best), run, strdup(best)};
		i = next;
	}
	free(copy);
	if (*ncols < 2)
		return alloclab_usage_error("compare", "--plugins needs at least two plugins, such as system,mimalloc");
	return 0;
}

int alloclab_cmd_compare(int argc, char **argv)
{
	struct compare_args a = {.o = {ALLOCLAB_TEST_RANK, 1.0, {0, -1, NULL, ALLOCLAB_MEMORY_NONE}, alloclab_row_names},
				 .format = alloclab_output_format_find("rst", 0), .plugins = NULL};
	struct alloclab_column cols[MAX_FILES];
	struct alloclab_results *runs[MAX_FILES] = {0};
	struct alloclab_comparison *cmp;
	char err[ALLOCLAB_ERR_LEN], names[128];
	size_t ncols = 0;
	int nfiles, parsed, rc = 2;

	alloclab_output_format_names(0, names, sizeof names);
	if ((parsed = parse_options(argc, argv, &a, names)) >= 0)
		return parsed;
	nfiles = argc - optind;
	if (a.plugins ? nfiles != 1 : nfiles < 2)
		return alloclab_usage_error("compare", a.plugins ? "--plugins compares within one results file: give exactly one"
								 : "give at least two results files (or one with --plugins)");
	if (nfiles > MAX_FILES)
		return alloclab_usage_error("compare", "at most %d results files", MAX_FILES);
	for (int i = 0; i < nfiles; i++)
		if ((runs[i] = alloclab_cli_load(argv[optind + i])) == NULL)
			goto out;
	if (a.plugins) {
		int bad = plugin_columns(a.plugins, runs[0], argv[optind], cols, &ncols);
		if (bad) {
			rc = bad;
			goto out;
		}
	} else {
		for (int i = 0; i < nfiles; i++) {
			char *path = strdup(argv[optind + i]), *base = basename(path), *dot = strrchr(base, '.');
			if (dot && strcmp(dot, ".json") == 0)
				*dot = '\0';
			cols[ncols++] = (struct alloclab_column){strdup(base), runs[i], NULL};
			free(path);
		}
	}
	cmp = alloclab_compare(cols, ncols, &a.o, err, sizeof err);
	if (cmp == NULL) {
		alloclab_say("alloclab: %s", err);
		goto out;
	}
	a.format->compare(cmp, stdout);
	alloclab_comparison_free(cmp);
	rc = 0;
out:
	free_columns(cols, ncols);
	for (int i = 0; i < MAX_FILES; i++)
		alloclab_results_free(runs[i]);
	return rc;
}
