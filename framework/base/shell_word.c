/* Text as one shell word. See shell_word.h. */
#include "base/shell_word.h"
#include "base/json_text.h"

#include <string.h>

static const char plain_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%";

void alloclab_shell_word(FILE *out, const char *s)
{
	if (s[0] && strspn(s, plain_chars) == strlen(s)) {
		fputs(s, out);
		return;
	}
	fputc('\'', out);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	fputc('\'', out);
}

int alloclab_shell_word_one_line(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
			return 0;
	return 1;
}

char *alloclab_printable(const char *s, char *out, size_t len)
{
	size_t k = 0;
	if (len == 0)
		return out;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		size_t n = alloclab_utf8_char(p), m = n;
		const char *put = (const char *)p;
		char escape[8];
		unsigned bidi = n ? alloclab_bidi_control(p, n) : 0;
		if (n == 0 || alloclab_control_char(p, n)) {
			put = "?";
			m = 1;
			n = n ? n : 1;
		} else if (bidi) {
			m = (size_t)snprintf(escape, sizeof escape, "\\u%04x", bidi);
			put = escape;
		}
		if (k + m >= len)
			break;
		memcpy(out + k, put, m);
		k += m;
		p += n;
	}
	out[k] = '\0';
	return out;
}
