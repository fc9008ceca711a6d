/* Counts the frees of blocks another thread allocated: every block carries
 * its allocating thread's token in a 16-byte header. Thread-safe, frees
 * across threads allowed; its statistics say how many there were. */
#include "test_plugin_common.h"
#include <stdatomic.h>
#include <stdint.h>
static _Thread_local char token;
static atomic_ulong mallocs, frees, cross;
static void *tc_malloc(void *instance, size_t size)
{
	(void)instance;
	unsigned char *p = malloc(size + 16);
	if (p == NULL)
		return NULL;
	*(char **)p = &token;
	atomic_fetch_add(&mallocs, 1);
	return p + 16;
}
static void tc_free(void *instance, void *block)
{
	(void)instance;
	if (block == NULL)
		return;
	unsigned char *p = (unsigned char *)block - 16;
	if (*(char **)p != &token)
		atomic_fetch_add(&cross, 1);
	atomic_fetch_add(&frees, 1);
	free(p);
}
static int tc_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	(void)instance;
	emit(arg, "mallocs", atomic_load(&mallocs));
	emit(arg, "frees", atomic_load(&frees));
	emit(arg, "cross_thread_frees", atomic_load(&cross));
	return 0;
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("thread-counting"),
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_STATS,
	.malloc = tc_malloc,
	.free = tc_free,
	.stats = tc_stats,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
