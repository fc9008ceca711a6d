/*
 * `alloclab run`: parses the command line into a run configuration and
 * hands it to the runner. Every bad input is refused here, before anything
 * is measured or written.
 */
#include "cli.h"
#include "run_options.h"
#include "base/json_text.h"
#include "base/numbers.h"
#include "registry.h"
#include "report.h"
#include "run/runner.h"
#include "worker/worker.h"
#include "measure/latency.h"
#include "process/child.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The default suite: every bundled allocator plugin, the default workloads,
 * 1 and 2 threads. noop (a harness baseline) and obmalloc-radix-fixed (a
 * build-time experiment) are bundled but are not allocators to compare. */
static const char *const default_plugins[] = {
	"system", "jemalloc", "mimalloc", "tcmalloc", "tbbmalloc", "cpython",
	/* per-thread: each thread its own state, as per-interpreter obmalloc;
	 * the plugins' default, gil, serialises every call. */
	"obmalloc-radix:mode=per-thread", "obmalloc-bigpool:mode=per-thread",
};
/* Python: two benchmarks (numbers and text), values of 20 ms
 * (docs/guides/python.md), at one thread (more interleave under the GIL:
 * they do not scale). A Python process has one allocator for its life, so
 * pairing cannot cancel its machine's noise: its rows cost half the
 * suite's time for its widest intervals, and a third benchmark would take
 * the suite past a minute. And the replay of richards, recorded at build
 * time (docs/guides/traces.md), whose threads do run in parallel. */
static const struct {
	const char *spec;
	unsigned max_threads; /* 0: every thread count */
} default_workloads[] = {
	{"churn", 0},
	{"unicode", 0},
	{"python:bench=nbody+json_dumps,value_ms=20", 1},
	{"trace:file=richards.trace", 0},
};
static const unsigned default_threads[] = {1, 2};

static const char usage_head[] =
	"usage: alloclab run [options]\n"
	"\n"
	"Measures every combination of the plugins, workloads and thread counts\n"
	"given. Each combination (cell) runs in --processes fresh worker processes,\n"
	"each doing --warmups unmeasured then --values measured repetitions.\n"
	"With no options: the default suite (every bundled allocator x churn, unicode and the\n"
	"replay of a recorded Python benchmark at 1,2 threads, and three Python benchmarks at 1).\n"
	"\n"
	"options:\n";
static const char usage_tail[] =
	"\n"
	"Numbers take K, M, G suffixes in workload parameters (64K = 65536).\n"
	"exit status: 0 success, 1 some cells failed (see the table), 2 bad input,\n"
	"130 interrupted (finished cells are kept in the results file)\n";

static int parse_threads(const char *text, struct alloclab_run_config *cfg)
{
	return alloclab_parse_thread_list("run", text, cfg->threads, ALLOCLAB_MAX_MATRIX, &cfg->nthreads);
}

static int add_workload(const char *text, struct alloclab_run_config *cfg)
{
	char err[ALLOCLAB_ERR_LEN];
	unsigned n;

	if (cfg->nworkloads == ALLOCLAB_MAX_MATRIX)
		return alloclab_usage_error("run", "more than %d workloads", ALLOCLAB_MAX_MATRIX);
	if (alloclab_workload_parse_list(text, &cfg->workloads[cfg->nworkloads], ALLOCLAB_MAX_MATRIX - cfg->nworkloads,
					 &n, err, sizeof err) != 0)
		return alloclab_usage_error("run", "%s", err);
	cfg->nworkloads += n;
	return 0;
}

static int add_plugin(const char *text, struct alloclab_run_config *cfg)
{
	if (cfg->nplugins == ALLOCLAB_MAX_MATRIX)
		return alloclab_usage_error("run", "more than %d plugins", ALLOCLAB_MAX_MATRIX);
	if (text[0] == '\0' || text[0] == ':')
		return alloclab_usage_error("run", "--plugin needs a name or a path");
	struct alloclab_plugin_arg *arg = &cfg->plugins[cfg->nplugins++];
	alloclab_plugin_arg_parse(text, arg);
	/* A label is shown in every table, page and picture of the run: one
	 * that a terminal does not show as it is (a line break, an escape, a
	 * character that turns the rest of a line around) is refused here,
	 * before anything runs. */
	const char *why = arg->as ? alloclab_text_line_problem(arg->as) : NULL;
	if (why)
		return alloclab_usage_error("run", "--plugin %s: the label %s: give a label of plain text", text, why);
	return 0;
}

/* --words FILE: the words-file parameter of every workload that has one.
 * Checked here, once: a FIFO, a device or a folder would hang or fail
 * every worker. */
static int apply_words_file(const char *path, struct alloclab_run_config *cfg)
{
	char err[ALLOCLAB_ERR_LEN];
	struct stat st;
	int used = 0;

	if (stat(path, &st) != 0)
		return alloclab_usage_error("run", "--words %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return alloclab_usage_error("run", "--words %s: not a regular file", path);
	for (unsigned i = 0; i < cfg->nworkloads; i++) {
		struct alloclab_workload_spec *w = &cfg->workloads[i];
		int idx = alloclab_workload_role_index(w->workload, ALLOCLAB_ROLE_WORDS_FILE);
		if (idx < 0)
			continue;
		w->params.text[idx] = path;
		used = 1;
		if (w->workload->check_params && w->workload->check_params(&w->params, err, sizeof err) != 0)
			return alloclab_usage_error("run", "%s", err);
	}
	if (!used)
		return alloclab_usage_error("run", "--words: no workload in this run takes a text (the unicode workload does)");
	return 0;
}

/* What the command line asks for beside the configuration itself. */
struct run_args {
	double timeout;
	/* The -w texts, parsed once every option is known: a pyperf file is
	 * run once while its text is parsed, under --timeout wherever that
	 * stands on the line. */
	const char *workloads[ALLOCLAB_MAX_MATRIX];
	unsigned nworkloads;
	const char *words_file;
	int slice_set, warm_set;
	int unpaired;
};

/* --shard K/N: two whole numbers, each checked for its range before it
 * is narrowed (a count past 2^32 must not wrap to a small one). */
static int parse_shard(const char *text, struct alloclab_run_config *cfg)
{
	const char *slash = strchr(text, '/');
	char k_text[32], n_text[32];
	uint64_t k, n;

	if (slash == NULL || (size_t)(slash - text) >= sizeof k_text || strlen(slash + 1) >= sizeof n_text)
		return alloclab_usage_error("run", "--shard takes K/N with 1 <= K <= N <= %d, not '%s'", ALLOCLAB_MAX_SHARDS,
					    text);
	snprintf(k_text, sizeof k_text, "%.*s", (int)(slash - text), text);
	snprintf(n_text, sizeof n_text, "%s", slash + 1);
	int rc = alloclab_parse_whole("run", "--shard's N", n_text, 1, ALLOCLAB_MAX_SHARDS, &n);
	if (rc == 0)
		rc = alloclab_parse_whole("run", "--shard's K", k_text, 1, n, &k);
	if (rc == 0)
		cfg->shard_index = (unsigned)k, cfg->shard_count = (unsigned)n;
	return rc;
}

/* --pair A,B[,C...]: labels of the run's plugins (checked against them
 * once they are labelled), none twice, at least two. */
static int parse_pair(const char *text, struct alloclab_run_config *cfg)
{
	char *copy = strdup(text);
	int rc = 0;

	cfg->paired = 1;
	cfg->npair = 0;
	for (char *cursor = copy, *item; rc == 0 && (item = strsep(&cursor, ",")) != NULL;) {
		if (*item == '\0')
			rc = alloclab_usage_error("run", "--pair '%s' has an empty entry", text);
		else if (cfg->npair == ALLOCLAB_MAX_PAIR)
			rc = alloclab_usage_error("run", "--pair: at most %d plugins side by side", ALLOCLAB_MAX_PAIR);
		for (unsigned k = 0; rc == 0 && k < cfg->npair; k++)
			if (strcmp(cfg->pair[k], item) == 0)
				rc = alloclab_usage_error("run", "--pair names '%s' twice", item);
		if (rc == 0)
			cfg->pair[cfg->npair++] = strdup(item);
	}
	if (rc == 0 && cfg->npair < 2)
		rc = alloclab_usage_error("run", "--pair '%s' names one plugin: a comparison needs two or more", text);
	free(copy);
	return rc;
}

/* One option into cfg (or a). 0, or the exit status of a bad one. */
static int take_option(int opt, char **argv, struct alloclab_run_config *cfg, struct run_args *a)
{
	int rc = 0;

	switch (opt) {
	case 'p': rc = add_plugin(optarg, cfg); break;
	case 'w':
		if (a->nworkloads == ALLOCLAB_MAX_MATRIX)
			rc = alloclab_usage_error("run", "more than %d workloads", ALLOCLAB_MAX_MATRIX);
		else
			a->workloads[a->nworkloads++] = optarg;
		break;
	case 't': rc = parse_threads(optarg, cfg); break;
	case 'n':
		if (strcmp(optarg, "auto") == 0)
			cfg->processes_auto = 1;
		else
			rc = alloclab_parse_count("run", "--processes", optarg, 1, 1000, &cfg->processes), cfg->processes_set = 1;
		break;
	case 'I':
		if (alloclab_parse_seconds(optarg, &cfg->ci_percent) != 0 || cfg->ci_percent <= 0 || cfg->ci_percent > 100)
			rc = alloclab_usage_error("run", "--ci '%s' is not a percentage in (0, 100]", optarg);
		break;
	case 'x': rc = alloclab_parse_count("run", "--max-processes", optarg, 2, 1000, &cfg->max_processes); break;
	case 'v': rc = alloclab_parse_count("run", "--values", optarg, 1, 100000, &cfg->values), cfg->values_set = 1; break;
	case 'W': rc = alloclab_parse_count("run", "--warmups", optarg, 0, 100000, &cfg->warmups), cfg->warmups_set = 1; break;
	case 'T': rc = alloclab_parse_timeout("run", optarg, 86400, &a->timeout); break;
	case 'L': rc = alloclab_parse_memory_limit("run", optarg); break;
	case 'P': cfg->pin = 1; break;
	case 'o': cfg->output = optarg; break;
	case 'q': cfg->quiet = 1; break;
	case 'A': {
		static const char *const names[] = ALLOCLAB_CACHE_ALIGN_NAMES;
		unsigned k = 0;
		while (k < sizeof names / sizeof *names && strcmp(optarg, names[k]) != 0)
			k++;
		if (k == sizeof names / sizeof *names)
			rc = alloclab_usage_error("run", "--cache-align takes off, on or both, not '%s'", optarg);
		else
			cfg->cache_align = (enum alloclab_cache_align)k;
		break;
	}
	case 'X': a->words_file = optarg; break;
	case 'O':
		if (strcmp(optarg, "random") == 0)
			cfg->order_fixed = 0;
		else if (strcmp(optarg, "fixed") == 0)
			cfg->order_fixed = 1;
		else
			rc = alloclab_usage_error("run", "--order takes random or fixed, not '%s'", optarg);
		break;
	case 'S': rc = alloclab_parse_whole("run", "--order-seed", optarg, 1, (1ull << 63) - 1, &cfg->order_seed); break;
	case 'y':
		if (cfg->latency == 0)
			cfg->latency = 1;
		break;
	case 'Y':
		rc = alloclab_parse_count("run", "--latency-every", optarg, 1, ALLOCLAB_LATENCY_MAX_EVERY, &cfg->latency);
		break;
	case 'H': rc = parse_shard(optarg, cfg); break;
	case 'D': cfg->dry_run = 1; break;
	case 'R': cfg->paired = 1; break;
	case 'U': a->unpaired = 1; break;
	case 'G': rc = parse_pair(optarg, cfg); break;
	case 'Z': rc = alloclab_parse_whole("run", "--slice-ops", optarg, 0, 1000000000, &cfg->slice_ops), a->slice_set = 1; break;
	case 'B': rc = alloclab_parse_whole("run", "--slice-warm", optarg, 0, 1000000000, &cfg->slice_warm), a->warm_set = 1; break;
	case 'm': rc = alloclab_parse_count("run", "--sample-ms", optarg, 0, 60000, &cfg->sample_ms); break;
	case 'E': rc = alloclab_parse_count("run", "--settle-ms", optarg, 0, 600000, &cfg->settle_ms); break;
	case 'C': cfg->check = ALLOCLAB_CHECK_ALL; break;
	case 'N': cfg->check = ALLOCLAB_CHECK_NONE; break;
	case 'M':
		if (alloclab_measure_parse(optarg, &cfg->measure) != 0)
			rc = alloclab_usage_error("run", "--measure takes time, instructions, cache or tlb, not '%s'", optarg);
		break;
	case ':': rc = alloclab_usage_error("run", "option '%s' needs a value", argv[optind - 1]); break;
	default: rc = alloclab_usage_error("run", "unknown option '%s'", argv[optind - 1]); break;
	}
	return rc;
}

/* What the options ask for together, and the arguments left over. 0, or
 * the exit status. */
static int check_options(int argc, char **argv, const struct alloclab_run_config *cfg, const struct run_args *a)
{
	if (optind < argc)
		return alloclab_usage_error("run", "unexpected argument '%s'", argv[optind]);
	if (cfg->shard_count && cfg->processes_auto)
		return alloclab_usage_error("run", "--shard splits the process rounds of a plan; -n auto decides them as it "
						   "goes: give -n N");
	if (cfg->latency && cfg->measure != ALLOCLAB_MEASURE_TIME)
		return alloclab_usage_error("run", "--latency times each call: it goes with --measure time only");
	if (cfg->output && cfg->output[0] == '\0')
		return alloclab_usage_error("run", "--output needs a file name");
	if (cfg->paired && a->unpaired)
		return alloclab_usage_error("run", "--unpaired goes without --paired and --pair");
	if (!cfg->paired && (a->slice_set || a->warm_set))
		return alloclab_usage_error("run", "%s is paired mode's: give --paired or --pair too",
					    a->slice_set ? "--slice-ops" : "--slice-warm");
	if (cfg->slice_ops == 0 && a->warm_set && cfg->slice_warm)
		return alloclab_usage_error("run", "--slice-warm goes with slices: --slice-ops 0 alternates whole values");
	if (cfg->paired && cfg->measure != ALLOCLAB_MEASURE_TIME)
		return alloclab_usage_error("run", "--paired measures time: instruction and simulated counts are the same "
						   "in every process, and need no pairing");
	if (cfg->paired && (cfg->latency || cfg->cache_align != ALLOCLAB_ALIGN_OFF))
		return alloclab_usage_error("run", "--paired goes without %s (a process-wide wrapper cannot serve two "
						   "plugins)", cfg->latency ? "--latency" : "--cache-align");
	return 0;
}

/* The default suite's plugins and workloads where none are given. 0, or
 * the exit status. */
static int add_defaults(struct alloclab_run_config *cfg, const struct run_args *a)
{
	int rc;

	if (!a->unpaired && cfg->nplugins == 0 && cfg->nworkloads == 0 && cfg->measure == ALLOCLAB_MEASURE_TIME && !cfg->latency &&
	    cfg->cache_align == ALLOCLAB_ALIGN_OFF)
		cfg->paired = 1; /* the default suite: every allocator against glibc, side by side */
	if (cfg->nplugins == 0)
		for (size_t i = 0; i < sizeof default_plugins / sizeof *default_plugins; i++)
			add_plugin(default_plugins[i], cfg);
	if (cfg->nworkloads == 0) {
		cfg->brief = 1;
		for (size_t i = 0; i < sizeof default_workloads / sizeof *default_workloads; i++) {
			unsigned first = cfg->nworkloads;
			if ((rc = add_workload(default_workloads[i].spec, cfg)) != 0)
				return rc;
			for (unsigned k = first; k < cfg->nworkloads; k++)
				cfg->workload_max_threads[k] = default_workloads[i].max_threads;
		}
	}
	return 0;
}

int alloclab_cmd_run(int argc, char **argv)
{
	struct option longopts[ALLOCLAB_RUN_OPTIONS_MAX];
	char shortopts[2 * ALLOCLAB_RUN_OPTIONS_MAX];
	static struct alloclab_run_config cfg;
	struct run_args a = {.timeout = 120, .words_file = NULL, .slice_set = 0};
	char **full_argv;
	int opt, rc = 0;

	alloclab_run_config_init(&cfg);
	alloclab_run_options_getopt(longopts, shortopts, sizeof shortopts);
	/* Long options by their whole names only: getopt would take "--dry"
	 * for --dry-run, and what reads a run's arguments by name (slurm, the
	 * rerun of a shard) would not see it. */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const struct alloclab_run_option *set[16];
		int value_follows, n = alloclab_run_options_in(argv[i], set, 16, &value_follows);
		if (n < 0 && strcmp(argv[i], "--help") != 0)
			return alloclab_usage_error("run", "unknown option '%.80s' (options are written in full: see --help)",
						    argv[i]);
		i += value_follows;
	}
	opterr = 0;
	while (rc == 0 && (opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(usage_head, stdout);
			alloclab_run_options_help(stdout);
			fputs(usage_tail, stdout);
			alloclab_run_config_clear(&cfg);
			return 0;
		}
		rc = take_option(opt, argv, &cfg, &a);
	}
	/* From here a child may run the user's code (a pyperf file found out):
	 * an interrupt ends it whole, and so does the run's deadline. */
	alloclab_catch_interrupts();
	alloclab_set_plan_step_timeout(a.timeout);
	for (unsigned i = 0; rc == 0 && i < a.nworkloads; i++)
		rc = add_workload(a.workloads[i], &cfg);
	if (rc == 0)
		rc = check_options(argc, argv, &cfg, &a);
	if (rc == 0)
		rc = add_defaults(&cfg, &a);
	if (rc == 0 && a.words_file)
		rc = apply_words_file(a.words_file, &cfg);
	if (rc != 0) {
		alloclab_run_config_clear(&cfg);
		return rc;
	}
	if (cfg.nthreads == 0)
		for (size_t i = 0; i < sizeof default_threads / sizeof *default_threads; i++)
			cfg.threads[cfg.nthreads++] = default_threads[i];
	if ((unsigned long)cfg.nplugins * 2 * cfg.nworkloads * cfg.nthreads > 8192) {
		alloclab_run_config_clear(&cfg);
		return alloclab_usage_error("run", "the matrix has more than 8192 cells; split the run");
	}
	cfg.timeout_s = a.timeout;
	cfg.print = alloclab_report_print;
	full_argv = calloc((size_t)argc + 2, sizeof *full_argv);
	full_argv[0] = "alloclab";
	for (int i = 0; i < argc; i++)
		full_argv[i + 1] = argv[i];
	cfg.argc = argc + 1;
	cfg.argv = full_argv;
	rc = alloclab_run(&cfg);
	free(full_argv);
	alloclab_run_config_clear(&cfg);
	return rc;
}
