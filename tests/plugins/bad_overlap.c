/* Hands out a block overlapping the previous one once more than 15000 of
 * its blocks are live (1500 under valgrind, where check does a tenth of
 * its work): `alloclab check` must fail "no-overlap", and only it. */
#include "test_plugin_common.h"
#include <stdatomic.h>
static atomic_long live;
static _Thread_local unsigned char *last;
static unsigned char *fakes[200000];
static atomic_long nfakes;
static void *overlap_malloc(void *instance, size_t size)
{
	(void)instance;
	static long threshold;
	if (threshold == 0)
		threshold = getenv("ALLOCLAB_UNDER_VALGRIND") ? 1500 : 15000;
	if (atomic_load(&live) > threshold && last != NULL && atomic_load(&nfakes) < 200000) {
		unsigned char *p = last + 16; /* inside the previous block */
		fakes[atomic_fetch_add(&nfakes, 1)] = p;
		return p;
	}
	atomic_fetch_add(&live, 1);
	last = malloc(size ? size : 1);
	return last;
}
static void overlap_free(void *instance, void *p)
{
	(void)instance;
	if (p == NULL)
		return;
	for (long i = 0; i < atomic_load(&nfakes); i++)
		if (fakes[i] == p)
			return;
	atomic_fetch_sub(&live, 1);
	free(p);
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("bad-overlap"),
	.malloc = overlap_malloc,
	.free = overlap_free,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
