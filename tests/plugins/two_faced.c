/*
 * A plugin that behaves by where it finds itself: loaded from a file
 * whose name says "head" (as `ab` once named its HEAD copy) every malloc
 * does extra work, a fixed dependent chain the instruction counts see
 * exactly. `ab` of this one file against itself must never tell its two
 * copies apart: the copies' names and roles say nothing of which is which.
 */
#define _GNU_SOURCE 1
#include "test_plugin_common.h"
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

static int as_head = -1;

static int two_faced_create(const char *options, void **instance, char *err, size_t err_len)
{
	Dl_info info;
	(void)options, (void)err, (void)err_len;
	as_head = dladdr((void *)two_faced_create, &info) && info.dli_fname && strstr(info.dli_fname, "head") != NULL;
	*instance = NULL;
	return 0;
}

static void *two_faced_malloc(void *instance, size_t size)
{
	(void)instance;
	if (as_head == 1) {
		uint64_t x = size;
		for (int k = 0; k < 200; k++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
			__asm__ volatile("" : "+r"(x));
		}
	}
	return malloc(size);
}

static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("two_faced"),
	.create = two_faced_create,
	.malloc = two_faced_malloc,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
