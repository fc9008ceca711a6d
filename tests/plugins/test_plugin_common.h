/*
 * Shared body of the deliberately broken test plugins: a working allocator
 * on top of glibc. Each broken plugin includes this, then defines its
 * descriptor with one thing wrong.
 */
#ifndef TEST_PLUGIN_COMMON_H
#define TEST_PLUGIN_COMMON_H

#include <alloclab/plugin.h>
#include <alloclab/plugin_options.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static int test_create(const char *options, void **instance, char *err, size_t err_len)
{
	(void)options; (void)err; (void)err_len;
	*instance = NULL;
	return 0;
}

static void test_destroy(void *instance) { (void)instance; }

static void *test_malloc(void *instance, size_t size)
{
	(void)instance;
	return malloc(size);
}

static void test_free(void *instance, void *block)
{
	(void)instance;
	free(block);
}

#define TEST_PLUGIN_BASE(plugin_name)                                          \
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,                            \
	.struct_size = sizeof(struct alloclab_plugin), .name = plugin_name,    \
	.version = "0", .description = "test plugin",                          \
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE,     \
	.create = test_create, .destroy = test_destroy, .malloc = test_malloc, \
	.free = test_free

#endif
