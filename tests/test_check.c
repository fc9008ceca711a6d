/*
 * `alloclab check`: every bundled plugin passes; each deliberately broken
 * plugin fails exactly the case it should, with a message that says what
 * went wrong; crashes and hangs are failures of one case, not of the check.
 */
#include "helpers.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static json_t *check_json(const char *plugin, int *status)
{
	struct cmd_result r = run_alloclab(NULL, (const char *const[]){"check", plugin, "--json", "--timeout", "20", NULL});
	json_t *doc = json_loads(r.out ? r.out : "", 0, NULL);
	*status = r.status;
	cr_assert_not_null(doc, "no JSON from check %s: %s %s", plugin, r.out, r.err);
	cmd_result_free(&r);
	return doc;
}

static void expect_passes(const char *plugin)
{
	int status;
	json_t *doc = check_json(plugin, &status), *c;
	size_t i;
	json_array_foreach(json_object_get(json_array_get(doc, 0), "cases"), i, c)
		cr_expect_str_neq(json_string_value(json_object_get(c, "status")), "fail", "%s: %s failed: %s", plugin,
				  json_string_value(json_object_get(c, "case")), json_string_value(json_object_get(c, "why")));
	cr_expect_eq(status, 0, "%s: exit status %d", plugin, status);
	json_decref(doc);
}

Test(check, system, .timeout = 200) { expect_passes("system"); }
/* valgrind replaces jemalloc's and mimalloc's standard entry points with
 * its own allocator but not their extended ones (sdallocx, mi_free_size),
 * so under it these plugins mix two allocators: not theirs to answer for. */
static void skip_third_party_under_valgrind(void)
{
	if (getenv("ALLOCLAB_UNDER_VALGRIND"))
		cr_skip_test("valgrind substitutes its own allocator for part of this library's API");
}

Test(check, jemalloc, .timeout = 200)
{
	skip_third_party_under_valgrind();
	expect_passes("jemalloc");
}
Test(check, mimalloc, .timeout = 200)
{
	skip_third_party_under_valgrind();
	expect_passes("mimalloc");
}
Test(check, cpython, .timeout = 200) { expect_passes("cpython"); }
Test(check, obmalloc_radix, .timeout = 200) { expect_passes("obmalloc-radix"); }
Test(check, obmalloc_radix_per_thread, .timeout = 200) { expect_passes("obmalloc-radix:mode=per-thread"); }
Test(check, obmalloc_bigpool, .timeout = 200) { expect_passes("obmalloc-bigpool:preset=seed-64m-16k"); }

static void expect_fails_only(const char *name, const char *failing, const char *needle)
{
	int status;
	json_t *doc = check_json(test_plugin(name), &status), *c;
	size_t i;
	int seen = 0;
	json_array_foreach(json_object_get(json_array_get(doc, 0), "cases"), i, c)
	{
		const char *cname = json_string_value(json_object_get(c, "case"));
		const char *st = json_string_value(json_object_get(c, "status"));
		const char *why = json_string_value(json_object_get(c, "why"));
		if (strcmp(cname, failing) == 0) {
			seen = 1;
			cr_expect_str_eq(st, "fail", "%s: case %s did not fail", name, cname);
			cr_expect(strstr(why, needle) != NULL, "%s: '%s' not in: %s", name, needle, why);
		} else {
			cr_expect_str_neq(st, "fail", "%s: case %s failed too: %s", name, cname, why);
		}
	}
	cr_expect(seen, "no case %s ran", failing);
	cr_expect_eq(status, 1, "exit status %d", status);
	json_decref(doc);
}

Test(check, overlapping_blocks, .timeout = 200) { expect_fails_only("bad_overlap", "no-overlap", "blocks overlap"); }
Test(check, misaligned_blocks, .timeout = 200)
{
	expect_fails_only("bad_misaligned", "alignment", "not aligned to the declared minimum of 16 bytes");
}
Test(check, crash_on_free, .timeout = 200)
{
	expect_fails_only("bad_crash_free", "edge-sizes", "killed by signal 11 (Segmentation fault)");
}
Test(check, never_returns, .timeout = 200) { expect_fails_only("bad_hang", "contents", "timed out after 20 s"); }
Test(check, claims_a_capability_it_lacks, .timeout = 200)
{
	expect_fails_only("bad_claims", "honesty", "declares stats, but stats() returned");
}
Test(check, corrupts_a_neighbour_on_realloc, .timeout = 200)
{
	expect_fails_only("bad_realloc", "contents", "");
}

Test(check, bad_input)
{
	struct cmd_result r = run_alloclab(NULL, (const char *const[]){"check", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "which plugin?") != NULL, "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(NULL, (const char *const[]){"check", "system", "--case", "nope", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "no case 'nope'") != NULL, "%s", r.err);
	cmd_result_free(&r);
}
