/* Text as one shell word. See shell_word.h. */
#define _GNU_SOURCE 1
#include "base/shell_word.h"
#include "base/json_text.h"

#include <stdarg.h>
#include <stdlib.h>
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

void alloclab_shell_word_shown(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;
	for (; *p; p += n) {
		n = alloclab_utf8_char(p);
		if (n == 0 || alloclab_control_char(p, n) || alloclab_bidi_control(p, n))
			break;
	}
	if (*p == '\0') {
		alloclab_shell_word(out, s);
		return;
	}
	/* Bash's, zsh's and ksh's $'...': the same word, every byte that
	 * is not plain text written as \xHH. */
	fputs("$'", out);
	for (p = (const unsigned char *)s; *p; p += n) {
		n = alloclab_utf8_char(p);
		if (n == 0 || alloclab_control_char(p, n) || alloclab_bidi_control(p, n)) {
			for (size_t k = 0; k < (n ? n : 1); k++)
				fprintf(out, "\\x%02x", p[k]);
			n = n ? n : 1;
		} else if (*p == '\'' || *p == '\\') {
			fprintf(out, "\\%c", *p);
		} else {
			fwrite(p, 1, n, out);
		}
	}
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

__attribute__((format(printf, 2, 0))) static void say_to(FILE *to, const char *fmt, va_list ap)
{
	char *line = NULL;
	int n = vasprintf(&line, fmt, ap);
	size_t len = n < 0 ? 0 : 2 * (size_t)n + 1; /* room for every escape: 3 bytes become 6 */
	char *shown = n < 0 ? NULL : malloc(len);
	if (shown)
		fprintf(to, "%s\n", alloclab_printable(line, shown, len));
	else
		fputs("alloclab: out of memory\n", stderr);
	free(shown);
	free(line);
}

void alloclab_say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_to(stderr, fmt, ap);
	va_end(ap);
}

void alloclab_tell(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_to(stdout, fmt, ap);
	va_end(ap);
}
