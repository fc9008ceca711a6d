/*
 * Whole numbers as people type them: one parser for the command line and
 * workload parameters alike, which tells a malformed number from one too
 * large for 64 bits.
 */
#ifndef ALLOCLAB_NUMBERS_H
#define ALLOCLAB_NUMBERS_H

#include <stddef.h>
#include <stdint.h>

enum alloclab_number_status {
	ALLOCLAB_NUMBER_OK = 0,
	ALLOCLAB_NUMBER_MALFORMED = -1, /* empty, a sign, a fraction, other characters */
	ALLOCLAB_NUMBER_OVERFLOW = -2,  /* digits (and suffix) beyond 2^64 - 1 */
};

/* Parses the len bytes at s as a decimal whole number; with suffixes, an
 * optional K, M or G multiplies by 1024, 1024^2, 1024^3. */
enum alloclab_number_status alloclab_parse_u64(const char *s, size_t len, int suffixes, uint64_t *out);

/* Parses s as a finite number of seconds (fractions allowed). -1 when it
 * is not one (nan, inf, empty, trailing characters). */
int alloclab_parse_seconds(const char *s, double *out);

#endif
