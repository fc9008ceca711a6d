/* Sets the descriptor's reserved field: a plugin built for an ABI this
 * host does not know. The loader must refuse it. */
#include "test_plugin_common.h"
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("reserved_set"),
	.reserved0 = 7,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
