/*
 * The loader: every documented failure gives one line naming the file and
 * the reason; good plugins load with their descriptor copied faithfully.
 */
#include "plugin/allocator.h"
#include "files/code_hash.h"
#include "plugin/interpose.h"
#include "helpers.h"
#include "plugin/loader.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char err[ALLOCLAB_ERR_LEN];

static void expect_load_error(const char *spec, const char *needle)
{
	struct alloclab_loaded_plugin p;
	err[0] = '\0';
	cr_assert_eq(alloclab_plugin_load(spec, &p, err, sizeof err), -1, "%s loaded but should not", spec);
	cr_expect(strstr(err, needle) != NULL, "error for %s lacks '%s': %s", spec, needle, err);
	cr_expect(strchr(err, '\n') == NULL, "error is not one line: %s", err);
}

Test(loader, not_found_by_name_names_the_searched_folders)
{
	expect_load_error("no-such-plugin", "plugin 'no-such-plugin' not found");
	cr_expect(strstr(err, "ALLOCLAB_PLUGIN_PATH") != NULL, "%s", err);
}

Test(loader, missing_path)
{
	expect_load_error("/nonexistent/x.so", "/nonexistent/x.so: No such file or directory");
}

Test(loader, bad_name_is_not_taken_for_a_path)
{
	expect_load_error("Bad Name", "not a plugin name");
}

Test(loader, not_a_shared_object)
{
	expect_load_error(test_plugin("not_elf"), "not a shared object");
}

Test(loader, no_entry_symbol)
{
	expect_load_error(test_plugin("no_entry"), "no alloclab_plugin_entry symbol");
}

Test(loader, abi_mismatch_shows_both_versions)
{
	expect_load_error(test_plugin("abi_mismatch"), "plugin ABI version 3, this alloclab speaks versions 1 to 2");
}

Test(loader, missing_required_op)
{
	expect_load_error(test_plugin("missing_op"), "required op 'malloc' is NULL");
}

Test(loader, capability_without_op)
{
	expect_load_error(test_plugin("cap_without_op"),
			  "declares capability 'aligned-alloc' but its aligned_alloc op is NULL");
}

Test(loader, create_failure_carries_the_plugins_message)
{
	struct alloclab_loaded_plugin p;
	struct alloclab_allocator a;
	cr_assert_eq(alloclab_plugin_load(test_plugin("create_fails"), &p, err, sizeof err), 0, "%s", err);
	cr_assert_eq(alloclab_allocator_create(&a, &p, "", err, sizeof err), -1);
	cr_expect(strstr(err, "create() failed: the test arena could not be reserved") != NULL, "%s", err);
	cr_expect(strstr(err, "create_fails.so") != NULL, "no file in: %s", err);
}

Test(loader, bad_option_is_reported_as_such)
{
	struct alloclab_loaded_plugin p;
	struct alloclab_allocator a;
	cr_assert_eq(alloclab_plugin_load(test_plugin("create_fails"), &p, err, sizeof err), 0, "%s", err);
	cr_assert_eq(alloclab_allocator_create(&a, &p, "fail=einval", err, sizeof err), -1);
	cr_expect(strstr(err, "bad option: option fail=einval is not supported") != NULL, "%s", err);
}

Test(loader, older_descriptor_gets_null_optional_ops)
{
	struct alloclab_loaded_plugin p;
	cr_assert_eq(alloclab_plugin_load(test_plugin("old_abi"), &p, err, sizeof err), 0, "%s", err);
	cr_expect_null(p.desc.calloc, "bytes past struct_size were copied");
	cr_expect_null(p.desc.stats);
	cr_expect_str_eq(p.desc.name, "old-abi");
	alloclab_plugin_unload(&p);
}

Test(loader, finds_by_name_in_plugin_path)
{
	struct alloclab_loaded_plugin p;
	setenv("ALLOCLAB_PLUGIN_PATH", getenv("ALLOCLAB_TEST_PLUGIN_DIR"), 1);
	cr_assert_eq(alloclab_plugin_load("old_abi", &p, err, sizeof err), 0, "%s", err);
	cr_expect(strstr(p.path, "tests/plugins/old_abi.so") != NULL, "%s", p.path);
	alloclab_plugin_unload(&p);
}

Test(loader, bundled_plugins_load_by_name)
{
	static const char *const names[] = {"system", "jemalloc", "mimalloc", "noop"};
	for (size_t i = 0; i < 4; i++) {
		struct alloclab_loaded_plugin p;
		cr_assert_eq(alloclab_plugin_load(names[i], &p, err, sizeof err), 0, "%s: %s", names[i], err);
		cr_expect_str_eq(p.desc.name, names[i]);
		alloclab_plugin_unload(&p);
	}
}

/* A wrapper's lock is held while a fallback runs: the fallbacks call the
 * plugin's own malloc and free, never the wrapped ops again (which took
 * the lock a second time and hung). single_thread has neither calloc nor
 * free_sized. */
Test(loader, fallbacks_under_the_global_lock_do_not_take_it_again, .timeout = 20)
{
	struct alloclab_loaded_plugin p;
	struct alloclab_allocator a;
	cr_assert_eq(alloclab_plugin_load(test_plugin("single_thread"), &p, err, sizeof err), 0, "%s", err);
	cr_assert_null(p.desc.calloc);
	cr_assert_null(p.desc.free_sized);
	cr_assert_eq(alloclab_allocator_create(&a, &p, "", err, sizeof err), 0, "%s", err);
	alloclab_allocator_global_lock(&a);
	unsigned char *z = alloclab_calloc(&a, 16, 8);
	cr_assert_not_null(z);
	for (int i = 0; i < 128; i++)
		cr_expect_eq(z[i], 0);
	alloclab_free_sized(&a, z, 128);
	alloclab_allocator_destroy(&a);
}

/* Builds the history fixture with EXTRA_WORK `work` and debugging
 * information in dir/NAME (its folder's name is in the file), as
 * dir/NAME/plugin.so. */
static char *built_in(const char *dir, const char *name, int work)
{
	const char *src = getenv("ALLOCLAB_SOURCE_ROOT");
	sh("mkdir -p '%s/%s' && cd '%s/%s' && cp %s/tests/fixtures/history/plugin.c . && "
	   "printf '#define EXTRA_WORK %d\\n#define SLACK_PERCENT 0\\n' > config.h && "
	   "cc -O2 -g -shared -fPIC -Wl,--build-id -I%s/framework/include \"$PWD/plugin.c\" -o plugin.so",
	   dir, name, dir, name, src, work, src);
	char rel[256];
	snprintf(rel, sizeof rel, "%s/plugin.so", name);
	return path_in(dir, rel);
}

/* What a plugin loads, hashed: two builds of one source in two folders
 * differ as files (their debugging information names the folder, their
 * build IDs differ) and not in code; one more instruction is another
 * code; files that are not whole ELF are refused in one line naming the
 * file. */
Test(loader, a_plugins_code_hash_sees_code_and_not_where_it_was_built, .timeout = 120)
{
	char *dir = scratch_dir();
	char *a = built_in(dir, "first-folder", 0), *b = built_in(dir, "second-folder-elsewhere", 0),
	     *c = built_in(dir, "third", 16);
	char fa[ALLOCLAB_SHA256_HEX], fb[ALLOCLAB_SHA256_HEX], ca[ALLOCLAB_SHA256_HEX], cb[ALLOCLAB_SHA256_HEX],
		cc[ALLOCLAB_SHA256_HEX];
	cr_assert_eq(alloclab_file_sha256(a, fa, err, sizeof err), 0, "%s", err);
	cr_assert_eq(alloclab_file_sha256(b, fb, err, sizeof err), 0, "%s", err);
	cr_expect_str_neq(fa, fb, "the two builds were expected to differ as files (their folders are in them)");
	cr_assert_eq(alloclab_plugin_code_sha256(a, ca, err, sizeof err), 0, "%s", err);
	cr_assert_eq(alloclab_plugin_code_sha256(b, cb, err, sizeof err), 0, "%s", err);
	cr_assert_eq(alloclab_plugin_code_sha256(c, cc, err, sizeof err), 0, "%s", err);
	cr_expect_str_eq(ca, cb, "one source built in two folders loads the same code");
	cr_expect_str_neq(ca, cc, "more work is other code");

	/* Refused: text, a file cut short, a segment pointing past the end. */
	char *text = path_in(dir, "text.so"), *cut = path_in(dir, "cut.so"), *far = path_in(dir, "far.so");
	sh("echo 'not a plugin' > '%s' && head -c 300 '%s' > '%s' && cp '%s' '%s'", text, a, cut, a, far);
	/* The first loadable segment's p_offset set far beyond the file
	 * (ELF64: e_phoff at 32, e_phnum at 56; a 56-byte header's p_type
	 * first, its p_offset 8 bytes in). */
	FILE *f = fopen(far, "r+b");
	cr_assert_not_null(f);
	unsigned long long phoff = 0, huge = 1ull << 40;
	unsigned short phnum = 0;
	cr_assert_eq(fseek(f, 32, SEEK_SET), 0);
	cr_assert_eq(fread(&phoff, 8, 1, f), 1u);
	cr_assert_eq(fseek(f, 56, SEEK_SET), 0);
	cr_assert_eq(fread(&phnum, 2, 1, f), 1u);
	int patched = 0;
	for (unsigned i = 0; i < phnum && !patched; i++) {
		unsigned type = 0;
		cr_assert_eq(fseek(f, (long)(phoff + 56 * i), SEEK_SET), 0);
		cr_assert_eq(fread(&type, 4, 1, f), 1u);
		if (type == 1 /* PT_LOAD */) {
			cr_assert_eq(fseek(f, (long)(phoff + 56 * i + 8), SEEK_SET), 0);
			cr_assert_eq(fwrite(&huge, 8, 1, f), 1u);
			patched = 1;
		}
	}
	fclose(f);
	cr_assert(patched, "%s has no loadable segment to damage", far);
	const char *bad[] = {text, cut, far, "/nonexistent/plugin.so"};
	for (int i = 0; i < 4; i++) {
		char h[ALLOCLAB_SHA256_HEX];
		err[0] = '\0';
		cr_expect_eq(alloclab_plugin_code_sha256(bad[i], h, err, sizeof err), -1, "%s was hashed", bad[i]);
		cr_expect(strstr(err, bad[i]) != NULL && strchr(err, '\n') == NULL, "%s: %s", bad[i], err);
	}
}
