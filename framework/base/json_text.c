/* Text from outside as JSON. See json_text.h. */
#include "base/json_text.h"
#include <errno.h>
#include <unistd.h>

#include <stdlib.h>
#include <string.h>

json_t *alloclab_json_text(const char *s)
{
	json_t *j;
	size_t n;
	char *copy;

	if (s == NULL)
		s = "";
	if ((j = json_string(s)) != NULL)
		return j;
	n = strlen(s);
	copy = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		copy[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	copy[n] = '\0';
	j = json_string(copy);
	free(copy);
	return j;
}

int alloclab_json_line(int fd, const json_t *obj)
{
	char *text = json_dumps(obj, JSON_COMPACT);
	if (text == NULL) {
		errno = ENOMEM;
		return -1;
	}
	size_t len = strlen(text), off = 0;
	text[len] = '\n'; /* in place of the terminator: the line is written whole */
	while (off < len + 1) {
		ssize_t n = write(fd, text + off, len + 1 - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	free(text);
	if (off < len + 1) {
		if (errno == 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

size_t alloclab_utf8_char(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (n == 0 || (n == 2 && s[0] < 0xc2) || (n == 4 && s[0] > 0xf4))
		return 0;
	for (size_t k = 1; k < n; k++)
		if ((s[k] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
	    (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
		return 0; /* overlong, a surrogate, past U+10FFFF */
	return n;
}

int alloclab_control_char(const unsigned char *s, size_t n)
{
	return (n == 1 && (s[0] < 0x20 || s[0] == 0x7f)) || (n == 2 && s[0] == 0xc2 && s[1] < 0xa0);
}

unsigned alloclab_bidi_control(const unsigned char *s, size_t n)
{
	unsigned cp = n == 2 ? (s[0] & 0x1fu) << 6 | (s[1] & 0x3fu)
		      : n == 3 ? (s[0] & 0x0fu) << 12 | (s[1] & 0x3fu) << 6 | (s[2] & 0x3fu)
			       : 0;
	if (cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069))
		return cp;
	return 0;
}

const char *alloclab_text_line_problem(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = alloclab_utf8_char(p);
		if (n == 0)
			return "is not UTF-8";
		if (alloclab_control_char(p, n))
			return "holds a control character";
		if (alloclab_bidi_control(p, n))
			return "holds a bidirectional control character (one that turns the text after it around)";
		p += n;
	}
	return NULL;
}

char *alloclab_text_make_line(char *s)
{
	for (unsigned char *p = (unsigned char *)s; *p;) {
		size_t n = alloclab_utf8_char(p);
		if (n == 0 || alloclab_control_char(p, n) || alloclab_bidi_control(p, n)) {
			n = n ? n : 1;
			memset(p, '?', n);
		}
		p += n;
	}
	return s;
}
