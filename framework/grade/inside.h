/*
 * What runs inside a submission's sandbox (`alloclab __grade-inside`,
 * started by the grader): the submission copied to a folder of its own,
 * built (build.h), loaded, put through the level's cases with one deadline
 * for all of them, and, where every case passed, measured against the
 * reference side by side (`run --paired`). It reports as it goes, one
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

#include <stddef.h>

struct alloclab_grade_inside {
	const struct alloclab_grade_settings *settings;
	const char *kind;        /* as submission.h says */
	const char *submission;  /* its path here (in a sandbox: under /submission) */
	const char *plugin;      /* plugin, built: the plugin within it; else NULL */
	const char *work;        /* a writable folder of its own */
	const char *reference;   /* the reference as seen here */
};

/* Runs the whole of it, printing the events. The exit status: 0. */
int alloclab_grade_inside(const struct alloclab_grade_inside *in);

/*
 * The grader's side: reads the events in text[0..len) (what the sandbox
 * printed, perhaps cut short) into row, for a grading of this level; how
 * the sandbox ended is `ended` ("" when it ended by itself after its end
 * event). The build's log, when one came, into *log (malloc'd, or NULL).
 * A line that is not a valid event ends the reading, and the row says so.
 */
void alloclab_grade_events_read(const char *text, size_t len, unsigned level, const char *ended,
				struct alloclab_grade_row *row, char **log);

#endif
