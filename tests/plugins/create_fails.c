/* create() refuses: option "fail=einval" reports a bad option, anything
 * else a resource failure; both with the plugin's own message. With
 * "fail=hostile" that message is hostile: not UTF-8, with line breaks and
 * terminal escapes, filling the buffer with no NUL. */
#include "test_plugin_common.h"
#include <string.h>
static int failing_create(const char *options, void **instance, char *err, size_t err_len)
{
	(void)instance;
	if (strcmp(options, "fail=hostile") == 0) {
		/* Not UTF-8, line breaks, an escape sequence, and no NUL: all
		 * of the buffer filled. */
		static const char text[] = "bad\nforged line\033[2J\033]0;pwned\007\xff\xfe";
		for (size_t i = 0; i < err_len; i++)
			err[i] = text[i % (sizeof text - 1)];
		return -ENOMEM;
	}
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
