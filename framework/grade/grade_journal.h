/*
 * A grading's journal, DIR/journal.jsonl: its one writer and its one
 * reader. The first line is the grading's settings; every row follows as
 * one line of JSON, appended and flushed to the disk (fsync) the moment the
 * row is known, so that a grading killed at any point keeps every row it
 * finished, and `grade --resume` goes on from there: a last line cut short
 * by the kill is dropped and graded again. The table and the files for a
 * gradebook are made from the journal, never from memory alone.
 */
#ifndef ALLOCLAB_GRADE_JOURNAL_H
#define ALLOCLAB_GRADE_JOURNAL_H

#include "grade/grade.h"

#include <jansson.h>
#include <stddef.h>

#define ALLOCLAB_GRADE_JOURNAL_NAME "journal.jsonl"
/* What the settings line carries, and the mark every file of a grading's
 * folder is known by. */
#define ALLOCLAB_GRADE_MARK "alloclab-grade"

/* Opens DIR's journal: a new one (refused when one is there, unless
 * resuming), or the one there to resume, whose settings must be these.
 * Its rows so far into *rows (malloc'd), *nrows; a note on what was
 * dropped into note ("" none). The descriptor to append to, or -1 with
 * one line in err. */
int alloclab_grade_journal_open(const char *dir, const struct alloclab_grade_settings *s, int resume,
				struct alloclab_grade_row **rows, size_t *nrows, char *note, size_t note_len, char *err,
				size_t err_len);

/* Appends one row and flushes it to the disk. 0, or -1 with err. */
int alloclab_grade_journal_append(int fd, const struct alloclab_grade_row *row, char *err, size_t err_len);

/* A row as JSON (the journal's line, and the gradebook's JSON): a new
 * reference. */
json_t *alloclab_grade_row_json(const struct alloclab_grade_row *row);

/* The settings as JSON (the journal's first line): a new reference. */
json_t *alloclab_grade_settings_json(const struct alloclab_grade_settings *s);

/* "pass", "fail", "skip", "not run". */
const char *alloclab_grade_case_status_name(int status);

#endif
