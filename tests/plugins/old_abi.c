/* Built against an older, shorter descriptor: struct_size stops after the
 * last required op. The loader must accept it with every optional op NULL,
 * even though the bytes after struct_size hold garbage. */
#include "test_plugin_common.h"
#include <stddef.h>
static const struct {
	struct alloclab_plugin desc;
} holder = {{
	TEST_PLUGIN_BASE("old-abi"),
	.struct_size = offsetof(struct alloclab_plugin, free) + sizeof(void *),
	/* Past struct_size: an old plugin's memory here is not a descriptor. */
	.calloc = (void *(*)(void *, size_t, size_t))0x1,
}};
ALLOCLAB_PLUGIN_DEFINE(holder.desc)
