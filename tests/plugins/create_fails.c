/* create() refuses: option "fail=einval" reports a bad option, anything
 * else a resource failure; both with the plugin's own message. */
#include "test_plugin_common.h"
#include <string.h>
static int failing_create(const char *options, void **instance, char *err, size_t err_len)
{
	(void)instance;
	if (strcmp(options, "fail=einval") == 0) {
		snprintf(err, err_len, "option fail=einval is not supported");
		return -EINVAL;
	}
	snprintf(err, err_len, "the test arena could not be reserved");
	return -ENOMEM;
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("create-fails"),
	.create = failing_create,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
