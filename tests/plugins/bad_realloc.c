/* realloc writes 512 bytes past the new block, into its neighbours (far
 * enough to cross a sanitizer's redzones too): fails "contents". */
#include "test_plugin_common.h"
#include <string.h>
#include <malloc.h>
static void *corrupting_realloc(void *instance, void *old, size_t size)
{
	unsigned char *q;
	(void)instance;
	if (old == NULL)
		return malloc(size);
	q = malloc(size);
	if (q == NULL)
		return NULL;
	size_t have = malloc_usable_size(old);
	memcpy(q, old, have < size ? have : size);
	free(old);
	memset(q + size, 0xee, 512);
	return q;
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("bad-realloc"),
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_REALLOC,
	.realloc = corrupting_realloc,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
