/* Writes without end to file descriptor 3 (a worker's result pipe) when
 * created: the runner must cap what it reads and make the cell an error,
 * not grow without bound. */
#include "test_plugin_common.h"
#include <string.h>
#include <unistd.h>
static int flood_create(const char *options, void **instance, char *err, size_t err_len)
{
	static char junk[1 << 16];
	(void)options; (void)err; (void)err_len;
	memset(junk, 'x', sizeof junk);
	for (;;)
		if (write(3, junk, sizeof junk) < 0)
			break;
	*instance = NULL;
	return 0;
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("flood"),
	.create = flood_create,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
