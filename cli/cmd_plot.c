/*
 * `alloclab plot RUN.json [MORE.json...] [-o DIR] [--baseline PLUGIN]`:
 * pictures of runs (analysis/plot.h), one folder per results file when
 * several are given.
 */
#include "cli.h"
#include "base/shell_word.h"
#include "base/lengths.h"
#include "plugin/loader.h"
#include "plot.h"
#include "figures/cell_values.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
	"usage: alloclab plot RUN.json [MORE.json ...] [options]\n"
	"\n"
	"Draws each workload's plugins side by side (normalised to a baseline, with\n"
	"error bars), thread scaling, cache-line offsets, and each workload's own\n"
	"pictures (memory by threads, lines shared), as PNG and SVG.\n"
	"\n"
	"options:\n"
	"  -o, --output DIR        where the pictures go (default alloclab-plots)\n"
	"  -b, --baseline PLUGIN   the plugin label the others are relative to (default: the first)\n"
	"  -h, --help\n";

/* The cells that crashed part way, drawn from the processes they
 * finished: said here as on the pictures, a line each. */
static void say_crashed(const struct alloclab_results *r)
{
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *c = &r->cells[i];
		char plugin[600], workload[600], crash[160];
		if (!alloclab_cell_crashed_part_way(c))
			continue;
		alloclab_crashed_after(c, crash, sizeof crash);
		printf("  PARTIAL: %s %s threads=%u %s: drawn from those, its bars hatched and its points hollow\n",
		       alloclab_printable(c->plugin, plugin, sizeof plugin),
		       alloclab_printable(c->workload, workload, sizeof workload), c->threads, crash);
	}
}

int alloclab_cmd_plot(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'}, {"baseline", required_argument, NULL, 'b'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	const char *dir = "alloclab-plots", *baseline = NULL;
	char err[ALLOCLAB_ERR_LEN];
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:b:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o': dir = optarg; break;
		case 'b': baseline = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("plot", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("plot", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return alloclab_usage_error("plot", "give a results file");
	if (!alloclab_plot_available()) {
		fprintf(stderr, "alloclab: gnuplot not found: install Debian's gnuplot-nox (apt-get install gnuplot-nox)\n");
		return 2;
	}
	/* Load everything first: a bad file is reported before anything is drawn. */
	struct alloclab_results *runs[64];
	int n = argc - optind;
	if (n > 64)
		return alloclab_usage_error("plot", "at most 64 results files");
	for (int i = 0; i < n; i++) {
		runs[i] = alloclab_cli_load(argv[optind + i]);
		if (runs[i] == NULL) {
			while (i--)
				alloclab_results_free(runs[i]);
			return 2;
		}
	}
	int rc = 0;
	if (n > 1 && mkdir(dir, 0777) != 0 && errno != EEXIST) {
		alloclab_say("alloclab: cannot create %s: %s", dir, strerror(errno));
		rc = 2;
	}
	for (int i = 0; i < n && rc == 0; i++) {
		char sub[ALLOCLAB_PATH_PLUS_LEN];
		if (n > 1) {
			/* One folder per file, named safely after it. */
			char *path = strdup(argv[optind + i]), *base = basename(path), *dot = strrchr(base, '.'), safe[128];
			if (dot)
				*dot = '\0';
			alloclab_safe_file_name(base, safe, sizeof safe);
			snprintf(sub, sizeof sub, "%s/%s", dir, safe);
			free(path);
		} else {
			snprintf(sub, sizeof sub, "%s", dir);
		}
		if (alloclab_plot(runs[i], sub, baseline, err, sizeof err) != 0) {
			alloclab_say("alloclab: %s", err);
			rc = 2;
		} else {
			alloclab_tell("pictures of %s: %s/", argv[optind + i], sub);
			say_crashed(runs[i]);
		}
	}
	for (int i = 0; i < n; i++)
		alloclab_results_free(runs[i]);
	return rc;
}
