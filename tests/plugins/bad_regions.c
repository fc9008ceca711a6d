/* A working allocator whose regions op lies, one way per option:
 * inuse (more in use than the region holds), kind (no such kind), wrap
 * (a range past the end of memory), size (a size field too small for a
 * region), null (a NULL region), fail (the op returns -EIO), miscount
 * (one block in use where none lies), overlap (two spans, the second
 * starting inside the first and ending past it), manyblocks (2^64-1
 * blocks in use in 4 KiB); none: one honest, empty span. The stats op
 * emits a NULL name, an empty one and an escape sequence beside one good
 * statistic. */
#include "test_plugin_common.h"
#include <string.h>
static char mode[16];
static int bad_create(const char *options, void **instance, char *err, size_t err_len)
{
	(void)err; (void)err_len;
	snprintf(mode, sizeof mode, "%s", options);
	*instance = NULL;
	return 0;
}
static int bad_regions(void *instance, alloclab_region_fn emit, void *arg)
{
	static char span[8192];
	struct alloclab_region r = {sizeof r, ALLOCLAB_REGION_SPAN, (uintptr_t)span, 4096, 0, 0, 0, 0};
	(void)instance;
	if (strcmp(mode, "fail") == 0)
		return -EIO;
	if (strcmp(mode, "inuse") == 0)
		r.bytes_in_use = r.bytes + 1;
	else if (strcmp(mode, "kind") == 0)
		r.kind = 9;
	else if (strcmp(mode, "wrap") == 0)
		r.address = UINT64_MAX - 100;
	else if (strcmp(mode, "size") == 0)
		r.size = 8;
	else if (strcmp(mode, "manyblocks") == 0) {
		r.block_size = 16;
		r.blocks_in_use = UINT64_MAX;
	} else if (strcmp(mode, "overlap") == 0) {
		struct alloclab_region second = r;
		second.address += 2048;
		emit(arg, &second);
	} else if (strcmp(mode, "miscount") == 0) {
		r.block_size = 16;
		r.blocks_in_use = 1;
		r.bytes_in_use = 16;
	}
	if (strcmp(mode, "null") == 0)
		emit(arg, NULL);
	else
		emit(arg, &r);
	return 0;
}
static int bad_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	(void)instance;
	emit(arg, NULL, 1);
	emit(arg, "", 2);
	emit(arg, "evil\033[31m", 3);
	emit(arg, "good", 4);
	return 0;
}

static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("bad-regions"),
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_STATS,
	.create = bad_create,
	.regions = bad_regions,
	.stats = bad_stats,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
