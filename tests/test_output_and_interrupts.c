/*
 * The files a run writes and what happens when it is interrupted: output
 * paths that are not results files or are FIFOs, two runs on one output, a
 * results file overwritten under a run, a runner killed or hung up (its
 * workers die with it, what was finished is kept), record killed.
 */
#define _GNU_SOURCE 1
#include "helpers.h"
#include "plugin/stats.h"
#include "results/results.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

Test(output_and_interrupts, output_paths_that_are_not_results_files_are_refused, .timeout = 60)
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

Test(output_and_interrupts, workers_die_with_a_killed_runner, .timeout = 60)
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

Test(output_and_interrupts, a_hangup_stops_the_run_like_ctrl_c, .timeout = 60)
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

Test(output_and_interrupts, a_second_run_on_the_same_output_is_refused, .timeout = 60)
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

Test(output_and_interrupts, record_refuses_what_run_refuses_and_leaves_nothing_when_killed, .timeout = 120)
{
	char *dir = scratch_dir(), path[4200], link_path[4300];
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=100", "-t", "1",
								      "-n", "1", "-o", "r.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	const char *outs[] = {"r.json", "l.trace", "/proc/nonexistent/x.trace", ""};
	const char *why[] = {"is not an alloclab trace", "symbolic link", "cannot create folder", "names no file"};
	snprintf(path, sizeof path, "%s/r.json", dir);
	snprintf(link_path, sizeof link_path, "%s/l.trace", dir);
	cr_assert_eq(symlink(path, link_path), 0);
	for (size_t i = 0; i < sizeof outs / sizeof *outs; i++) {
		r = run_alloclab(dir, (const char *const[]){"record", "-p", "system", "-w", "churn", "-o", outs[i], NULL});
		cr_expect_eq(r.status, 2, "%s: %s", outs[i], r.err);
		cr_expect(strstr(r.err, why[i]) && count_lines(r.err) == 1, "%s: %s", outs[i], r.err);
		cmd_result_free(&r);
	}
	/* The results file is intact; a folder that is missing is made. */
	struct alloclab_results *res = load_results(dir, "r.json");
	alloclab_results_free(res);
	r = run_alloclab(dir, (const char *const[]){"record", "-p", "system", "-w", "churn:ops=1000", "-o", "new/a.trace",
						    NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	/* run refuses to replace the trace, as record refuses a results file. */
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=100", "-o", "new/a.trace", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "is not an alloclab results file"), "%s", r.err);
	cmd_result_free(&r);
	/* Killed with SIGKILL half-way: nothing of the trace is left. */
	char sub[4300], cmd[9000];
	snprintf(sub, sizeof sub, "%s/killed", dir);
	mkdir(sub, 0755);
	snprintf(cmd, sizeof cmd, "cd %s && (%s record -p system -w churn:ops=400000000 -o big.trace & pid=$!; sleep 2; kill -9 $pid; wait) 2>/dev/null",
		 sub, getenv("ALLOCLAB_EXE"));
	cr_assert_neq(system(cmd), -1);
	DIR *d = opendir(sub);
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		cr_expect(e->d_name[0] == '.', "left behind by a killed record: %s", e->d_name);
	closedir(d);
}

/* A FIFO where a file is read (a word list, a results file's journal) is
 * refused or passed over, never waited on. */
Test(output_and_interrupts, a_fifo_given_as_a_file_is_never_waited_on, .timeout = 30)
{
	char *dir = scratch_dir(), fifo[4200], spec[4300];
	snprintf(fifo, sizeof fifo, "%s/words", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	snprintf(spec, sizeof spec, "unicode:text=%s", fifo);
	assert_run_refused(dir, (const char *const[]){"run", "-p", "system", "-w", spec, "-o", "refused.json", NULL},
			   "not a regular file (a FIFO)");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=100", "-t", "1",
								      "-n", "1", "-o", "r.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	snprintf(fifo, sizeof fifo, "%s/r.json.journal", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	r = run_alloclab(dir, (const char *const[]){"show", "r.json", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
}

/* Something the run runs writes over -o and its journal: the whole run,
 * still in memory, goes to a file of its own beside it, and the message
 * names that file, which reads back. */
Test(output_and_interrupts, a_run_whose_output_was_overwritten_keeps_its_results, .timeout = 120)
{
	char *dir = scratch_dir(), *script = path_in(dir, "vandal.sh"), text[9000];
	snprintf(text, sizeof text, "#!/bin/sh\necho not-results > '%s/r.json'\necho not-a-journal > '%s/r.json.journal'\n",
		 dir, dir);
	FILE *f = fopen(script, "w");
	fputs(text, f);
	fclose(f);
	chmod(script, 0755);
	char w[9100];
	snprintf(w, sizeof w, "exec:cmd=%s", script);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", w, "-t", "1", "-n", "1",
								      "-v", "1", "--no-check", "-o", "r.json", "-q", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	const char *at = strstr(r.err, "the run's results are in ");
	cr_assert_not_null(at, "%s", r.err);
	char rescued[4200];
	snprintf(rescued, sizeof rescued, "%s", at + strlen("the run's results are in "));
	rescued[strcspn(rescued, "\n")] = '\0';
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"show", rescued, NULL});
	cr_expect_eq(r.status, 0, "%s: %s", rescued, r.err);
	cmd_result_free(&r);
}
