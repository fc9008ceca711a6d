/*
 * The results of a run: the in-memory model, and the one module that turns
 * it into a results file and a results file back into it.
 *
 * Glossary (docs/reference/results-format.md has the file's fields):
 *   run       one `alloclab run`: metadata, config, plugins, cells
 *   cell      plugin x workload (with parameters) x threads (x cache-aligned)
 *   process   one worker process's measurement of a cell (a "run" in JSON)
 *   value     one timed repetition inside a process; warm-ups are values
 *             that are recorded but never summarised
 *
 * Ownership: this file is the only writer of a results document and the
 * only reader. Everything downstream (the table, compare, plot, show, the
 * workloads' own reports) reads the structs below, which the reader has
 * checked field by field, so none of it re-checks types or ranges.
 *
 * Durability without a quadratic cost: the runner writes the document once
 * at the start (every cell pending, "complete": false), then appends each
 * finished process to a journal beside it (PATH.journal, one compact JSON
 * line each, fsync'd), and at the end writes the whole document once more
 * and removes the journal. A reader that finds an incomplete document with
 * a journal folds the journal in: a run killed at any moment loses nothing
 * it had finished.
 */
#ifndef ALLOCLAB_RESULTS_H
#define ALLOCLAB_RESULTS_H

#include "base/json_text.h"
#include "measure/latency_hist.h"
#include "plugin/stats.h"
#include "process/memory_timeline.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define ALLOCLAB_RESULTS_FORMAT "alloclab-run"
/* 2: compact, placement once per process ("report"), plugin labels,
 * planned processes per cell, "complete". 3: paired comparisons (the group
 * in config, each cell's design, each process's ratio). Versions 1 and 2
 * are read too. */
#define ALLOCLAB_RESULTS_VERSION 3
#define ALLOCLAB_RESULTS_OLDEST_VERSION 1

/* What a cell's values measure. Time varies from run to run and is
 * compared with a significance test; instructions (callgrind) are
 * deterministic and compared by their ratio. */
#define ALLOCLAB_METRIC_TIME "ns_per_op"
#define ALLOCLAB_METRIC_INSTRUCTIONS "instructions_per_op"
int alloclab_metric_deterministic(const char *metric);

/* Ceilings the reader enforces, so a hostile file cannot make a command
 * allocate or loop without bound. */
#define ALLOCLAB_RESULTS_MAX_THREADS 1024
#define ALLOCLAB_RESULTS_MAX_CELLS 65536
#define ALLOCLAB_RESULTS_MAX_PLUGINS 1024
/* A plugin's label, in bytes: what every format alloclab writes (a
 * table's row, an export's name, a picture's key) carries whole. A run
 * refuses a longer one, and the reader a file that holds one. */
#define ALLOCLAB_MAX_LABEL 255
/* The most allocator variables a run records (facts.allocator_env). */
#define ALLOCLAB_MAX_ALLOCATOR_ENV 64
/* A plan splits into at most this many shards (run --shard K/N). */
#define ALLOCLAB_MAX_SHARDS 1000

enum alloclab_cell_status {
	ALLOCLAB_CELL_PENDING,        /* planned, not (fully) measured: an interrupted run */
	ALLOCLAB_CELL_OK,             /* every planned process measured */
	ALLOCLAB_CELL_ERROR,          /* a process failed: message says how */
	ALLOCLAB_CELL_NOT_APPLICABLE, /* never measured: message says why */
};

/* One timed repetition. Invariants (checked by the reader): thread_ns and
 * thread_ops have `threads` entries (the cell's); per_op is finite and > 0. */
struct alloclab_value {
	uint64_t wall_ns;
	uint64_t *thread_ns;
	uint64_t *thread_ops;
	/* The cell's metric for this value, recorded under the metric's name:
	 * ns_per_op, the time one thread takes per operation (wall_ns x
	 * threads / all threads' operations), or instructions_per_op, every
	 * thread's instructions in the timed region (counted by callgrind) / all
	 * threads' operations. */
	double per_op;
	/* --measure cache (cache_simulated set): simulated level-1 and
	 * last-level data misses per operation, reads and writes. */
	int cache_simulated;
	double d1_misses_per_op, ll_misses_per_op;
	/* NULL, or an array of `threads` entries, each an object or null: what
	 * the workload reported for this value (checked by the workload's
	 * check_report hook when the reader is given one). */
	json_t *thread_reports;
	/* --latency: the distribution of the value's call times; else NULL. */
	struct alloclab_latency *latency;
	/* The page faults and system CPU time (ns) of the value's timed
	 * region: an unpaired worker's, the whole process's from just before
	 * run() to just after it; a paired member's, the sum of its own timed
	 * parts on each thread (faults_counted 0: not recorded, an older
	 * file; sys_ns 0 also in files from before it was kept). */
	int faults_counted;
	uint64_t minor_faults, major_faults, sys_ns;
	/* The worker's resident set once every thread had finished the value
	 * (freed its working set), KiB; 0 unknown. */
	long rss_after_finish_kib;
	/* ... and once every thread had ended run() (the working sets live);
	 * 0 unknown. */
	long rss_end_of_run_kib;
	long anon_end_of_run_kib; /* its anonymous part (the heap, not the code); 0 unknown */
	/* Paired slices (worker/slice.h): the value's slice rounds and those
	 * dropped because a thread was preempted in them; 0 0 otherwise.
	 * slices_dropped < slices, or both 0. */
	uint64_t slices, slices_dropped;
	/* The requested bytes the workload said it held when run() ended
	 * (workload.h, alloclab_live_end); 0 not said. */
	uint64_t live_end_bytes;
	/* The most it said it held at once in the run (the sum of its
	 * threads'), and the bytes of its own tables outside the plugin,
	 * resident in the run; 0 not said. */
	uint64_t live_peak_bytes, own_bytes;
	/* The workload's own reading of its anonymous memory at its peak
	 * (KiB; a program under exec); 0 not said. */
	uint64_t workload_anon_peak_kib;
	/* The peak resident set of the program the workload ran, by wait4
	 * (KiB; a program under exec: exact, nothing of the harness in it);
	 * 0 not said. */
	uint64_t program_peak_rss_kib;
	/* NULL, or the plugin's standard statistics (std.*) after the run,
	 * the working sets live: {name: value}, as process stats. */
	json_t *stats;
};

/* One worker process's measurement of a cell. */
struct alloclab_process {
	unsigned index;           /* round of the run it was measured in, from 0 */
	long peak_rss_kib;        /* the worker's VmHWM; -1 unknown */
	double elapsed_s;         /* the worker's whole life, parent's clock */
	double started_unix_s;    /* when the worker started, wall clock, seconds since the epoch; 0 unknown */
	struct alloclab_value *warmups, *values;
	unsigned nwarmups, nvalues;
	/* NULL, or {name: value}: the plugin's statistics at the end of the
	 * last value with the working sets live, and after finish. A value is
	 * a non-negative integer, or for one past INT64_MAX (where jansson's
	 * integers stop) a string of its decimal digits: read them with
	 * alloclab_stat_value. */
	json_t *stats, *stats_after_finish;
	/* NULL, or an array of `threads` entries (objects or null): the
	 * workload's once-per-process report (the unicode workload's cache-line
	 * placement). */
	json_t *report;
	/* NULL, or what the plugin printed on stdout/stderr (first lines). */
	char *plugin_output;
	/* Where it ran, when the run's metadata does not say (a merge of
	 * shards from several machines, `alloclab merge`); all NULL: on the
	 * run's host. */
	char *host, *host_cpu_model, *host_kernel;
	/* NULL, or its memory over time, sampled from outside it
	 * (process/memory_timeline.h; checked by the reader). */
	struct alloclab_memory_timeline *memory;
	/* The worker's resident set in KiB, read by itself: before the plugin
	 * was loaded (the harness alone), and after the last value (the
	 * workload freed everything) at once, after the plugin's trim op,
	 * after --settle-ms; -1 not measured (no trim op, no settle, older
	 * file). */
	long rss_before_plugin_kib, rss_after_finish_kib, rss_after_trim_kib, rss_after_settle_kib;
	/* The anonymous part of the resident set before the plugin was loaded
	 * (statm's resident less shared: the heap, not the code); -1 unknown. */
	long anon_before_plugin_kib;
	/* With simulated caches: the pages the worker mapped before loading
	 * the plugin, so that its processes sample address layouts
	 * (worker.h); 0: none. At most ALLOCLAB_LAYOUT_PAD_MAX. */
	unsigned layout_pad_pages;
	/* A paired cell's process (cell.pair_design set): its time over the
	 * group reference's in the same worker process (or round of back-to-
	 * back processes), the geometric mean over values of their per_op
	 * ratios; 1 for the reference itself. Invariant (the reader checks
	 * it): the reference cell has a process of the same index with as
	 * many values, and the ratio is what their values give. 0: not
	 * paired. */
	double pair_ratio;
};

#define ALLOCLAB_LAYOUT_PAD_MAX 4096

/* How a paired cell's error begins, after "process N: ", when it failed
 * only because another member of its worker did (run/pair_slots.c): its
 * own plugin did nothing wrong. */
#define ALLOCLAB_LOST_WITH_PAIR "not measured: lost with its pair when"

struct alloclab_cell {
	char *plugin;             /* the plugin's label in this run (unique per plugin) */
	unsigned plugin_index;    /* into alloclab_results.plugins */
	char *plugin_options;     /* "" when none */
	char *workload;
	json_t *params;           /* {name: integer or string} */
	unsigned threads;         /* 1..ALLOCLAB_RESULTS_MAX_THREADS */
	int cache_aligned;
	enum alloclab_cell_status status;
	char *message;            /* ERROR: what failed; NOT_APPLICABLE: why; else NULL */
	char *metric;             /* ALLOCLAB_METRIC_TIME or ALLOCLAB_METRIC_INSTRUCTIONS */
	char *unit_op;            /* what one operation is, or NULL */
	unsigned planned;         /* processes the run meant to measure (0: unknown, v1) */
	/* ERROR: the memory timeline (memory_timeline.h) of the worker whose
	 * failure ended the cell, up to its end (a crash mid-value keeps its
	 * samples); NULL none. */
	struct alloclab_memory_timeline *failed_memory;
	/* Paired (run --paired): how its processes were paired with the
	 * group's reference (ALLOCLAB_PAIR_*), and why not in one process
	 * when they could not be (NULL otherwise); pair_design NULL: not
	 * paired. */
	char *pair_design, *pair_why;
	struct alloclab_process *procs;
	unsigned nprocs, procs_cap;
};

/* How a paired cell's processes were paired with the reference's. */
#define ALLOCLAB_PAIR_SLICES "slices"       /* one worker, plugins alternating in slices of a value */
#define ALLOCLAB_PAIR_VALUES "values"       /* one worker, plugins alternating whole values */
#define ALLOCLAB_PAIR_PROCESSES "processes" /* back-to-back processes of their own, one round a pair */

struct alloclab_plugin_info {
	char *label;              /* how tables name it; unique in the run */
	char *spec, *options;     /* as given on the command line */
	char *name, *version, *description, *path;
	json_t *caps;             /* array of capability names */
	uint64_t min_align;
	/* NULL: not checked before the run; else the `alloclab check` cases it
	 * failed, [{case, why}] (empty: it passed). */
	json_t *check;
	/* The file's contents, SHA-256 as 64 hex digits (NULL: a file of an
	 * older format); the source commit it was built from and whether that
	 * tree was dirty, where the one who built it said (source_commit NULL,
	 * source_dirty -1: unknown). */
	char *sha256, *source_commit;
	int source_dirty;
};

/* How a run was configured: written as the document's config. */
struct alloclab_run_settings {
	unsigned processes;       /* per cell; with processes_auto, the least */
	unsigned values, warmups;
	double timeout_s;
	uint64_t memory_limit;    /* bytes a worker may hold resident (process_tree.h); 0 none */
	int pin;
	const char *cache_align;  /* "off", "on", "both" */
	const char *measure;      /* "time", "instructions", "cache" */
	const char *order;        /* "random" (cells shuffled in each round) or "fixed" */
	uint64_t order_seed;      /* random: the shuffles' seed, to reproduce them (< 2^63) */
	/* -n auto: processes are added until the 95% confidence interval of a
	 * cell's mean is within ci_percent of it, at most max_processes. */
	int processes_auto;
	unsigned max_processes;
	double ci_percent;
	unsigned latency_every;   /* --latency: every k-th call timed; 0 off */
	unsigned sample_ms;       /* --sample-ms: the memory timeline's interval; 0 off */
};

/* What the commands downstream (the table, the pictures) use of a run's
 * metadata and config, typed: the reader fills it from the file, checking
 * each field it finds; a field an older file lacks is unknown. The rest
 * of metadata and config stays JSON, for people. */
struct alloclab_run_facts {
	int cpus_allowed;         /* CPUs the run could use; 0 unknown */
	double load_start, load_end; /* load averages at start and end; < 0 unknown */
	char *cache_simulated;    /* --measure cache or tlb: the simulated geometry; NULL */
	int tlb_simulated;        /* --measure tlb: the values' two miss counts are the data TLBs' */
	int processes_auto;       /* -n auto, with these: */
	unsigned max_processes;
	double ci_percent;
	char *cpu_model;          /* metadata's; NULL unknown */
	/* Where, when and by what the run was made (metadata's host, date as
	 * "YYYY-MM-DDTHH:MM:SSZ", alloclab_version, kernel); NULL unknown. */
	char *host, *date, *alloclab_version, *kernel;
	/* The seed of the cells' order in each round (config's); 0 unknown. */
	uint64_t order_seed;
	/* A shard of a plan (--shard K/N): K from 1, N, the plan's identity
	 * (16 hex digits) and each cell's processes in the whole plan
	 * (ncell_processes == ncells); shard_count 0: not a shard. */
	unsigned shard_index, shard_count;
	char *shard_plan;
	unsigned *cell_processes;
	unsigned ncell_processes;
	/* --paired: the comparison group's plugin labels, pair_plugins[0] the
	 * reference (npair 0: not paired), and the slice's timed and untimed
	 * operations. */
	char **pair_plugins;
	unsigned npair;
	uint64_t slice_ops, slice_warm;
	/* The environment's variables that change an allocator alloclab
	 * bundles, as the run found them and its workers inherited them
	 * ({name: value}, values shown safely; glibc's tunables only their
	 * glibc.malloc part): MALLOC_* (glibc's, jemalloc's MALLOC_CONF),
	 * *MALLOC_CONF, MIMALLOC_*, TCMALLOC_*, TBB_MALLOC_*, GLIBC_TUNABLES,
	 * LD_PRELOAD, PYTHONMALLOC and the other PYTHON variables that hook
	 * CPython's allocator. Empty: none set; NULL: not recorded (an older
	 * file). */
	json_t *allocator_env;
	/* What other processes took of the CPUs the run could use while it
	 * ran (measure/cpu_share.h), in CPUs: their work on average, the
	 * time the host stole on average, and the most the two took together
	 * in a window of two seconds or more; < 0 unknown (an older file). */
	double other_cpus_mean, stolen_cpus_mean, other_cpus_peak;
	/* The machine's CPU time for one first-touch page fault, probed once
	 * at the run's start (memory/fault_cost.h), ns; < 0 unknown. */
	double page_fault_ns;
};

struct alloclab_results {
	char *path;               /* the file it was read from or is written to, or NULL */
	int version;              /* format_version of the file read */
	json_t *metadata;         /* object; see alloclab_metadata() */
	json_t *config;           /* object */
	struct alloclab_run_facts facts; /* read from metadata and config */
	struct alloclab_plugin_info *plugins;
	unsigned nplugins;
	struct alloclab_cell *cells;
	unsigned ncells;
	int interrupted;          /* stopped before every cell finished */
	int complete;             /* the final document was written */
};

/* ---- building ---- */

/* An empty run with this machine's metadata (argv recorded as the
 * command) and its settings as config (NULL: none recorded). */
struct alloclab_results *alloclab_results_new(int argc, char **argv, const struct alloclab_run_settings *settings);

/* --shard K/N: the plan's identity and each cell's processes in the
 * whole plan (a reference taken over), recorded in metadata. */
void alloclab_results_set_shard(struct alloclab_results *r, unsigned index, unsigned count, const char *plan,
				json_t *cell_processes);

/* The CPU model process p ran on: its own (a merged file), else the run's
 * (NULL unknown). */
const char *alloclab_process_cpu_model(const struct alloclab_results *r, const struct alloclab_process *p);
/* The command line that made the run (metadata's array of words, as
 * alloclab recorded it), or NULL when the file has none. */
const json_t *alloclab_results_command(const struct alloclab_results *r);

/* The host process p ran on: its own (a merged file), else the run's
 * (NULL unknown). */
const char *alloclab_process_host(const struct alloclab_results *r, const struct alloclab_process *p);

/* An empty run with this metadata and config (references taken over),
 * its facts read from them as a file's are: a merge's. 0 facts refused. */
struct alloclab_results *alloclab_results_new_from(json_t *metadata, json_t *config, char *err, size_t err_len);

/* --paired: the comparison group's labels (the reference first) and the
 * slice, recorded in config. */
/* The process rounds of a cell of `processes` processes that shard K of N
 * measures: the rounds r < processes with r mod N = K - 1 (all of them
 * with N = 0). */
unsigned alloclab_shard_share(unsigned processes, unsigned k, unsigned n);

void alloclab_results_set_paired(struct alloclab_results *r, const char *const *labels, unsigned n, uint64_t slice_ops,
				 uint64_t slice_warm);

/* --measure cache: the geometry callgrind simulates, recorded in metadata. */
void alloclab_results_set_cache_simulated(struct alloclab_results *r, const char *geometry);

/* The run's end, recorded in metadata: the load average (< 0: unknown),
 * the runner's own CPU time, workers excluded (< 0: unknown), and the
 * worker processes it ran. */
void alloclab_results_set_end(struct alloclab_results *r, double load_end, double runner_cpu_s, unsigned workers);
/* What other processes took of the CPUs the run could use (facts:
 * other_cpus_mean, stolen_cpus_mean, other_cpus_peak), recorded in
 * metadata; nothing when others < 0 (not measured). */
void alloclab_results_set_others(struct alloclab_results *r, double others, double stolen, double peak);
/* The machine's cost of a page fault (facts.page_fault_ns), recorded in
 * metadata; nothing when ns < 0 (not measured). */
void alloclab_results_set_fault_cost(struct alloclab_results *r, double ns);
void alloclab_results_free(struct alloclab_results *r);

/* Metadata of this machine and build. */
json_t *alloclab_metadata(int argc, char **argv);

/* The run's allocator environment (facts.allocator_env) as one line,
 * "MALLOC_ARENA_MAX=1, MIMALLOC_PURGE_DELAY=0", in out: the number of
 * variables (0: none, or not recorded). */
unsigned alloclab_results_env_text(const struct alloclab_results *r, char *out, size_t len);

/* Whether two runs' allocators were set differently by their
 * environments (facts.allocator_env): 1 with a line saying how in out
 * ("a.json ran with MALLOC_ARENA_MAX=1, b.json without it"), else 0
 * (alike, or neither recorded it). For a comparison of the two. */
int alloclab_results_env_difference(const struct alloclab_results *a, const struct alloclab_results *b, char *out,
				    size_t len);

/* Appends a plugin (fields copied; caps a reference taken over); returns its index. */
unsigned alloclab_results_add_plugin(struct alloclab_results *r, const struct alloclab_plugin_info *info);

/* Appends a cell (strings copied, params a reference taken over, no
 * processes); returns it. Pointers into r->cells stay valid until the next
 * add_cell. */
struct alloclab_cell *alloclab_results_add_cell(struct alloclab_results *r, const struct alloclab_cell *cell);

/* Moves a process into the cell (p is zeroed). */
void alloclab_cell_add_process(struct alloclab_cell *c, struct alloclab_process *p);

/* Sets a cell's status and message (copied; NULL for none). */
void alloclab_cell_set_status(struct alloclab_cell *c, enum alloclab_cell_status status, const char *message);

void alloclab_process_clear(struct alloclab_process *p);

/* A separate copy of p (every value, report, statistic and the memory
 * timeline), for a merge: *out owns its own memory. */
void alloclab_process_copy(const struct alloclab_process *p, unsigned threads, struct alloclab_process *out);

/* 1 when the model's invariants hold (the ones stated on the structs
 * above, and these: a cell's message is there exactly when it failed or
 * is not applicable; one that is ok has processes and one that is not
 * applicable none; a cell's plugin_index names its plugin's label; every
 * process has values, every value a finite positive per_op, its thread
 * arrays and valid latency histograms; timelines are valid and a
 * failed_memory belongs to a failed cell). Else 0 with why (may be NULL).
 * The reader establishes them for every file it accepts; the writer and
 * the reader check them in debug builds. */
int alloclab_results_consistent(const struct alloclab_results *r, char *why, size_t why_len);

/* The reference cell of a paired cell (itself for the reference), or
 * NULL when c is not paired: the group's first plugin's cell of the same
 * workload, parameters, threads and alignment. */
const struct alloclab_cell *alloclab_pair_reference(const struct alloclab_results *r, const struct alloclab_cell *c);

/* The paired ratio of process p against process ref of the same round
 * (the reference's, for p's pair_ratio; another plugin's, to compare two
 * plugins of one group): the geometric mean over values of their per_op
 * ratios; 0 when their values differ in number. The one place it is
 * computed, so that a run, the reader and the statistics agree on it. */
double alloclab_pair_ratio(const struct alloclab_process *p, const struct alloclab_process *ref);

/* Whether p's stored pair_ratio is what alloclab_pair_ratio gives against
 * ref, to within what another order of the same arithmetic moves it: a
 * file's ratio is believed only when its values give it. */
int alloclab_pair_ratio_holds(const struct alloclab_process *p, const struct alloclab_process *ref);

/* The process of cell c measured in the same round as p (the same index:
 * side by side with it), or NULL. */
const struct alloclab_process *alloclab_pair_partner(const struct alloclab_cell *c, const struct alloclab_process *p);

/* ---- walking a cell's reports ---- */

/* Every report a workload made for a cell, in order of process, value and
 * thread, null entries skipped:
 *
 *   for (struct alloclab_report_iter it = alloclab_reports(c, ALLOCLAB_REPORTS_PER_VALUE);
 *        alloclab_reports_next(&it);)
 *           use(it.report, it.thread);
 *
 * PER_VALUE walks each value's thread_reports, PER_PROCESS each process's
 * once-per-process report. */
enum alloclab_reports_kind { ALLOCLAB_REPORTS_PER_VALUE, ALLOCLAB_REPORTS_PER_PROCESS };

struct alloclab_report_iter {
	const struct alloclab_cell *cell;
	enum alloclab_reports_kind kind;
	unsigned process, value;  /* where it.report is (value: PER_VALUE only) */
	unsigned thread;
	const json_t *report;     /* an object */
	size_t next;              /* private: the next entry of the current array */
};

struct alloclab_report_iter alloclab_reports(const struct alloclab_cell *cell, enum alloclab_reports_kind kind);
/* 1 with the next report in it, 0 at the end. */
int alloclab_reports_next(struct alloclab_report_iter *it);

/* ---- processes as JSON: also the worker's hand-off to the runner ---- */

json_t *alloclab_process_to_json(const struct alloclab_process *p, unsigned threads, const char *metric);

/* Reads and checks a process object for a cell of `threads` threads.
 * `where` names it in errors ("FILE: cell 3 run 0"). 0, or -1 with err. */
int alloclab_process_from_json(const json_t *obj, unsigned threads, const char *metric, const char *where,
			       struct alloclab_process *p, char *err, size_t err_len);

/* ---- files ---- */

/* Checks a workload's report (per-value thread report or per-process
 * report entry) for the reader; NULL: reports are kept unchecked. Returns 0,
 * or -1 with a reason in err. */
typedef int (*alloclab_report_checker)(const char *workload, int per_process, const json_t *report, char *err,
				       size_t err_len);

/*
 * Writes the whole document to path atomically (a temporary file in the
 * same folder, then a rename). Only a regular file (or nothing) is ever
 * replaced: a path naming a device, a folder or a symbolic link is refused.
 * Creates the folder if needed. 0, or -1 with err set.
 */
int alloclab_results_write(const struct alloclab_results *r, const char *path, char *err, size_t err_len);

/* The document as JSON (compact when written). */
json_t *alloclab_results_to_json(const struct alloclab_results *r);
/* One cell of it, as the document holds it (a report's raw values). */
json_t *alloclab_cell_to_json(const struct alloclab_cell *c);

/*
 * Reads and checks a results file: JSON, format, version, every field's type
 * and range; folds PATH.journal in when the document is incomplete. NULL
 * with one line in err naming the file, the field and the problem.
 */
struct alloclab_results *alloclab_results_load(const char *path, alloclab_report_checker check, char *err,
					       size_t err_len);

/* The same from a document in memory (`name` names it in errors). */
struct alloclab_results *alloclab_results_from_json(const json_t *doc, const char *name,
						    alloclab_report_checker check, char *err, size_t err_len);

/* ---- the journal ---- */

struct alloclab_journal;

/* Creates PATH.journal (replacing a stale one). NULL with err set. */
struct alloclab_journal *alloclab_journal_open(const char *results_path, char *err, size_t err_len);
/* Appends one finished process, or a cell's status change (p NULL), with
 * a failed worker's memory timeline (failed_memory, or NULL). */
int alloclab_journal_append(struct alloclab_journal *j, unsigned cell, unsigned threads, const char *metric,
			    const struct alloclab_process *p, enum alloclab_cell_status status, const char *message,
			    const struct alloclab_memory_timeline *failed_memory, char *err, size_t err_len);
/* Appends a paired worker's processes, one for each of n cells (their
 * indices, the cells, the processes; each cell's status as it is now), as
 * one line: a kill never leaves half a pair. */
int alloclab_journal_append_group(struct alloclab_journal *j, unsigned n, const unsigned *cells,
				  const struct alloclab_cell *const *cell_of, const struct alloclab_process *const *procs,
				  char *err, size_t err_len);
/* Closes it; remove: unlink the file too (the final document holds it all). */
void alloclab_journal_close(struct alloclab_journal *j, int remove);


#endif
