/*
 * Writes into memory it freed: every free is the C library's, at once, and
 * the pointer is kept; on a later malloc (the 64th free after it) the
 * plugin writes 0x5a at byte `at` (option at=N, default 0) of that block,
 * which the C library has most likely handed out again by then: to this
 * plugin, or to another plugin of a pair built on the C library's malloc
 * (system). Only in a measuring worker (`alloclab __worker`): the check
 * that `run` makes first must not stop it before it is paired.
 */
#include "test_plugin_common.h"

#include <string.h>

static unsigned long at;
static _Thread_local unsigned char *freed[64];
static _Thread_local unsigned next_freed;
static int in_worker = -1;

static int is_worker(void)
{
	if (in_worker < 0) {
		char buf[4096];
		FILE *f = fopen("/proc/self/cmdline", "r");
		size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
		if (f)
			fclose(f);
		in_worker = 0;
		buf[n] = '\0';
		for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
			if (strcmp(buf + i, "__worker") == 0)
				in_worker = 1;
	}
	return in_worker;
}

static int uaf_create(const char *options, void **instance, char *err, size_t err_len)
{
	const char *cur = options;
	struct alloclab_option opt;
	uint64_t n;
	int rc;
	while ((rc = alloclab_option_next(&cur, &opt)) > 0) {
		if (!alloclab_option_is(&opt, "at"))
			return alloclab_option_unknown(&opt, err, err_len);
		if (alloclab_option_u64(&opt, &n) != 0)
			return alloclab_option_bad_value(&opt, "a byte offset", err, err_len);
		at = (unsigned long)n;
	}
	if (rc < 0)
		return alloclab_option_malformed(cur, err, err_len);
	is_worker();
	*instance = NULL;
	return 0;
}

static void *uaf_malloc(void *instance, size_t size)
{
	(void)instance;
	void *b = malloc(size);
	unsigned char *old = freed[next_freed];
	if (old && in_worker == 1) {
		old[at] = 0x5a;
		freed[next_freed] = NULL;
	}
	return b;
}

static void uaf_free(void *instance, void *block)
{
	(void)instance;
	if (block == NULL)
		return;
	/* Kept before it is freed: the compiler (rightly) refuses a pointer
	 * used after free, which is what this plugin does on purpose later. */
	freed[next_freed] = block;
	next_freed = (next_freed + 1) % 64;
	free(block);
}

static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("uaf-later"),
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_OWN_STATE,
	.create = uaf_create,
	.malloc = uaf_malloc,
	.free = uaf_free,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
