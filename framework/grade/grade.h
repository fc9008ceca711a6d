/*
 * Grading a course exercise (`alloclab grade`, docs/guides/grading.md): a
 * folder of student submissions, each built, put through the level's
 * check cases and, where it passes them, timed against a reference plugin
 * side by side, every step of it in a sandbox (process/sandbox.h). One row
 * per submission, written to the grading's journal the moment it is known
 * (grade_journal.h), so that nothing a submission does (a crash, a hang, a kill
 * of the grader) loses another's row; the table and the files for a
 * gradebook are made from the journal (analysis/grade_report.h).
 *
 * The room's parts: submission.h (what an argument is, and its row's
 * name), inside.h (what runs in the sandbox: build, check, measure, and
 * the events it reports), events.c (the one reader of those events),
 * grade_journal.h (rows on disk), grader.c (the loop).
 */
#ifndef ALLOCLAB_GRADE_H
#define ALLOCLAB_GRADE_H

#include "base/lengths.h"

#include <stddef.h>

/* Room for one message of a row (a case's why, a compiler's error). */
#define ALLOCLAB_GRADE_TEXT 1200
/* At most this many cases a row (every check case there is). */
#define ALLOCLAB_GRADE_MAX_CASES 16
/* At most this many paired processes a measurement. */
#define ALLOCLAB_GRADE_MAX_RATIOS 64

enum alloclab_grade_case_status { ALLOCLAB_GRADE_PASS, ALLOCLAB_GRADE_FAIL, ALLOCLAB_GRADE_SKIP, ALLOCLAB_GRADE_NOT_RUN };

struct alloclab_grade_case {
	char name[32];
	enum alloclab_grade_case_status status;
	char why[ALLOCLAB_GRADE_TEXT];
	char printed[400]; /* what the plugin printed in the case, "" none */
};

/*
 * One submission's row. Invariants: npass + nfail == ncases (a skip of a
 * case the level does not require counts as passed, "not run" as
 * failed); passed only when a plugin was built or found, loaded, and
 * every case of the level passed; nratios > 0 only when passed.
 */
struct alloclab_grade_row {
	char name[256];               /* the row's name: the end of its path that tells it from the others */
	char path[ALLOCLAB_PATH_LEN]; /* the submission as given */
	char kind[16];                /* meson, sources, c-file, plugin, built, none */
	char note[600];               /* e.g. the same file as another row's; "" none */
	/* The build: "ok", "failed", "timed out", or "" when there was
	 * nothing to build (a plugin given built); its log's first error. */
	char build[16];
	char build_error[ALLOCLAB_GRADE_TEXT];
	char plugin[256];             /* the plugin graded, inside its folder ("build/mine.so"); "" none */
	/* What stopped it before or between its cases (no such file, does
	 * not load, the sandbox's deadline); "" none. */
	char problem[ALLOCLAB_GRADE_TEXT];
	struct alloclab_grade_case cases[ALLOCLAB_GRADE_MAX_CASES];
	unsigned ncases, npass, nfail;
	int passed;
	/* The measurement: each paired process's time of the submission over
	 * the reference's (statistics/pairs.h); nratios 0 with measure_note
	 * saying why when it was not measured. */
	double ratios[ALLOCLAB_GRADE_MAX_RATIOS];
	unsigned nratios;
	char measure_note[400];
	double seconds;               /* how long its grading took */
};

/* Whether a row holds what its declaration says (debug builds check it
 * where rows are made and read). */
int alloclab_grade_row_valid(const struct alloclab_grade_row *row);

/* What a grading is asked to do: the same for every row, and written at
 * the head of its journal (a grading resumed must ask the same). */
struct alloclab_grade_settings {
	unsigned level;               /* 1..ALLOCLAB_CHECK_LEVELS */
	const char *reference;        /* a bundled plugin's name, or a path */
	int measuring;
	unsigned processes;           /* paired processes a measurement */
	double build_timeout_s;       /* the build, all of it */
	double check_timeout_s;       /* the cases, all of them together */
	double measure_timeout_s;     /* the measurement, all of it */
	int sandboxed;                /* 0: --unsandboxed, the grader's own rights */
};

/* A grading: these submissions (paths, as given), its folder (the
 * journal, build logs; made when missing), and whether it goes on with
 * the journal there. */
struct alloclab_grade_job {
	const struct alloclab_grade_settings *settings;
	char *const *args;
	size_t nargs;
	const char *dir;
	int resume;
};

/*
 * Grades every submission the journal does not hold yet, one after the
 * other, each row journalled as it is known and its build's log written
 * to DIR/logs/; stops at an interrupt (the rows done are kept). Then
 * every row, in the order of args, from the journal, into *rows
 * (malloc'd, nargs of them; a submission not graded yet, being
 * interrupted, has an empty name). What the reader should know (rows
 * resumed, lines dropped) into note. 0, or -1 with one line in err (the
 * journal cannot be written or read, a sandbox cannot be made).
 */
int alloclab_grade_run(const struct alloclab_grade_job *job, struct alloclab_grade_row **rows, char *note,
		       size_t note_len, char *err, size_t err_len);

/* The name of a row's files (its log, its feedback): its place in the
 * grading and its name, as a file name ("03-a-mine"). */
void alloclab_grade_file_stem(size_t index, const char *name, char *out, size_t len);

#endif
