/*
 * Every step that runs someone else's code has a deadline and ends all it
 * started: a pyperf file run once while the plan is made (to find its
 * benchmarks) follows --timeout, a daemon it starts does not hold the plan
 * up, metadata that is not a regular file is refused rather than waited
 * on, and nothing it started outlives alloclab, however alloclab ends.
 */
#define _GNU_SOURCE 1
#include "helpers.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

/* Processes whose command line mentions needle (a file only this test
 * made), this test's own excepted. */
static unsigned processes_naming(const char *needle)
{
	unsigned found = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		char path[300], buf[8192];
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || atoi(e->d_name) == getpid())
			continue;
		snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
		FILE *f = fopen(path, "r");
		if (f == NULL)
			continue;
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		for (size_t i = 0; i < n; i++)
			buf[i] = buf[i] ? buf[i] : ' ';
		buf[n] = '\0';
		found += strstr(buf, needle) != NULL;
	}
	if (d)
		closedir(d);
	return found;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char loop_file[] = "import pyperf\nwhile True:\n    pass\n";

Test(deadlines, discovery_follows_the_runs_timeout, .timeout = 60)
{
	char *dir = scratch_dir(), *file = path_in(dir, "spin-forever.py");
	write_text(file, loop_file);
	double t0 = now_s();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "python:pyperf=spin-forever.py",
								      "--timeout", "2", "-o", "r.json", NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "timed out after 2 s") && count_lines(r.err) == 1, "%s", r.err);
	cmd_result_free(&r);
	cr_expect(now_s() - t0 < 20, "the plan took %.0f s", now_s() - t0);
	cr_expect_eq(processes_naming(file), 0);
}

/* alloclab ended from outside while a file runs at plan time: SIGTERM
 * (handled: the step is ended whole) and SIGKILL (nothing to handle it:
 * what alloclab started dies with it). */
static void ended_from_outside(int sig)
{
	char *dir = scratch_dir(), *file = path_in(dir, sig == SIGKILL ? "killed-loop.py" : "termed-loop.py");
	write_text(file, loop_file);
	char pyperf[4200];
	snprintf(pyperf, sizeof pyperf, "python:pyperf=%s", file);
	char *const argv[] = {getenv("ALLOCLAB_EXE"), "run", "-p", "system", "-w", pyperf, "--timeout", "60", "-o",
			      path_in(dir, "r.json"), "-q", NULL};
	pid_t pid;
	cr_assert_not_null(argv[0]);
	cr_assert_eq(posix_spawn(&pid, argv[0], NULL, NULL, argv, environ), 0);
	/* Until the file runs. */
	/* A loaded machine may take seconds to start Python. */
	for (int i = 0; i < 600 && processes_naming(file) < 2; i++)
		usleep(50000);
	cr_expect_geq(processes_naming(file), 1, "the file never ran");
	kill(pid, sig);
	int status;
	waitpid(pid, &status, 0);
	for (int i = 0; i < 200 && processes_naming(file) > 0; i++)
		usleep(50000);
	cr_expect_eq(processes_naming(file), 0, "what alloclab started outlived it (signal %d)", sig);
}

Test(deadlines, nothing_outlives_a_terminated_alloclab, .timeout = 120) { ended_from_outside(SIGTERM); }
Test(deadlines, nothing_outlives_a_killed_alloclab, .timeout = 120) { ended_from_outside(SIGKILL); }

Test(deadlines, a_daemon_does_not_hold_up_the_plan, .timeout = 60)
{
	char *dir = scratch_dir(), *file = path_in(dir, "starts-a-daemon.py");
	write_text(file, "import os, time, pyperf\n"
			 "if os.fork() == 0:\n"
			 "    os.setsid()\n"
			 "    time.sleep(60)\n"
			 "    os._exit(0)\n"
			 "r = pyperf.Runner()\n"
			 "r.bench_func('x', lambda: None)\n");
	double t0 = now_s();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "python:pyperf=starts-a-daemon.py",
								      "--dry-run", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	cr_expect(now_s() - t0 < 20, "the plan waited %.0f s for the daemon", now_s() - t0);
	cr_expect_eq(processes_naming(file), 0, "the daemon outlived the plan");
}

Test(deadlines, metadata_that_is_not_a_file_is_refused, .timeout = 60)
{
	char *dir = scratch_dir(), *pf = path_in(dir, "pf"), *bm = path_in(dir, "pf/bm_foo");
	mkdir(pf, 0755);
	mkdir(bm, 0755);
	write_text(path_in(pf, "MANIFEST"), "[benchmarks]\n\nname\tmetafile\nfoo\t<local>\n");
	write_text(path_in(bm, "run_benchmark.py"), "import pyperf\npyperf.Runner().bench_func('foo', lambda: None)\n");
	cr_assert_eq(mkfifo(path_in(bm, "pyproject.toml"), 0644), 0);
	double t0 = now_s();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "python:pyperf=pf", "-t", "1",
								      "-n", "1", "-v", "1", "--no-check", "-o", "f.json", "-q",
								      NULL});
	cmd_result_free(&r);
	cr_expect(now_s() - t0 < 30, "the plan waited %.0f s on a FIFO", now_s() - t0);
	r = run_alloclab(dir, (const char *const[]){"show", "f.json", NULL});
	cr_expect(strstr(r.out, "not a regular file"), "%s %s", r.out, r.err);
	cmd_result_free(&r);
}
