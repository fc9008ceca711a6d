/* CPython string sizes per layout. See string_layouts.h. */
#include "string_layouts.h"

const char *const str_layout_names[] = {"py26-ucs2", "py26-ucs4", "py31-ucs2", "py31-ucs4", "py33", "py312", NULL};
const char *const str_charset_names[] = {"ascii", "latin1", "bmp", "astral", NULL};

unsigned str_char_width(enum str_layout layout, enum str_charset charset)
{
	switch (layout) {
	case STR_PY26_UCS2:
	case STR_PY31_UCS2: return 2;
	case STR_PY26_UCS4:
	case STR_PY31_UCS4: return 4;
	default: return charset == STR_ASTRAL ? 4 : charset == STR_BMP ? 2 : 1;
	}
}

struct str_blocks str_unicode_blocks(enum str_layout layout, enum str_charset charset, size_t n)
{
	unsigned w = str_char_width(layout, charset);
	struct str_blocks b = {0, 0, 0, w};

	switch (layout) {
	case STR_PY26_UCS2:
	case STR_PY26_UCS4:
		b.object = 48; /* PyUnicodeObject: head, length, str, hash, defenc */
		b.buffer = (n + 1) * w;
		break;
	case STR_PY31_UCS2:
	case STR_PY31_UCS4:
		b.object = 56; /* adds the interning state */
		b.buffer = (n + 1) * w;
		break;
	case STR_PY33:
		/* PyASCIIObject is 48 bytes; PyCompactUnicodeObject 72. */
		b.data_offset = charset == STR_ASCII ? 48 : 72;
		b.object = b.data_offset + (n + 1) * w;
		break;
	default: /* py312: PEP 623 removed wstr: 40 and 56 */
		b.data_offset = charset == STR_ASCII ? 40 : 56;
		b.object = b.data_offset + (n + 1) * w;
		break;
	}
	return b;
}

struct str_blocks str_bytes_blocks(enum str_layout layout, size_t nbytes)
{
	struct str_blocks b = {0, 0, 0, 1};

	if (layout == STR_PY26_UCS2 || layout == STR_PY26_UCS4) {
		b.data_offset = 36; /* PyStringObject: ob_sval after shash and sstate */
		b.object = 40 + nbytes; /* sizeof(PyStringObject) + n: the 37-byte head padded to 40 */
	} else {
		b.data_offset = 32; /* PyBytesObject: ob_sval after ob_shash */
		b.object = 33 + nbytes;
	}
	return b;
}

int str_layout_has_freelist(enum str_layout layout)
{
	return layout <= STR_PY31_UCS4;
}
