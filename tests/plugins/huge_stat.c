/* Reports statistics past INT64_MAX (UINT64_MAX, as an unsigned count gone
 * below zero would): the measurement must be kept, the value recorded as
 * it was given. */
#include "test_plugin_common.h"
#include <stdint.h>
static int huge_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	(void)instance;
	emit(arg, "huge", UINT64_MAX);
	emit(arg, "past.int64", (uint64_t)INT64_MAX + 1);
	emit(arg, "ordinary", 42);
	return 0;
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("huge_stat"),
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_STATS,
	.stats = huge_stats,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
