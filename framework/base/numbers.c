/* Number parsing. See numbers.h. */
#include "base/numbers.h"

#include <math.h>
#include <stdlib.h>

enum alloclab_number_status alloclab_parse_u64(const char *s, size_t len, int suffixes, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	unsigned shift = 0;
	int overflow = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			overflow = 1;
		else
			v = v * 10 + d;
	}
	if (i == 0)
		return ALLOCLAB_NUMBER_MALFORMED;
	if (suffixes && i + 1 == len) {
		switch (s[i]) {
		case 'K': case 'k': shift = 10; break;
		case 'M': case 'm': shift = 20; break;
		case 'G': case 'g': shift = 30; break;
		default: return ALLOCLAB_NUMBER_MALFORMED;
		}
	} else if (i != len) {
		return ALLOCLAB_NUMBER_MALFORMED;
	}
	if (overflow || (shift && v > (UINT64_MAX >> shift)))
		return ALLOCLAB_NUMBER_OVERFLOW;
	*out = v << shift;
	return ALLOCLAB_NUMBER_OK;
}

int alloclab_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (s[0] == '\0' || !((s[0] >= '0' && s[0] <= '9') || s[0] == '.'))
		return -1;
	v = strtod(s, &end);
	if (*end != '\0' || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}
