/*
 * Runs a function in a child process with a deadline and collects what it
 * wrote to a pipe, how it ended and what it printed. This is what keeps a
 * plugin's crash, abort, hang or flood from taking the run down: plugins
 * are only ever loaded in such children. The supervisor's guarantees:
 *   - a child dies with its parent (parent-death signal), even when the
 *     parent is killed with SIGKILL;
 *   - at the deadline, on Ctrl-C, SIGTERM or SIGHUP the child's whole
 *     process group is killed, and any process it left behind (a
 *     grandchild that called setsid) is killed and reaped when it ends;
 *   - its result is capped (ALLOCLAB_CHILD_MAX_RESULT), its stdout and
 *     stderr are captured, never passed through, and its stdin is
 *     /dev/null;
 *   - its resident memory, with everything it started, is held to
 *     alloclab_memory_limit() (process_tree.h);
 *   - it runs with TMPDIR a scratch folder of its own, made before it
 *     starts and removed with everything in it once it has ended, however
 *     it ended: nothing it writes there outlives it;
 *   - a process it leaves running is killed and counted (strays).
 */
#ifndef ALLOCLAB_CHILD_H
#define ALLOCLAB_CHILD_H

#include <jansson.h>

struct alloclab_memory_timeline;
#include <stddef.h>
#include <stdint.h>

/* The most a child may send on its result pipe: past it the child is
 * killed and its result is an error ("sent more than 64 MiB"). */
#define ALLOCLAB_CHILD_MAX_RESULT (64u << 20)
/* How much of what a child prints on stdout and stderr is kept. */
#define ALLOCLAB_CHILD_KEPT_OUTPUT 2048

struct alloclab_child_result {
	char *output;       /* everything the child wrote to its fd, NUL-terminated (malloc'd) */
	size_t output_len;
	int flooded;        /* it sent more than ALLOCLAB_CHILD_MAX_RESULT and was killed */
	/* What it printed on stdout and stderr (a plugin's chatter, which must
	 * never reach alloclab's own output): the first bytes, and how many
	 * there were in all. */
	char printed[ALLOCLAB_CHILD_KEPT_OUTPUT + 1];
	size_t printed_len;
	int exited;         /* 1: exit status in exit_code; 0: killed by term_signal */
	int exit_code;
	int term_signal;
	int timed_out;      /* the deadline passed and the child was killed */
	int interrupted;    /* the parent got SIGINT/SIGTERM meanwhile; the child was killed */
	int over_memory;    /* it (with what it started) passed alloclab_memory_limit() and was killed */
	uint64_t peak_kib;  /* the largest resident set of it and what it started, as last looked at */
	/* Processes it left running when it ended (a plugin that forked a
	 * twin of the worker, or a daemon): killed, and counted, for whatever
	 * ran beside the measured process may have disturbed it. */
	unsigned strays;
	double elapsed_s;
	/* When it was started, wall clock (seconds since the epoch): the
	 * process's date in an export, which pyperf reads per run. */
	double started_unix_s;
	/* The last step the child marked (alloclab_phase), "" if none: where
	 * it was when it crashed or hung. */
	char phase[64];
	/* Where the step was: the round it marked (alloclab_phase_round: a
	 * value's number from 1, a warm-up's as its negative, 0 none), and in
	 * a paired worker the member whose step it was (alloclab_phase_member:
	 * its index from 1, 0 none). */
	int round, member;
	/* alloclab_child_run_sampled: its memory over time
	 * (memory_timeline.h), the result's own; NULL otherwise. */
	struct alloclab_memory_timeline *memory;
};

/*
 * Step markers: a supervised child (and a program it execs, through file
 * descriptor ALLOCLAB_PHASE_FD) writes the step it is in to a page shared
 * with its supervisor, so that a crash or a hang is reported with its step
 * ("in create", "in thread_detach") and not only its signal.
 */
#define ALLOCLAB_PHASE_FD 4
void alloclab_phase(const char *step);
/* The round the steps belong to, beside the step (the memory timeline
 * labels its samples "run 2", "warm-up 1"): a value's number from 1, a
 * warm-up's as its negative, 0 none. */
void alloclab_phase_round(int round);
/* A paired worker's member whose step this is, from 1 (0: the worker's
 * own): marked before every step of each member's (its load and create,
 * each prepare, value or slice, finish, statistics, thread hooks and
 * destroy), so that what ends the worker is pinned on the plugin that
 * was running. */
void alloclab_phase_member(int member);
/* In an exec'd child: map the page passed as ALLOCLAB_PHASE_FD, if any. */
void alloclab_phase_attach(void);

/*
 * The workload threads' live counters (struct alloclab_live, memory/live.h),
 * on pages shared with the supervisor when it samples the child's memory,
 * passed as ALLOCLAB_LIVE_FD: the sampler reads what the workload holds
 * beside what is resident. ALLOCLAB_LIVE_SLOTS counters, one a thread.
 */
#define ALLOCLAB_LIVE_FD 6
#define ALLOCLAB_LIVE_SLOTS 1024
struct alloclab_live;
/* In the child: the shared counters (mapped from ALLOCLAB_LIVE_FD), or
 * private ones where the supervisor gave none. NULL only out of memory. */
struct alloclab_live *alloclab_live_attach(void);

/* In the child: fn(arg, fd) runs, and its return value is the exit status. */
typedef int (*alloclab_child_fn)(void *arg, int fd);

/* 0 when the child was started and reaped (whatever its fate), -1 when it
 * could not be started (err set). */
int alloclab_child_run(alloclab_child_fn fn, void *arg, double timeout_s, struct alloclab_child_result *res,
		       char *err, size_t err_len);

/* The same, sampling the child's memory every sample_ms (0: not) from
 * here into res->memory (memory_timeline.h). */
int alloclab_child_run_sampled(alloclab_child_fn fn, void *arg, double timeout_s, unsigned sample_ms,
			       struct alloclab_child_result *res, char *err, size_t err_len);

void alloclab_child_result_free(struct alloclab_child_result *res);

/*
 * In a child: writes obj (a reference it takes over) to fd, all of it, as
 * the one object the parent reads. Returns the exit status to end with: 0,
 * 1 when obj reports an "error", 3 when the write failed.
 */
int alloclab_child_send_json(int fd, json_t *obj);
/* The step a child marks when its answer's descriptor was found closed. */
#define ALLOCLAB_PHASE_ANSWER_CLOSED "answer: its descriptor was closed"

/* One line describing how a child ended when it did not succeed:
 * "timed out after 10 s", "killed by signal 11 (Segmentation fault)",
 * followed by " in STEP" when the child marked one. */
void alloclab_child_describe(const struct alloclab_child_result *res, double timeout_s, char *out, size_t out_len);

/* The child's printed output as one line for a record: "" when it printed
 * nothing, else its first lines with newlines as " | ". malloc'd or NULL. */
char *alloclab_child_printed(const struct alloclab_child_result *res);

/* Installs SIGINT/SIGTERM/SIGHUP handlers that set the flag read by
 * alloclab_interrupted(), so a run can stop cleanly and keep its results. */
void alloclab_catch_interrupts(void);
int alloclab_interrupted(void);

/*
 * A worker child's answer (run, probe): the object it wrote when it
 * exited 0 or 1, or NULL with how it ended in err: the error it wrote
 * (*not_applicable set when it said the cell is not applicable), a crash,
 * a timeout, a flood, processes it left running. When it ended in one of
 * the plugin's own steps (load, create, thread_attach, stats, destroy,
 * trim: alloclab_phase), err names the plugin and the step; in a paired
 * worker (res->member set, `plugin` that member's) every step the member
 * marked is its own, with its value. A new reference.
 */
json_t *alloclab_child_answer(const struct alloclab_child_result *res, const char *plugin, double timeout_s,
			      int *not_applicable, char *err, size_t err_len);

/* Appends " (it printed: ...)" to err when the child printed something. */
void alloclab_child_add_printed(const struct alloclab_child_result *res, char *err, size_t err_len);

#endif
