/*
 * The obmalloc plugins through the ABI, as the runner uses them: modes and
 * their capabilities, per-thread mode refusing a foreign free without
 * corrupting anything, statistics, and the cpython reference plugin.
 */
#include "allocator.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static char err[ALLOCLAB_ERR_LEN];

static void open_plugin(const char *spec, const char *options, struct alloclab_allocator *a)
{
	static struct alloclab_loaded_plugin p;
	cr_assert_eq(alloclab_plugin_load(spec, &p, err, sizeof err), 0, "%s", err);
	cr_assert_eq(alloclab_allocator_create(a, &p, options, err, sizeof err), 0, "%s", err);
}

static uint64_t found_value;
static const char *wanted;
static void find_stat(void *arg, const char *name, uint64_t value)
{
	(void)arg;
	if (strcmp(name, wanted) == 0)
		found_value = value;
}

static uint64_t stat_value(struct alloclab_allocator *a, const char *name)
{
	wanted = name;
	found_value = UINT64_MAX;
	cr_assert_eq(a->ops.stats(a->instance, find_stat, NULL), 0);
	cr_assert_neq(found_value, UINT64_MAX, "no statistic %s", name);
	return found_value;
}

Test(obmalloc_plugin, modes_declare_what_they_can_do)
{
	struct alloclab_allocator a;
	open_plugin("obmalloc-radix", "mode=none", &a);
	cr_expect_eq(a.caps & (ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE), 0);
	alloclab_allocator_destroy(&a);
	open_plugin("obmalloc-radix", "mode=gil", &a);
	cr_expect(a.caps & ALLOCLAB_CAP_CROSS_THREAD_FREE);
	alloclab_allocator_destroy(&a);
	open_plugin("obmalloc-bigpool", "mode=per-thread", &a);
	cr_expect(a.caps & ALLOCLAB_CAP_THREAD_SAFE);
	cr_expect_eq(a.caps & ALLOCLAB_CAP_CROSS_THREAD_FREE, 0);
	alloclab_allocator_destroy(&a);
}

struct handoff {
	struct alloclab_allocator *a;
	unsigned char *block;
};

static void *owner_thread(void *arg)
{
	struct handoff *h = arg;
	h->a->ops.thread_attach(h->a->instance);
	h->block = alloclab_malloc(h->a, 64);
	memset(h->block, 0x5a, 64);
	return NULL;
}

static void *thief_thread(void *arg)
{
	struct handoff *h = arg;
	h->a->ops.thread_attach(h->a->instance);
	alloclab_free(h->a, h->block);
	cr_expect_null(h->a->ops.realloc(h->a->instance, h->block, 100), "foreign realloc not refused");
	/* Our own state still works. */
	void *mine = alloclab_malloc(h->a, 64);
	cr_expect_neq(mine, h->block, "the foreign block was put on our free list");
	alloclab_free(h->a, mine);
	h->a->ops.thread_detach(h->a->instance);
	return NULL;
}

static void foreign_free_is_refused(const char *plugin)
{
	struct alloclab_allocator a;
	struct handoff h = {&a, NULL};
	pthread_t t;

	open_plugin(plugin, "mode=per-thread", &a);
	pthread_create(&t, NULL, owner_thread, &h);
	pthread_join(t, NULL);
	pthread_create(&t, NULL, thief_thread, &h);
	pthread_join(t, NULL);
	for (int i = 0; i < 64; i++)
		cr_assert_eq(h.block[i], 0x5a, "the refused block was written to (byte %d)", i);
	cr_expect_eq(stat_value(&a, "errors.foreign_free"), 2, "one free and one realloc refused");
	alloclab_allocator_destroy(&a);
}

Test(obmalloc_plugin, per_thread_radix_refuses_foreign_free) { foreign_free_is_refused("obmalloc-radix"); }
Test(obmalloc_plugin, per_thread_bigpool_refuses_foreign_free) { foreign_free_is_refused("obmalloc-bigpool"); }

Test(obmalloc_plugin, stats_identity_through_the_abi)
{
	static const char *const plugins[] = {"obmalloc-radix", "obmalloc-bigpool"};
	for (int k = 0; k < 2; k++) {
		struct alloclab_allocator a;
		void *blocks[5000];
		open_plugin(plugins[k], "preset=table-16m-4k", &a);
		for (int i = 0; i < 5000; i++)
			blocks[i] = alloclab_malloc(&a, (size_t)(i % 500) + 1);
		cr_expect_eq(stat_value(&a, "bytes.total"), stat_value(&a, "arenas.current") * (16u << 20));
		cr_expect_eq(stat_value(&a, "config.arena_size"), 16u << 20);
		cr_expect_geq(stat_value(&a, "bytes.allocated_blocks"), 5000u * 16);
		for (int i = 0; i < 5000; i++)
			alloclab_free(&a, blocks[i]);
		alloclab_allocator_destroy(&a);
	}
}

Test(obmalloc_plugin, cpython_reference_reports_its_own_stats)
{
	struct alloclab_allocator a;
	void *blocks[3000];
	open_plugin("cpython", "", &a);
	cr_expect_eq(a.caps & ALLOCLAB_CAP_THREAD_SAFE, 0, "mode=none is single-threaded");
	for (int i = 0; i < 3000; i++)
		blocks[i] = alloclab_malloc(&a, 100);
	uint64_t arenas = stat_value(&a, "arenas.current");
	cr_expect_geq(arenas, 1);
	/* CPython 3.11's arenas are 1 MiB: its own Total obeys the identity. */
	cr_expect_eq(stat_value(&a, "bytes.total"), arenas << 20);
	cr_expect_geq(stat_value(&a, "bytes.allocated_blocks"), 3000u * 112);
	for (int i = 0; i < 3000; i++)
		alloclab_free(&a, blocks[i]);
}

/* The class table of `alloclab stats` (pools, blocks in use, available
 * blocks per size class) after the same requests: obmalloc-radix at
 * CPython's own sizes must match CPython's obmalloc line for line. */
static char *class_table(const char *plugin, const char *workload)
{
	struct cmd_result r = run_alloclab(NULL, (const char *const[]){"stats", plugin, "-w", workload, NULL});
	cr_assert_eq(r.status, 0, "%s: %s", plugin, r.err);
	char *start = strstr(r.out, "class   size"), *end = start ? strstr(start, "\n\n") : NULL;
	cr_assert(start && end, "%s: no class table in: %s", plugin, r.out);
	*end = '\0';
	char *table = strdup(start);
	cmd_result_free(&r);
	return table;
}

Test(obmalloc_plugin, radix_class_tables_match_cpythons, .timeout = 120)
{
	static const char *const workloads[] = {
		"churn:slots=3000,ops=50000", "churn:slots=20000,ops=100000,min_size=100,max_size=300,seed=9",
		"unicode:words=512,rounds=2,layout=py26-ucs4,freelist=1",
	};
	static const char *const modes[] = {"obmalloc-radix:mode=none", "obmalloc-radix:mode=gil",
					    "obmalloc-radix:mode=per-thread", "obmalloc-radix:mode=none,check=branchless"};
	for (size_t w = 0; w < sizeof workloads / sizeof *workloads; w++) {
		char *want = class_table("cpython", workloads[w]);
		for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
			char *got = class_table(modes[m], workloads[w]);
			cr_expect_str_eq(got, want, "%s after %s differs from cpython", modes[m], workloads[w]);
			free(got);
		}
		free(want);
	}
}
