/* Offers a program API whose calloc does not zero (it fills): the
 * honesty case must say so. */
#include "test_plugin_common.h"
#include <string.h>
static void *dirty_calloc(size_t nmemb, size_t size)
{
	void *p = malloc(nmemb * size);
	if (p)
		memset(p, 0xff, nmemb * size);
	return p;
}
static int lying_program_api(void *instance, struct alloclab_program_api *api)
{
	(void)instance;
	api->malloc = malloc;
	api->free = free;
	api->calloc = dirty_calloc;
	return 0;
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("bad_program_api"),
	.program_api = lying_program_api,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
