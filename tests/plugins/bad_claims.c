/* Declares statistics it cannot give: fails "honesty". */
#include "test_plugin_common.h"
static int no_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	(void)instance;
	(void)emit;
	(void)arg;
	return -ENOTSUP;
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("bad-claims"),
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_STATS,
	.stats = no_stats,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
