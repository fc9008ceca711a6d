/*
 * For paired mode: every block carries the instance that made it, and
 * free aborts when another instance's block reaches it, so a run in which
 * two plugins' states ever mix crashes. Its statistic "creates" counts the
 * instances created from this copy of the file: 1 for each of two
 * instances loaded from private copies, 2 if they shared the file's
 * statics. alone=1: create refuses when any instance of any copy already
 * lives in the process (a plugin that cannot share one).
 */
#include "test_plugin_common.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

static unsigned long creates;

struct owner {
	unsigned long magic;
};

static int owner_create(const char *options, void **instance, char *err, size_t err_len)
{
	const char *cur = options;
	struct alloclab_option opt;
	uint64_t alone = 0;
	int rc;
	while ((rc = alloclab_option_next(&cur, &opt)) > 0) {
		if (!alloclab_option_is(&opt, "alone"))
			return alloclab_option_unknown(&opt, err, err_len);
		if (alloclab_option_u64(&opt, &alone) != 0)
			return alloclab_option_bad_value(&opt, "0 or 1", err, err_len);
	}
	if (rc < 0)
		return alloclab_option_malformed(cur, err, err_len);
	if (alone && getenv("ALLOCLAB_TEST_OWNER_LIVES")) {
		snprintf(err, err_len, "owner: another instance lives in this process");
		return -EBUSY;
	}
	setenv("ALLOCLAB_TEST_OWNER_LIVES", "1", 1);
	struct owner *o = malloc(sizeof *o);
	if (o == NULL)
		return -ENOMEM;
	o->magic = 0x0ddba11ul;
	creates++;
	*instance = o;
	return 0;
}

static void owner_destroy(void *instance)
{
	free(instance);
}

static void *owner_malloc(void *instance, size_t size)
{
	void **b = malloc(size + 16);
	if (b == NULL)
		return NULL;
	b[0] = instance;
	return (char *)b + 16;
}

static void owner_free(void *instance, void *block)
{
	if (block == NULL)
		return;
	void **b = (void **)((char *)block - 16);
	if (b[0] != instance) {
		static const char msg[] = "owner: a block of another instance was freed here\n";
		if (write(2, msg, sizeof msg - 1) < 0)
			abort();
		abort();
	}
	free(b);
}

static int owner_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	(void)instance;
	emit(arg, "creates", creates);
	return 0;
}

static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("owner"),
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_STATS | ALLOCLAB_CAP_OWN_STATE,
	.create = owner_create,
	.destroy = owner_destroy,
	.malloc = owner_malloc,
	.free = owner_free,
	.stats = owner_stats,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
