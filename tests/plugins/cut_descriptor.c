/* A descriptor whose struct_size ends in the middle of its last pointer
 * (the stats op): copying that many bytes would keep half a pointer. The
 * loader must refuse it. */
#include "test_plugin_common.h"
#include <stddef.h>
static int no_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	(void)instance;
	(void)emit;
	(void)arg;
	return 0;
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("cut_descriptor"),
	.struct_size = offsetof(struct alloclab_plugin, stats) + 4,
	.stats = no_stats,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
