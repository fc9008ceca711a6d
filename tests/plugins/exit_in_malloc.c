/* Ends the process with status 0 from its first malloc: a program run
 * under it never runs, and exec must say so rather than report "exit
 * status 0". */
#include "test_plugin_common.h"
#include <unistd.h>
static void *exiting_malloc(void *instance, size_t size)
{
	(void)instance; (void)size;
	_exit(0);
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("exit_in_malloc"),
	.malloc = exiting_malloc,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
