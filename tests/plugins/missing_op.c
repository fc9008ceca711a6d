/* Leaves the required malloc op NULL. */
#include "test_plugin_common.h"
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("missing-op"),
	.malloc = NULL,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
