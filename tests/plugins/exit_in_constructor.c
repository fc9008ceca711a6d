/* Ends the process from a constructor, as dlopen runs it: the worker
 * never answers, and the plugin must be named as the one that ended it. */
#include "test_plugin_common.h"
#include <stdlib.h>
__attribute__((constructor)) static void leave(void)
{
	exit(0);
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("exit_in_constructor"),
};
ALLOCLAB_PLUGIN_DEFINE(desc)
