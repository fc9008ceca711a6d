/* Declares 16-byte alignment and returns 8-aligned blocks: fails "alignment". */
#include "test_plugin_common.h"
#include <stdint.h>
static void *misaligned_malloc(void *instance, size_t size)
{
	unsigned char *p;
	(void)instance;
	if (size > SIZE_MAX - 16)
		return NULL;
	p = malloc(size + 8);
	return p ? p + 8 : NULL;
}
static void misaligned_free(void *instance, void *p)
{
	(void)instance;
	if (p)
		free((unsigned char *)p - 8);
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("bad-misaligned"),
	.min_align = 16,
	.malloc = misaligned_malloc,
	.free = misaligned_free,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
