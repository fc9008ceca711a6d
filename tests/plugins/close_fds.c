/* Closes descriptors 0 to 20 in its entry function, the worker's answer
 * pipe among them: the worker cannot answer, and the plugin must be named
 * as the one that closed it. */
#include "test_plugin_common.h"
#include <unistd.h>
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("close_fds"),
};
ALLOCLAB_PLUGIN_EXPORT const struct alloclab_plugin *alloclab_plugin_entry(uint32_t host_abi_version)
{
	(void)host_abi_version;
	for (int fd = 0; fd <= 20; fd++)
		close(fd);
	return &desc;
}
