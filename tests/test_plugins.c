/*
 * The bundled plugins keep the ABI's promises and really use the allocator
 * they name; loading them never replaces the process's own malloc.
 */
#define _GNU_SOURCE 1
#include "plugin/allocator.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char err[ALLOCLAB_ERR_LEN];

static void open_plugin(const char *spec, const char *options, struct alloclab_loaded_plugin *p,
			struct alloclab_allocator *a)
{
	cr_assert_eq(alloclab_plugin_load(spec, p, err, sizeof err), 0, "%s", err);
	cr_assert_eq(alloclab_allocator_create(a, p, options, err, sizeof err), 0, "%s", err);
	if (a->ops.thread_attach)
		cr_assert_eq(a->ops.thread_attach(a->instance), 0);
}

static const char *const bundled[] = {"system", "jemalloc", "mimalloc"};

/* Parameters are indices: Criterion may run each test in a freshly executed
 * process, where pointers taken in the parent would be meaningless. */
ParameterizedTestParameters(plugins, abi_promises)
{
	static int indices[] = {0, 1, 2};
	return cr_make_param_array(int, indices, sizeof indices / sizeof indices[0]);
}

ParameterizedTest(int *index, plugins, abi_promises)
{
	const char *const *name = &bundled[*index];
	struct alloclab_loaded_plugin p;
	struct alloclab_allocator a;
	static void *blocks[4096];

	open_plugin(*name, "", &p, &a);
	for (size_t i = 0; i < 4096; i++) {
		size_t size = (i * 37) % 70000;
		blocks[i] = alloclab_malloc(&a, size);
		cr_assert_not_null(blocks[i], "%s: malloc(%zu) returned NULL", *name, size);
		cr_expect_eq((uintptr_t)blocks[i] % a.min_align, 0, "%s: malloc(%zu) below its min_align", *name, size);
		if (size >= 16)
			cr_expect_eq((uintptr_t)blocks[i] % 16, 0, "%s: malloc(%zu) not 16-aligned", *name, size);
		memset(blocks[i], 0xab, size);
		if (a.ops.usable_size && !getenv("ALLOCLAB_UNDER_VALGRIND"))
			cr_expect_geq(a.ops.usable_size(a.instance, blocks[i]), size);
	}
	for (size_t i = 0; i < 4096; i++)
		alloclab_free(&a, blocks[i]);
	void *zero1 = alloclab_malloc(&a, 0), *zero2 = alloclab_malloc(&a, 0);
	cr_expect(zero1 && zero2 && zero1 != zero2, "%s: malloc(0) must give unique blocks", *name);
	alloclab_free(&a, zero1);
	alloclab_free(&a, zero2);
	alloclab_free(&a, NULL);
	cr_expect_null(alloclab_malloc(&a, SIZE_MAX), "%s: malloc(SIZE_MAX)", *name);
	cr_expect_null(alloclab_calloc(&a, SIZE_MAX / 2, 4), "%s: calloc overflow", *name);
	unsigned char *z = alloclab_calloc(&a, 100, 10);
	for (size_t i = 0; i < 1000; i++)
		cr_expect_eq(z[i], 0);
	alloclab_free(&a, z);
	if (a.ops.aligned_alloc)
		for (size_t align = 16; align <= (2u << 20); align <<= 1) {
			void *b = a.ops.aligned_alloc(a.instance, align, 100);
			cr_expect(b && (uintptr_t)b % align == 0, "%s: aligned_alloc(%zu)", *name, align);
			alloclab_free(&a, b);
		}
	if (a.ops.thread_detach)
		a.ops.thread_detach(a.instance);
	alloclab_allocator_destroy(&a);
}

static const char *library_of(void *fn)
{
	Dl_info info;
	return dladdr(fn, &info) && info.dli_fname ? info.dli_fname : "";
}

Test(plugins, loading_never_replaces_the_process_malloc)
{
	struct alloclab_loaded_plugin p;
	struct alloclab_allocator a;
	open_plugin("jemalloc", "", &p, &a);
	open_plugin("mimalloc", "", &p, &a);
	/* libc's, or a sanitizer runtime's in a sanitized build; never a plugin's. */
	const char *from = library_of(dlsym(RTLD_DEFAULT, "malloc"));
	cr_expect(strstr(from, "jemalloc") == NULL && strstr(from, "mimalloc") == NULL && strstr(from, "python") == NULL,
		  "malloc now from %s", from);
	cr_expect(strstr(from, "libc.so") || strstr(from, "san.so"), "malloc from %s", from);
}

static uint64_t stat_allocated;
static void grab_allocated(void *arg, const char *name, uint64_t value)
{
	(void)arg;
	if (strcmp(name, "allocated") == 0)
		stat_allocated = value;
}

/* valgrind puts its own allocator in place of every library's malloc, so
 * an allocator's identity cannot be checked under it. */
static void skip_under_valgrind(void)
{
	if (getenv("ALLOCLAB_UNDER_VALGRIND"))
		cr_skip_test("valgrind replaces the allocators' malloc with its own");
}

/* If the plugin's malloc had resolved to glibc, jemalloc's own counters
 * would not see these 64 MiB. */
static void jemalloc_counts_its_blocks(const char *options)
{
	skip_under_valgrind();
	struct alloclab_loaded_plugin p;
	struct alloclab_allocator a;
	static void *blocks[1024];

	open_plugin("jemalloc", options, &p, &a);
	cr_assert_eq(a.ops.stats(a.instance, grab_allocated, NULL), 0);
	uint64_t before = stat_allocated;
	for (size_t i = 0; i < 1024; i++)
		blocks[i] = alloclab_malloc(&a, 65536);
	a.ops.stats(a.instance, grab_allocated, NULL);
	cr_expect_geq(stat_allocated - before, 1024u * 65536u, "jemalloc saw %llu bytes",
		      (unsigned long long)(stat_allocated - before));
	for (size_t i = 0; i < 1024; i++)
		alloclab_free(&a, blocks[i]);
}

Test(plugins, jemalloc_std_api_is_jemalloc) { jemalloc_counts_its_blocks(""); }
Test(plugins, jemalloc_ext_api_is_jemalloc) { jemalloc_counts_its_blocks("api=ext"); }

Test(plugins, mimalloc_blocks_are_mimallocs)
{
	struct alloclab_loaded_plugin p;
	struct alloclab_allocator a;
	skip_under_valgrind();
	open_plugin("mimalloc", "", &p, &a);
	void *b = alloclab_malloc(&a, 100);
	/* mi_usable_size of a block mimalloc did not allocate is 0 or a crash;
	 * of its own 100-byte request, mimalloc's 112-byte size class. */
	cr_expect_eq(a.ops.usable_size(a.instance, b), 112);
	alloclab_free(&a, b);
}
