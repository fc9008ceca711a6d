/*
 * `alloclab compare BASE.json OTHER.json [MORE.json...]` and
 * `alloclab compare RUN.json --plugins A,B[,...]`: the comparison tables of
 * analysis/compare.h, with one-line errors for bad input.
 */
#include "cells.h"
#include "cli.h"
#include "compare.h"
#include "loader.h"
#include "results.h"

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
	"against the first, as 'N.NNx faster/slower (+P%)' or 'not significant'.\n"
	"\n"
	"options:\n"
	"  -p, --plugins A,B[,...]        compare these plugins (labels as in the run table) within one run\n"
	"  -f, --format rst|markdown|csv|json   (default rst: the seed's grid, pyperf's --table)\n"
	"  -t, --test rank|pyperf         rank (default): Mann-Whitney U on per-process means;\n"
	"                                 pyperf: Student's t-test on every value, as pyperf does\n"
	"  -m, --min-speed PERCENT        smaller differences are not significant (default 1)\n"
	"  -h, --help\n";

int alloclab_cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"plugins", required_argument, NULL, 'p'}, {"format", required_argument, NULL, 'f'},
		{"test", required_argument, NULL, 't'},    {"min-speed", required_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
	};
	struct alloclab_compare_opts o = {ALLOCLAB_TEST_RANK, 1.0, ALLOCLAB_FORMAT_RST};
	struct alloclab_column cols[64];
	json_t *docs[64] = {0}, *cmp;
	char *plugins = NULL, err[ALLOCLAB_ERR_LEN], *end;
	size_t ncols = 0;
	int opt, nfiles, rc = 2;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":p:f:t:m:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p': plugins = optarg; break;
		case 'f':
			if (strcmp(optarg, "rst") == 0)
				o.format = ALLOCLAB_FORMAT_RST;
			else if (strcmp(optarg, "markdown") == 0 || strcmp(optarg, "md") == 0)
				o.format = ALLOCLAB_FORMAT_MARKDOWN;
			else if (strcmp(optarg, "csv") == 0)
				o.format = ALLOCLAB_FORMAT_CSV;
			else if (strcmp(optarg, "json") == 0)
				o.format = ALLOCLAB_FORMAT_JSON;
			else
				return alloclab_usage_error("compare", "--format takes rst, markdown, csv or json, not '%s'",
							    optarg);
			break;
		case 't':
			if (strcmp(optarg, "rank") == 0)
				o.test = ALLOCLAB_TEST_RANK;
			else if (strcmp(optarg, "pyperf") == 0)
				o.test = ALLOCLAB_TEST_PYPERF;
			else
				return alloclab_usage_error("compare", "--test takes rank or pyperf, not '%s'", optarg);
			break;
		case 'm':
			o.min_speed = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' || o.min_speed < 0 || o.min_speed > 1000)
				return alloclab_usage_error("compare", "--min-speed '%s' is not a percentage (0..1000)",
							    optarg);
			break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("compare", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("compare", "unknown option '%s'", argv[optind - 1]);
		}
	}
	nfiles = argc - optind;
	if (plugins ? nfiles != 1 : nfiles < 2)
		return alloclab_usage_error("compare", plugins ? "--plugins compares within one results file: give exactly one"
							       : "give at least two results files (or one with --plugins)");
	if (nfiles > 64)
		return alloclab_usage_error("compare", "at most 64 results files");
	for (int i = 0; i < nfiles; i++) {
		docs[i] = alloclab_results_load(argv[optind + i], err, sizeof err);
		if (docs[i] == NULL) {
			fprintf(stderr, "alloclab: %s\n", err);
			goto out;
		}
	}
	if (plugins) {
		char *copy = strdup(plugins), *save = NULL;
		for (char *p = strtok_r(copy, ",", &save); p && ncols < 64; p = strtok_r(NULL, ",", &save)) {
			json_t *cell;
			size_t i;
			int found = 0;
			json_array_foreach(json_object_get(docs[0], "cells"), i, cell)
			{
				char label[512];
				alloclab_cell_label(cell, label, sizeof label);
				found |= strcmp(label, p) == 0;
			}
			if (!found) {
				fprintf(stderr, "alloclab: plugin '%s' is not in %s (see its table: alloclab show %s)\n", p,
					argv[optind], argv[optind]);
				free(copy);
				goto out;
			}
			cols[ncols++] = (struct alloclab_column){strdup(p), docs[0], strdup(p)};
		}
		free(copy);
		if (ncols < 2) {
			rc = alloclab_usage_error("compare", "--plugins needs at least two plugins, such as system,mimalloc");
			goto out;
		}
	} else {
		for (int i = 0; i < nfiles; i++) {
			char *path = strdup(argv[optind + i]), *base = basename(path), *dot = strrchr(base, '.');
			if (dot && strcmp(dot, ".json") == 0)
				*dot = '\0';
			cols[ncols++] = (struct alloclab_column){strdup(base), docs[i], NULL};
			free(path);
		}
	}
	cmp = alloclab_compare(cols, ncols, &o, err, sizeof err);
	if (cmp == NULL) {
		fprintf(stderr, "alloclab: %s\n", err);
		goto out;
	}
	alloclab_compare_print(cmp, o.format, stdout);
	json_decref(cmp);
	rc = 0;
out:
	for (size_t i = 0; i < ncols; i++) {
		free((char *)cols[i].name);
		free((char *)cols[i].plugin);
	}
	for (int i = 0; i < 64; i++)
		json_decref(docs[i]);
	return rc;
}
