/*
 * The internal interface every workload implements. A workload is one file
 * in workloads/ defining a `const struct alloclab_workload` and listed in
 * workloads/meson.build; the registry (workloads/registry.c, through the
 * list meson generates from those names) finds it.
 *
 * Lifecycle of one measured value, per thread, all on that thread:
 *   prepare (untimed) -> barrier -> run (timed) -> finish (untimed)
 * prepare builds the thread's working set (it may allocate through the
 * plugin, e.g. to pre-fill slots); run does the measured operations and sets
 * `ops`; finish frees whatever is still live. Between values nothing
 * survives except what the allocator itself keeps.
 */
#ifndef ALLOCLAB_WORKLOAD_H
#define ALLOCLAB_WORKLOAD_H

#include "plugin/allocator.h"
#include "memory/live.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#define ALLOCLAB_MAX_PARAMS 16
/* Most values one spec's '+' lists may expand to (the product). */
#define ALLOCLAB_MAX_EXPANSION 64

enum alloclab_param_type {
	ALLOCLAB_PARAM_NUMBER, /* a whole number in [min, max], K/M/G suffixes */
	ALLOCLAB_PARAM_CHOICE, /* one of `choices`; the value is its index */
	ALLOCLAB_PARAM_TEXT,   /* a string (a file name...), in text[] */
};

/* What the framework itself does with a parameter, declared on it instead
 * of looked up by name. */
enum alloclab_param_role {
	ALLOCLAB_ROLE_NONE,
	/* The workload's random seed: the worker derives each thread's seed
	 * from it (alloclab_thread_seed). At most one per workload. */
	ALLOCLAB_ROLE_SEED,
	/* A text file the workload reads words from: `alloclab run --words
	 * FILE` sets it. TEXT only. */
	ALLOCLAB_ROLE_WORDS_FILE,
};

struct alloclab_param {
	const char *name;
	const char *help;
	uint64_t def, min, max; /* invariant: min <= def <= max (NUMBER; CHOICE: def is an index) */
	enum alloclab_param_type type;
	const char *const *choices; /* CHOICE: NULL-terminated */
	const char *def_text;       /* TEXT: the default; CHOICE: see below */
	enum alloclab_param_role role;
	/* CHOICE, optional: named lists of choices as pairs "name", "a+b+c",
	 * ..., NULL. A value naming a group stands for its members, so
	 * bench=all expands to one workload per benchmark. */
	const char *const *groups;
	/* CHOICE, optional: when the parameter is not given, def_text (a
	 * choice or a group) is parsed as if it had been, unless one of the
	 * parameters named here (NULL-terminated) was given. */
	const char *const *def_unless;
	/* TEXT, optional: glob patterns (NULL-terminated). A value naming a
	 * folder stands for its files that match, sorted, one workload each
	 * (pyperf=DIR). */
	const char *const *folder_patterns;
};

/* One value per entry of a workload's params: numbers and choice indices
 * in v[], strings in text[] (NULL for non-TEXT parameters). */
struct alloclab_params {
	uint64_t v[ALLOCLAB_MAX_PARAMS];
	const char *text[ALLOCLAB_MAX_PARAMS];
};

enum alloclab_workload_flags {
	/* Blocks are freed by threads other than their allocator: needs a
	 * plugin with ALLOCLAB_CAP_CROSS_THREAD_FREE. */
	ALLOCLAB_WORKLOAD_CROSS_THREAD_FREE = 1u << 0,
	/* Calls realloc: needs ALLOCLAB_CAP_REALLOC. */
	ALLOCLAB_WORKLOAD_NEEDS_REALLOC = 1u << 1,
	/* Like CROSS_THREAD_FREE, but only when run with two or more threads
	 * (one thread frees only its own blocks). */
	ALLOCLAB_WORKLOAD_CROSS_THREAD_FREE_IN_THREADS = 1u << 2,
	/* Blocks stay referenced until the process exits (an embedded
	 * interpreter's C extensions read their thread state in TLS
	 * destructors at exit): the worker never destroys the instance, so
	 * the plugin's memory stays mapped. */
	ALLOCLAB_WORKLOAD_KEEP_INSTANCE = 1u << 3,
	/* Its allocations happen in programs it starts, not through t->alloc:
	 * `alloclab record` hands it t->record_path instead of recording the
	 * worker (the exec workload). */
	ALLOCLAB_WORKLOAD_RECORDS_ITSELF = 1u << 4,
	/* Its run() counts its operations with alloclab_slice_ops(t, n) when
	 * t->slicer is set, on the workload thread itself, and no thread of it
	 * waits for another inside run(): paired mode (run --paired) can then
	 * alternate plugins in slices of a few thousand operations, all
	 * threads switching together. Without it (or _ALONE with threads) a
	 * paired cell alternates whole values. */
	ALLOCLAB_WORKLOAD_SLICES = 1u << 5,
	/* The same with one thread only (its threads wait for one another). */
	ALLOCLAB_WORKLOAD_SLICES_ALONE = 1u << 7,
	/* A process of it can have one allocator only, for its whole life (an
	 * interpreter whose objects outlive any slice; a program whose malloc
	 * is chosen when it starts): paired mode measures its plugins in
	 * processes of their own, back to back. */
	ALLOCLAB_WORKLOAD_ONE_ALLOCATOR = 1u << 6,
};

/* A thread's slice of a value in paired mode (worker/paired.c owns it).
 * `left` first: the slice point's whole cost is a subtraction and a
 * branch. */
struct alloclab_slicer {
	int64_t left;            /* operations left in this slice */
};

/* The framework's: ends this slice (the plugins' other slices run, then
 * this one's next); called by alloclab_slice_ops only. */
void alloclab_slice_end(struct alloclab_slicer *s);

struct alloclab_workload_thread {
	const struct alloclab_allocator *alloc;
	/* The cell's plugin as given (name or path), its options and whether
	 * it runs under the framework's lock: for a workload that starts
	 * programs with the plugin as their malloc. */
	const char *plugin, *plugin_options;
	int gil;
	/* `alloclab record` with ALLOCLAB_WORKLOAD_RECORDS_ITSELF: where the
	 * trace goes; NULL otherwise. */
	const char *record_path;
	const struct alloclab_params *params; /* one value per entry of workload->params */
	unsigned index;          /* 0 .. nthreads-1 */
	unsigned nthreads;
	uint64_t seed;           /* distinct per thread, the same in every value */
	void *state;             /* the workload's, from prepare to finish */
	uint64_t ops;            /* operations done by run(), set by run() */
	const char *error;       /* set by run() when it had to stop early */
	/* Set by prepare() with its -1 when the cell cannot be measured at all
	 * and that is no failure (a Python benchmark whose library is not
	 * installed): the cell becomes "not applicable" with err as the
	 * reason. Every process of the cell must come to the same answer. */
	int not_applicable;
	/* workload->shared_size bytes common to all threads of the cell (zeroed
	 * once per worker), or NULL. */
	void *shared;
	/* Waits until every thread of the cell has called it: for workloads
	 * whose prepare() or finish() set up or measure something across
	 * threads. Call it the same number of times in every thread, and never
	 * from run(). Every thread prepares and finishes, even when another's
	 * prepare failed, so the calls always match. */
	void (*sync)(struct alloclab_workload_thread *t);
	/* The framework's cache-line placement service (placement.h): every
	 * thread calls it with the blocks it holds live, at the same point
	 * (it waits for all of them, like sync); each gets back its own
	 * report: blocks, straddling, start offsets within a line, sizes, and
	 * the lines holding live blocks of two or more threads. */
	json_t *(*placement)(struct alloclab_workload_thread *t, const uintptr_t *addr, const size_t *size, size_t n);
	void *host;              /* the framework's, for sync and placement */
	/* 1 in the process's last value, and in a value after which a
	 * failure ends the process (set before finish): the place for
	 * once-per-process measurements such as placement, and for freeing
	 * what a workload keeps from value to value. */
	int last_value;
	/* 1 in a warm-up: a round whose value is not measured (set before
	 * prepare, for a workload that does there what only a warm-up may:
	 * python's census of what it holds). */
	int warmup;
	/* Set by the workload (run or finish, a new reference): recorded with
	 * the value as thread_reports[index]. */
	json_t *report;
	/* Set in the last value (a new reference): recorded once per process
	 * as the process's report[index]. */
	json_t *process_report;
	/* Set by run() when the workload timed its own operations (a pyperf
	 * bench_time_func, which times its loop itself and leaves its set-up
	 * out, as pyperf takes it): this thread's time for the value, in
	 * nanoseconds. 0 (reset before every run): the framework's clock from
	 * run()'s start to its end. Not used with --measure instructions. */
	uint64_t own_ns;
	/* What the workload holds live, kept by the workload where it knows
	 * it (alloclab_live_set/_add below): requested bytes and blocks. The
	 * framework reads every thread's at each sample of the memory
	 * timeline, from outside the worker (memory_timeline.h), and after
	 * each run, for fragmentation (resident over live). Never NULL; only
	 * this thread writes it. */
	struct alloclab_live *live;
	/* Paired mode, for a workload with ALLOCLAB_WORKLOAD_SLICES: its
	 * thread's slicer, which alloclab_slice_ops counts down; NULL
	 * otherwise. The slice point must cost nothing per operation: a cost
	 * every plugin of a pair pays alike pulls their ratio toward 1 (a
	 * check after every op of churn's loop made it 7% slower). A tight
	 * loop runs in chunks of alloclab_slice_room operations, its inner
	 * loop the same code paired or not; a loop whose steps are large
	 * (a pass, a batch, a block of events) calls alloclab_slice_ops
	 * after each, in a copy of the loop made only for paired mode. */
	struct alloclab_slicer *slicer;
};

/* How many of the `left` operations still to do run() may do before its
 * next slice point: all of them when not paired. */
static inline uint64_t alloclab_slice_room(const struct alloclab_workload_thread *t, uint64_t left)
{
	if (t->slicer == NULL || t->slicer->left <= 0)
		return left;
	return (uint64_t)t->slicer->left < left ? (uint64_t)t->slicer->left : left;
}

/* After n operations of run(), at a point where the other plugins may
 * run (nothing of the value is being timed by the workload itself
 * there); nothing when not paired. */
static inline void alloclab_slice_ops(struct alloclab_workload_thread *t, int64_t n)
{
	if (t->slicer && __builtin_expect((t->slicer->left -= n) <= 0, 0))
		alloclab_slice_end(t->slicer);
}


/* The bytes live when run() ended: from run() itself, or from finish()
 * before it frees (where counting them in run would cost the timed loop). */
static inline void alloclab_live_end(struct alloclab_workload_thread *t, uint64_t bytes)
{
	__atomic_store_n((uint64_t *)&t->live->end_bytes, bytes, __ATOMIC_RELAXED);
}

static inline void alloclab_live_set(struct alloclab_workload_thread *t, uint64_t bytes, uint64_t blocks)
{
	__atomic_store_n((uint64_t *)&t->live->bytes, bytes, __ATOMIC_RELAXED);
	__atomic_store_n((uint64_t *)&t->live->blocks, blocks, __ATOMIC_RELAXED);
}

/* The most this thread held at once during the run (bytes). */
static inline void alloclab_live_peak(struct alloclab_workload_thread *t, uint64_t bytes)
{
	__atomic_store_n((uint64_t *)&t->live->peak_bytes, bytes, __ATOMIC_RELAXED);
}

/* The bytes of this thread's own tables outside the plugin (resident). */
static inline void alloclab_live_own(struct alloclab_workload_thread *t, uint64_t bytes)
{
	__atomic_store_n((uint64_t *)&t->live->own_bytes, bytes, __ATOMIC_RELAXED);
}

/* Its own reading of its anonymous memory at its peak (KiB). */
static inline void alloclab_live_resident(struct alloclab_workload_thread *t, uint64_t anon_peak_kib)
{
	__atomic_store_n((uint64_t *)&t->live->anon_peak_kib, anon_peak_kib, __ATOMIC_RELAXED);
}

/* The peak resident set of the program it ran (KiB, by wait4). */
static inline void alloclab_live_program_rss(struct alloclab_workload_thread *t, uint64_t kib)
{
	__atomic_store_n((uint64_t *)&t->live->program_rss_kib, kib, __ATOMIC_RELAXED);
}

/* For a workload that updates as it goes: its own thread's counters, so a
 * plain add (the sampler reads a value that was true a moment before). */
static inline void alloclab_live_add(struct alloclab_workload_thread *t, int64_t bytes, int64_t blocks)
{
	__atomic_store_n((uint64_t *)&t->live->bytes,
			 __atomic_load_n((uint64_t *)&t->live->bytes, __ATOMIC_RELAXED) + (uint64_t)bytes, __ATOMIC_RELAXED);
	__atomic_store_n((uint64_t *)&t->live->blocks,
			 __atomic_load_n((uint64_t *)&t->live->blocks, __ATOMIC_RELAXED) + (uint64_t)blocks, __ATOMIC_RELAXED);
}

struct alloclab_cell;
struct alloclab_results;
struct alloclab_figure_list;

struct alloclab_workload {
	const char *name;
	const char *description;
	const char *unit_op;     /* what one "op" is, for the report */
	const struct alloclab_param *params;
	unsigned nparams;
	unsigned flags;
	/* Most threads the workload can run with (0: the framework's limit);
	 * more is "not applicable" with that reason. */
	unsigned max_threads;
	/* Optional: checks relations between parameters (min <= max...) that
	 * the per-parameter ranges cannot. 0, or -1 with a reason in err. */
	int (*check_params)(const struct alloclab_params *params, char *err, size_t err_len);
	/* 0, or -1 with a one-line reason in err (e.g. out of memory). */
	int (*prepare)(struct alloclab_workload_thread *t, char *err, size_t err_len);
	void (*run)(struct alloclab_workload_thread *t);
	void (*finish)(struct alloclab_workload_thread *t);
	/* Optional: repetitions to use when the user gave none (0: the
	 * runner's). */
	unsigned default_processes, default_values, default_warmups;
	/* Optional: size of the memory shared by the threads (t->shared). */
	size_t shared_size;

	/* ---- the workload's reports, all optional ---- */

	/* Checks one entry of a value's thread_reports (per_process 0) or of a
	 * process's report (per_process 1) as read from a results file, which
	 * is untrusted: the hooks below may then rely on what it checked.
	 * 0, or -1 with a one-line reason. */
	int (*check_report)(int per_process, const json_t *report, char *err, size_t err_len);
	/* Prints the workload's own report of a measured cell (`alloclab
	 * show`, and `run` outside the default suite). */
	void (*print_cell)(const struct alloclab_cell *cell, FILE *out);
	/* Names a cell's row in comparisons (a Python benchmark row is its
	 * benchmark). NULL: the workload, the parameters that vary, threads. */
	void (*row_name)(const struct alloclab_cell *cell, char *out, size_t len);
	/* Adds the workload's own pictures of a run (figure.h) to `out`; the
	 * cells given are this workload's measured ones. */
	void (*figures)(const struct alloclab_cell *const *cells, size_t n, struct alloclab_figure_list *out);
	/* Optional: splits one parsed parameter set into the several cells it
	 * stands for, when that takes more than the parameters' own '+' lists
	 * (a pyperf file's benchmarks, found by running it once). Called by
	 * alloclab_params_parse on each set before check_params, in the
	 * parent; out[0..max), *n >= 1 written (out[0] = *params when there is
	 * nothing to split). Text it makes is kept with
	 * alloclab_params_intern. 0, or -1 with one line in err. */
	int (*expand)(const struct alloclab_params *params, struct alloclab_params *out, unsigned max, unsigned *n,
		      char *err, size_t err_len);
	/* Optional: starts the worker of these parameters in another program
	 * instead of alloclab (python's: Debian's python3.11 executable), in
	 * the freshly forked child that would execute alloclab's worker:
	 * sets up what that program needs and executes it with the cell spec
	 * (JSON) as its one argument. 0 without doing anything when these
	 * parameters run in alloclab; -1 when the program could not be
	 * started (the cell fails). The workload's own knowledge, so that the
	 * runner knows no workload. */
	int (*exec_worker)(const struct alloclab_params *params, const char *spec);
	/* Optional (appended: the layout before it is pinned): why cells of
	 * these parameters are not applicable, where the plan already knows (a
	 * pyperf file that, run once by expand, needed a module not
	 * installed), else NULL: such cells are planned "not applicable" and
	 * no worker runs them. */
	const char *(*plan_not_applicable)(const struct alloclab_params *params);
	/* Optional (appended: the layout before it is pinned): whether the
	 * blocks the thread still holds carry what it wrote into them
	 * (churn's, fragment's and steady's first and last byte): called
	 * after run() and before finish(), untimed, by the worker (in a paired
	 * worker for every plugin, once all have run). A plugin that hands a
	 * live block out twice, writes into one, or writes into a block after
	 * freeing it (a block another plugin of a pair may hold by then)
	 * changes them. 0, or -1 with where in err ("churn: slot 17's first
	 * byte is 0x5a, where the workload wrote 0x01"). */
	int (*check_blocks)(struct alloclab_workload_thread *t, char *err, size_t err_len);
};


/* Whether a workload with these flags alternates plugins in slices at
 * this thread count (else whole values). */
static inline int alloclab_workload_slices(const struct alloclab_workload *w, unsigned threads)
{
	return (w->flags & ALLOCLAB_WORKLOAD_SLICES) || ((w->flags & ALLOCLAB_WORKLOAD_SLICES_ALONE) && threads == 1);
}

struct alloclab_workload_spec {
	const struct alloclab_workload *workload;
	struct alloclab_params params;
};

/* Every parameter at its default. */
void alloclab_params_defaults(const struct alloclab_workload *w, struct alloclab_params *p);

/* How long a step that runs someone else's code while the plan is made
 * (a pyperf file run once to find its benchmarks, by expand) may take for
 * each file: the command's --timeout, set before it parses workloads, or
 * ALLOCLAB_PLAN_STEP_TIMEOUT_S (a worker's default deadline) where it
 * sets none. */
#define ALLOCLAB_PLAN_STEP_TIMEOUT_S 120.0
void alloclab_set_plan_step_timeout(double seconds);
double alloclab_plan_step_timeout(void);

/*
 * Parses "key=value,..." (the part after "name:") over w's defaults. A
 * value may be a list "a+b+c": the spec then expands to one entry per
 * combination, up to `max` (*n of them written). A parameter given twice is
 * refused. Returns 0, or -1 with one line in err naming the unknown
 * parameter, the malformed or overflowing number, the value out of range or
 * the unknown choice.
 */
int alloclab_params_parse(const struct alloclab_workload *w, const char *options, struct alloclab_workload_spec *out,
			  unsigned max, unsigned *n, char *err, size_t err_len);

/* Checks a parameter vector that arrived as numbers (the worker hand-off):
 * every number in range, every choice an index, then check_params. */
int alloclab_params_check(const struct alloclab_workload *w, const struct alloclab_params *p, char *err,
			  size_t err_len);

/* A workload's parameters as a JSON object: numbers, choice names, strings. */
json_t *alloclab_params_json(const struct alloclab_workload *w, const struct alloclab_params *params);

/* Index of the parameter with this role, or -1. */
int alloclab_workload_role_index(const struct alloclab_workload *w, enum alloclab_param_role role);

/* A parameter's value as text: the number, the choice name, or the string. */
void alloclab_param_format(const struct alloclab_workload *w, const struct alloclab_params *p, unsigned i,
			   char *out, size_t len);

/* Text kept for the process's life, as parameter values are (NULL out of
 * memory). */
const char *alloclab_params_intern(const char *s, size_t len);

/* Index of a parameter by name, or -1. */
int alloclab_workload_param_index(const struct alloclab_workload *w, const char *name);

#endif
