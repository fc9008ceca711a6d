/*
 * The obmalloc plugins through the ABI, as the runner uses them: modes and
 * their capabilities, per-thread mode refusing a foreign free without
 * corrupting anything, statistics, and the cpython reference plugin.
 */
#include "plugin/allocator.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
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

/* obmalloc and CPython's own on the same kind of path: each hands out a
 * front door (PyObject_Malloc and PyObject_Free, or the plugin's of the
 * same shape) that churn and the unicode workload call directly, in every
 * mode, at every preset and at custom sizes; a block from either path
 * frees through the other. */
Test(obmalloc_plugin, every_mode_and_preset_hands_out_entry_points_as_cpython_does)
{
	static const char *const radix_options[] = {
		"mode=none", "mode=gil", "mode=per-thread", "preset=classic,mode=none", "preset=table-16m-4k,mode=none",
		"preset=table-64m-16k,mode=gil", "arena=2M,pool=8K,mode=none", "check=branchless,mode=none",
	};
	static const char *const bigpool_options[] = {
		"mode=none", "mode=gil", "mode=per-thread", "preset=table-64m-16k,mode=none", "arena=2M,pool=32K,mode=none",
	};
	const char *const *sets[] = {radix_options, bigpool_options};
	size_t counts[] = {sizeof radix_options / sizeof *radix_options, sizeof bigpool_options / sizeof *bigpool_options};
	const char *names[] = {"obmalloc-radix", "obmalloc-bigpool"};

	for (int v = 0; v < 2; v++)
		for (size_t k = 0; k < counts[v]; k++) {
			struct alloclab_allocator a;
			open_plugin(names[v], sets[v][k], &a);
			cr_assert(a.direct_malloc && a.direct_free, "%s:%s hands out no entry points", names[v], sets[v][k]);
			for (size_t size = 0; size <= 2048; size += 97) {
				unsigned char *p = a.direct_malloc(size), *q = a.ops.malloc(a.instance, size);
				cr_assert(p && q);
				memset(p, 1, size);
				memset(q, 2, size);
				a.ops.free(a.instance, p);
				a.direct_free(q);
			}
			a.direct_free(NULL);
			cr_expect_null(a.direct_malloc(SIZE_MAX), "%s:%s: an impossible size", names[v], sets[v][k]);
			alloclab_allocator_destroy(&a);
		}
	struct alloclab_allocator c;
	open_plugin("cpython", "", &c);
	cr_expect(c.direct_malloc && c.direct_free, "the reference hands out CPython's own entry points");
	alloclab_allocator_destroy(&c);
}

/* The state is the process's, as CPython's is: a second live instance is
 * refused with the reason, and one may be created again after destroy. */
Test(obmalloc_plugin, one_live_instance_per_process)
{
	static struct alloclab_loaded_plugin p;
	struct alloclab_allocator a, b;
	cr_assert_eq(alloclab_plugin_load("obmalloc-radix", &p, err, sizeof err), 0, "%s", err);
	cr_assert_eq(alloclab_allocator_create(&a, &p, "mode=none", err, sizeof err), 0, "%s", err);
	cr_assert_eq(alloclab_allocator_create(&b, &p, "mode=none", err, sizeof err), -1);
	cr_expect(strstr(err, "one instance per process") != NULL, "%s", err);
	alloclab_allocator_destroy(&a);
	cr_assert_eq(alloclab_allocator_create(&b, &p, "mode=gil", err, sizeof err), 0, "%s", err);
	void *x = b.direct_malloc(24);
	cr_expect_not_null(x);
	b.direct_free(x);
	alloclab_allocator_destroy(&b);
}
