/* Counts every call it serves (malloc, calloc, realloc, free) and the frees
 * of blocks another thread allocated: every block carries its allocating
 * thread's token in a 16-byte header. Thread-safe, frees across threads
 * allowed; its statistics say how many there were. Option fail_above=N:
 * requests above N bytes get NULL, as an exhausted allocator's would. For
 * the multithreaded workloads' remote frees and the python workload's
 * routing. */
#include "test_plugin_common.h"
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
static _Thread_local char token;
static atomic_ulong mallocs, callocs, reallocs, frees, cross;
static size_t fail_above = SIZE_MAX;
static int pc_create(const char *options, void **instance, char *err, size_t err_len)
{
	const char *cursor = options;
	struct alloclab_option opt;
	int rc;
	while ((rc = alloclab_option_next(&cursor, &opt)) > 0) {
		uint64_t v;
		if (!alloclab_option_is(&opt, "fail_above"))
			return alloclab_option_unknown(&opt, err, err_len);
		if (alloclab_option_u64(&opt, &v) != 0)
			return alloclab_option_bad_value(&opt, "a number of bytes", err, err_len);
		fail_above = (size_t)v;
	}
	if (rc < 0)
		return alloclab_option_malformed(cursor, err, err_len);
	*instance = NULL;
	return 0;
}
static void *header(unsigned char *p)
{
	if (p == NULL)
		return NULL;
	*(char **)p = &token;
	return p + 16;
}
static void *pc_malloc(void *instance, size_t size)
{
	(void)instance;
	if (size > fail_above || size > SIZE_MAX - 16)
		return NULL;
	atomic_fetch_add(&mallocs, 1);
	return header(malloc(size + 16));
}
static void *pc_calloc(void *instance, size_t n, size_t size)
{
	(void)instance;
	if (size && n > (SIZE_MAX - 16) / size)
		return NULL;
	if (n * size > fail_above)
		return NULL;
	atomic_fetch_add(&callocs, 1);
	return header(calloc(1, n * size + 16));
}
static void pc_free(void *instance, void *block)
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
static void *pc_realloc(void *instance, void *block, size_t size)
{
	(void)instance;
	if (size > fail_above || size > SIZE_MAX - 16)
		return NULL;
	atomic_fetch_add(&reallocs, 1);
	if (block == NULL)
		return header(malloc(size + 16));
	unsigned char *p = (unsigned char *)block - 16;
	if (*(char **)p != &token)
		atomic_fetch_add(&cross, 1);
	return header(realloc(p, size + 16));
}
static int pc_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	(void)instance;
	emit(arg, "mallocs", atomic_load(&mallocs));
	emit(arg, "callocs", atomic_load(&callocs));
	emit(arg, "reallocs", atomic_load(&reallocs));
	emit(arg, "frees", atomic_load(&frees));
	emit(arg, "cross_thread_frees", atomic_load(&cross));
	return 0;
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("thread-counting"),
	.create = pc_create,
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_STATS | ALLOCLAB_CAP_CALLOC |
		ALLOCLAB_CAP_REALLOC,
	.malloc = pc_malloc,
	.free = pc_free,
	.calloc = pc_calloc,
	.realloc = pc_realloc,
	.stats = pc_stats,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
