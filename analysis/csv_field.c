/* The one CSV text field writer. See csv_field.h. */
#include "csv_field.h"

#include <string.h>

void alloclab_csv_field(FILE *out, const char *s)
{
	const int formula = s[0] && strchr("=+-@\t\r", s[0]) != NULL, quoted = strpbrk(s, ",\"\r\n") != NULL;
	if (quoted)
		fputc('"', out);
	if (formula)
		fputc('\'', out);
	for (; *s; s++) {
		if (quoted && *s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	if (quoted)
		fputc('"', out);
}
