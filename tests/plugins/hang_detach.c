/* Its thread_detach never returns: every case of `alloclab check` goes
 * through it, so check must stop after the first timeout, naming the op. */
#include "test_plugin_common.h"
#include <unistd.h>
static int hd_attach(void *instance)
{
	(void)instance;
	return 0;
}
static void hd_detach(void *instance)
{
	(void)instance;
	for (;;)
		pause();
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("hang-detach"),
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_THREAD_HOOKS,
	.thread_attach = hd_attach,
	.thread_detach = hd_detach,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
