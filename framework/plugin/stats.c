/* A plugin's statistics as alloclab keeps them. See stats.h. */
#include "plugin/stats.h"
#include "alloclab/plugin.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const alloclab_standard_stats[ALLOCLAB_NSTANDARD_STATS] = {
	ALLOCLAB_STAT_IN_USE, ALLOCLAB_STAT_FREE, ALLOCLAB_STAT_METADATA,
	ALLOCLAB_STAT_RESIDENT, ALLOCLAB_STAT_RELEASED, ALLOCLAB_STAT_HUGE,
};

uint64_t alloclab_stat_value(const json_t *v)
{
	const char *digits = json_string_value(v);
	if (json_is_integer(v))
		return json_integer_value(v) < 0 ? 0 : (uint64_t)json_integer_value(v);
	if (digits == NULL)
		return 0;
	errno = 0;
	unsigned long long n = strtoull(digits, NULL, 10);
	return errno ? 0 : (uint64_t)n;
}

json_t *alloclab_stat_json(uint64_t value)
{
	char digits[24];
	if (value <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)value);
	snprintf(digits, sizeof digits, "%" PRIu64, value);
	return json_string(digits);
}

/* A statistic kept as digits is one past INT64_MAX written canonically. */
int alloclab_stat_digits_exact(const char *digits)
{
	char again[24];
	errno = 0;
	unsigned long long n = strtoull(digits, NULL, 10);
	snprintf(again, sizeof again, "%llu", n);
	return errno == 0 && n > (unsigned long long)INT64_MAX && strcmp(again, digits) == 0;
}

struct stat_guard {
	alloclab_stat_fn emit;
	void *arg;
};

static void guarded_emit(void *arg, const char *name, uint64_t value)
{
	const struct stat_guard *g = arg;
	size_t len = name ? strnlen(name, ALLOCLAB_STAT_NAME_MAX + 1) : 0;
	if (len == 0 || len > ALLOCLAB_STAT_NAME_MAX)
		return;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return;
	g->emit(g->arg, name, value);
}

int alloclab_plugin_stats(const struct alloclab_plugin *ops, void *instance, alloclab_stat_fn emit, void *emit_arg)
{
	struct stat_guard g = {emit, emit_arg};
	return ops->stats(instance, guarded_emit, &g);
}
