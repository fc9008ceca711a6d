/* Crashes (SIGSEGV) on its n-th malloc in a process; option n=N (default 1000). */
#include "test_plugin_common.h"
#include <signal.h>
#include <stdatomic.h>
static atomic_ulong calls;
static unsigned long crash_at = 1000;
static int crash_create(const char *options, void **instance, char *err, size_t err_len)
{
	const char *cur = options;
	struct alloclab_option opt;
	uint64_t n;
	int rc;
	while ((rc = alloclab_option_next(&cur, &opt)) > 0) {
		if (!alloclab_option_is(&opt, "n"))
			return alloclab_option_unknown(&opt, err, err_len);
		if (alloclab_option_u64(&opt, &n) != 0)
			return alloclab_option_bad_value(&opt, "a count", err, err_len);
		crash_at = (unsigned long)n;
	}
	if (rc < 0)
		return alloclab_option_malformed(cur, err, err_len);
	*instance = NULL;
	return 0;
}
static void *crash_malloc(void *instance, size_t size)
{
	(void)instance;
	if (atomic_fetch_add(&calls, 1) + 1 == crash_at)
		raise(SIGSEGV);
	return malloc(size);
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("crash-nth"),
	.create = crash_create,
	.malloc = crash_malloc,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
