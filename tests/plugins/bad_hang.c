/* calloc never returns (unless the product overflows): fails "contents" by
 * timing out. */
#include "test_plugin_common.h"
#include <stdint.h>
#include <unistd.h>
static void *hanging_calloc(void *instance, size_t nmemb, size_t size)
{
	(void)instance;
	if (size && nmemb > SIZE_MAX / size)
		return NULL;
	for (;;)
		pause();
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("bad-hang"),
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_CALLOC,
	.calloc = hanging_calloc,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
