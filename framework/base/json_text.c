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
