/* Text from outside as JSON. See json_text.h. */
#include "base/json_text.h"

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
