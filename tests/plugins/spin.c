/*
 * A working allocator (glibc's) that spins for a known time on some
 * mallocs, for the latency tests: every N-th malloc of the process
 * (every=N, default 1000; 0: none), or every malloc of one size (size=S),
 * spins us=U microseconds (default 200) on the clock.
 *
 * work=K adds a fixed cost to every malloc instead, one too small for the
 * clock: K steps of a dependent multiply chain (a few cycles each, the
 * same on every call), for the paired mode's resolution figures
 * (benchmarks/resolve-small.sh): spin:work=20 against spin:work=21 is a
 * difference of a few percent that no clock reading could make exact.
 */
#include "test_plugin_common.h"
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
static atomic_ulong calls;
static uint64_t every = 1000, spin_size, spin_us = 200, work;
static int spin_create(const char *options, void **instance, char *err, size_t err_len)
{
	const char *cur = options;
	struct alloclab_option opt;
	int rc;
	while ((rc = alloclab_option_next(&cur, &opt)) > 0) {
		uint64_t *dst = alloclab_option_is(&opt, "every") ? &every
				: alloclab_option_is(&opt, "size") ? &spin_size
				: alloclab_option_is(&opt, "us")   ? &spin_us
				: alloclab_option_is(&opt, "work") ? &work
								   : NULL;
		if (dst == NULL)
			return alloclab_option_unknown(&opt, err, err_len);
		if (alloclab_option_u64(&opt, dst) != 0)
			return alloclab_option_bad_value(&opt, "a count", err, err_len);
	}
	if (rc < 0)
		return alloclab_option_malformed(cur, err, err_len);
	*instance = NULL;
	return 0;
}
static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static void *spin_malloc(void *instance, size_t size)
{
	(void)instance;
	unsigned long n = atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed) + 1;
	if (work) {
		uint64_t x = n;
		for (uint64_t k = 0; k < work; k++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
			/* A volatile asm is never dropped: each step stays. */
			__asm__ volatile("" : "+r"(x));
		}
		return malloc(size);
	}
	if (spin_size ? size == spin_size : every && n % every == 0) {
		uint64_t until = now_ns() + spin_us * 1000;
		while (now_ns() < until)
			;
	}
	return malloc(size);
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("spin"),
	.create = spin_create,
	.malloc = spin_malloc,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
