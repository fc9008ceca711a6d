/*
 * `alloclab history run` and `alloclab history bisect` (see cmd_history.c
 * for the command's whole usage): their options (ab_options.h) into a plan
 * for framework/history/history.h, and what it found printed
 * (analysis/history_report.h).
 */
#define _GNU_SOURCE 1
#include "cli.h"

#include "base/lengths.h"
#include "base/shell_word.h"
#include "process/child.h"

#include "ab_options.h"
#include "history_report.h"
#include "history/history.h"
#include "store/store.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_DB "alloclab-history.db"
#define DEFAULT_DIR "alloclab-results/history"

static const char run_usage[] =
	"usage: alloclab history run --repo DIR A..B [--db FILE] [-o DIR] [options]\n"
	"\n"
	"Builds each commit of A..B (A first, then B's first-parent line) and measures it\n"
	"against the one before it, side by side (as alloclab ab does), beside --reference;\n"
	"keeps every run in the store. Interrupted, the same command goes on where it\n"
	"stopped. A commit that does not build, or crashes, is recorded and skipped.\n"
	"See 'alloclab history --help' for the options.\n";

static const char bisect_usage[] =
	"usage: alloclab history bisect --repo DIR --good A --bad B [--metric M] [options]\n"
	"\n"
	"Finds the first commit after A where the metric (time, instructions or memory; the\n"
	"suite's first row: give one -w) moved as it did from A to B, each probe measured\n"
	"against A side by side, in about log2(n) builds.\n";

/* The folder a history works in: given, or the default (made). */
static int work_folder(const char *command, const struct alloclab_ab_args *a, char *dir, size_t len)
{
	snprintf(dir, len, "%s", a->output ? a->output : DEFAULT_DIR);
	if (!a->output && mkdir("alloclab-results", 0777) != 0 && errno != EEXIST)
		return alloclab_usage_error(command, "cannot make alloclab-results: %s", strerror(errno));
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return alloclab_usage_error(command, "cannot make %s: %s", dir, strerror(errno));
	return 0;
}

static void plan_of(struct alloclab_ab_args *a, const char *dir, struct alloclab_history_plan *p)
{
	memset(p, 0, sizeof *p);
	p->build = a->build;
	p->dir = dir;
	int words;
	char **command;
	alloclab_command_words(&words, &command);
	alloclab_ab_args_plan(a, NULL, words, command, &p->ab);
	if (a->reference && strcmp(a->reference, "first") == 0) {
		p->reference_first = 1;
		p->ab.reference = NULL;
	}
	p->shard_index = a->shard_index;
	p->shard_count = a->shard_count;
	p->every = a->every;
	p->measure_same_code = a->measure_same_code;
	p->progress = 1;
}

int alloclab_cmd_history_run(int argc, char **argv)
{
	struct alloclab_ab_args a;
	struct alloclab_history_plan plan;
	char dir[PATH_MAX], err[ALLOCLAB_ERR_LEN + 1400];
	int rc;

	alloclab_ab_args_init(&a, "first");
	if ((rc = alloclab_ab_args_parse("history run", argc, argv, ALLOCLAB_AB_TAKES_DB | ALLOCLAB_AB_TAKES_SHARD,
					 run_usage, &a)) >= 0)
		return rc;
	if (a.build.repo == NULL)
		return alloclab_usage_error("history run", "which repository? give --repo DIR");
	if (argc - optind != 1)
		return alloclab_usage_error("history run", "give one range of commits, A..B");
	if ((rc = work_folder("history run", &a, dir, sizeof dir)) != 0)
		return rc;
	plan_of(&a, dir, &plan);
	plan.range = argv[optind];
	struct alloclab_store *s = NULL;
	if (a.shard_count == 0 && (s = alloclab_store_open(a.db ? a.db : DEFAULT_DB, ALLOCLAB_STORE_CREATE, err,
							    sizeof err)) == NULL) {
		alloclab_say("alloclab: %s", err);
		return 2;
	}
	alloclab_catch_interrupts();
	struct alloclab_history_outcome out;
	rc = alloclab_history_run(s, &plan, &out, err, sizeof err);
	alloclab_store_close(s);
	if (rc != 0) {
		alloclab_say("alloclab history run: %s", err);
		return alloclab_interrupted() ? 130 : 2;
	}
	alloclab_history_print_outcome(&out, a.shard_count ? NULL : (a.db ? a.db : DEFAULT_DB), stdout);
	return out.broken || out.failed_again ? 1 : 0;
}

int alloclab_cmd_history_bisect(int argc, char **argv)
{
	struct alloclab_ab_args a;
	struct alloclab_history_plan plan;
	char dir[PATH_MAX], err[ALLOCLAB_ERR_LEN + 1400];
	int rc;

	alloclab_ab_args_init(&a, NULL);
	if ((rc = alloclab_ab_args_parse("history bisect", argc, argv, ALLOCLAB_AB_TAKES_BISECT, bisect_usage, &a)) >= 0)
		return rc;
	if (a.build.repo == NULL || a.good == NULL || a.bad == NULL)
		return alloclab_usage_error("history bisect", "give --repo DIR, --good A and --bad B");
	if (argc != optind)
		return alloclab_usage_error("history bisect", "unexpected '%s'", argv[optind]);
	if ((rc = work_folder("history bisect", &a, dir, sizeof dir)) != 0)
		return rc;
	plan_of(&a, dir, &plan);
	/* A probe is asked only whether it moved as bad did: the slices
	 * answer it; how much is not asked. */
	plan.ab.size_in_values = 0;
	alloclab_catch_interrupts();
	struct alloclab_bisect_outcome out;
	rc = alloclab_history_bisect(&plan, a.good, a.bad, a.metric, &out, err, sizeof err);
	if (rc != 0) {
		alloclab_say("alloclab history bisect: %s", err);
		alloclab_bisect_outcome_clear(&out);
		return alloclab_interrupted() ? 130 : 2;
	}
	alloclab_bisect_print(&out, a.metric, stdout);
	rc = out.first_bad[0] ? 0 : 1;
	alloclab_bisect_outcome_clear(&out);
	return rc;
}
