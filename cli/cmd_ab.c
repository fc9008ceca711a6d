/*
 * `alloclab ab BASE HEAD`: two builds of one plugin measured against each
 * other (framework/history/ab.h) in instructions, time side by side and
 * peak memory; one table (analysis/ab_report.h); with --fail-above, an exit
 * status a CI job can act on. BASE and HEAD are plugin files, source
 * folders alloclab builds, or with --repo revisions of a repository, each
 * built in a folder of its own (framework/history/plugin_build.h).
 */
#define _GNU_SOURCE 1
#include "cli.h"

#include "ab_options.h"
#include "ab_report.h"
#include "base/lengths.h"
#include "base/shell_word.h"
#include "files/self_exe.h"
#include "history/plugin_build.h"
#include "process/child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
	"usage: alloclab ab BASE HEAD [options]\n"
	"\n"
	"Measures HEAD against BASE, two builds of one plugin: instructions per operation\n"
	"(callgrind, exact), time side by side in the same worker processes (the ratio with\n"
	"its 95% interval) and peak memory, on a suite; one table, HEAD over BASE.\n"
	"BASE and HEAD are each a plugin file (.so, options after it as -p takes them:\n"
	"build/plugins/obmalloc-radix.so:mode=none), a plugin's source folder (built with\n"
	"meson when it has a meson.build, make when it has a Makefile, or --build), or\n"
	"with --repo a git revision of that repository (built in a folder of its own).\n"
	"\n"
	"options:\n"
	"      --repo DIR             BASE and HEAD are revisions of this git repository\n"
	"      --subdir PATH          the plugin's folder within the repository (default: its top)\n"
	"      --build COMMAND        how a source folder builds (run with sh -c in it; default:\n"
	"                             meson, or make); it must leave one .so, or name it with --plugin\n"
	"      --plugin PATH          the built plugin, relative to the source folder (or build/)\n"
	"      --build-timeout SECONDS  a build's deadline (default 600)\n"
	"      --sandbox              with --repo: each revision builds in a sandbox (no network,\n"
	"                             none of your files, its own folder alone writable; bwrap);\n"
	"                             without it a build runs with your rights. The plugin it\n"
	"                             makes is measured with your rights either way\n"
	"  -w, --workload W           the suite (repeatable; default churn, unicode and the replay\n"
	"                             of a Python benchmark's trace)\n"
	"  -t, --threads LIST         thread counts (default 1)\n"
	"  -m, --metrics LIST         instructions,time,memory (default all three)\n"
	"  -n, --processes N          time: paired processes a row, in each design's run (default 200)\n"
	"  -v, --values N             time: values a process (default 5)\n"
	"      --design D             time, side by side in each worker: slices+values[:N[:W]]\n"
	"                             (default; whether from slices of N operations, default\n"
	"                             100000, how much from whole values: two runs), values (whole\n"
	"                             values only), slices:N[:W] (N timed operations after W untimed\n"
	"                             ones; tight, but a change can read smaller), or processes\n"
	"                             (each in processes of its own, unpaired;\n"
	"                             docs/guides/plugin-history.md)\n"
	"      --memory-processes N   memory: processes a build and row (default 10)\n"
	"      --reference PLUGIN     also measure a fixed plugin beside both (a drift's guard)\n"
	"      --fail-above SPEC      exit 1 when a resolved regression exceeds it: 2% (every\n"
	"                             metric), time=2%,instructions=0.5%,memory=5%, and a\n"
	"                             workload's own: churn/time=3% (repeatable)\n"
	"  -f, --format text|md|json  the table (md: a pull-request comment)\n"
	"  -o, --output DIR           where the builds and the results files go (default\n"
	"                             alloclab-results/ab-DATE)\n"
	"      --timeout SECONDS      a worker's deadline (default 60)\n"
	"  -h, --help\n"
	"\n"
	"exit status: 0 no resolved regression above --fail-above (or no gate), 1 one above it,\n"
	"2 an error: bad input, a build that does not build, a plugin that crashes (the message\n"
	"names BASE or HEAD)\n";

/* Whether a folder holds nothing. */
static int folder_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = d != NULL;
	while (d && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			empty = 0;
	if (d)
		closedir(d);
	return empty;
}

/* The folder ab writes to: made, empty, or one an earlier ab made (its
 * mark): ab writes its builds and results there, and must overwrite
 * nothing of anyone else's. 0, or the exit status. */
static int output_folder(const char *dir)
{
	char mark[PATH_MAX + 32];
	struct stat st;
	if (!alloclab_shell_word_one_line(dir))
		return alloclab_usage_error("ab", "the output folder's name has a control character (a newline?)");
	snprintf(mark, sizeof mark, "%s/.alloclab-ab", dir);
	if (mkdir(dir, 0777) != 0) {
		if (errno != EEXIST || lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
			alloclab_say("alloclab ab: %s: %s", dir, errno == EEXIST ? "not a folder (a file or a link)" : strerror(errno));
			return 2;
		}
		if ((lstat(mark, &st) != 0 || !S_ISREG(st.st_mode)) && !folder_empty(dir)) {
			alloclab_say("alloclab ab: %s holds files that are not an earlier ab's: give an empty or new folder",
				dir);
			return 2;
		}
	}
	int fd = open(mark, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		alloclab_say("alloclab ab: %s: %s", mark, strerror(errno));
		return 2;
	}
	close(fd);
	return 0;
}

/* BASE or HEAD as a plugin file: given as one, or built. 0, or the exit
 * status (the message names the side). */
static int resolve_side(const char *side, const char *text, const struct alloclab_ab_args *a, const char *dir,
			struct alloclab_built *out)
{
	char err[ALLOCLAB_ERR_LEN + 1200];
	if (alloclab_build_side(&a->build, text, side, dir, out, err, sizeof err) != 0) {
		char shown[300];
		alloclab_printable(text, shown, sizeof shown);
		alloclab_say("alloclab ab: %s (%s): %s", side, shown, err);
		return 2;
	}
	return 0;
}

static void default_output(char *out, size_t len)
{
	char date[32];
	time_t t = time(NULL);
	struct tm tm;
	strftime(date, sizeof date, "%Y%m%d-%H%M%S", localtime_r(&t, &tm));
	snprintf(out, len, "alloclab-results/ab-%s", date);
}

/* The table, and the gate's exit status. */
static int report(const struct alloclab_ab_args *a, const struct alloclab_ab_result *result, const char *const names[2],
		  const char *dir)
{
	struct alloclab_ab_report rep = {result, names[0], names[1], a->gate ? &a->thresholds : NULL, NULL, 0};
	struct alloclab_ab_functions *functions = NULL;
	if (alloclab_ab_functions_of(result, dir, 8, &functions, &rep.nfunctions) == 0)
		rep.functions = functions;
	alloclab_ab_format_find(a->format)->print(&rep, stdout);
	int rc = 0;
	for (size_t i = 0; a->gate && !result->same_code && i < result->nrows; i++)
		if (alloclab_ab_row_fails(&result->rows[i], &a->thresholds))
			rc = 1;
	if (strcmp(a->format, "json") != 0 && strcmp(a->format, "md") != 0 && strcmp(a->format, "markdown") != 0) {
		char *line = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&line, &len);
		for (int m = 0; f && m < ALLOCLAB_AB_NMETRICS; m++)
			if (result->files[m][0])
				fprintf(f, " %s", result->files[m]);
		if (f && result->size_file[0])
			fprintf(f, " %s", result->size_file);
		if (f)
			fclose(f);
		putchar('\n');
		alloclab_tell("results:%s (alloclab show FILE; builds and their logs in %s)", line ? line : "", dir);
		free(line);
	}
	alloclab_ab_functions_free(functions, rep.nfunctions);
	return rc;
}

int alloclab_cmd_ab(int argc, char **argv)
{
	struct alloclab_ab_args a;
	char dir[PATH_MAX], err[ALLOCLAB_ERR_LEN + 1200];
	int rc;

	alloclab_ab_args_init(&a, NULL);
	if ((rc = alloclab_ab_args_parse("ab", argc, argv, ALLOCLAB_AB_TAKES_GATE, usage, &a)) >= 0)
		return rc;
	if (a.reference && strcmp(a.reference, "first") == 0)
		return alloclab_usage_error("ab", "--reference first is history run's (the range's first commit): give a plugin");
	if (argc - optind != 2)
		return alloclab_usage_error("ab", "give BASE and HEAD (plugin files, source folders, or with --repo revisions)");
	if (a.output)
		snprintf(dir, sizeof dir, "%s", a.output);
	else
		default_output(dir, sizeof dir);
	if (!a.output && mkdir("alloclab-results", 0777) != 0 && errno != EEXIST)
		return alloclab_usage_error("ab", "cannot make alloclab-results: %s", strerror(errno));
	if ((rc = output_folder(dir)) != 0)
		return rc;
	alloclab_catch_interrupts();
	struct alloclab_built sides[2];
	memset(sides, 0, sizeof sides);
	if ((rc = resolve_side("BASE", argv[optind], &a, dir, &sides[0])) != 0 ||
	    (rc = resolve_side("HEAD", argv[optind + 1], &a, dir, &sides[1])) != 0)
		return rc;
	struct alloclab_ab_plan plan;
	int words;
	char **command;
	alloclab_command_words(&words, &command);
	alloclab_ab_args_plan(&a, dir, words, command, &plan);
	plan.base = (struct alloclab_ab_build){"base", sides[0].plugin, sides[0].options,
					       sides[0].source[0] ? sides[0].source : NULL};
	plan.head = (struct alloclab_ab_build){"head", sides[1].plugin, sides[1].options,
					       sides[1].source[0] ? sides[1].source : NULL};
	struct alloclab_ab_result result;
	if (alloclab_ab_measure(&plan, &result, err, sizeof err) != 0) {
		alloclab_say("alloclab ab: %s", err);
		alloclab_ab_result_clear(&result);
		return alloclab_interrupted() ? 130 : 2;
	}
	char names[2][700];
	for (int k = 0; k < 2; k++) {
		char shown[600];
		alloclab_printable(argv[optind + k], shown, sizeof shown);
		snprintf(names[k], sizeof names[k], "%s%s%.12s%s", shown, sides[k].source[0] ? " @ " : "", sides[k].source,
			 strstr(sides[k].source, "+dirty") ? " (dirty)" : "");
	}
	rc = report(&a, &result, (const char *const[]){names[0], names[1]}, dir);
	alloclab_ab_result_clear(&result);
	return rc;
}
