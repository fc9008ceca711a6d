/* Declares aligned allocation without providing the op. */
#include "test_plugin_common.h"
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("cap-without-op"),
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_ALIGNED_ALLOC,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
