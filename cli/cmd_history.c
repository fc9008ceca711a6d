/*
 * `alloclab history`: a plugin's runs kept in a store (framework/store):
 *   add RUN.json...     put runs in it (a run added twice is kept once)
 *   run --repo DIR A..B build each commit, measure it against the one
 *                       before (ab), keep everything; resumable
 *   show                the series, each commit against the one before, and
 *                       the change points (framework/history/series.h)
 *   bisect              the commit where a metric changed, in about log2(n)
 *                       builds
 * docs/guides/plugin-history.md.
 */
#define _GNU_SOURCE 1
#include "cli.h"

#include "base/lengths.h"
#include "base/shell_word.h"
#include "process/child.h"

#include "cells.h"
#include "history_report.h"
#include "history/history.h"
#include "registry.h"
#include "store/store.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_DB "alloclab-history.db"

static const char usage[] =
	"usage: alloclab history add RUN.json... [--db FILE]\n"
	"       alloclab history run --repo DIR A..B [--db FILE] [-o DIR] [options]\n"
	"       alloclab history show [--db FILE] [--repo DIR] [--format text|json]\n"
	"       alloclab history bisect --repo DIR --good A --bad B --metric M [options]\n"
	"\n"
	"A plugin's history, kept in one SQLite file (--db, default " DEFAULT_DB "):\n"
	"  add     puts results files in it, with what identifies each measurement (the\n"
	"          plugin file's hash, its source commit, the machine); a run added twice\n"
	"          is kept once, and runs of different machines are never one series\n"
	"  run     builds each commit of A..B (A first) and measures it against the one\n"
	"          before, side by side, and beside --reference; interrupted, it goes on\n"
	"          where it stopped; a commit that does not build is recorded and skipped;\n"
	"          one whose plugin loads the same code as the commit before is not\n"
	"          measured (its step is 1 exactly); a commit that reads apart against the\n"
	"          reference in its own step and the next has its step measured again\n"
	"  show    each series, commit by commit, with the change points marked: any\n"
	"          difference of instructions; in time and memory the steps that the\n"
	"          neighbour comparisons resolve, false discoveries held at 5% over the\n"
	"          series (Benjamini-Hochberg)\n"
	"  bisect  the first commit of A..B where the metric moved as it did from A to B,\n"
	"          each step measured side by side against A\n"
	"\n"
	"options of run and bisect (as alloclab ab takes them):\n"
	"  -w, -t, -n, -v, --design, --metrics, --memory-processes, --timeout,\n"
	"  --subdir, --build, --plugin, --build-timeout, --sandbox;\n"
	"      --reference PLUGIN    run: measured beside each step, the drift's guard (default\n"
	"                            'first': the range's first commit that builds; 'none')\n"
	"  -o, --output DIR          run: the builds and each step's results (default\n"
	"                            alloclab-results/history)\n"
	"      --steps N             run: only every Nth commit of the range (its first and last\n"
	"                            always), each against the one before it that was measured\n"
	"      --shard K/N           run: measure only every Nth step (K of N) and keep its results\n"
	"                            in -o; a run without --shard then adds what they measured\n"
	"      --measure-same-code   run: measure a commit whose plugin loads the same code as\n"
	"                            the one before (an A/A of two builds; default: not measured)\n"
	"      --metric M            bisect: time, instructions or memory (default time)\n"
	"  -h, --help\n"
	"\n"
	"exit status: 0 done, 1 run: some commits did not build or failed (a step measured\n"
	"again included), bisect: the metric did not change from A to B; 2 bad input (a file\n"
	"that is not a store, a damaged one, one of a newer schema: refused, never modified)\n";

static int cmd_add(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	const char *db = DEFAULT_DB;
	char err[ALLOCLAB_ERR_LEN + 1200], err_shown[ALLOCLAB_ERR_LEN + 1300];
	int opt, rc = 0;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd': db = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("history add", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("history add", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return alloclab_usage_error("history add", "give the results files to add");
	/* The store is opened (made, where it is new) only once a file has
	 * been read and checked: a refused file leaves no empty store behind. */
	struct alloclab_store *s = NULL;
	for (int i = optind; i < argc; i++) {
		struct alloclab_results *r = alloclab_cli_load(argv[i]);
		enum alloclab_store_added what;
		int64_t id;
		char shown[600];
		if (r == NULL) {
			rc = 2;
			continue;
		}
		if (s == NULL && (s = alloclab_store_open(db, ALLOCLAB_STORE_CREATE, err, sizeof err)) == NULL) {
			fprintf(stderr, "alloclab: %s\n", alloclab_printable(err, err_shown, sizeof err_shown));
			alloclab_results_free(r);
			return 2;
		}
		if (alloclab_store_add_run(s, r, &what, &id, err, sizeof err) != 0) {
			fprintf(stderr, "alloclab: %s: %s\n", alloclab_printable(argv[i], shown, sizeof shown),
				alloclab_printable(err, err_shown, sizeof err_shown));
			rc = 2;
		} else {
			alloclab_printable(argv[i], shown, sizeof shown);
			printf("%s: %s (run %lld of the store, %u cells)\n", shown,
			       what == ALLOCLAB_STORE_ADDED	? "added"
			       : what == ALLOCLAB_STORE_KNOWN ? "already there: kept once"
							      : "replaced its earlier, less complete copy",
			       (long long)id, r->ncells);
		}
		alloclab_results_free(r);
	}
	alloclab_store_close(s);
	return rc;
}

static int cmd_show(int argc, char **argv)
{
	static const struct option longopts[] = {{"db", required_argument, NULL, 'd'},
						 {"repo", required_argument, NULL, 'R'},
						 {"format", required_argument, NULL, 'f'},
						 {"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	const char *db = DEFAULT_DB, *repo = NULL, *format = "text";
	char err[ALLOCLAB_ERR_LEN + 1200], err_shown[ALLOCLAB_ERR_LEN + 1300];
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":f:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd': db = optarg; break;
		case 'R': repo = optarg; break;
		case 'f':
			if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0)
				return alloclab_usage_error("history show", "--format takes text or json, not '%s'", optarg);
			format = optarg;
			break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("history show", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("history show", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		return alloclab_usage_error("history show", "unexpected '%s'", argv[optind]);
	struct alloclab_store *s = alloclab_store_open(db, ALLOCLAB_STORE_READ, err, sizeof err);
	if (s == NULL) {
		fprintf(stderr, "alloclab: %s\n", alloclab_printable(err, err_shown, sizeof err_shown));
		return 2;
	}
	char **repos = NULL;
	size_t nrepos = 0;
	int rc = alloclab_store_repos(s, &repos, &nrepos, err, sizeof err);
	for (size_t i = 0; i < nrepos; i++)
		free(repos[i]);
	free(repos);
	if (rc == 0 && repo == NULL && nrepos == 0) {
		/* Runs kept without a repository: each, as it was measured. */
		rc = alloclab_history_print_runs(s, stdout, err, sizeof err);
	} else if (rc == 0) {
		struct alloclab_history_view view = {.name_rows = alloclab_row_names, .check = alloclab_workload_check_report};
		rc = alloclab_history_view_load(s, repo, &view, err, sizeof err);
		if (rc == 0)
			alloclab_history_print(&view, strcmp(format, "json") == 0, stdout);
		alloclab_history_view_clear(&view);
	}
	if (rc != 0)
		fprintf(stderr, "alloclab: %s\n", alloclab_printable(err, err_shown, sizeof err_shown));
	alloclab_store_close(s);
	return rc == 0 ? 0 : 2;
}

int alloclab_cmd_history(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "add") == 0)
		return cmd_add(argc - 1, argv + 1);
	if (strcmp(argv[1], "show") == 0)
		return cmd_show(argc - 1, argv + 1);
	if (strcmp(argv[1], "run") == 0)
		return alloclab_cmd_history_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "bisect") == 0)
		return alloclab_cmd_history_bisect(argc - 1, argv + 1);
	return alloclab_usage_error("history", "unknown subcommand '%s' (add, run, show, bisect)", argv[1]);
}
