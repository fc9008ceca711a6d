/* free(NULL) crashes, though the ABI says it does nothing: fails "edge-sizes"
 * with the signal named. */
#include "test_plugin_common.h"
static void crashing_free(void *instance, void *p)
{
	(void)instance;
	*(volatile unsigned char *)p = 0; /* NULL: SIGSEGV */
	free(p);
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("bad-crash-free"),
	.free = crashing_free,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
