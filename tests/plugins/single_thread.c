/* A working allocator that is not thread-safe: cells above 1 thread must be
 * reported "not applicable", not run. */
#include "test_plugin_common.h"
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("single-thread"),
	.caps = 0,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
