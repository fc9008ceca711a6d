/*
 * Conformance cases for allocator plugins (`alloclab check`): what a plugin
 * must do before its numbers mean anything. Each case is run in a child
 * process of its own by check_run.c, so that a crash or a hang is a failure
 * of that case only.
 */
#ifndef ALLOCLAB_CHECK_H
#define ALLOCLAB_CHECK_H

#include "check/glibc_edges.h"
#include "plugin/allocator.h"

#include <jansson.h>

enum alloclab_check_status { ALLOCLAB_CHECK_PASS, ALLOCLAB_CHECK_FAIL, ALLOCLAB_CHECK_SKIP };

struct alloclab_check_result {
	enum alloclab_check_status status;
	char why[512]; /* what was checked, or what went wrong, or why skipped */
	/* Where the plugin's answer, allowed by the ABI, is not glibc's (a
	 * program moved from glibc's malloc to it would see that): one edge
	 * each, "realloc(p, 0) returns ... where glibc's ...". Not a failure. */
	char differs[ALLOCLAB_CHECK_DIFFERS][ALLOCLAB_CHECK_DIFFER_LEN];
	unsigned ndiffers;
};

struct alloclab_check_case {
	const char *name;
	const char *what;
	void (*run)(const struct alloclab_allocator *a, struct alloclab_check_result *r);
	/* Run only when asked for by name or by a course level: it checks
	 * what a course step asks beyond the ABI (a free that takes blocks of
	 * the C library's malloc). */
	int course_only;
};

/* NULL-terminated. */
extern const struct alloclab_check_case alloclab_check_cases[];

/*
 * The course's levels (docs/course/): the cases an allocator at each step
 * of the course must pass, NULL-terminated; NULL for a level outside
 * 1..ALLOCLAB_CHECK_LEVELS.
 *   1  a bump allocator: blocks aligned, apart, holding what is written,
 *      the edge sizes, the declared capabilities
 *   2  a free list: and freed memory reused (footprint), no write outside
 *      a block (guards), usable_size
 *   3  segregated size classes: the same cases as level 2 (what it
 *      changes is speed, which the course measures)
 *   4  per-thread caches with cross-thread frees: and threads, their
 *      lifecycle
 *   5  pools in arenas, as obmalloc: every case
 */
#define ALLOCLAB_CHECK_LEVELS 5
const char *const *alloclab_check_level(unsigned level);
/* The cases of a level that must run: at that level a skip (threads for
 * a plugin that does not declare thread-safe; regions, arenas without a
 * regions op) fails, for the step is to make them hold. Level 4: threads
 * and cross-thread; 5: those, regions and arenas (ownership never
 * skips). */
const char *const *alloclab_check_level_required(unsigned level);

/* A case's process marks its steps with alloclab_phase (child.h): the
 * shared ones (load, create, thread_attach, thread_detach, destroy) and
 * "case" itself, so a crash or a hang is named by its step. */

/* Runs one case on a fresh thread attached to the plugin. */
void alloclab_check_run_case(const struct alloclab_check_case *c, const struct alloclab_allocator *a,
			     struct alloclab_check_result *r);

/*
 * Runs the cases of one plugin (all, or the nonly named in only), each in
 * a child process with a deadline of timeout seconds; after a step every
 * case shares (load, create, thread_attach, thread_detach, destroy)
 * crashes or hangs, the rest are "not run". Returns an array of records
 * {case, status: pass|fail|skip|not run, why, plugin_output?}, calling
 * progress on each as it is made; *failed counts the failures. A case
 * that found the plugin's answers differing from glibc's (allowed, but
 * not glibc's) has them in "differs", an array of texts.
 */
json_t *alloclab_check_plugin(const char *spec, const char *options, char *const *only, int nonly,
			      const char *const *required, double timeout,
			      void (*progress)(const json_t *record, void *arg), void *arg, int *failed);
/* The same with one deadline for all the cases together, budget_s (0:
 * none): each case gets what is left of it (at most timeout), and once it
 * is spent the rest are "not run", so a plugin that hangs costs the
 * budget once, not a timeout per case. */
json_t *alloclab_check_plugin_within(const char *spec, const char *options, char *const *only, int nonly,
				     const char *const *required, double timeout, double budget_s,
				     void (*progress)(const json_t *record, void *arg), void *arg, int *failed);

#endif
