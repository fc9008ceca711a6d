/* The options of ab and history. See ab_options.h. */
#include "ab_options.h"

#include "cli.h"

#include "base/numbers.h"
#include "base/shell_word.h"
#include "process/sandbox.h"
#include "cells.h"
#include "registry.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The suite when none is given: what an allocator's change moves. churn
 * (blocks of every small size replaced at random), unicode (CPython's
 * string objects) and the replay of a Python benchmark's allocations. */
static const char *const default_workloads[] = {"churn", "unicode", "trace:file=richards.trace"};

/* The slices that decide whether time changed, when none are named: long
 * enough that a slice's start with the other build's lines in the caches
 * is a small share of it (churn, a change of 2.2x: 2,000 operations read
 * 2.06, 100,000 read 2.21, whole values 2.22), short enough to be rarely
 * cut by the scheduler (A/A ±0.31% in 21 s where whole values held ±1.51%;
 * docs/measurements/plugin-history.md). */
#define DEFAULT_SLICE_OPS 100000

void alloclab_ab_args_init(struct alloclab_ab_args *a, const char *default_reference)
{
	memset(a, 0, sizeof *a);
	a->threads[0] = 1;
	a->nthreads = 1;
	a->format = "text";
	/* Whole values of 200 processes resolve a 2% step on a shared 2-core
	 * machine (docs/measurements/plugin-history.md); 20 held ±2.5%. */
	a->processes = 200;
	a->values = 5;
	/* Whether from slices, how much from whole values (the guide's
	 * "which design answers which question"). */
	a->slice_ops = DEFAULT_SLICE_OPS;
	a->size_in_values = 1;
	/* Ten a side resolve 5% of churn's peak (each process's
	 * high-water mark varies by about 3%). */
	a->memory_processes = 10;
	a->timeout_s = 60;
	a->metrics = (1u << ALLOCLAB_AB_NMETRICS) - 1;
	a->reference = default_reference;
	a->build.timeout_s = 600;
	a->metric = ALLOCLAB_AB_TIME;
	alloclab_ab_gate_init(&a->thresholds);
}

static int metric_named(const char *name)
{
	for (int k = 0; k < ALLOCLAB_AB_NMETRICS; k++)
		if (strcmp(name, alloclab_ab_metric_names[k]) == 0)
			return k;
	return -1;
}

/* --fail-above: "2%", "time=2%,memory=5%", "churn/time=3%" (a
 * workload's own threshold on one metric), repeatable. 0, or the exit
 * status. */
static int parse_thresholds(const char *command, const char *text, struct alloclab_ab_args *a)
{
	char *copy = strdup(text), *cursor = copy, *item;
	int rc = 0;
	while (rc == 0 && (item = strsep(&cursor, ",")) != NULL) {
		char *eq = strchr(item, '='), *num = eq ? eq + 1 : item;
		char *slash = eq ? memchr(item, '/', (size_t)(eq - item)) : NULL;
		size_t len = strlen(num);
		double v;
		if (len && num[len - 1] == '%')
			num[--len] = '\0';
		if (alloclab_parse_seconds(num, &v) != 0 || v < 0 || v > 1000) {
			rc = alloclab_usage_error(command,
						  "--fail-above takes a percentage such as 2%%, time=2%% or churn/time=3%%, not '%s'",
						  text);
			break;
		}
		if (!eq) {
			for (int k = 0; k < ALLOCLAB_AB_NMETRICS; k++)
				a->thresholds.metric[k] = v;
			continue;
		}
		*eq = '\0';
		if (slash)
			*slash = '\0';
		const char *metric = slash ? slash + 1 : item;
		int m = metric_named(metric);
		if (m < 0) {
			rc = alloclab_usage_error(command, "--fail-above: '%s' is not a metric (instructions, time, memory)",
						  metric);
		} else if (!slash) {
			a->thresholds.metric[m] = v;
		} else if (item[0] == '\0' || strlen(item) >= sizeof a->thresholds.own[0].workload ||
			   !alloclab_shell_word_one_line(item)) {
			rc = alloclab_usage_error(command, "--fail-above: '%s/' needs a workload's name (63 bytes at most)",
						  metric);
		} else if (a->thresholds.nown == ALLOCLAB_AB_GATE_OWN) {
			rc = alloclab_usage_error(command, "--fail-above: at most %d workloads' own thresholds",
						  ALLOCLAB_AB_GATE_OWN);
		} else {
			struct alloclab_ab_gate_own *own = &a->thresholds.own[a->thresholds.nown++];
			snprintf(own->workload, sizeof own->workload, "%s", item);
			own->metric = (enum alloclab_ab_metric)m;
			own->percent = v;
		}
	}
	free(copy);
	a->gate |= rc == 0;
	return rc;
}

static int parse_metrics(const char *command, const char *text, unsigned *out)
{
	char *copy = strdup(text), *cursor = copy, *item;
	int rc = 0;
	*out = 0;
	while (rc == 0 && (item = strsep(&cursor, ",")) != NULL) {
		int m = metric_named(item);
		if (m < 0)
			rc = alloclab_usage_error(command, "--metrics takes instructions, time and memory, not '%s'", item);
		else
			*out |= 1u << m;
	}
	free(copy);
	return rc;
}


/* values, processes, slices:N[:W] (W untimed operations before each
 * slice's N timed ones), or slices+values[:N[:W]]: whether in slices, how
 * much in whole values. */
static int parse_design(const char *command, const char *text, struct alloclab_ab_args *a)
{
	uint64_t n = DEFAULT_SLICE_OPS, w = 0;
	int both = strncmp(text, "slices+values", 13) == 0;
	const char *rest = both ? text + 13 : strncmp(text, "slices:", 7) == 0 ? text + 6 : NULL;
	a->unpaired = strcmp(text, "processes") == 0;
	a->slice_ops = a->slice_warm = 0;
	a->size_in_values = 0;
	if (strcmp(text, "values") == 0 || a->unpaired)
		return 0;
	if (rest && (rest[0] == '\0' ? both : rest[0] == ':')) {
		const char *num = rest[0] ? rest + 1 : NULL, *colon = num ? strchr(num, ':') : NULL;
		size_t nlen = num ? (colon ? (size_t)(colon - num) : strlen(num)) : 0;
		if ((num == NULL || (alloclab_parse_u64(num, nlen, 1, &n) == ALLOCLAB_NUMBER_OK && n >= 100 && n <= 100000000)) &&
		    (colon == NULL ||
		     (alloclab_parse_u64(colon + 1, strlen(colon + 1), 1, &w) == ALLOCLAB_NUMBER_OK && w <= 100000000))) {
			a->slice_ops = n;
			a->slice_warm = w;
			a->size_in_values = both;
			return 0;
		}
	}
	return alloclab_usage_error(command,
				    "--design takes slices+values[:N[:W]], values, slices:N[:W] (N timed operations, 100 or "
				    "more, after W untimed ones) or processes, not '%s'",
				    text);
}

static int parse_shard(const char *command, const char *text, struct alloclab_ab_args *a)
{
	unsigned k, n;
	int used = 0;
	if (sscanf(text, "%u/%u%n", &k, &n, &used) != 2 || text[used] != '\0' || n < 1 || n > 1000 || k < 1 || k > n)
		return alloclab_usage_error(command, "--shard takes K/N (1 <= K <= N <= 1000), not '%s'", text);
	a->shard_index = k;
	a->shard_count = n;
	return 0;
}

/* An option the command does not take: the usage error. */
static int not_taken(const char *command, const char *option)
{
	return alloclab_usage_error(command, "%s is not an option of %s", option, command);
}

/* One option of the shared table (its value in optarg). 0, or the exit
 * status. */
static int take(const char *command, int opt, unsigned takes, struct alloclab_ab_args *a)
{
	switch (opt) {
	case 'R': a->build.repo = optarg; return 0;
	case 'S': a->build.subdir = optarg; return 0;
	case 'B': a->build.command = optarg; return 0;
	case 'P': a->build.plugin = optarg; return 0;
	case 'T': return alloclab_parse_timeout(command, optarg, 86400, &a->build.timeout_s);
	case 'Z': a->build.sandboxed = 1; return 0;
	case 'w':
		if (a->nworkloads == 64)
			return alloclab_usage_error(command, "at most 64 workloads");
		a->workloads[a->nworkloads++] = optarg;
		return 0;
	case 't': return alloclab_parse_thread_list(command, optarg, a->threads, ALLOCLAB_MAX_MATRIX, &a->nthreads);
	case 'm': return parse_metrics(command, optarg, &a->metrics);
	case 'n': return alloclab_parse_count(command, "--processes", optarg, 2, 10000, &a->processes);
	case 'v': return alloclab_parse_count(command, "--values", optarg, 1, 10000, &a->values);
	case 'M': return alloclab_parse_count(command, "--memory-processes", optarg, 2, 10000, &a->memory_processes);
	case 'D': return parse_design(command, optarg, a);
	case 'r': a->reference = strcmp(optarg, "none") == 0 ? NULL : optarg; return 0;
	case 'o': a->output = optarg; return 0;
	case 'W': return alloclab_parse_timeout(command, optarg, 86400, &a->timeout_s);
	case 'F': return takes & ALLOCLAB_AB_TAKES_GATE ? parse_thresholds(command, optarg, a) : not_taken(command, "--fail-above");
	case 'f':
		if (!(takes & ALLOCLAB_AB_TAKES_GATE))
			return not_taken(command, "--format");
		if (strcmp(optarg, "text") != 0 && strcmp(optarg, "md") != 0 && strcmp(optarg, "markdown") != 0 &&
		    strcmp(optarg, "json") != 0)
			return alloclab_usage_error(command, "--format takes text, md or json, not '%s'", optarg);
		a->format = optarg;
		return 0;
	case 'd':
		if (!(takes & ALLOCLAB_AB_TAKES_DB))
			return not_taken(command, "--db");
		a->db = optarg;
		return 0;
	case 'K': return takes & ALLOCLAB_AB_TAKES_SHARD ? parse_shard(command, optarg, a) : not_taken(command, "--shard");
	case 'E':
		return takes & ALLOCLAB_AB_TAKES_SHARD ? alloclab_parse_count(command, "--steps", optarg, 1, 1000000, &a->every)
						       : not_taken(command, "--steps");
	case 'Q':
		if (!(takes & ALLOCLAB_AB_TAKES_SHARD))
			return not_taken(command, "--measure-same-code");
		a->measure_same_code = 1;
		return 0;
	case 'G':
	case 'X':
		if (!(takes & ALLOCLAB_AB_TAKES_BISECT))
			return not_taken(command, opt == 'G' ? "--good" : "--bad");
		*(opt == 'G' ? &a->good : &a->bad) = optarg;
		return 0;
	case 'Y': {
		int m = metric_named(optarg);
		if (!(takes & ALLOCLAB_AB_TAKES_BISECT))
			return not_taken(command, "--metric");
		if (m < 0)
			return alloclab_usage_error(command, "--metric takes time, instructions or memory, not '%s'", optarg);
		a->metric = (enum alloclab_ab_metric)m;
		return 0;
	}
	default: return 2;
	}
}

/* The -w texts into specs, once, before anything is built or measured:
 * a bad one is refused now, not at the first step's run. A pyperf file
 * is run once here to find its benchmarks, under the worker's deadline.
 * -1 to go on, or the exit status. */
static int parse_workloads(const char *command, struct alloclab_ab_args *a)
{
	char err[ALLOCLAB_ERR_LEN];
	alloclab_set_plan_step_timeout(a->timeout_s);
	a->nspecs = 0;
	for (size_t i = 0; i < a->nworkloads; i++) {
		unsigned n;
		if (alloclab_workload_parse_list(a->workloads[i], &a->specs[a->nspecs], ALLOCLAB_MAX_MATRIX - a->nspecs, &n,
						 err, sizeof err) != 0)
			return alloclab_usage_error(command, "%s", err);
		a->nspecs += n;
	}
	return -1;
}

int alloclab_ab_args_parse(const char *command, int argc, char **argv, unsigned takes, const char *usage,
			   struct alloclab_ab_args *a)
{
	static const struct option longopts[] = {
		{"repo", required_argument, NULL, 'R'},       {"subdir", required_argument, NULL, 'S'},
		{"build", required_argument, NULL, 'B'},      {"plugin", required_argument, NULL, 'P'},
		{"build-timeout", required_argument, NULL, 'T'}, {"workload", required_argument, NULL, 'w'},
		{"threads", required_argument, NULL, 't'},    {"metrics", required_argument, NULL, 'm'},
		{"processes", required_argument, NULL, 'n'},  {"values", required_argument, NULL, 'v'},
		{"design", required_argument, NULL, 'D'},     {"memory-processes", required_argument, NULL, 'M'},
		{"reference", required_argument, NULL, 'r'},  {"fail-above", required_argument, NULL, 'F'},
		{"format", required_argument, NULL, 'f'},     {"output", required_argument, NULL, 'o'},
		{"timeout", required_argument, NULL, 'W'},    {"db", required_argument, NULL, 'd'},
		{"shard", required_argument, NULL, 'K'},      {"steps", required_argument, NULL, 'E'},
		{"good", required_argument, NULL, 'G'},
		{"bad", required_argument, NULL, 'X'},        {"metric", required_argument, NULL, 'Y'},
		{"sandbox", no_argument, NULL, 'Z'},          {"measure-same-code", no_argument, NULL, 'Q'},
		{"help", no_argument, NULL, 'h'},             {NULL, 0, NULL, 0},
	};
	int opt;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":w:t:m:n:v:f:o:h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(usage, stdout);
			return 0;
		}
		if (opt == ':')
			return alloclab_usage_error(command, "option '%s' needs a value", argv[optind - 1]);
		if (opt == '?')
			return alloclab_usage_error(command, "unknown option '%s'", argv[optind - 1]);
		int rc = take(command, opt, takes, a);
		if (rc != 0)
			return rc;
	}
	if (a->build.sandboxed) {
		char why[ALLOCLAB_ERR_LEN];
		if (a->build.repo == NULL)
			return alloclab_usage_error(command, "--sandbox confines the builds of a repository's revisions "
							     "(--repo); a folder of your own is built as you");
		if (alloclab_sandbox_usable(why, sizeof why) != 0)
			return alloclab_usage_error(command, "--sandbox: no sandbox can be made here: %s", why);
	}
	if (a->nworkloads == 0)
		for (size_t i = 0; i < sizeof default_workloads / sizeof *default_workloads; i++)
			a->workloads[a->nworkloads++] = default_workloads[i];
	return parse_workloads(command, a);
}

/* Every option that moves a figure, in one canonical text. */
static void identity_of(struct alloclab_ab_args *a)
{
	size_t n = (size_t)snprintf(a->identity, sizeof a->identity,
				    "metrics=%u n=%u v=%u M=%u unpaired=%d size=%d slices=%llu+%llu timeout=%g reference=%s threads=",
				    a->metrics, a->processes, a->values, a->memory_processes, a->unpaired, a->size_in_values,
				    (unsigned long long)a->slice_ops, (unsigned long long)a->slice_warm, a->timeout_s,
				    a->reference ? a->reference : "-");
	for (unsigned i = 0; i < a->nthreads && n < sizeof a->identity; i++)
		n += (size_t)snprintf(a->identity + n, sizeof a->identity - n, "%u,", a->threads[i]);
	for (size_t i = 0; i < a->nworkloads && n < sizeof a->identity; i++)
		n += (size_t)snprintf(a->identity + n, sizeof a->identity - n, " -w %s", a->workloads[i]);
}

void alloclab_ab_args_plan(struct alloclab_ab_args *a, const char *dir, int argc, char **argv,
			   struct alloclab_ab_plan *plan)
{
	memset(plan, 0, sizeof *plan);
	identity_of(a);
	plan->identity = a->identity;
	plan->reference = a->reference;
	plan->workloads = a->specs;
	plan->nworkloads = a->nspecs;
	plan->threads = a->threads;
	plan->nthreads = a->nthreads;
	plan->argc = argc;
	plan->argv = argv;
	plan->metrics = a->metrics;
	plan->processes = a->processes;
	plan->values = a->values;
	plan->memory_processes = a->memory_processes;
	plan->slice_ops = a->slice_ops;
	plan->slice_warm = a->slice_warm;
	plan->unpaired = a->unpaired;
	plan->size_in_values = a->size_in_values;
	plan->timeout_s = a->timeout_s;
	plan->dir = dir;
	plan->name_rows = alloclab_row_names;
	plan->check = alloclab_workload_check_report;
	plan->progress = isatty(2);
}
