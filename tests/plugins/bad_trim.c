/* A working allocator whose trim op crashes (SIGSEGV). */
#include "test_plugin_common.h"
#include <signal.h>
static int bad_trim(void *instance)
{
	(void)instance;
	raise(SIGSEGV);
	return 0;
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("bad-trim"),
	.trim = bad_trim,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
