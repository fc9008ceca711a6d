/*
 * `alloclab report RUN.json|HISTORY.db [-o DIR]`: a static site of a run
 * or of a history store (analysis/report_site/report_site.h;
 * docs/guides/report.md). What the file is, is decided by its first
 * bytes: a store is an SQLite file, anything else is read as a results
 * file, and each reader refuses what it cannot read in one line.
 */
#include "cli.h"

#include "base/lengths.h"
#include "base/shell_word.h"
#include "files/input_file.h"
#include "files/output_path.h"

#include "registry.h"
#include "report_site/report_site.h"
#include "store/store.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_DIR "alloclab-report"

static const char usage[] =
	"usage: alloclab report RUN.json|HISTORY.db [-o DIR] [options]\n"
	"\n"
	"Writes a static site, to open in a browser from the file system or put on\n"
	"any static host: for a run, what it measured and where, its comparison with\n"
	"each verdict, every cell and every picture (as alloclab plot draws them, in\n"
	"SVG) beside its table, and the raw values one click away; for a history store\n"
	"(alloclab history), one chart per series with its change points, the latest\n"
	"verdicts, a page per commit and its runs' pages. Nothing on it is fetched\n"
	"from elsewhere, and it runs no script but its own.\n"
	"\n"
	"options:\n"
	"  -o, --output DIR        the site's folder (default " DEFAULT_DIR "): a new one, an empty one\n"
	"                          or an earlier report's, replaced whole once the site is written\n"
	"  -b, --baseline PLUGIN   a run: the plugin the others are compared with (default: the first)\n"
	"      --repo DIR          a store: the repository whose history (default: its only one)\n"
	"      --run-pages N       a store: pages of the runs of the newest N measured commits and of\n"
	"                          every change point (default 50; 0: of every commit)\n"
	"  -h, --help\n"
	"\n"
	"exit status: 0 written, 2 bad input (a file neither reads, a folder that is not\n"
	"empty and no earlier report, a link in its place, a store given through a link)\n";

/* Whether path starts as an SQLite file does. */
static int is_store(const char *path)
{
	char why[256], head[16] = {0};
	FILE *f = alloclab_fopen_regular(path, why, sizeof why);
	if (f == NULL)
		return 0;
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	return n == sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
}

/* Whether nothing is at path because of a symbolic link that leads
 * nowhere: said in words (each reader would say "No such file or
 * directory", true of the target, not of what was typed). */
static int dangling(const char *path)
{
	struct stat st;
	char target[PATH_MAX], err[ALLOCLAB_ERR_LEN + 2400];
	if (stat(path, &st) == 0 || errno != ENOENT)
		return 0;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		ssize_t n = readlink(path, target, sizeof target - 1);
		target[n > 0 ? n : 0] = '\0';
		alloclab_say("alloclab: %s: is a symbolic link to %s, which does not exist", path, n > 0 ? target : "?");
		return 1;
	}
	/* A folder of the path that leads nowhere: the store's words. */
	if (alloclab_store_refuse_link(path, err, sizeof err) != 0) {
		alloclab_say("alloclab: %s", err);
		return 1;
	}
	return 0;
}

static int report_store(const char *path, const struct alloclab_report_options *o)
{
	char err[ALLOCLAB_ERR_LEN + 1200];
	struct alloclab_store *s = alloclab_store_open(path, ALLOCLAB_STORE_READ, err, sizeof err);
	if (s == NULL) {
		alloclab_say("alloclab: %s", err);
		return 2;
	}
	int rc = alloclab_report_store(s, path, o, err, sizeof err);
	alloclab_store_close(s);
	if (rc != 0) {
		alloclab_say("alloclab: %s", err);
		return 2;
	}
	return 0;
}

static int report_run(const char *path, const struct alloclab_report_options *o)
{
	char err[ALLOCLAB_ERR_LEN + 1200], shown[600];
	struct alloclab_results *r = alloclab_cli_load(path);
	if (r == NULL)
		return 2;
	alloclab_printable(path, shown, sizeof shown);
	int rc = alloclab_report_run(r, shown, o, err, sizeof err);
	alloclab_results_free(r);
	if (rc != 0) {
		alloclab_say("alloclab: %s", err);
		return 2;
	}
	return 0;
}

int alloclab_cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'}, {"baseline", required_argument, NULL, 'b'},
		{"repo", required_argument, NULL, 'R'},	  {"run-pages", required_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},	  {NULL, 0, NULL, 0},
	};
	struct alloclab_report_options o = {.dir = DEFAULT_DIR, .run_pages = 50, .check = alloclab_workload_check_report};
	int opt, rc;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:b:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o': o.dir = optarg; break;
		case 'b': o.baseline = optarg; break;
		case 'R': o.repo = optarg; break;
		case 'P':
			if ((rc = alloclab_parse_count("report", "--run-pages", optarg, 0, 1000000, &o.run_pages)) != 0)
				return rc;
			break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("report", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		return alloclab_usage_error("report", optind >= argc ? "give a results file or a history store"
								     : "give one results file or history store");
	const char *in = argv[optind];
	if (alloclab_output_is_input(o.dir, in))
		return alloclab_usage_error("report", "the output folder is the input itself");
	if (dangling(in))
		return 2;
	rc = is_store(in) ? report_store(in, &o) : report_run(in, &o);
	if (rc == 0) {
		char shown[600];
		alloclab_printable(o.dir, shown, sizeof shown);
		printf("report: %s/index.html\n", shown);
	}
	return rc;
}
