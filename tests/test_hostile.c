/*
 * Hostile and careless input, each class of problem at its root: results
 * files crafted to run commands through gnuplot or to write outside the
 * pictures' folder; output paths that are not regular files, or written
 * by two runs at once; plugins that print, flood their result pipe, hang
 * in a step every check case shares, or leave a daemon behind; a runner
 * killed or hung up; command lines with empty, repeated and non-finite
 * values.
 */
#define _GNU_SOURCE 1
#include "helpers.h"
#include "results/results.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A run of two plugins on one workload at 1 and 2 threads, 3 processes a
 * cell, written by the results writer with whatever names are given. */
static void write_run(const char *path, const char *label_a, const char *label_b, const char *workload)
{
	char *argv[] = {"test"}, err[512];
	struct alloclab_results *r = alloclab_results_new(1, argv, NULL);
	const char *labels[] = {label_a, label_b};

	for (unsigned p = 0; p < 2; p++) {
		struct alloclab_plugin_info info = {.label = (char *)labels[p], .spec = "x", .name = "x"};
		alloclab_results_add_plugin(r, &info);
		for (unsigned t = 1; t <= 2; t++) {
			struct alloclab_cell c = {.plugin = (char *)labels[p], .plugin_index = p, .workload = (char *)workload,
						  .threads = t, .status = ALLOCLAB_CELL_OK, .planned = 3,
						  .params = json_pack("{s:i}", "ops", 10)};
			struct alloclab_cell *cell = alloclab_results_add_cell(r, &c);
			for (unsigned k = 0; k < 3; k++) {
				struct alloclab_process pr = {.index = k, .peak_rss_kib = 1000};
				pr.values = calloc(1, sizeof *pr.values);
				pr.nvalues = 1;
				pr.values[0].wall_ns = 1000;
				pr.values[0].thread_ns = calloc(t, sizeof(uint64_t));
				pr.values[0].thread_ops = calloc(t, sizeof(uint64_t));
				for (unsigned i = 0; i < t; i++)
					pr.values[0].thread_ops[i] = 100;
				pr.values[0].per_op = 10.0 * t + p + k * 0.1;
				alloclab_cell_add_process(cell, &pr);
			}
		}
	}
	r->complete = 1;
	cr_assert_eq(alloclab_results_write(r, path, err, sizeof err), 0, "%s", err);
	alloclab_results_free(r);
}

/* Every file under dir, recursively, with its path relative to dir. */
static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d))) {
		char sub[4200];
		if (e->d_name[0] == '.' && (e->d_name[1] == '\0' || (e->d_name[1] == '.' && e->d_name[2] == '\0')))
			continue;
		snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
		n += e->d_type == DT_DIR ? count_files(sub) : 1;
	}
	closedir(d);
	return n;
}

Test(hostile, plot_never_runs_a_files_text_nor_writes_outside, .timeout = 60)
{
	char *dir = scratch_dir(), path[4200], pwned[4400];
	struct stat st;

	snprintf(pwned, sizeof pwned, "%s/PWNED", dir);
	/* Quotes and line breaks that would end gnuplot's string and command,
	 * system() and backquotes, and a workload that climbs out of -o. */
	char label[16384];
	snprintf(label, sizeof label, "a'\nsystem('touch %s')\nset title 'x` touch %s`", pwned, pwned);
	snprintf(path, sizeof path, "%s/evil.json", dir);
	write_run(path, label, "b\"\r\n;!touch PWNED", "../../escape");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"plot", "evil.json", "-o", "pics/inner", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(stat(pwned, &st) != 0, "a command from the file ran");
	snprintf(path, sizeof path, "%s/PWNED", dir);
	cr_expect(stat(path, &st) != 0, "a command from the file ran");
	/* Everything it wrote is inside pics/inner; nothing beside it. */
	snprintf(path, sizeof path, "%s/pics/inner", dir);
	cr_expect_geq(count_files(path), 4, "pictures missing");
	snprintf(path, sizeof path, "%s/pics", dir);
	snprintf(pwned, sizeof pwned, "%s/inner", path);
	cr_expect_eq(count_files(path), count_files(pwned), "a file outside -o");
	cr_expect_eq(count_files(dir) - 1, count_files(path), "a file outside -o");
	cmd_result_free(&r);
}

Test(hostile, compare_takes_the_documented_maximum_of_files, .timeout = 60)
{
	char *dir = scratch_dir(), path[4200];
	const char *args[70];
	size_t n = 0;

	args[n++] = "compare";
	for (int i = 0; i < 64; i++) {
		static char names[64][32];
		snprintf(names[i], sizeof names[i], "r%02d.json", i);
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		write_run(path, "a", "b", "churn");
		args[n++] = names[i];
	}
	args[n++] = "--format";
	args[n++] = "csv";
	args[n] = NULL;
	struct cmd_result r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 0, "%s", r.err);
	/* A header and 4 rows (2 plugins x 2 thread counts), no more. */
	cr_expect_eq(count_lines(r.out), 5, "%.500s", r.out);
	cmd_result_free(&r);
	args[0] = "compare";
	args[65] = "r00.json";
	args[66] = NULL;
	r = run_alloclab(dir, args);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "at most 64 results files") != NULL, "%s", r.err);
	cmd_result_free(&r);
}

Test(hostile, output_paths_that_are_not_results_files_are_refused, .timeout = 60)
{
	char *dir = scratch_dir(), path[4200], target[4200];
	struct stat st;

	snprintf(path, sizeof path, "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=100",
		"-t", "1", "-n", "1", "-o", "fifo", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "fifo is not a regular file") != NULL, "%s", r.err);
	cr_expect(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
	cmd_result_free(&r);

	snprintf(target, sizeof target, "%s/kept", dir);
	FILE *f = fopen(target, "w");
	fputs("mine", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/link.json", dir);
	cr_assert_eq(symlink(target, path), 0);
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=100", "-t", "1", "-n", "1",
		"-o", "link.json", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "link.json is a symbolic link") != NULL, "%s", r.err);
	char *kept = read_file(target);
	cr_expect_str_eq(kept, "mine");
	free(kept);
	cmd_result_free(&r);

	/* An output that cannot be created is refused before any worker runs. */
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=100", "-t", "1", "-n", "1",
		"-o", "kept/r.json", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "kept/r.json") != NULL, "%s", r.err);
	cr_expect(strstr(r.out, "churn") == NULL, "something was measured: %s", r.out);
	cmd_result_free(&r);
}

static pid_t start_run(const char *dir, const char *out, const char *plugin)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (chdir(dir) != 0)
			_exit(99);
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execl(getenv("ALLOCLAB_EXE"), "alloclab", "run", "--no-check", "--order", "fixed", "-p", "system", "-p", plugin, "-w", "churn:ops=1000,slots=64",
		      "-t", "1", "-n", "1", "-v", "1", "--timeout", "60", "-o", out, (char *)NULL);
		_exit(98);
	}
	return pid;
}

/* The runner's children, once it has one (its worker of the hang cell). */
static long child_of(pid_t runner)
{
	char path[128];
	long child = 0;
	for (int i = 0; i < 500 && child == 0; i++) {
		snprintf(path, sizeof path, "/proc/%d/task/%d/children", runner, runner);
		FILE *f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%ld", &child) != 1)
				child = 0;
			fclose(f);
		}
		if (child == 0)
			usleep(10000);
	}
	return child;
}

static int alive(long pid)
{
	char path[128], state = 0;
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return 0;
	int n = fscanf(f, "%*d %*s %c", &state);
	fclose(f);
	return n == 1 && state != 'Z' && state != 'X';
}

Test(hostile, workers_die_with_a_killed_runner, .timeout = 60)
{
	char *dir = scratch_dir();
	pid_t runner = start_run(dir, "r.json", test_plugin("hang"));
	long worker = 0;

	/* Wait for the hang cell's worker (the system cell comes first). */
	for (int i = 0; i < 300; i++) {
		char journal[4300];
		snprintf(journal, sizeof journal, "%s/r.json.journal", dir);
		struct stat st;
		if (stat(journal, &st) == 0 && st.st_size > 0)
			break;
		usleep(20000);
	}
	worker = child_of(runner);
	cr_assert_gt(worker, 0, "no worker seen");
	kill(runner, SIGKILL);
	waitpid(runner, NULL, 0);
	for (int i = 0; i < 200 && alive(worker); i++)
		usleep(10000);
	cr_expect_not(alive(worker), "worker %ld outlived its runner", worker);
	/* What finished before the kill is still there. */
	struct alloclab_results *r = load_results(dir, "r.json");
	cr_expect(r->interrupted);
	cr_expect_eq(cell_of(r, "system", 1)->nprocs, 1);
	alloclab_results_free(r);
}

Test(hostile, a_hangup_stops_the_run_like_ctrl_c, .timeout = 60)
{
	char *dir = scratch_dir();
	pid_t runner = start_run(dir, "r.json", test_plugin("hang"));
	int status;

	for (int i = 0; i < 300; i++) {
		char journal[4300];
		struct stat st;
		snprintf(journal, sizeof journal, "%s/r.json.journal", dir);
		if (stat(journal, &st) == 0 && st.st_size > 0)
			break;
		usleep(20000);
	}
	long worker = child_of(runner);
	kill(runner, SIGHUP);
	waitpid(runner, &status, 0);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status %d", status);
	for (int i = 0; i < 200 && worker && alive(worker); i++)
		usleep(10000);
	cr_expect_not(worker && alive(worker), "worker left running");
	struct alloclab_results *r = load_results(dir, "r.json");
	cr_expect(r->interrupted && r->complete);
	alloclab_results_free(r);
}

Test(hostile, a_second_run_on_the_same_output_is_refused, .timeout = 60)
{
	char *dir = scratch_dir();
	pid_t runner = start_run(dir, "r.json", test_plugin("hang"));

	for (int i = 0; i < 300; i++) {
		char journal[4300];
		struct stat st;
		snprintf(journal, sizeof journal, "%s/r.json.journal", dir);
		if (stat(journal, &st) == 0)
			break;
		usleep(20000);
	}
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=100",
		"-t", "1", "-n", "1", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "r.json is being written by another alloclab run") != NULL, "%s", r.err);
	cmd_result_free(&r);
	kill(runner, SIGINT);
	waitpid(runner, NULL, 0);
}

Test(hostile, a_flooding_worker_is_an_error_not_a_runaway_runner, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", test_plugin("flood"), "-w",
		"churn:ops=100", "-t", "1", "-n", "1", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 1, "%s", r.err);
	struct alloclab_results *doc = load_results(dir, "r.json");
	cr_expect_eq(doc->cells[0].status, ALLOCLAB_CELL_ERROR);
	cr_expect(strstr(doc->cells[0].message, "worker sent more than 64 MiB") != NULL, "%s", doc->cells[0].message);
	alloclab_results_free(doc);
	cmd_result_free(&r);
}

Test(hostile, a_plugins_daemon_is_reaped, .timeout = 60)
{
	char *dir = scratch_dir(), spec[4300], pidfile[4200];
	snprintf(pidfile, sizeof pidfile, "%s/daemon.pid", dir);
	snprintf(spec, sizeof spec, "%s:pidfile=%s", test_plugin("daemon"), pidfile);
	/* Left running beside the probe: killed, and the plugin refused. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", spec, "-w", "churn:ops=100", "-t", "1",
		"-n", "1", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "left 1 process of its own running"), "%s", r.err);
	char *text = read_file(pidfile);
	cr_assert_not_null(text, "the daemon never started");
	long pid = atol(text);
	cr_expect_gt(pid, 0);
	cr_expect_not(alive(pid), "the plugin's daemon %ld outlived its cell", pid);
	free(text);
	cmd_result_free(&r);
}

Test(hostile, plugin_output_never_reaches_alloclabs_own, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"check", test_plugin("chatty"), "--json", "--case",
		"alignment", NULL});
	json_t *doc = json_loads(r.out, 0, NULL);
	cr_assert_not_null(doc, "check --json is not JSON: %s", r.out);
	cr_expect_eq(r.status, 0);
	json_t *c = json_array_get(json_object_get(json_array_get(doc, 0), "cases"), 0);
	cr_expect(strstr(json_string_value(json_object_get(c, "plugin_output")), "hello from chatty") != NULL);
	json_decref(doc);
	cmd_result_free(&r);

	r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", test_plugin("chatty"), "-w", "churn:ops=100", "-t", "1",
		"-n", "1", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 0);
	/* Not a line of its own: only inside alloclab's flagged note. */
	cr_expect(strstr(r.out, "\nhello from chatty") == NULL, "%s", r.out);
	cr_expect(strstr(r.out, "note: plugin chatty printed while measured") != NULL, "%s", r.out);
	struct alloclab_results *res = load_results(dir, "r.json");
	cr_expect(strstr(res->cells[0].procs[0].plugin_output, "chatty: first malloc") != NULL);
	alloclab_results_free(res);
	cmd_result_free(&r);
}

Test(hostile, a_hang_in_a_shared_step_stops_check_at_once, .timeout = 60)
{
	struct cmd_result r = run_alloclab(NULL, (const char *const[]){"check", test_plugin("hang_detach"), "--timeout",
		"2", NULL});
	cr_expect_eq(r.status, 1);
	cr_expect(strstr(r.out, "timed out after 2 s (raise --timeout if it is just slow) in thread_detach") != NULL, "%s",
		  r.out);
	cr_expect(strstr(r.out, "the other cases were not run: thread_detach hung in case alignment") != NULL, "%s",
		  r.out);
	cmd_result_free(&r);
}

Test(hostile, command_lines_are_checked, .timeout = 60)
{
	static const char *const bad[][2] = {
		{"--timeout=nan", "--timeout 'nan' is not a number of seconds"},
		{"--timeout=inf", "--timeout 'inf' is not a number of seconds"},
		{"--timeout=-1", "is not a number of seconds"},
		{"-t1,,2", "--threads '1,,2' has an empty entry"},
		{"-t1,1", "--threads '1,1' gives 1 twice"},
		{"-t,", "has an empty entry"},
		{"-n99999999999999999999", "is too large"},
		{"-wchurn:ops=5,ops=7", "ops is given twice"},
		{"-wchurn:ops=99999999999G", "is too large"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct cmd_result r = run_alloclab(NULL, (const char *const[]){"run", "-p", "system", bad[i][0], NULL});
		cr_expect_eq(r.status, 2, "%s: status %d", bad[i][0], r.status);
		cr_expect(strstr(r.err, bad[i][1]) != NULL, "%s: '%s' not in: %s", bad[i][0], bad[i][1], r.err);
		cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
		cmd_result_free(&r);
	}
}

Test(hostile, words_files_are_checked_once, .timeout = 60)
{
	char *dir = scratch_dir(), path[4200];
	snprintf(path, sizeof path, "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "unicode:words=16",
		"--words", "fifo", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "--words fifo: not a regular file") != NULL, "%s", r.err);
	cmd_result_free(&r);
	/* A comma in the path reaches the worker intact. */
	snprintf(path, sizeof path, "%s/a,b words.txt", dir);
	FILE *f = fopen(path, "w");
	fputs("alpha beta gamma delta epsilon zeta eta theta iota kappa\n", f);
	fclose(f);
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "unicode:words=16,variant=text,rounds=2",
		"--words", "a,b words.txt", "-t", "1", "-n", "1", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
}

/* A plugin given by path is put through `alloclab check` before it is
 * measured; one that fails a case is measured all the same but marked, in
 * the table and the JSON; the outcome is cached for the same file. */
Test(hostile, run_checks_plugins_given_by_path, .timeout = 120)
{
	char *dir = scratch_dir(), cache[4300];
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", test_plugin("bad_neighbour"), "-w",
		"churn:ops=1000,slots=16,max_size=64", "-t", "1", "-n", "1", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "[fails check: guards]") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "bad-neighbour fails check case guards: operation") != NULL, "%s", r.out);
	cmd_result_free(&r);
	struct alloclab_results *doc = load_results(dir, "r.json");
	json_t *check = doc->plugins[0].check;
	cr_assert_eq(json_array_size(check), 1);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(check, 0), "case")), "guards");
	alloclab_results_free(doc);
	snprintf(cache, sizeof cache, "%s/alloclab/check", getenv("XDG_CACHE_HOME"));
	cr_expect_geq(count_files(cache), 1, "nothing cached in %s", cache);
	/* Named plugins are not checked unless asked; --no-check checks none. */
	r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", test_plugin("bad_neighbour"), "-w",
		"churn:ops=1000,slots=16,max_size=64", "-t", "1", "-n", "1", "-o", "r2.json", NULL});
	cr_expect(strstr(r.out, "fails check") == NULL, "%s", r.out);
	cmd_result_free(&r);
}

Test(hostile, descriptor_text_must_be_utf8, .timeout = 60)
{
	struct cmd_result r = run_alloclab(NULL, (const char *const[]){"run", "-p", test_plugin("bad_utf8"), "-w",
		"churn:ops=100", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "bad_utf8.so: descriptor's description string is not UTF-8") != NULL, "%s", r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cmd_result_free(&r);
	/* check vets it as run does: refused in one line, nothing on stdout
	 * that a reader of --json could take for a report. */
	r = run_alloclab(NULL, (const char *const[]){"check", test_plugin("bad_utf8"), "--json", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "is not UTF-8") != NULL && count_lines(r.err) == 1, "%s", r.err);
	cr_expect_str_eq(r.out, "");
	cmd_result_free(&r);
}
