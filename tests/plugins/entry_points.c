/* Hands out entry points and counts which path each malloc took. Options:
 * refuse=1 (entry_points says -ENOTSUP), misalign=1 (the entry point's
 * blocks are one byte off: `alloclab check` must catch it). */
#include "test_plugin_common.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

static atomic_ulong op_mallocs, direct_mallocs;
static int refuse, misalign;
static _Alignas(16) unsigned char arena[1 << 20];

static int ep_create(const char *options, void **instance, char *err, size_t err_len)
{
	(void)err, (void)err_len;
	refuse = strstr(options, "refuse=1") != NULL;
	misalign = strstr(options, "misalign=1") != NULL;
	*instance = NULL;
	return 0;
}

static void *ep_malloc(void *instance, size_t size)
{
	(void)instance;
	atomic_fetch_add(&op_mallocs, 1);
	return malloc(size);
}

static void *ep_direct_malloc(size_t size)
{
	atomic_fetch_add(&direct_mallocs, 1);
	if (misalign)
		return size < sizeof arena - 1 ? arena + 1 : NULL; /* never freed: check fails first */
	return malloc(size);
}

static int ep_entry_points(void *instance, void *(**m)(size_t), void (**f)(void *))
{
	(void)instance;
	if (refuse)
		return -ENOTSUP;
	*m = ep_direct_malloc;
	*f = free;
	return 0;
}

static int ep_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	(void)instance;
	emit(arg, "op_mallocs", atomic_load(&op_mallocs));
	emit(arg, "direct_mallocs", atomic_load(&direct_mallocs));
	return 0;
}

static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("entry-points"),
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_STATS,
	.create = ep_create,
	.malloc = ep_malloc,
	.stats = ep_stats,
	.entry_points = ep_entry_points,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
