/*
 * How numbers read in alloclab's tables: times with a unit and three
 * significant digits, as pyperf prints them, and ratios as pyperf says
 * them.
 */
#ifndef ALLOCLAB_UNITS_H
#define ALLOCLAB_UNITS_H

#include <stddef.h>

/* "290 ms", "24.4 us", "8.19 us", "182 ns": three significant digits, as
 * pyperf prints times. */
void alloclab_format_ns(double ns, char *out, size_t len);

/* "1.02x slower (+2%)", "1.03x faster (-3%)" for ratio = other / base. */
void alloclab_format_ratio(double ratio, char *out, size_t len);

/* "512 KiB", "3.4 MiB", "1.25 GiB". */
void alloclab_format_kib(double kib, char *out, size_t len);

#endif
