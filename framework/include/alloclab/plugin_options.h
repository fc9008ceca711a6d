/*
 * Header-only helpers for parsing a plugin's option string
 * ("key=value,key=value") inside create(). Part of the plugin SDK; the host
 * uses the same rules for workload parameters, so users meet one syntax.
 *
 *     const char *cur = options;
 *     struct alloclab_option opt;
 *     int rc;
 *     while ((rc = alloclab_option_next(&cur, &opt)) > 0) {
 *         if (alloclab_option_is(&opt, "api")) ...
 *         else return alloclab_option_unknown(&opt, err, err_len);
 *     }
 *     if (rc < 0) return alloclab_option_malformed(cur, err, err_len);
 */
#ifndef ALLOCLAB_PLUGIN_OPTIONS_H
#define ALLOCLAB_PLUGIN_OPTIONS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One key=value pair; both point into the option string, not terminated. */
struct alloclab_option {
	const char *key;
	size_t key_len;
	const char *value;
	size_t value_len;
};

/*
 * Reads the next pair at *cursor and advances past it. Returns 1 with *opt
 * filled, 0 at the end, -1 when the text at *cursor is not key=value (empty
 * key, or no '='); *cursor then points at the bad pair.
 */
static inline int alloclab_option_next(const char **cursor, struct alloclab_option *opt)
{
	const char *s = *cursor;
	const char *end, *eq;

	if (s == NULL || *s == '\0')
		return 0;
	end = strchr(s, ',');
	if (end == NULL)
		end = s + strlen(s);
	eq = (const char *)memchr(s, '=', (size_t)(end - s));
	if (eq == NULL || eq == s)
		return -1;
	opt->key = s;
	opt->key_len = (size_t)(eq - s);
	opt->value = eq + 1;
	opt->value_len = (size_t)(end - eq - 1);
	*cursor = *end == ',' ? end + 1 : end;
	return 1;
}

static inline int alloclab_option_is(const struct alloclab_option *opt, const char *key)
{
	return strlen(key) == opt->key_len && memcmp(opt->key, key, opt->key_len) == 0;
}

static inline int alloclab_option_value_is(const struct alloclab_option *opt, const char *value)
{
	return strlen(value) == opt->value_len && memcmp(opt->value, value, opt->value_len) == 0;
}

/*
 * Parses the value as an unsigned decimal integer with an optional binary
 * suffix K, M or G (x1024, x1024^2, x1024^3). Returns 0, or -1 when the value
 * is empty, not a number, or overflows 64 bits.
 */
static inline int alloclab_option_u64(const struct alloclab_option *opt, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	unsigned shift = 0;

	if (opt->value_len == 0)
		return -1;
	for (; i < opt->value_len && opt->value[i] >= '0' && opt->value[i] <= '9'; i++) {
		unsigned d = (unsigned)(opt->value[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (i == 0)
		return -1;
	if (i + 1 == opt->value_len) {
		switch (opt->value[i]) {
		case 'K': case 'k': shift = 10; break;
		case 'M': case 'm': shift = 20; break;
		case 'G': case 'g': shift = 30; break;
		default: return -1;
		}
	} else if (i != opt->value_len) {
		return -1;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

/* Writes "unknown option 'key'" into err and returns -EINVAL. */
static inline int alloclab_option_unknown(const struct alloclab_option *opt, char *err, size_t err_len)
{
	snprintf(err, err_len, "unknown option '%.*s'", (int)opt->key_len, opt->key);
	return -EINVAL;
}

/* Writes "bad value for 'key': 'value' (expected ...)" and returns -EINVAL. */
static inline int alloclab_option_bad_value(const struct alloclab_option *opt, const char *expected,
					    char *err, size_t err_len)
{
	snprintf(err, err_len, "bad value for '%.*s': '%.*s' (expected %s)", (int)opt->key_len, opt->key,
		 (int)opt->value_len, opt->value, expected);
	return -EINVAL;
}

/* Writes "malformed option '...' (expected key=value)" and returns -EINVAL. */
static inline int alloclab_option_malformed(const char *at, char *err, size_t err_len)
{
	const char *end = strchr(at, ',');
	int len = end ? (int)(end - at) : (int)strlen(at);
	snprintf(err, err_len, "malformed option '%.*s' (expected key=value)", len, at);
	return -EINVAL;
}

#ifdef __cplusplus
}
#endif

#endif /* ALLOCLAB_PLUGIN_OPTIONS_H */
