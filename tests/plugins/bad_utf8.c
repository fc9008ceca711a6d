/* Its description is not UTF-8 (Latin-1 bytes): refused at load, in one
 * line naming the field, instead of breaking every JSON record it reaches. */
#include "test_plugin_common.h"
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("bad-utf8"),
	.description = "caf\xe9 cr\xe8me",
};
ALLOCLAB_PLUGIN_DEFINE(desc)
