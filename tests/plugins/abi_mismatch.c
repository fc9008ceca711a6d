/* Built against a future ABI: the loader must refuse it and show both versions. */
#include "test_plugin_common.h"
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("abi-mismatch"),
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION + 1,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
