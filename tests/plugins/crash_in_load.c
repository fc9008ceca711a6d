/* Crashes in its constructor, while it is being loaded: the message must
 * name the plugin and the step. */
#include "test_plugin_common.h"
#include <signal.h>
#include <stdlib.h>
__attribute__((constructor)) static void crash_now(void)
{
	if (getenv("CRASH_IN_LOAD_OFF") == NULL)
		raise(SIGSEGV);
}
static const struct alloclab_plugin desc = {TEST_PLUGIN_BASE("crash_in_load")};
ALLOCLAB_PLUGIN_DEFINE(desc)
