/*
 * The batch scripts `alloclab slurm` writes are code made from text it was
 * given: folder names, -o, the run's arguments. They are generated here
 * from hostile names and run under a fake sbatch and srun (which run the
 * script as a task would and record what they were given): nothing runs
 * but the intended command, with the intended arguments. The files slurm
 * writes follow the output policy, sbatch has a deadline, and a sweep
 * whose merge sbatch refused is still on record.
 */
#define _GNU_SOURCE 1
#include "helpers.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PLAN "-p", "system", "-w", "churn:ops=5000", "-t", "1", "-n", "4", "-v", "1", "--no-check", "-q"

static const char fake_sbatch[] =
	"#!/bin/sh\n"
	"# A fake sbatch: where it ran, what it was given; runs the script as\n"
	"# array task 1 would; answers a job id.\n"
	"printf '%s\\n' \"$PWD\" >> \"$FAKE_LOG/sbatch-cwd\"\n"
	"for a; do printf '%s\\n' \"$a\"; done >> \"$FAKE_LOG/sbatch-args\"\n"
	"case \"$FAKE_SBATCH\" in\n"
	"sleep) sleep 60 ;;\n"
	"refuse-merge) case \"$*\" in *--dependency*) echo 'sbatch: error: refused' >&2; exit 1 ;; esac ;;\n"
	"esac\n"
	"for a; do script=$a; done\n"
	"SLURM_ARRAY_TASK_ID=1 sh \"$script\" > /dev/null 2>&1\n"
	"echo 4242\n";
static const char fake_srun[] = "#!/bin/sh\nfor a; do printf '%s\\n' \"$a\"; done > \"$FAKE_LOG/srun-args\"\n"
				"printf '%s\\n' \"${TMPDIR-unset}\" > \"$FAKE_LOG/srun-tmpdir\"\n";

static void write_tool(const char *bin, const char *name, const char *text)
{
	char *path = path_in(bin, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, 0755);
}

/* A scratch folder with the fake tools first on PATH; their records go to
 * DIR/log. */
static char *fake_cluster(const char *mode)
{
	char *dir = scratch_dir(), *bin = path_in(dir, "bin"), *log = path_in(dir, "log");
	mkdir(bin, 0755);
	mkdir(log, 0755);
	write_tool(bin, "sbatch", fake_sbatch);
	write_tool(bin, "srun", fake_srun);
	char *path = NULL;
	cr_assert(asprintf(&path, "%s:%s", bin, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin") > 0);
	setenv("PATH", path, 1);
	setenv("FAKE_LOG", log, 1);
	setenv("FAKE_SBATCH", mode, 1);
	return dir;
}

/* Whether a line of text is exactly want, and the line after it (into
 * next, when given). */
static int has_line(const char *text, const char *want, const char **next)
{
	size_t n = strlen(want);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, want, n) == 0 && (p[n] == '\n' || p[n] == '\0')) {
			if (next)
				*next = p[n] ? p + n + 1 : p + n;
			return 1;
		}
	return 0;
}

static int exists(const char *dir, const char *name)
{
	struct stat st;
	return lstat(path_in(dir, name), &st) == 0;
}

Test(slurm_scripts, hostile_names_run_nothing_but_the_run, .timeout = 120)
{
	char *dir = fake_cluster("");
	/* A working folder and an output folder whose names are shell code
	 * (quotes, $(...), ;, spaces): they must stay names. */
	const char *cw_name = "cw d'$(touch PWNED)\";touch PWNED;`touch PWNED`";
	char *cw = path_in(dir, cw_name);
	cr_assert_eq(mkdir(cw, 0755), 0);
	const char *out_name = "o $(touch PWNED) 'x' %a %j \\n";
	struct cmd_result r =
		run_alloclab(cw, (const char *const[]){"slurm", "--shards", "2", "-o", out_name, "--", PLAN, NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	char *out = path_in(cw, out_name), real[PATH_MAX];
	cr_assert_not_null(realpath(out, real));
	cr_expect(!exists(dir, "PWNED") && !exists(cw, "PWNED") && !exists(out, "PWNED") &&
			  !exists(path_in(dir, "log"), "PWNED"),
		  "a name ran as code");

	/* sbatch ran in the sweep's folder, for both scripts. */
	char *cwds = read_file(path_in(dir, "log/sbatch-cwd"));
	cr_assert_not_null(cwds);
	cr_expect(has_line(cwds, real, NULL) && count_lines(cwds) == 2, "%s", cwds);
	/* The task ran alloclab's run, its shard and its file exactly. */
	char *args = read_file(path_in(dir, "log/srun-args"));
	cr_assert_not_null(args, "the shards' script never reached srun");
	const char *next = NULL;
	char want[PATH_MAX + 32];
	cr_expect(has_line(args, "run", NULL) && has_line(args, "--shard", &next) && strncmp(next, "1/2\n", 4) == 0,
		  "%s", args);
	snprintf(want, sizeof want, "%s/shard-1.json", real);
	cr_expect(has_line(args, "-o", &next) && strncmp(next, want, strlen(want)) == 0, "%s", args);
	cr_expect(has_line(args, "churn:ops=5000", NULL), "%s", args);
	/* No path in an #SBATCH line: sbatch's own parser never sees one. */
	char *script = read_file(path_in(out, "shards.sh"));
	cr_assert_not_null(script);
	/* sbatch ran as a supervised child, with a scratch TMPDIR that goes
	 * when it ends: the jobs take the user's (here none). */
	cr_expect(strstr(script, "\nunset TMPDIR\n") != NULL, "%s", script);
	for (const char *p = strstr(script, "#SBATCH"); p; p = strstr(p + 1, "#SBATCH")) {
		size_t len = strcspn(p, "\n");
		int logs = strncmp(p, "#SBATCH --output=logs/", 22) == 0;
		cr_expect(logs || memchr(p, '/', len) == NULL, "%.*s", (int)len, p);
	}
	/* The record is there, with both jobs. */
	json_t *sweep = json_load_file(path_in(out, "sweep.json"), 0, NULL);
	cr_assert_not_null(sweep);
	cr_expect_str_eq(json_string_value(json_object_get(sweep, "shards_job")), "4242");
	cr_expect_str_eq(json_string_value(json_object_get(sweep, "merge_job")), "4242");
	json_decref(sweep);
}

Test(slurm_scripts, a_line_break_in_a_path_is_refused, .timeout = 60)
{
	char *dir = fake_cluster("");
	struct cmd_result r =
		run_alloclab(dir, (const char *const[]){"slurm", "--shards", "2", "-o", "o\ntouch PWNED", "--", PLAN, NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "control character") && count_lines(r.err) == 1, "%s", r.err);
	cmd_result_free(&r);
	cr_expect(!exists(dir, "o\ntouch PWNED"), "the refused folder was made");

	char *cw = path_in(dir, "cw\ntouch PWNED");
	cr_assert_eq(mkdir(cw, 0755), 0);
	r = run_alloclab(cw, (const char *const[]){"slurm", "--shards", "2", "-o", "s", "--", PLAN, NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "working folder") && strstr(r.err, "control character"), "%s", r.err);
	cmd_result_free(&r);
	cr_expect(!exists(cw, "s") && read_file(path_in(dir, "log/sbatch-args")) == NULL);
	cr_expect(!exists(dir, "PWNED") && !exists(cw, "PWNED"));
}

/* The files slurm writes beside its results: never through a link, never
 * over what is not its own; what a failed command made is removed. */
Test(slurm_scripts, its_files_follow_the_output_policy, .timeout = 60)
{
	char *dir = fake_cluster("");
	char *victim = path_in(dir, "victim");
	FILE *f = fopen(victim, "w");
	fputs("secret\n", f);
	fclose(f);
	chmod(victim, 0600);
	mkdir(path_in(dir, "s5"), 0755);
	cr_assert_eq(symlink("../victim", path_in(dir, "s5/shards.sh")), 0);
	struct cmd_result r =
		run_alloclab(dir, (const char *const[]){"slurm", "--shards", "2", "-o", "s5", "--dry-run", "--", PLAN, NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "symbolic link"), "%s", r.err);
	cmd_result_free(&r);
	struct stat st;
	cr_assert_eq(stat(victim, &st), 0);
	char *text = read_file(victim);
	cr_expect(text && strcmp(text, "secret\n") == 0 && (st.st_mode & 0777) == 0600, "the link's target was written");
	cr_expect(!exists(path_in(dir, "s5"), "logs") && !exists(path_in(dir, "s5"), "merge.sh"),
		  "the failed command left what it made");

	/* A dangling sweep.json is a sweep's: refused, its target never made. */
	mkdir(path_in(dir, "s6"), 0755);
	cr_assert_eq(symlink("../made-outside", path_in(dir, "s6/sweep.json")), 0);
	r = run_alloclab(dir, (const char *const[]){"slurm", "--shards", "2", "-o", "s6", "--dry-run", "--", PLAN, NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cmd_result_free(&r);
	cr_expect(!exists(dir, "made-outside"));

	/* A plan that cannot be split leaves no folder behind. */
	r = run_alloclab(dir, (const char *const[]){"slurm", "--shards", "9", "-o", "s7", "--", PLAN, NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cmd_result_free(&r);
	cr_expect(!exists(dir, "s7"));
}

Test(slurm_scripts, sbatch_has_a_deadline, .timeout = 60)
{
	char *dir = fake_cluster("sleep");
	time_t t0 = time(NULL);
	struct cmd_result r = run_alloclab(
		dir, (const char *const[]){"slurm", "--shards", "2", "-o", "s", "--submit-timeout", "2", "--", PLAN, NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "did not answer within 2 s") && strstr(r.err, "--submit-timeout"), "%s", r.err);
	cmd_result_free(&r);
	cr_expect(time(NULL) - t0 < 30, "sbatch was waited for %ld s", (long)(time(NULL) - t0));
	/* Nothing was submitted: nothing stays. */
	cr_expect(!exists(dir, "s"));
}

Test(slurm_scripts, a_refused_merge_leaves_the_sweep_on_record, .timeout = 60)
{
	char *dir = fake_cluster("refuse-merge");
	struct cmd_result r =
		run_alloclab(dir, (const char *const[]){"slurm", "--shards", "2", "-o", "s", "--", PLAN, NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "refused") && strstr(r.err, "job 4242") && strstr(r.err, "merge.sh"), "%s", r.err);
	cmd_result_free(&r);
	json_t *sweep = json_load_file(path_in(dir, "s/sweep.json"), 0, NULL);
	cr_assert_not_null(sweep, "no record of a submitted array");
	cr_expect_str_eq(json_string_value(json_object_get(sweep, "shards_job")), "4242");
	cr_expect_null(json_string_value(json_object_get(sweep, "merge_job")));
	json_decref(sweep);
	r = run_alloclab(dir, (const char *const[]){"slurm", "status", "s", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "merge not submitted"), "%s", r.out);
	cmd_result_free(&r);
	/* The folder is not taken for a second array. */
	r = run_alloclab(dir, (const char *const[]){"slurm", "--shards", "2", "-o", "s", "--", PLAN, NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "already holds a sweep"), "%s", r.err);
	cmd_result_free(&r);
}

/* What the sweep sets for each shard cannot be slipped into the run's
 * arguments by an abbreviation or a bundle of short options. */
Test(slurm_scripts, the_runs_own_options_cannot_be_abbreviated_in, .timeout = 60)
{
	char *dir = fake_cluster("");
	const char *const *bad[] = {
		(const char *const[]){"slurm", "--shards", "2", "-o", "a", "--", PLAN, "--dry", NULL},
		(const char *const[]){"slurm", "--shards", "2", "-o", "b", "--", PLAN, "--outp=y.json", NULL},
		(const char *const[]){"slurm", "--shards", "2", "-o", "c", "--", PLAN, "-qo", "x.json", NULL},
		(const char *const[]){"slurm", "--shards", "2", "-o", "d", "--", PLAN, "--sha=1/2", NULL},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct cmd_result r = run_alloclab(dir, bad[i]);
		cr_expect_eq(r.status, 2, "case %zu: %s", i, r.err);
		cmd_result_free(&r);
	}
	cr_expect(!exists(dir, "a") && !exists(dir, "b") && !exists(dir, "c") && !exists(dir, "d"));
	cr_expect_null(read_file(path_in(dir, "log/sbatch-args")), "something was submitted");
	/* run itself takes options by their whole names only. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--dry", "-p", "system", "-w", "churn", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "written in full"), "%s", r.err);
	cmd_result_free(&r);
}

/* The jobs get the TMPDIR of the shell that ran `alloclab slurm`, not the
 * scratch folder alloclab gave the sbatch it ran (gone once sbatch has
 * answered: a job found it missing, or removed under it by a later
 * alloclab, and every worker of the shard failed). */
Test(slurm_scripts, the_jobs_get_the_users_tmpdir, .timeout = 120)
{
	char *dir = fake_cluster(""), *tmp = path_in(dir, "my tmp");
	cr_assert_eq(mkdir(tmp, 0755), 0);
	const char *was = getenv("TMPDIR");
	for (int set = 0; set < 2; set++) {
		char out[32];
		snprintf(out, sizeof out, "sweep%d", set);
		if (set)
			setenv("TMPDIR", tmp, 1);
		else
			unsetenv("TMPDIR");
		struct cmd_result r = run_alloclab(dir, (const char *const[]){"slurm", "--shards", "2", "-o", out, "--", PLAN, NULL});
		cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
		cmd_result_free(&r);
		char *seen = read_file(path_in(dir, "log/srun-tmpdir"));
		cr_assert_not_null(seen, "the shards' script never reached srun");
		seen[strcspn(seen, "\n")] = '\0';
		cr_expect_str_eq(seen, set ? tmp : "unset");
		free(seen);
	}
	if (was)
		setenv("TMPDIR", was, 1);
	else
		unsetenv("TMPDIR");
}
