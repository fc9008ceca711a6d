/*
 * The command line as a user meets it: bad input gets one line on stderr,
 * exit status 2 and no results file; help and list work.
 */
#include "helpers.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void expect_refused(const char *needle, const char *const *args)
{
	char *dir = scratch_dir();
	const char *full[32];
	size_t n = 0;

	full[n++] = "run";
	full[n++] = "-o";
	full[n++] = "out/r.json";
	for (size_t i = 0; args[i]; i++)
		full[n++] = args[i];
	full[n] = NULL;
	struct cmd_result r = run_alloclab(dir, full);
	cr_expect_eq(r.status, 2, "exit status %d for %s; stderr: %s", r.status, needle, r.err);
	cr_expect_eq(count_lines(r.err), 1, "stderr is not one line: %s", r.err);
	cr_expect(strstr(r.err, needle) != NULL, "stderr lacks '%s': %s", needle, r.err);
	cr_expect_eq(r.out ? strlen(r.out) : 0, 0, "stdout not empty: %s", r.out);
	char path[4200];
	snprintf(path, sizeof path, "%s/out", dir);
	cr_expect_neq(access(path, F_OK), 0, "a results folder was created for a refused run");
	cmd_result_free(&r);
	free(dir);
}

#define REFUSED(name, needle, ...)                                               \
	Test(cli, name) { expect_refused(needle, (const char *const[]){__VA_ARGS__, NULL}); }

REFUSED(unknown_plugin, "plugin 'nosuch' not found", "-p", "nosuch")
REFUSED(unknown_workload, "unknown workload 'nosuch' (known: churn", "-w", "nosuch")
REFUSED(unknown_parameter, "workload 'churn' has no parameter 'bogus'", "-w", "churn:bogus=1")
REFUSED(malformed_parameter_number, "ops='12x' is not a whole number", "-w", "churn:ops=12x")
REFUSED(parameter_out_of_range, "slots=0 is out of range", "-w", "churn:slots=0")
REFUSED(min_above_max, "min_size=600 is above max_size=512", "-w", "churn:min_size=600")
REFUSED(malformed_processes, "--processes 'abc' is not a whole number", "-n", "abc")
REFUSED(negative_values, "--values '-3' is not a whole number", "-v", "-3")
REFUSED(zero_threads, "thread count 0 is out of range 1..1024", "-t", "0")
REFUSED(too_many_threads, "thread count 5000 is out of range 1..1024", "-t", "1,5000")
REFUSED(malformed_threads, "thread count 'x' is not a whole number", "-t", "1,x")
REFUSED(unknown_option, "unknown option '--bogus'", "--bogus")
REFUSED(missing_value, "option '-t' needs a value", "-t")
REFUSED(stray_argument, "unexpected argument 'extra'", "extra")
REFUSED(bad_plugin_option, "bad option: bad value for 'api': 'bogus' (expected std or ext)", "-p", "jemalloc:api=bogus")
REFUSED(option_to_optionless_plugin, "bad option: takes no options (got 'x=1')", "-p", "system:x=1")

Test(cli, unknown_command)
{
	struct cmd_result r = run_alloclab(NULL, (const char *const[]){"frobnicate", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect(strstr(r.err, "unknown command 'frobnicate'") != NULL, "%s", r.err);
	cmd_result_free(&r);
}

Test(cli, help_exits_zero)
{
	struct cmd_result r = run_alloclab(NULL, (const char *const[]){"--help", NULL});
	cr_expect_eq(r.status, 0);
	cr_expect(strstr(r.out, "usage: alloclab COMMAND") != NULL, "%s", r.out);
	cmd_result_free(&r);
	r = run_alloclab(NULL, (const char *const[]){"run", "--help", NULL});
	cr_expect_eq(r.status, 0);
	cr_expect(strstr(r.out, "--processes") != NULL, "%s", r.out);
	cmd_result_free(&r);
}

Test(cli, list_shows_bundled_plugins_and_workloads)
{
	struct cmd_result r = run_alloclab(NULL, (const char *const[]){"list", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "  system ") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "  jemalloc ") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "  mimalloc ") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "(jemalloc 5.") != NULL, "no jemalloc version: %s", r.out);
	cr_expect(strstr(r.out, "caps: thread-safe") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "churn") != NULL && strstr(r.out, "default 4096") != NULL, "%s", r.out);
	cmd_result_free(&r);
}

/* The static-TLS trap: without the tunable in the environment, dlopen of
 * jemalloc fails; the command must fix that by itself. */
Test(cli, jemalloc_loads_without_tunable_in_environment)
{
	char *dir = scratch_dir();
	unsetenv("GLIBC_TUNABLES");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "jemalloc", "-w",
		"churn:ops=1000,slots=64", "-t", "1", "-n", "1", "-v", "1", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "jemalloc") != NULL, "%s", r.out);
	cmd_result_free(&r);
	free(dir);
}

/* `alloclab stats`: CPython's layout, identities checked, for our obmalloc
 * plugins and for CPython's own allocator. */
static void expect_mallocstats(const char *plugin, const char *workload)
{
	struct cmd_result r = run_alloclab(NULL, (const char *const[]){"stats", plugin, "-w", workload, NULL});
	cr_expect_eq(r.status, 0, "%s: status %d: %s%s", plugin, r.status, r.out, r.err);
	cr_expect(strstr(r.out, "Small block threshold = 512, in 32 size classes.\n\n") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "class   size   num pools   blocks in use  avail blocks\n") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "# bytes lost to quantization       =") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "parts add up to") != NULL && strstr(r.out, "BROKEN") == NULL, "%s", r.out);
	cmd_result_free(&r);
}

Test(cli, stats_radix) { expect_mallocstats("obmalloc-radix:preset=table-16m-4k", "churn:slots=5000,ops=20000"); }
Test(cli, stats_bigpool) { expect_mallocstats("obmalloc-bigpool:preset=classic", "churn:slots=5000,ops=20000"); }
Test(cli, stats_cpython) { expect_mallocstats("cpython", "churn:slots=5000,ops=20000"); }

Test(cli, stats_of_a_plugin_without_stats)
{
	struct cmd_result r = run_alloclab(NULL, (const char *const[]){"stats", "noop", "-w", "churn:ops=10", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "plugin 'noop' offers no statistics") != NULL, "%s", r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cmd_result_free(&r);
}

/* An installed alloclab (here a copy of the binary outside the build tree)
 * takes the installed plugins: it never searches the build tree's folder,
 * which may hold other builds of the same plugins. The build's own binary
 * searches its build first. */
Test(cli, an_installed_alloclab_never_searches_the_build_tree)
{
	const char *exe = getenv("ALLOCLAB_EXE");
	char *dir = scratch_dir(), copy[4300], build_plugins[4300], *bytes;
	FILE *in, *out;
	size_t n;

	cr_assert_not_null(exe);
	/* exe is BUILD/cli/alloclab */
	snprintf(build_plugins, sizeof build_plugins, "%s", exe);
	*strrchr(build_plugins, '/') = '\0';
	*strrchr(build_plugins, '/') = '\0';
	strcat(build_plugins, "/plugins");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"list", NULL});
	cr_expect(strstr(r.out, build_plugins) != NULL, "the build's binary: %s", r.out);
	cmd_result_free(&r);

	snprintf(copy, sizeof copy, "%s/alloclab", dir);
	in = fopen(exe, "rb");
	out = fopen(copy, "wb");
	cr_assert(in && out);
	bytes = malloc(1 << 20);
	while ((n = fread(bytes, 1, 1 << 20, in)) > 0)
		fwrite(bytes, 1, n, out);
	free(bytes);
	fclose(in);
	fclose(out);
	chmod(copy, 0755);
	char *saved = strdup(exe);
	setenv("ALLOCLAB_EXE", copy, 1);
	unsetenv("ALLOCLAB_SELF");
	r = run_alloclab(dir, (const char *const[]){"list", NULL});
	setenv("ALLOCLAB_EXE", saved, 1);
	free(saved);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "plugin search folders") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, build_plugins) == NULL, "an installed binary searched %s: %s", build_plugins, r.out);
	cmd_result_free(&r);
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* exec's --timeout holds in each way the program can hang: the program
 * itself, ignoring SIGTERM; the plugin's create hanging in the program's
 * preload library after the probe passed; create hanging in the probe.
 * Each ends well within a generous bound, saying which deadline ended it
 * and how to change it. A second -p is refused, not silently taken. */
Test(cli, exec_holds_its_timeout_in_every_path_and_says_so, .timeout = 240)
{
	char *dir = scratch_dir(), hang_program[4200], hang_probe[4200];
	snprintf(hang_program, sizeof hang_program, "%s:how=hang,in=program", test_plugin("bad_create"));
	snprintf(hang_probe, sizeof hang_probe, "%s:how=hang", test_plugin("bad_create"));
	const char *const *commands[] = {
		(const char *const[]){"exec", "--timeout", "2", "-p", "system", "--", "/bin/sh", "-c",
				      "trap '' TERM; while :; do sleep 1; done", NULL},
		(const char *const[]){"exec", "--timeout", "2", "--no-check", "-p", hang_program, "--", "/bin/true", NULL},
		(const char *const[]){"exec", "--timeout", "2", "-p", hang_probe, "--", "/bin/true", NULL},
	};
	for (size_t k = 0; k < sizeof commands / sizeof *commands; k++) {
		struct timespec t0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		struct cmd_result r = run_alloclab(dir, commands[k]);
		double took = seconds_since(&t0);
		cr_expect_neq(r.status, 0, "%zu: %s", k, r.err);
		cr_expect(strstr(r.err, "timed out after 2 s") && strstr(r.err, "--timeout"), "%zu: %s", k, r.err);
		cr_expect(took < 60, "%zu: held %.1f s past a 2 s timeout", k, took);
		cmd_result_free(&r);
	}
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"exec", "-p", "system", "-p", "mimalloc", "--",
								      "/bin/true", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "-p given twice ('system' and 'mimalloc')") && count_lines(r.err) == 1, "%s", r.err);
	cmd_result_free(&r);
}

/* merge refuses shards that do not go together by naming the field, both
 * files and their two values, the files as alloclab_printable shows them:
 * shards of two plans, shards measured in two environments, one shard
 * twice. */
Test(cli, merge_refusals_name_the_field_and_both_files, .timeout = 240)
{
	char *dir = scratch_dir(), hostile[64];
	snprintf(hostile, sizeof hostile, "other\033[31m.json");
	const char *const common[] = {"run", "-q", "-p", "system", "-t", "1", "-n", "2", "-v", "1", "--shard"};
	struct {
		const char *workload, *shard, *file, *env;
	} runs[] = {
		{"churn:ops=100", "1/2", "first.json", NULL},
		{"churn:ops=200", "2/2", hostile, NULL},
		{"churn:ops=100", "2/2", "perturbed.json", "MALLOC_PERTURB_=7"},
		{"churn:ops=100", "1/2", "again.json", NULL},
	};
	for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
		const char *args[20];
		size_t n = 0;
		for (size_t i = 0; i < sizeof common / sizeof *common; i++)
			args[n++] = common[i];
		args[n++] = runs[k].shard;
		args[n++] = "-w";
		args[n++] = runs[k].workload;
		args[n++] = "-o";
		args[n++] = runs[k].file;
		args[n] = NULL;
		struct cmd_result r = run_alloclab_env(dir, args, (const char *const[]){runs[k].env, NULL});
		cr_assert_eq(r.status, 0, "%s: %s", runs[k].file, r.err);
		cmd_result_free(&r);
	}
	struct {
		const char *other, *words[4];
	} refusals[] = {
		{hostile, {"first.json and other?[31m.json differ in metadata.shard.plan: '", "' in first.json, '",
			   "' in other?[31m.json", NULL}},
		{"perturbed.json", {"first.json and perturbed.json differ in metadata.allocator_environment",
				    "perturbed.json ran with MALLOC_PERTURB_=7, first.json without", NULL}},
		{"again.json", {"first.json and again.json are both shard 1 of 2 (metadata.shard.index 1 in each", NULL}},
	};
	for (size_t k = 0; k < sizeof refusals / sizeof *refusals; k++) {
		struct cmd_result r = run_alloclab(
			dir, (const char *const[]){"merge", "-o", "merged.json", "first.json", refusals[k].other, NULL});
		cr_expect_eq(r.status, 2, "%s: %s", refusals[k].other, r.err);
		cr_expect(count_lines(r.err) == 1 && strchr(r.err, '\033') == NULL, "%s", r.err);
		for (size_t w = 0; refusals[k].words[w]; w++)
			cr_expect(strstr(r.err, refusals[k].words[w]), "%zu: no '%s' in: %s", k, refusals[k].words[w], r.err);
		cmd_result_free(&r);
	}
}
