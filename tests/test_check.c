/*
 * `alloclab check`: every bundled plugin passes; each deliberately broken
 * plugin fails exactly the case it should, with a message that says what
 * went wrong; crashes and hangs are failures of one case, not of the check.
 */
#include "check/check.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* The cases a plain check runs (not the course's own, which a level asks
 * for). */
static size_t ncases(void)
{
	size_t n = 0;
	for (size_t i = 0; alloclab_check_cases[i].name; i++)
		n += !alloclab_check_cases[i].course_only;
	return n;
}

static json_t *check_json(const char *plugin, int *status)
{
	struct cmd_result r = run_alloclab(NULL, (const char *const[]){"check", plugin, "--json", "--timeout", "20", NULL});
	json_t *doc = json_loads(r.out ? r.out : "", 0, NULL);
	*status = r.status;
	cr_assert_not_null(doc, "no JSON from check %s: %s %s", plugin, r.out, r.err);
	cmd_result_free(&r);
	return doc;
}

/* Every case ran, none failed, and a skipped one says why. */
static void expect_passes(const char *plugin)
{
	int status;
	json_t *doc = check_json(plugin, &status), *c;
	size_t i, passed = 0;
	json_t *cases = json_object_get(json_array_get(doc, 0), "cases");
	cr_expect_eq(json_array_size(cases), ncases(), "%s: %zu cases ran, not %zu", plugin, json_array_size(cases), ncases());
	json_array_foreach(cases, i, c)
	{
		const char *st = json_string_value(json_object_get(c, "status"));
		const char *why = json_string_value(json_object_get(c, "why"));
		cr_expect_str_neq(st, "fail", "%s: %s failed: %s", plugin, json_string_value(json_object_get(c, "case")), why);
		cr_expect(why && strlen(why) > 10, "%s: %s says too little: '%s'", plugin,
			  json_string_value(json_object_get(c, "case")), why ? why : "");
		passed += strcmp(st, "pass") == 0;
	}
	cr_expect_geq(passed, 1, "%s: no case passed", plugin);
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
Test(check, tcmalloc, .timeout = 200)
{
	skip_third_party_under_valgrind();
	expect_passes("tcmalloc");
}
Test(check, tbbmalloc, .timeout = 200)
{
	skip_third_party_under_valgrind();
	expect_passes("tbbmalloc");
}
Test(check, obmalloc_radix, .timeout = 200) { expect_passes("obmalloc-radix"); }
Test(check, obmalloc_py37, .timeout = 200) { expect_passes("obmalloc-py37"); }
Test(check, obmalloc_py26, .timeout = 200) { expect_passes("obmalloc-py26"); }
Test(check, obmalloc_radix_per_thread, .timeout = 200) { expect_passes("obmalloc-radix:mode=per-thread"); }
Test(check, obmalloc_bigpool, .timeout = 200) { expect_passes("obmalloc-bigpool:preset=table-64m-16k"); }

/* Exactly the cases named fail (a NULL-terminated list of case, message
 * pairs), each with its message; every other case ran and did not. */
static void expect_fails(const char *name, const char *const *failing)
{
	int status;
	json_t *doc = check_json(test_plugin(name), &status), *c;
	json_t *cases = json_object_get(json_array_get(doc, 0), "cases");
	size_t i, seen = 0, nfailing = 0;

	while (failing[2 * nfailing])
		nfailing++;
	cr_expect_eq(json_array_size(cases), ncases(), "%s: %zu cases ran", name, json_array_size(cases));
	json_array_foreach(cases, i, c)
	{
		const char *cname = json_string_value(json_object_get(c, "case"));
		const char *st = json_string_value(json_object_get(c, "status"));
		const char *why = json_string_value(json_object_get(c, "why"));
		const char *needle = NULL;
		for (size_t k = 0; k < nfailing; k++)
			if (strcmp(failing[2 * k], cname) == 0)
				needle = failing[2 * k + 1];
		if (needle) {
			seen++;
			cr_expect_str_eq(st, "fail", "%s: case %s did not fail", name, cname);
			cr_expect(needle[0] && strstr(why, needle) != NULL, "%s: '%s' not in: %s", name, needle, why);
		} else {
			cr_expect_str_neq(st, "fail", "%s: case %s failed too: %s", name, cname, why);
		}
	}
	cr_expect_eq(seen, nfailing, "%s: %zu of the %zu failing cases ran", name, seen, nfailing);
	cr_expect_eq(status, 1, "exit status %d", status);
	json_decref(doc);
}

static void expect_fails_only(const char *name, const char *failing, const char *needle)
{
	expect_fails(name, (const char *const[]){failing, needle, NULL});
}

Test(check, overlapping_blocks, .timeout = 200) { expect_fails_only("bad_overlap", "no-overlap", "blocks overlap"); }
Test(check, misaligned_blocks, .timeout = 200)
{
	expect_fails_only("bad_misaligned", "alignment", "not aligned to the declared minimum of 16 bytes");
}
Test(check, crash_on_free, .timeout = 200)
{
	/* The op, its number in the case and its argument, and the command
	 * that runs the case alone. */
	expect_fails_only("bad_crash_free", "edge-sizes", "killed by signal 11 (Segmentation fault) in free #");
	expect_fails_only("bad_crash_free", "edge-sizes", "alone: ");
	expect_fails_only("bad_crash_free", "edge-sizes", " check --case edge-sizes ");
}
/* Its calloc never returns: contents times out in it, and so does honesty,
 * which tries every declared op (calloc among them). */
Test(check, never_returns, .timeout = 200)
{
	/* edge-sizes asks calloc's edges of the plugin beside glibc's, and
	 * waits for them too. */
	expect_fails("bad_hang", (const char *const[]){"contents", "timed out after 20 s", "honesty",
						       "timed out after 20 s (raise --timeout if it is just slow) in calloc",
						       "edge-sizes", "timed out after 20 s", NULL});
}
Test(check, a_program_api_that_is_not_the_ops, .timeout = 200)
{
	expect_fails_only("bad_program_api", "honesty", "program_api: calloc(1, 1) is not zero");
}
Test(check, claims_a_capability_it_lacks, .timeout = 200)
{
	expect_fails_only("bad_claims", "honesty", "declares stats, but stats() returned");
}
/* Its realloc corrupts the C library's heap beneath it: that heap's own
 * checks stop the process (glibc aborts; under AddressSanitizer it is a
 * segmentation fault) in the cases that realloc. */
Test(check, corrupts_a_neighbour_on_realloc, .timeout = 200)
{
	/* edge-sizes grows and shrinks a block in place beside glibc. */
	expect_fails("bad_realloc", (const char *const[]){"contents", "the case's process killed by signal", "guards",
							  "the case's process killed by signal", "edge-sizes",
							  "the case's process killed by signal", NULL});
}
Test(check, writes_into_a_neighbour_on_malloc, .timeout = 200)
{
	expect_fails_only("bad_neighbour", "guards", "a malloc, wrote into the guard before a live block");
}
Test(check, never_reuses_memory, .timeout = 200)
{
	if (getenv("ALLOCLAB_UNDER_VALGRIND") || getenv("ALLOCLAB_UNDER_SANITIZER"))
		cr_skip_test("the footprint case is skipped under valgrind and the sanitizers");
	expect_fails_only("bad_bump", "footprint", "freed memory is not reused");
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

/* calloc's and realloc's edges where the ABI allows another answer than
 * glibc's: mimalloc's realloc(p, 0) returns a block where glibc's frees p
 * and returns NULL. The case passes, and says so on a line of its own
 * (and in the JSON's "differs"); system, which is glibc, says nothing.
 * Before, the case passed in silence. */
Test(check, edges_that_differ_from_glibc_are_said, .timeout = 200)
{
	if (getenv("ALLOCLAB_UNDER_VALGRIND") || getenv("ALLOCLAB_UNDER_SANITIZER"))
		cr_skip_test("valgrind and the sanitizers put their own malloc where glibc's would be");
	static const char *const says = "differs from glibc: realloc(p, 0) of a 40-byte block returns another block";
	struct cmd_result r = run_alloclab(NULL, (const char *const[]){"check", "mimalloc", "--case", "edge-sizes", NULL});
	cr_expect_eq(r.status, 0, "%s %s", r.out, r.err);
	cr_expect(strstr(r.out, "edge-sizes        pass") && strstr(r.out, says), "%s", r.out);
	/* One line a difference, none of them the case's own line. */
	for (const char *l = r.out; (l = strstr(l, "differs from glibc: ")) != NULL; l++) {
		const char *eol = strchr(l, '\n'), *next = eol ? strstr(eol, "differs from glibc: ") : NULL;
		cr_expect(eol && (!next || next > eol), "%s", r.out);
	}
	cmd_result_free(&r);

	r = run_alloclab(NULL, (const char *const[]){"check", "mimalloc", "--case", "edge-sizes", "--json", NULL});
	json_t *doc = json_loads(r.out ? r.out : "", 0, NULL);
	json_t *c = json_array_get(json_object_get(json_array_get(doc, 0), "cases"), 0);
	json_t *differs = json_object_get(c, "differs");
	cr_assert(json_array_size(differs) >= 1, "%s", r.out);
	cr_expect(strstr(json_string_value(json_array_get(differs, 0)), "realloc(p, 0)") ||
			  strstr(json_string_value(json_array_get(differs, 1)) ? json_string_value(json_array_get(differs, 1)) : "",
				 "realloc(p, 0)"),
		  "%s", r.out);
	json_decref(doc);
	cmd_result_free(&r);

	r = run_alloclab(NULL, (const char *const[]){"check", "system", "--case", "edge-sizes", NULL});
	cr_expect_eq(r.status, 0, "%s %s", r.out, r.err);
	cr_expect(strstr(r.out, "edge-sizes        pass") && !strstr(r.out, "differs from glibc"), "%s", r.out);
	cmd_result_free(&r);
}
