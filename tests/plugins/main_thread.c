/* Counts the ops made on the process's main thread and the thread hooks
 * called there. Built twice: as ABI version 2 (main_thread.so), whose
 * workload thread 0 is the main thread, and as version 1 (main_thread_v1.so),
 * which was promised its hooks never run there. */
#define _GNU_SOURCE 1
#include "test_plugin_common.h"

#include <stdatomic.h>
#include <unistd.h>

#ifndef MAIN_THREAD_ABI
#define MAIN_THREAD_ABI ALLOCLAB_PLUGIN_ABI_VERSION
#endif

static atomic_ulong main_ops, main_hooks;

static int on_main(void)
{
	return gettid() == getpid();
}

static void *mt_malloc(void *instance, size_t size)
{
	if (on_main())
		atomic_fetch_add(&main_ops, 1);
	return test_malloc(instance, size);
}

static int mt_attach(void *instance)
{
	(void)instance;
	if (on_main())
		atomic_fetch_add(&main_hooks, 1);
	return 0;
}

static void mt_detach(void *instance)
{
	(void)instance;
	if (on_main())
		atomic_fetch_add(&main_hooks, 1);
}

static int mt_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	(void)instance;
	emit(arg, "main_thread_mallocs", atomic_load(&main_ops));
	emit(arg, "main_thread_hooks", atomic_load(&main_hooks));
	return 0;
}

static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("main-thread"),
	.abi_version = MAIN_THREAD_ABI,
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_STATS |
		ALLOCLAB_CAP_THREAD_HOOKS,
	.malloc = mt_malloc,
	.thread_attach = mt_attach,
	.thread_detach = mt_detach,
	.stats = mt_stats,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
