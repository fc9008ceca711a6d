/* Crashes in its entry function (alloclab_plugin_entry), after its
 * constructors ran: the message must name the plugin and the step. */
#include "test_plugin_common.h"
#include <signal.h>
static const struct alloclab_plugin desc = {TEST_PLUGIN_BASE("crash_in_entry")};
ALLOCLAB_PLUGIN_EXPORT const struct alloclab_plugin *alloclab_plugin_entry(uint32_t host_abi_version)
{
	(void)host_abi_version;
	raise(SIGSEGV);
	return &desc;
}
