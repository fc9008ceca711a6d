/*
 * What a CPython string object allocates, per version and build, for n
 * characters (docs/background/string-layouts.md, LP64). The unicode workload
 * allocates exactly these blocks; the tests pin the formulas.
 *
 *   layout     bytes (one block)   unicode / str
 *   py26-ucs*  40 + n              object 48 + buffer (n+1) * 2|4     two blocks
 *   py31-ucs*  33 + n              object 56 + buffer (n+1) * 2|4     two blocks
 *   py33       33 + n              ASCII 48 + n + 1; else 72 + (n+1) * k   one block
 *   py312      33 + n              ASCII 40 + n + 1; else 56 + (n+1) * k   one block
 *
 * k, the PEP 393 kind, is 1 for Latin-1, 2 for the BMP, 4 beyond. Bytes
 * words are scaled to the Unicode payload, as the benchmark did: n characters of
 * width w become n * w bytes (2chars -> 4 bytes on a UCS2 build).
 */
#ifndef ALLOCLAB_STRING_LAYOUTS_H
#define ALLOCLAB_STRING_LAYOUTS_H

#include <stddef.h>

enum str_layout { STR_PY26_UCS2, STR_PY26_UCS4, STR_PY31_UCS2, STR_PY31_UCS4, STR_PY33, STR_PY312, STR_NLAYOUTS };
enum str_charset { STR_ASCII, STR_LATIN1, STR_BMP, STR_ASTRAL };

struct str_blocks {
	size_t object;      /* the block holding the object (and, compact, its data) */
	size_t buffer;      /* the separate character buffer; 0 when there is none */
	size_t data_offset; /* where the characters start: in the object, or 0 in the buffer */
	unsigned width;     /* bytes per character */
};

extern const char *const str_layout_names[];  /* NULL-terminated */
extern const char *const str_charset_names[]; /* NULL-terminated */

/* Bytes per character of `layout` for `charset` (UCS2/UCS4 builds ignore
 * the charset; PEP 393 layouts use the kind). */
unsigned str_char_width(enum str_layout layout, enum str_charset charset);
struct str_blocks str_unicode_blocks(enum str_layout layout, enum str_charset charset, size_t n);
struct str_blocks str_bytes_blocks(enum str_layout layout, size_t nbytes);
/* Whether the layout's unicode objects had the 2.x/3.1 free list. */
int str_layout_has_freelist(enum str_layout layout);

#endif
