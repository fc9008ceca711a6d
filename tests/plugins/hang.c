/* Never returns from its 100th malloc: the runner's timeout must catch it. */
#include "test_plugin_common.h"
#include <stdatomic.h>
#include <unistd.h>
static atomic_ulong calls;
static void *hang_malloc(void *instance, size_t size)
{
	(void)instance;
	if (atomic_fetch_add(&calls, 1) == 100)
		for (;;)
			pause();
	return malloc(size);
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("hang"),
	.malloc = hang_malloc,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
