/*
 * What runs inside a submission's sandbox (`alloclab __grade-inside`,
 * started by the grader): the submission copied to a folder of its own,
 * built (submission_build.h), loaded, put through the level's cases with one deadline
 * for all of them, and, where every case passed, measured against the
 * reference side by side (the runner, paired, called in a supervised
 * child: run/runner.h). It reports as it goes, one
 * event a line of JSON on its standard output, each written the moment it
 * is known, so that a sandbox killed at its deadline (or by the
 * submission) leaves every event before it:
 *   {"event":"build","status":"ok|failed|timed out","first_error":S,"log":S,"plugin":S,"note":S}
 *   {"event":"load","why":S}                  the plugin does not load (no cases follow)
 *   {"event":"case","case":S,"status":"pass|fail|skip|not run","why":S,"plugin_output":S?}
 *   {"event":"measure","ratios":[R...]}      or {"event":"measure","why":S}
 *   {"event":"end"}
 * The events come from a process the submission's code runs beside, so
 * the grader reads them as it reads any file from outside, with one
 * validating reader (events.c): a submission can at most spoil its own
 * row.
 */
#ifndef ALLOCLAB_GRADE_INSIDE_H
#define ALLOCLAB_GRADE_INSIDE_H

#include "grade/grade.h"
#include "workload/workload.h"

#include <jansson.h>

#include <stddef.h>

struct alloclab_grade_inside {
	const struct alloclab_grade_settings *settings;
	const char *kind;        /* as submission.h says */
	const char *submission;  /* its path here (in a sandbox: under /submission) */
	const char *plugin;      /* plugin, built: the plugin within it; else NULL */
	const char *work;        /* a writable folder of its own */
	const char *reference;   /* the reference as seen here */
	/* What the submission is measured on (ALLOCLAB_GRADE_WORKLOAD,
	 * parsed by the command: the workloads' registry is above the
	 * framework); NULL: not measured. */
	const struct alloclab_workload_spec *workload;
	/* The command that runs it, recorded with the measurement. */
	int argc;
	char **argv;
};

/* The measurement: the submission against the reference on churn, at one
 * thread, two values a process. */
#define ALLOCLAB_GRADE_WORKLOAD "churn:ops=50000"

/*
 * The request the grader hands its inside: one JSON object, the one word
 * after `alloclab __grade-inside` (a document, not options: the grader
 * builds no command line of the inside's flags):
 *   {"level":N,"kind":S,"submission":S,"plugin":S?,"work":S,"reference":S,
 *    "processes":N,"measuring":B,"build_timeout_s":X,"check_timeout_s":X,
 *    "measure_timeout_s":X}
 * request_text writes it (malloc'd); request_read checks every field
 * into s and in (whose strings point into *held, to be freed after),
 * 0, or -1 with err naming the field.
 */
char *alloclab_grade_request_text(const struct alloclab_grade_settings *s, const struct alloclab_grade_inside *in);
int alloclab_grade_request_read(const char *text, struct alloclab_grade_settings *s, struct alloclab_grade_inside *in,
				json_t **held, char *err, size_t err_len);

/* Runs the whole of it, printing the events. The exit status: 0. */
int alloclab_grade_inside(const struct alloclab_grade_inside *in);

/* Where the inside was given the submission and its folder to work in:
 * in a sandbox /submission (or /submission/NAME for a file) and /work;
 * unsandboxed, the submission's own path and a scratch folder. The copy
 * of a folder is built from WORK/src into WORK/build. */
struct alloclab_grade_seen {
	const char *submission;
	const char *work;
};

/*
 * The grader's side: reads the events in text[0..len) (what the sandbox
 * printed, perhaps cut short) into row, for a grading of this level; how
 * the sandbox ended is `ended` ("" when it ended by itself after its end
 * event). The build's log, when one came, into *log (malloc'd, or NULL).
 * A line that is not a valid event ends the reading, and the row says so.
 * The row's messages name the submission's files as the student knows
 * them (row->path, build/x.so, their own sources), not as seen: the
 * row's kind and path are set before.
 */
void alloclab_grade_events_read(const char *text, size_t len, unsigned level, const struct alloclab_grade_seen *seen,
				const char *ended, struct alloclab_grade_row *row, char **log);

#endif
