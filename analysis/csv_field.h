/*
 * The one writer of a CSV text field, for every CSV alloclab writes
 * (export, compare's CSV, grade's grades.csv): quoted as RFC 4180 says
 * when it holds a comma, a quote or a line break; and text a spreadsheet
 * would take for a formula (starting with = + - @, a tab or a carriage
 * return: a plugin's label, a host name or a student's folder is anyone's)
 * kept as text by a leading apostrophe, as spreadsheets themselves mark
 * it. Numbers never go through here.
 */
#ifndef ALLOCLAB_CSV_FIELD_H
#define ALLOCLAB_CSV_FIELD_H

#include <stdio.h>

void alloclab_csv_field(FILE *out, const char *s);

#endif
