/* Hangs in its constructor when the preload library loads it (so that the
 * program exec runs hangs, not alloclab's own probe of it). */
#include "test_plugin_common.h"
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void hang_now(void)
{
	if (getenv("ALLOCLAB_PRELOAD_PLUGIN"))
		for (;;)
			pause();
}
static const struct alloclab_plugin desc = {TEST_PLUGIN_BASE("hang_in_load")};
ALLOCLAB_PLUGIN_DEFINE(desc)
