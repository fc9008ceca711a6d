/* The run matrix and its worker processes. See runner.h. */
#define _GNU_SOURCE 1
#include "run/internal.h"
#include "base/shell_word.h"
#include "measure/measure.h"
#include "memory/fault_cost.h"
#include "base/hash.h"
#include "base/rng.h"
#include "base/json_text.h"
#include "base/lengths.h"

#include "figures/cell_values.h"
#include "process/child.h"
#include "statistics/summary.h"
#include "run/progress.h"
#include "results/results.h"
#include "files/scratch.h"
#include "process/process_tree.h"
#include "files/self_exe.h"
#include "files/file_hash.h"
#include "plugin/plugin_arg.h"
#include "worker/worker.h"

#include <alloclab/plugin_options.h>
#include <errno.h>
#include <sys/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>









/* -n auto's stopping rule (statistics/summary.h) on a cell's per-process means. */
static double ci_half_width_percent(const struct alloclab_cell *c)
{
	size_t n;
	double *m = alloclab_cell_process_means(c, &n), half;

	half = alloclab_ci_half_width_percent(m, n);
	free(m);
	return half;
}

/* NULL when the plugin can run the workload at this thread count; else
 * why not, in why (or a constant). */
static const char *applicability(uint64_t caps, const struct alloclab_workload *w, unsigned threads, char *why,
				 size_t why_len)
{
	if (threads > 1 && !(caps & ALLOCLAB_CAP_THREAD_SAFE))
		return "plugin is not thread-safe: runs with 1 thread only";
	if (w->max_threads && threads > w->max_threads) {
		snprintf(why, why_len, "workload '%s' runs with at most %u threads", w->name, w->max_threads);
		return why;
	}
	if ((w->flags & ALLOCLAB_WORKLOAD_CROSS_THREAD_FREE) && !(caps & ALLOCLAB_CAP_CROSS_THREAD_FREE))
		return "workload frees across threads; plugin does not declare cross-thread-free";
	if ((w->flags & ALLOCLAB_WORKLOAD_CROSS_THREAD_FREE_IN_THREADS) && threads > 1 &&
	    !(caps & ALLOCLAB_CAP_CROSS_THREAD_FREE))
		return "workload frees across threads when threaded; plugin does not declare cross-thread-free";
	if ((w->flags & ALLOCLAB_WORKLOAD_NEEDS_REALLOC) && !(caps & ALLOCLAB_CAP_REALLOC))
		return "workload needs realloc; plugin does not offer it";
	return NULL;
}

static int probe_plugins(struct alloclab_run *run)
{
	const struct alloclab_run_config *cfg = run->cfg;

	run->caps = calloc(cfg->nplugins + 1, sizeof *run->caps);
	for (unsigned i = 0; i < cfg->nplugins; i++) {
		struct alloclab_probe probe;
		char err[ALLOCLAB_ERR_LEN];

		if (alloclab_probe_isolated(&cfg->plugins[i], cfg->timeout_s, &probe, err, sizeof err) != 0) {
			alloclab_say("alloclab: %s", err);
			return -1;
		}

		char caps[512];
		json_t *caps_list = json_array();
		alloclab_caps_format(probe.caps, caps, sizeof caps);
		for (char *save = NULL, *c = strtok_r(caps, ",", &save); c; c = strtok_r(NULL, ",", &save))
			json_array_append_new(caps_list, json_string(c));
		/* What identifies the build: its file's contents, and its
		 * source where the one who built it said. */
		char sha256[ALLOCLAB_SHA256_HEX], commit[65];
		int dirty = -1;
		if (alloclab_file_sha256(probe.path, sha256, err, sizeof err) != 0) {
			alloclab_say("alloclab: plugin %s: %s", cfg->plugins[i].spec, err);
			alloclab_probe_clear(&probe);
			return -1;
		}
		if (cfg->plugins[i].source && alloclab_source_parse(cfg->plugins[i].source, commit, &dirty) != 0) {
			alloclab_say("alloclab: plugin %s: source= takes a commit hash (7 to 64 lower-case hex digits), "
				     "then +dirty when its tree held changes, not '%.80s'",
				     cfg->plugins[i].spec, cfg->plugins[i].source);
			alloclab_probe_clear(&probe);
			return -1;
		}
		struct alloclab_plugin_info info = {
			.spec = cfg->plugins[i].spec, .options = cfg->plugins[i].options, .name = probe.name,
			.version = probe.version, .description = probe.description, .path = probe.path,
			.caps = caps_list, .min_align = probe.min_align, .sha256 = sha256,
			.source_commit = cfg->plugins[i].source ? commit : NULL, .source_dirty = dirty,
		};
		run->caps[i] = probe.caps;
		alloclab_results_add_plugin(run->results, &info);
		alloclab_probe_clear(&probe);
	}
	return 0;
}

static int label_taken(const struct alloclab_results *r, unsigned upto, const char *label)
{
	for (unsigned k = 0; k < upto; k++)
		if (r->plugins[k].label && strcmp(r->plugins[k].label, label) == 0)
			return 1;
	return 0;
}

/* Every label is one that every format carries whole (a label cut to
 * fit, or with a byte shown as '?', could become another's): at most
 * ALLOCLAB_MAX_LABEL bytes of UTF-8 without control characters. */
static int check_labels(const struct alloclab_run *run)
{
	const struct alloclab_results *r = run->results;
	for (unsigned i = 0; i < r->nplugins; i++) {
		const char *label = r->plugins[i].label, *why = alloclab_text_line_problem(label);
		if (why == NULL && strlen(label) <= ALLOCLAB_MAX_LABEL && label[0])
			continue;
		char shown[64];
		snprintf(shown, sizeof shown, "%.40s", label);
		alloclab_text_make_line(shown);
		if (why == NULL && label[0] == '\0')
			why = "is empty";
		if (why)
			alloclab_say("alloclab: plugin label '%s%s' %s: name the plugin with as=LABEL", shown,
				strlen(label) > 40 ? "..." : "", why);
		else
			alloclab_say("alloclab: plugin label '%s...' is %zu bytes long, more than the %d that results "
				"files, tables and exports carry whole: name the plugin with as=LABEL", shown,
				strlen(label), ALLOCLAB_MAX_LABEL);
		return -1;
	}
	return 0;
}

/*
 * Labels that tell every plugin of the run apart: as=NAME when given
 * (refused if two plugins ask for the same), else name[:options]; two
 * plugins that would share one (two builds of one allocator given by path)
 * are labelled by their paths instead, and numbered as a last resort.
 */
static int label_plugins(struct alloclab_run *run)
{
	struct alloclab_results *r = run->results;
	const struct alloclab_run_config *cfg = run->cfg;

	for (unsigned i = 0; i < r->nplugins; i++) {
		struct alloclab_plugin_info *p = &r->plugins[i];
		char label[ALLOCLAB_PATH_PLUS_LEN];
		if (cfg->plugins[i].as) {
			if (label_taken(r, i, cfg->plugins[i].as)) {
				alloclab_say("alloclab: two plugins are labelled '%s' (as=): give each its own",
					     cfg->plugins[i].as);
				return -1;
			}
			p->label = strdup(cfg->plugins[i].as);
			continue;
		}
		snprintf(label, sizeof label, "%s%s%s%s", p->name, p->options[0] || cfg->plugins[i].gil ? ":" : "", p->options,
			 cfg->plugins[i].gil ? (p->options[0] ? ",gil=1" : "gil=1") : "");
		int clash = 0;
		for (unsigned k = 0; k < r->nplugins; k++) {
			char other[ALLOCLAB_PATH_PLUS_LEN];
			if (k == i)
				continue;
			snprintf(other, sizeof other, "%s%s%s%s", r->plugins[k].name,
				 r->plugins[k].options[0] || cfg->plugins[k].gil ? ":" : "", r->plugins[k].options,
				 cfg->plugins[k].gil ? (r->plugins[k].options[0] ? ",gil=1" : "gil=1") : "");
			clash |= strcmp(other, label) == 0 && strcmp(r->plugins[k].path, p->path) != 0;
		}
		if (clash)
			snprintf(label, sizeof label, "%s%s%s%s", p->path, p->options[0] || cfg->plugins[i].gil ? ":" : "",
				 p->options, cfg->plugins[i].gil ? (p->options[0] ? ",gil=1" : "gil=1") : "");
		for (unsigned n = 2; label_taken(r, i, label); n++) {
			size_t used = strcspn(label, "#");
			snprintf(label + used, sizeof label - used, "#%u", n);
		}
		p->label = strdup(label);
	}
	return check_labels(run);
}

/* The check before the run (vet.h), with progress: it can take a while. */
static int preflight(struct alloclab_run *run)
{
	const struct alloclab_run_config *cfg = run->cfg;
	struct alloclab_progress progress;

	if (cfg->check == ALLOCLAB_CHECK_NONE)
		return 0;
	alloclab_progress_start(&progress, run->results->nplugins);
	for (unsigned i = 0; i < run->results->nplugins && !alloclab_interrupted(); i++) {
		struct alloclab_plugin_info *p = &run->results->plugins[i];
		char label[ALLOCLAB_PATH_PLUS_LEN];
		if (!alloclab_vet_checks(cfg->check, cfg->plugins[i].spec))
			continue;
		snprintf(label, sizeof label, "alloclab check %s (once per build of it)", p->label);
		alloclab_progress_show(&progress, label);
		p->check = alloclab_vet_check(&cfg->plugins[i], p->path, cfg->check, cfg->timeout_s);
		alloclab_progress_step(&progress);
	}
	alloclab_progress_end(&progress);
	return alloclab_interrupted() ? -1 : 0;
}

static void default_output(char *out, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	char stamp[32];

	localtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	snprintf(out, len, "alloclab-results/run-%s.json", stamp);
}

/* Skip the command line's words that do not change what is measured:
 * where the results go, the shard, the order's seed, quiet. */
static int plan_neutral(char *const *argv, int i, int *words)
{
	static const char *const with_value[] = {"-o", "--output", "--shard", "--order-seed"};
	*words = 1;
	for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++) {
		size_t n = strlen(with_value[k]);
		if (strcmp(argv[i], with_value[k]) == 0) {
			*words = 2;
			return 1;
		}
		if (strncmp(argv[i], with_value[k], n) == 0 && argv[i][n] == '=')
			return 1;
	}
	return strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0;
}

/* The plan's identity, for shards: FNV-1a of the command line without
 * its plan-neutral words and of every cell as planned (plugin, options,
 * workload and parameters, threads, alignment, processes), as 16 hex
 * digits. */
static void plan_hash(const struct alloclab_run *run, char *out, size_t len)
{
	const struct alloclab_run_config *cfg = run->cfg;
	const struct alloclab_results *r = run->results;
	uint64_t h = ALLOCLAB_FNV_OFFSET;

	for (int i = 1; i < cfg->argc;) {
		int words;
		if (!plan_neutral(cfg->argv, i, &words))
			h = alloclab_fnv1a(h, cfg->argv[i], strlen(cfg->argv[i]) + 1);
		i += words;
	}
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *c = &r->cells[i];
		char *params = json_dumps(c->params, JSON_SORT_KEYS | JSON_COMPACT);
		char line[1024];
		int n = snprintf(line, sizeof line, "%s|%s|%s|%u|%d|%u|%u|%u|%s", run->cells[i].spec.plugin,
				 run->cells[i].spec.plugin_options, c->workload, c->threads, c->cache_aligned,
				 run->cells[i].processes, run->cells[i].spec.values, run->cells[i].spec.warmups, c->metric);
		h = alloclab_fnv1a(h, line, n > 0 && (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
		if (params)
			h = alloclab_fnv1a(h, params, strlen(params));
		free(params);
	}
	snprintf(out, len, "%016llx", (unsigned long long)h);
}

/* cfg->dumps_dir: the cell's callgrind dumps kept, in a folder of its
 * own (cell-INDEX, the cell's index in the results), for a caller that
 * reads where the instructions went (ab's functions that changed). */
static void keep_dumps(struct alloclab_run *run, struct planned_cell *c, unsigned index)
{
	char dir[ALLOCLAB_PATH_LEN];
	if (run->cfg->dumps_dir == NULL || c->spec.callgrind_dir == NULL)
		return;
	if (snprintf(dir, sizeof dir, "%s/cell-%u", run->cfg->dumps_dir, index) >= (int)sizeof dir ||
	    (mkdir(dir, 0777) != 0 && errno != EEXIST))
		return;
	c->dumps = strdup(dir);
	if (c->dumps) {
		c->spec.callgrind_dir = c->dumps;
		c->spec.keep_dumps = 1;
	}
}

static void lay_out_cells(struct alloclab_run *run)
{
	const struct alloclab_run_config *cfg = run->cfg;
	struct alloclab_results *r = run->results;
	unsigned aligns = cfg->cache_align == ALLOCLAB_ALIGN_BOTH ? 2 : 1;

	run->cells = calloc((size_t)cfg->nplugins * aligns * cfg->nworkloads * cfg->nthreads + 1, sizeof *run->cells);
	for (unsigned p = 0; p < cfg->nplugins; p++)
		for (unsigned al = 0; al < 2; al++)
			for (unsigned w = 0; w < cfg->nworkloads; w++)
				for (unsigned t = 0; t < cfg->nthreads; t++) {
					if (!alloclab_cache_align_measures(cfg->cache_align, (int)al) ||
					    (cfg->workload_max_threads[w] && cfg->threads[t] > cfg->workload_max_threads[w]))
						continue;
					const struct alloclab_workload *wl = cfg->workloads[w].workload;
					char why[ALLOCLAB_ERR_LEN];
					const char *na = applicability(run->caps[p], wl, cfg->threads[t], why, sizeof why);
					if (!na && wl->plan_not_applicable)
						na = wl->plan_not_applicable(&cfg->workloads[w].params);
					struct planned_cell *c = &run->cells[r->ncells];

					c->spec.plugin = cfg->plugins[p].spec;
					c->spec.plugin_options = cfg->plugins[p].options;
					c->spec.gil = cfg->plugins[p].gil;
					c->spec.callgrind_dir = run->callgrind_dir[0] ? run->callgrind_dir : NULL;
					keep_dumps(run, c, r->ncells);
					c->spec.cache_sim = cfg->measure == ALLOCLAB_MEASURE_CACHE ? 1
							    : cfg->measure == ALLOCLAB_MEASURE_TLB ? 2 : 0;
					c->spec.cache_align = al;
					c->spec.workload = wl;
					c->spec.params = cfg->workloads[w].params;
					c->spec.threads = cfg->threads[t];
					c->spec.warmups = cfg->warmups_set || !wl->default_warmups ? cfg->warmups
												  : wl->default_warmups;
					c->spec.values = cfg->values_set || !wl->default_values ? cfg->values : wl->default_values;
					c->spec.pin = cfg->pin;
					c->spec.latency = cfg->latency;
					/* Under valgrind the resident set is valgrind's. */
					c->spec.sample_ms = cfg->measure == ALLOCLAB_MEASURE_TIME ? cfg->sample_ms : 0;
					c->spec.settle_ms = cfg->settle_ms;
					c->processes = cfg->processes_set || !wl->default_processes ? cfg->processes
												     : wl->default_processes;
					c->min_processes = c->processes;
					if (cfg->processes_auto && cfg->max_processes > c->processes)
						c->processes = cfg->max_processes;
					c->done = na != NULL;
					if (c->processes > run->max_processes)
						run->max_processes = c->processes;
					unsigned share = alloclab_shard_share(c->processes, cfg->shard_index, cfg->shard_count);
					if (!na)
						run->total_workers += share;
					struct alloclab_cell cell = {
						.plugin = r->plugins[p].label, .plugin_index = p,
						.plugin_options = cfg->plugins[p].options, .workload = (char *)wl->name,
						.params = alloclab_params_json(wl, &c->spec.params), .threads = cfg->threads[t],
						.cache_aligned = (int)al,
						.status = na ? ALLOCLAB_CELL_NOT_APPLICABLE : ALLOCLAB_CELL_PENDING,
						.message = (char *)na, .unit_op = (char *)wl->unit_op, .planned = share,
						.metric = (char *)alloclab_cell_spec_metric(&c->spec),
					};
					alloclab_results_add_cell(r, &cell);
				}
}

static void free_run(struct alloclab_run *run)
{
	if (run->callgrind_dir[0]) {
		/* The worker removes each dump it reads; what is left is
		 * valgrind's logs (and the dumps of workers that died). */
		alloclab_scratch_remove(run->callgrind_dir);
	}
	for (unsigned i = 0; run->cells && run->results && i < run->results->ncells; i++)
		free(run->cells[i].dumps);
	alloclab_results_free(run->results);
	alloclab_journal_close(run->journal, 0);
	free(run->cells);
	free(run->caps);
	free(run->slots);
	free(run);
}

/* A seed for the order of cells when none was given: from the kernel's
 * random numbers, else the clock; below 2^63, as JSON keeps it. */
static uint64_t draw_order_seed(void)
{
	uint64_t seed = 0;
	if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_nsec * ALLOCLAB_GOLDEN_GAMMA ^ (uint64_t)ts.tv_sec ^ (uint64_t)getpid();
	}
	seed &= ~(1ull << 63);
	return seed ? seed : 1;
}

void alloclab_run_order(uint64_t seed, int fixed, unsigned round, unsigned *order, unsigned n)
{
	struct alloclab_rng rng = {alloclab_thread_seed(seed, round)};

	for (unsigned i = 0; i < n; i++)
		order[i] = i;
	if (fixed)
		return;
	for (unsigned i = n; i > 1; i--) {
		unsigned j = (unsigned)(alloclab_rng_next(&rng) % i), t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
}

/* The measure's tools, before anything is planned: -1 (said on stderr)
 * when a measure other than time cannot run here or has no folder for
 * callgrind's dumps. */
static int check_measure_tools(struct alloclab_run *run)
{
	char err[ALLOCLAB_ERR_LEN];

	if (run->cfg->measure == ALLOCLAB_MEASURE_TIME)
		return 0;
	if (alloclab_measure_available(run->cfg->measure, err, sizeof err) != 0) {
		alloclab_say("alloclab: %s", err);
		return -1;
	}
	if (alloclab_scratch_make("callgrind", run->callgrind_dir, sizeof run->callgrind_dir) != 0) {
		alloclab_say("alloclab: cannot create a folder for callgrind's dumps: %s", strerror(errno));
		run->callgrind_dir[0] = '\0';
		return -1;
	}
	return 0;
}

/* A simulated measure's figures are those of the machine it simulates:
 * the results say which caches or TLBs that was. */
static void record_simulated_geometry(struct alloclab_run *run)
{
	if (run->cfg->measure == ALLOCLAB_MEASURE_CACHE) {
		char d1[96], ll[96];
		if (alloclab_cache_geometry(d1, sizeof d1, ll, sizeof ll) == 0) {
			char both[200];
			snprintf(both, sizeof both, "%s %s", d1, ll);
			alloclab_results_set_cache_simulated(run->results, both);
		}
	} else if (run->cfg->measure == ALLOCLAB_MEASURE_TLB) {
		struct alloclab_tlb_geometry g;
		char d1[96], ll[96], what[400];
		alloclab_tlb_geometry(&g);
		alloclab_tlb_options(&g, d1, sizeof d1, ll, sizeof ll);
		snprintf(what, sizeof what,
			 "data TLBs as caches of 4 KiB lines: first level %u entries %u-way, second level %u entries "
			 "%u-way (%s; %s %s)",
			 g.l1_entries, g.l1_ways, g.l2_entries, g.l2_ways, g.source, d1, ll);
		alloclab_results_set_cache_simulated(run->results, what);
	}
}

/* A sharded run's results carry the plan they are a shard of (its hash
 * and every cell's processes), so that merge can tell shards of one
 * sweep. -1 (said on stderr) when a cell cannot be split that far. */
static int record_shard(struct alloclab_run *run)
{
	const struct alloclab_run_config *cfg = run->cfg;
	json_t *processes = json_array();
	char hash[32];

	for (unsigned i = 0; i < run->results->ncells; i++) {
		/* Every shard of the sweep, not only this one, needs a
		 * round of every cell: a sweep of more shards than a cell
		 * has processes cannot be measured whole. */
		if (run->cells[i].processes < cfg->shard_count) {
			alloclab_say("alloclab: --shard %u/%u: cells of %u processes cannot be split into %u shards "
				"(shards split the process rounds: at most %u shards)",
				cfg->shard_index, cfg->shard_count, run->cells[i].processes, cfg->shard_count,
				run->cells[i].processes);
			json_decref(processes);
			return -1;
		}
		json_array_append_new(processes, json_integer(run->cells[i].processes));
	}
	plan_hash(run, hash, sizeof hash);
	alloclab_results_set_shard(run->results, cfg->shard_index, cfg->shard_count, hash, processes);
	return 0;
}

static void print_plan(const struct alloclab_run *run)
{
	const struct alloclab_run_config *cfg = run->cfg;
	unsigned na = 0;

	for (unsigned i = 0; i < run->results->ncells; i++)
		na += run->results->cells[i].status == ALLOCLAB_CELL_NOT_APPLICABLE;
	printf("plan: %u cells (%u not applicable), %u worker processes", run->results->ncells, na,
	       run->total_workers);
	if (cfg->shard_count)
		printf(" in shard %u of %u", cfg->shard_index, cfg->shard_count);
	alloclab_tell("; results would go to %s", run->output);
}

/* The output before any measurement: a run that cannot keep its results
 * (unwritable, not a regular file, written by another run) measures
 * nothing. -1 (said on stderr) when it cannot. */
static int open_output(struct alloclab_run *run)
{
	char err[ALLOCLAB_ERR_LEN];

	run->journal = alloclab_journal_open(run->output, err, sizeof err);
	if (run->journal == NULL) {
		alloclab_say("alloclab: %s", err);
		return -1;
	}
	if (alloclab_results_write(run->results, run->output, err, sizeof err) != 0) {
		alloclab_say("alloclab: %s", err);
		alloclab_journal_close(run->journal, 1);
		run->journal = NULL;
		return -1;
	}
	return 0;
}

int alloclab_run_plan(const struct alloclab_run_config *cfg, struct alloclab_run **out)
{
	static const char *const align_names[] = ALLOCLAB_CACHE_ALIGN_NAMES;
	struct alloclab_run *run = calloc(1, sizeof *run);
	run->order_seed = cfg->order_seed ? cfg->order_seed : draw_order_seed();
	struct alloclab_run_settings settings = {
		.processes = cfg->processes, .values = cfg->values, .warmups = cfg->warmups,
		.timeout_s = cfg->timeout_s, .memory_limit = alloclab_memory_limit(), .pin = cfg->pin, .cache_align = align_names[cfg->cache_align],
		.measure = alloclab_measure_name(cfg->measure), .processes_auto = cfg->processes_auto,
		.max_processes = cfg->max_processes, .ci_percent = cfg->ci_percent,
		.order = cfg->order_fixed ? "fixed" : "random", .order_seed = run->order_seed,
		.latency_every = cfg->latency,
		.sample_ms = cfg->measure == ALLOCLAB_MEASURE_TIME ? cfg->sample_ms : 0,
	};

	*out = NULL;
	run->cfg = cfg;
	run->results = alloclab_results_new(cfg->argc, cfg->argv, &settings);
	/* Before the first worker, while the run has the machine to itself:
	 * what a fault costs the workers' allocators here. */
	alloclab_results_set_fault_cost(run->results, alloclab_fault_cost_ns());
	alloclab_cpu_share_start(&run->others);
	if (cfg->output)
		snprintf(run->output, sizeof run->output, "%s", cfg->output);
	else
		default_output(run->output, sizeof run->output);
	alloclab_catch_interrupts();
	if (check_measure_tools(run) != 0) {
		free_run(run);
		return ALLOCLAB_EXIT_USAGE;
	}
	record_simulated_geometry(run);
	if (probe_plugins(run) != 0 || label_plugins(run) != 0 || preflight(run) != 0 ||
	    alloclab_run_pair_group(run) != 0) {
		int interrupted = alloclab_interrupted();
		free_run(run);
		return interrupted ? ALLOCLAB_EXIT_INTERRUPTED : ALLOCLAB_EXIT_USAGE;
	}
	lay_out_cells(run);
	alloclab_run_pair_slots(run);
	if (cfg->shard_count && record_shard(run) != 0) {
		free_run(run);
		return ALLOCLAB_EXIT_USAGE;
	}
	if (cfg->dry_run) {
		print_plan(run);
		free_run(run);
		return ALLOCLAB_EXIT_OK;
	}
	if (open_output(run) != 0) {
		free_run(run);
		return ALLOCLAB_EXIT_USAGE;
	}
	*out = run;
	return ALLOCLAB_EXIT_OK;
}

int alloclab_run_measure(struct alloclab_run *run)
{
	struct alloclab_results *r = run->results;
	struct alloclab_progress progress;
	char err[ALLOCLAB_ERR_LEN];
	int status = ALLOCLAB_EXIT_OK;

	unsigned *order = calloc(r->ncells + 1, sizeof *order);

	alloclab_progress_start(&progress, run->total_workers);
	for (unsigned round = 0; round < run->max_processes && !alloclab_interrupted(); round++) {
		alloclab_run_order(run->order_seed, run->cfg->order_fixed, round, order, r->ncells);
		for (unsigned i = 0; i < r->ncells && !alloclab_interrupted(); i++) {
			unsigned k = order[i];
			struct planned_cell *c = &run->cells[k];
			struct alloclab_cell *cell = &r->cells[k];
			struct alloclab_process proc;
			char label[512], why[ALLOCLAB_ERR_LEN];
			int interrupted = 0;

			if (c->done || round >= c->processes ||
			    (run->cfg->shard_count && round % run->cfg->shard_count != run->cfg->shard_index - 1))
				continue;
			if (c->slot >= 0) {
				/* A paired slot is measured at its reference's turn,
				 * every plugin of it in the same round. */
				if (run->slots[c->slot].cell[0] == k &&
				    alloclab_run_pair_round(run, (unsigned)c->slot, round, &progress, &interrupted, err,
							    sizeof err) != 0)
					goto write_failed;
				alloclab_cpu_share_step(&run->others);
				if (interrupted)
					break;
				continue;
			}
			snprintf(label, sizeof label, "%s%s %s threads=%u process %u/%u", cell->plugin,
				 c->spec.cache_align ? " +align" : "", c->spec.workload->name, c->spec.threads,
				 run->cfg->shard_count ? cell->nprocs + 1 : round + 1,
				 run->cfg->shard_count ? cell->planned : c->processes);
			alloclab_progress_show(&progress, label);
			run->workers_run++;
			c->spec.layout_pad_pages = c->spec.cache_sim ? alloclab_layout_pad(round) : 0;
			int measured = alloclab_measure_isolated(&c->spec, run->cfg->timeout_s, &proc, &interrupted, why,
								 sizeof why);
			alloclab_cpu_share_step(&run->others);
			if (measured == -2 && cell->nprocs == 0) {
				/* The workload found it cannot run here (a library
				 * missing): said by the first process, so no
				 * measurement is lost. */
				alloclab_cell_set_status(cell, ALLOCLAB_CELL_NOT_APPLICABLE, why);
				c->done = 1;
				if (alloclab_journal_append(run->journal, k, cell->threads, cell->metric, NULL,
							    ALLOCLAB_CELL_NOT_APPLICABLE, why, NULL, err, sizeof err) != 0)
					goto write_failed;
			} else if (measured != 0) {
				if (interrupted)
					break;
				char line[ALLOCLAB_ERR_LEN + 32];
				snprintf(line, sizeof line, "process %u: %s", round + 1, why);
				alloclab_cell_set_status(cell, ALLOCLAB_CELL_ERROR, line);
				alloclab_memory_timeline_free(cell->failed_memory);
				cell->failed_memory = proc.memory; /* the failed worker's samples */
				proc.memory = NULL;
				c->done = 1;
				run->failed++;
				if (alloclab_journal_append(run->journal, k, cell->threads, cell->metric, NULL,
							    ALLOCLAB_CELL_ERROR, line, cell->failed_memory, err, sizeof err) != 0)
					goto write_failed;
			} else {
				proc.index = round;
				alloclab_cell_add_process(cell, &proc);
				/* A shard's part of the cell is its rounds (planned). */
				if ((run->cfg->shard_count ? cell->nprocs == cell->planned : round + 1 == c->processes) ||
				    (run->cfg->processes_auto && cell->nprocs >= c->min_processes &&
				     ci_half_width_percent(cell) <= run->cfg->ci_percent)) {
					alloclab_cell_set_status(cell, ALLOCLAB_CELL_OK, NULL);
					c->done = 1;
					if (run->cfg->processes_auto)
						cell->planned = cell->nprocs;
				}
				struct alloclab_process *last = &cell->procs[cell->nprocs - 1];
				if (alloclab_journal_append(run->journal, k, cell->threads, cell->metric, last, cell->status,
							    NULL, NULL, err, sizeof err) != 0)
					goto write_failed;
			}
			alloclab_progress_step(&progress);
		}
	}
	alloclab_progress_end(&progress);
	free(order);
	if (alloclab_interrupted())
		status = ALLOCLAB_EXIT_INTERRUPTED;
	else if (run->failed)
		status = ALLOCLAB_EXIT_CELL_FAILED;
	return status;
write_failed:
	alloclab_progress_end(&progress);
	free(order);
	alloclab_say("alloclab: %s", err);
	return ALLOCLAB_EXIT_USAGE;
}

int alloclab_run_finish(struct alloclab_run *run, int status)
{
	const struct alloclab_run_config *cfg = run->cfg;
	char err[ALLOCLAB_ERR_LEN];
	double load[1] = {-1};

	struct rusage self;

	run->results->interrupted = status == ALLOCLAB_EXIT_INTERRUPTED;
	run->results->complete = 1;
	double cpu_s = -1;
	if (getloadavg(load, 1) != 1)
		load[0] = -1;
	/* The runner's own cost, its workers excluded: what the journal keeps
	 * flat per worker however long the run. */
	if (getrusage(RUSAGE_SELF, &self) == 0)
		cpu_s = (double)self.ru_utime.tv_sec + self.ru_utime.tv_usec * 1e-6 + (double)self.ru_stime.tv_sec +
			self.ru_stime.tv_usec * 1e-6;
	alloclab_results_set_end(run->results, load[0], cpu_s, run->workers_run);
	double others, stolen, peak;
	if (alloclab_cpu_share_end(&run->others, &others, &stolen, &peak) == 0)
		alloclab_results_set_others(run->results, others, stolen, peak);
	if (alloclab_results_write(run->results, run->output, err, sizeof err) != 0) {
		/* -o was taken meanwhile (something the run ran wrote over it, or
		 * over its journal): the whole run is still here, in memory, and
		 * goes to a file of its own beside it. Failing that, the journal
		 * stays: with the first document it holds the run. */
		char rescue[ALLOCLAB_PATH_PLUS_LEN], err2[ALLOCLAB_ERR_LEN];
		snprintf(rescue, sizeof rescue, "%s.rescued-%ld.json", run->output, (long)getpid());
		if (alloclab_results_write(run->results, rescue, err2, sizeof err2) == 0) {
			alloclab_say("alloclab: %s; the run's results are in %s", err, rescue);
			/* Its file is left alone: it may not be the journal now. */
			alloclab_journal_close(run->journal, 0);
			run->journal = NULL;
		} else {
			alloclab_say("alloclab: %s (the finished measurements are in %s.journal)", err, run->output);
		}
		free_run(run);
		return ALLOCLAB_EXIT_USAGE;
	}
	alloclab_journal_close(run->journal, 1);
	run->journal = NULL;
	if (status == ALLOCLAB_EXIT_USAGE) {
		free_run(run);
		return status;
	}
	if (!cfg->quiet && cfg->print)
		cfg->print(run->results, stdout, !cfg->brief);
	if (status == ALLOCLAB_EXIT_INTERRUPTED)
		alloclab_say("alloclab: interrupted; the cells finished so far are in %s", run->output);
	else if (cfg->brief && !cfg->quiet)
		putchar('\n'), alloclab_tell("results: %s (all reports, with the unicode workload's Unicode/Bytes lines: alloclab show %s)",
					 run->output, run->output);
	else
		putchar('\n'), alloclab_tell("results: %s", run->output);
	free_run(run);
	return status;
}

int alloclab_run(const struct alloclab_run_config *cfg)
{
	struct alloclab_run *run;
	int status = alloclab_run_plan(cfg, &run);

	if (status != ALLOCLAB_EXIT_OK || run == NULL) /* run NULL: --dry-run */
		return status;
	return alloclab_run_finish(run, alloclab_run_measure(run));
}
