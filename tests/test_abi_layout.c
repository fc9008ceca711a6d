/*
 * The plugin ABI's layout, pinned: every field's offset and size in the
 * descriptor, the capability bits and the constants a built plugin carries.
 * Plugins are built outside the project against some version of plugin.h
 * and loaded by this host, so a field that moves, grows or changes type
 * breaks every one of them silently. This test fails on any such change;
 * the fix is then either to undo it or to bump ALLOCLAB_PLUGIN_ABI_VERSION
 * (plugin.h, "Versioning") and update these numbers in the same change.
 * Appending an op at the end is compatible: add its line here.
 *
 * The workload interface (framework/workload/workload.h) is internal, compiled
 * with alloclab, but out-of-tree workloads are built against it too; its
 * layout is pinned the same way so that a change to it is deliberate.
 *
 * The numbers are for LP64 (x86-64, AArch64): 8-byte pointers.
 */
#include "workload/workload.h"

#include <alloclab/plugin.h>
#include <criterion/criterion.h>
#include <stddef.h>

struct field {
	const char *name;
	size_t offset, size, expected_offset, expected_size;
};

#define FIELD(type, member, off, sz) {#member, offsetof(type, member), sizeof(((type *)0)->member), off, sz}

static void expect_layout(const char *type, const struct field *f, size_t n, size_t size, size_t expected_size)
{
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(f[i].offset, f[i].expected_offset, "%s.%s moved: offset %zu, pinned at %zu", type, f[i].name,
			     f[i].offset, f[i].expected_offset);
		cr_expect_eq(f[i].size, f[i].expected_size, "%s.%s changed size: %zu bytes, pinned at %zu", type,
			     f[i].name, f[i].size, f[i].expected_size);
	}
	cr_expect_eq(size, expected_size, "sizeof(%s) is %zu, pinned at %zu", type, size, expected_size);
}

Test(abi_layout, the_plugin_descriptor)
{
	if (sizeof(void *) != 8)
		cr_skip_test("the pinned layout is LP64's");
	const struct field f[] = {
		FIELD(struct alloclab_plugin, abi_version, 0, 4),
		FIELD(struct alloclab_plugin, struct_size, 4, 4),
		FIELD(struct alloclab_plugin, name, 8, 8),
		FIELD(struct alloclab_plugin, version, 16, 8),
		FIELD(struct alloclab_plugin, description, 24, 8),
		FIELD(struct alloclab_plugin, options_help, 32, 8),
		FIELD(struct alloclab_plugin, caps, 40, 8),
		FIELD(struct alloclab_plugin, min_align, 48, 4),
		FIELD(struct alloclab_plugin, reserved0, 52, 4),
		FIELD(struct alloclab_plugin, create, 56, 8),
		FIELD(struct alloclab_plugin, destroy, 64, 8),
		FIELD(struct alloclab_plugin, malloc, 72, 8),
		FIELD(struct alloclab_plugin, free, 80, 8),
		FIELD(struct alloclab_plugin, calloc, 88, 8),
		FIELD(struct alloclab_plugin, realloc, 96, 8),
		FIELD(struct alloclab_plugin, aligned_alloc, 104, 8),
		FIELD(struct alloclab_plugin, usable_size, 112, 8),
		FIELD(struct alloclab_plugin, free_sized, 120, 8),
		FIELD(struct alloclab_plugin, thread_attach, 128, 8),
		FIELD(struct alloclab_plugin, thread_detach, 136, 8),
		FIELD(struct alloclab_plugin, stats, 144, 8),
		FIELD(struct alloclab_plugin, instance_caps, 152, 8),
		FIELD(struct alloclab_plugin, entry_points, 160, 8),
		FIELD(struct alloclab_plugin, program_api, 168, 8),
		FIELD(struct alloclab_plugin, trim, 176, 8),
		FIELD(struct alloclab_plugin, regions, 184, 8),
	};
	expect_layout("struct alloclab_plugin", f, sizeof f / sizeof *f, sizeof(struct alloclab_plugin), 192);
}

Test(abi_layout, the_region)
{
	if (sizeof(void *) != 8)
		cr_skip_test("the pinned layout is LP64's");
	const struct field f[] = {
		FIELD(struct alloclab_region, size, 0, 4),
		FIELD(struct alloclab_region, kind, 4, 4),
		FIELD(struct alloclab_region, address, 8, 8),
		FIELD(struct alloclab_region, bytes, 16, 8),
		FIELD(struct alloclab_region, block_size, 24, 8),
		FIELD(struct alloclab_region, bytes_in_use, 32, 8),
		FIELD(struct alloclab_region, blocks_in_use, 40, 8),
		FIELD(struct alloclab_region, blocks, 48, 8),
	};
	expect_layout("struct alloclab_region", f, sizeof f / sizeof *f, sizeof(struct alloclab_region), 56);
}

Test(abi_layout, the_program_api)
{
	if (sizeof(void *) != 8)
		cr_skip_test("the pinned layout is LP64's");
	const struct field f[] = {
		FIELD(struct alloclab_program_api, size, 0, 8),
		FIELD(struct alloclab_program_api, malloc, 8, 8),
		FIELD(struct alloclab_program_api, free, 16, 8),
		FIELD(struct alloclab_program_api, calloc, 24, 8),
		FIELD(struct alloclab_program_api, realloc, 32, 8),
		FIELD(struct alloclab_program_api, aligned_alloc, 40, 8),
		FIELD(struct alloclab_program_api, usable_size, 48, 8),
	};
	expect_layout("struct alloclab_program_api", f, sizeof f / sizeof *f, sizeof(struct alloclab_program_api), 56);
}

Test(abi_layout, the_constants_a_plugin_is_built_with)
{
	cr_expect_eq(ALLOCLAB_PLUGIN_ABI_VERSION, 2u);
	cr_expect_eq(ALLOCLAB_DEFAULT_MIN_ALIGN, 16u);
	cr_expect_str_eq(ALLOCLAB_PLUGIN_ENTRY_SYMBOL, "alloclab_plugin_entry");
	cr_expect_eq(ALLOCLAB_CAP_THREAD_SAFE, 1u << 0);
	cr_expect_eq(ALLOCLAB_CAP_CROSS_THREAD_FREE, 1u << 1);
	cr_expect_eq(ALLOCLAB_CAP_SIZED_FREE, 1u << 2);
	cr_expect_eq(ALLOCLAB_CAP_ALIGNED_ALLOC, 1u << 3);
	cr_expect_eq(ALLOCLAB_CAP_USABLE_SIZE, 1u << 4);
	cr_expect_eq(ALLOCLAB_CAP_STATS, 1u << 5);
	cr_expect_eq(ALLOCLAB_CAP_CALLOC, 1u << 6);
	cr_expect_eq(ALLOCLAB_CAP_REALLOC, 1u << 7);
	cr_expect_eq(ALLOCLAB_CAP_THREAD_HOOKS, 1u << 8);
}

Test(abi_layout, the_workload_interface)
{
	if (sizeof(void *) != 8)
		cr_skip_test("the pinned layout is LP64's");
	const struct field w[] = {
		FIELD(struct alloclab_workload, name, 0, 8),
		FIELD(struct alloclab_workload, description, 8, 8),
		FIELD(struct alloclab_workload, unit_op, 16, 8),
		FIELD(struct alloclab_workload, params, 24, 8),
		FIELD(struct alloclab_workload, nparams, 32, 4),
		FIELD(struct alloclab_workload, flags, 36, 4),
		FIELD(struct alloclab_workload, max_threads, 40, 4),
		FIELD(struct alloclab_workload, check_params, 48, 8),
		FIELD(struct alloclab_workload, prepare, 56, 8),
		FIELD(struct alloclab_workload, run, 64, 8),
		FIELD(struct alloclab_workload, finish, 72, 8),
		FIELD(struct alloclab_workload, default_processes, 80, 4),
		FIELD(struct alloclab_workload, default_values, 84, 4),
		FIELD(struct alloclab_workload, default_warmups, 88, 4),
		FIELD(struct alloclab_workload, shared_size, 96, 8),
		FIELD(struct alloclab_workload, check_report, 104, 8),
		FIELD(struct alloclab_workload, print_cell, 112, 8),
		FIELD(struct alloclab_workload, row_name, 120, 8),
		FIELD(struct alloclab_workload, figures, 128, 8),
		FIELD(struct alloclab_workload, expand, 136, 8),
		FIELD(struct alloclab_workload, exec_worker, 144, 8),
		FIELD(struct alloclab_workload, plan_not_applicable, 152, 8),
		FIELD(struct alloclab_workload, check_blocks, 160, 8),
	};
	expect_layout("struct alloclab_workload", w, sizeof w / sizeof *w, sizeof(struct alloclab_workload), 168);
	const struct field t[] = {
		FIELD(struct alloclab_workload_thread, alloc, 0, 8),
		FIELD(struct alloclab_workload_thread, plugin, 8, 8),
		FIELD(struct alloclab_workload_thread, plugin_options, 16, 8),
		FIELD(struct alloclab_workload_thread, gil, 24, 4),
		FIELD(struct alloclab_workload_thread, record_path, 32, 8),
		FIELD(struct alloclab_workload_thread, params, 40, 8),
		FIELD(struct alloclab_workload_thread, index, 48, 4),
		FIELD(struct alloclab_workload_thread, nthreads, 52, 4),
		FIELD(struct alloclab_workload_thread, seed, 56, 8),
		FIELD(struct alloclab_workload_thread, state, 64, 8),
		FIELD(struct alloclab_workload_thread, ops, 72, 8),
		FIELD(struct alloclab_workload_thread, error, 80, 8),
		FIELD(struct alloclab_workload_thread, not_applicable, 88, 4),
		FIELD(struct alloclab_workload_thread, shared, 96, 8),
		FIELD(struct alloclab_workload_thread, sync, 104, 8),
		FIELD(struct alloclab_workload_thread, placement, 112, 8),
		FIELD(struct alloclab_workload_thread, host, 120, 8),
		FIELD(struct alloclab_workload_thread, last_value, 128, 4),
		FIELD(struct alloclab_workload_thread, warmup, 132, 4),
		FIELD(struct alloclab_workload_thread, report, 136, 8),
		FIELD(struct alloclab_workload_thread, process_report, 144, 8),
		FIELD(struct alloclab_workload_thread, own_ns, 152, 8),
		FIELD(struct alloclab_workload_thread, live, 160, 8),
		FIELD(struct alloclab_workload_thread, slicer, 168, 8),
	};
	expect_layout("struct alloclab_workload_thread", t, sizeof t / sizeof *t, sizeof(struct alloclab_workload_thread),
		      176);
}
