/* Text as one shell word. See shell_word.h. */
#include "base/shell_word.h"

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

void alloclab_printable(const char *s, char *out, size_t len)
{
	size_t k = 0;
	if (len == 0)
		return;
	for (; *s && k + 1 < len; s++)
		out[k++] = ((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s;
	out[k] = '\0';
}
