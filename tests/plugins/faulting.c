/*
 * glibc's allocator plus a known number of page faults: every N-th malloc
 * of the process (every=N, default 10; 0: none) maps a fresh anonymous
 * page, touches it (one first-touch fault) and unmaps it, as an allocator
 * that returns memory to the kernel and takes it back does. For the tests
 * of faults counted per plugin, paired in one process included.
 */
#define _GNU_SOURCE 1
#include "test_plugin_common.h"
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
static atomic_ulong calls;
static uint64_t every = 10;
static int faulting_create(const char *options, void **instance, char *err, size_t err_len)
{
	const char *cur = options;
	struct alloclab_option opt;
	int rc;
	while ((rc = alloclab_option_next(&cur, &opt)) > 0) {
		if (!alloclab_option_is(&opt, "every"))
			return alloclab_option_unknown(&opt, err, err_len);
		if (alloclab_option_u64(&opt, &every) != 0)
			return alloclab_option_bad_value(&opt, "a count", err, err_len);
	}
	if (rc < 0)
		return alloclab_option_malformed(cur, err, err_len);
	*instance = NULL;
	return 0;
}
static void *faulting_malloc(void *instance, size_t size)
{
	(void)instance;
	unsigned long n = atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed) + 1;
	if (every && n % every == 0) {
		volatile unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
			p[0] = 1;
			munmap((void *)p, 4096);
		}
	}
	return malloc(size);
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("faulting"),
	/* Its count of mallocs is its copy's: two settings of it can share a
	 * paired process (the blocks are glibc's, as for in_worker.so). */
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_OWN_STATE,
	.create = faulting_create,
	.malloc = faulting_malloc,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
