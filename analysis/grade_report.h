/*
 * What a grading's rows (framework/grade/grade.h, read back from its
 * journal) become for a teacher and a gradebook: the table, each time as
 * the submission's ratio to the reference with the 95% interval of the
 * paired processes and a verdict that says "not resolved" where the
 * interval holds 1 (statistics/pairs.h); the same as CSV and JSON; and a
 * feedback file for each student with the first failing case's message
 * and the commands that show it again.
 */
#ifndef ALLOCLAB_GRADE_REPORT_H
#define ALLOCLAB_GRADE_REPORT_H

#include "grade/grade.h"

#include <stddef.h>
#include <stdio.h>

/* The table (rows with an empty name, not graded yet, are left out). */
void alloclab_grade_table(FILE *out, const struct alloclab_grade_settings *s, const struct alloclab_grade_row *rows,
			  size_t n, const char *note);

/* Whether the grading's files can be written in DIR, decided before any
 * submission runs: the table, CSV and JSON there are none or a grading's
 * own (files/output_path.h's policy), feedback/ and logs/ folders or
 * none. 0, or -1 with one line in err. */
int alloclab_grade_outputs_usable(const char *dir, char *err, size_t err_len);

/* DIR/table.txt, DIR/grades.csv, DIR/grades.json and DIR/feedback/STEM.txt
 * for each row. 0, or -1 with one line in err. */
int alloclab_grade_write(const char *dir, const struct alloclab_grade_settings *s,
			 const struct alloclab_grade_row *rows, size_t n, const char *note, char *err, size_t err_len);

#endif
