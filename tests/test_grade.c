/*
 * `alloclab grade` as a teacher meets it: a class of submissions built,
 * checked and timed in one command, each in a sandbox; hostile
 * submissions (tests/grade/) that try every way out the sandbox must
 * stop; rows named by their paths and kept in a journal that survives a
 * killed grading; no sandbox, no grading unless asked for by name.
 */
#include "helpers.h"
#include "grade_report.h"
#include "grade/inside.h"
#include "grade/submission.h"
#include "grade/submission_build.h"
#include "check/check.h"
#include "process/child.h"

#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;
	cr_assert(in && out, "%s -> %s: %s", from, to, strerror(errno));
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		cr_assert_eq(fwrite(buf, 1, n, out), n);
	fclose(in);
	cr_assert_eq(fclose(out), 0);
}

static const char *source(const char *name)
{
	static char path[8][4200];
	static int slot;
	char *p = path[slot++ % 8];
	snprintf(p, 4200, "%s/%s", getenv("ALLOCLAB_SOURCE_ROOT"), name);
	return p;
}

/* The grading's JSON (DIR/grades.json), and a row of it by name. */
static json_t *grades(const char *dir)
{
	json_error_t e;
	json_t *j = json_load_file(path_in(dir, "alloclab-grade/grades.json"), 0, &e);
	cr_assert_not_null(j, "grades.json: %s", e.text);
	return j;
}

static const json_t *row_of(const json_t *g, const char *name)
{
	const json_t *row;
	size_t i;
	json_array_foreach(json_object_get(g, "rows"), i, row)
	if (strcmp(json_string_value(json_object_get(row, "name")), name) == 0)
		return row;
	cr_assert_fail("no row %s", name);
	return NULL;
}

/* Everything a row's cases printed, one string. */
static char *printed(const json_t *row)
{
	char *all = calloc(1, 1 << 16);
	const json_t *c;
	size_t i;
	json_array_foreach(json_object_get(row, "cases"), i, c)
	{
		const char *p = json_string_value(json_object_get(c, "plugin_output"));
		if (p && strlen(all) + strlen(p) + 2 < (1 << 16))
			strcat(strcat(all, p), "\n");
	}
	return all;
}

/* A hostile submission: a folder with its source, the course's bump
 * allocator it includes, and evidence.h saying where evidence goes. */
static void hostile(const char *subs, const char *name, const char *evidence, const char *victim, int port)
{
	char *dir = path_in(subs, name), file[200], header[9000];
	cr_assert_eq(mkdir(dir, 0755), 0);
	snprintf(file, sizeof file, "tests/grade/%s.c", name);
	copy_file(source(file), path_in(dir, "hostile.c"));
	copy_file(source("tests/course/bump.c"), path_in(dir, "bump.inc"));
	snprintf(header, sizeof header, "#define EVIDENCE \"%s\"\n#define SUBMISSIONS \"%s\"\n#define VICTIM \"%s\"\n"
					"#define PORT %d\n", evidence, subs, victim, port);
	write_text(path_in(dir, "evidence.h"), header);
}

/* Each escape the issue names, tried by hostile submissions (a plugin's
 * constructor, a meson.build), is stopped, and every other row is kept:
 * reading /etc/shadow, being root outside, listing the other
 * submissions, rewriting another's plugin, a daemon writing outside
 * after its grading, killing the grader, the network, a fork bomb, an
 * address space or a file past the limits. */
Test(grade, each_way_out_of_the_sandbox_is_stopped, .timeout = 300)
{
	char *dir = scratch_dir(), *subs = path_in(dir, "subs"), *evidence = path_in(dir, "evidence");
	cr_assert_eq(mkdir(subs, 0755), 0);
	cr_assert_eq(mkdir(evidence, 0777), 0);
	/* A port on the loopback that nobody inside may reach. */
	int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t alen = sizeof a;
	cr_assert_eq(bind(listener, (struct sockaddr *)&a, sizeof a), 0);
	cr_assert_eq(listen(listener, 16), 0);
	getsockname(listener, (struct sockaddr *)&a, &alen);
	char *victim_dir = path_in(subs, "victim"), *victim = path_in(victim_dir, "victim.so");
	cr_assert_eq(mkdir(victim_dir, 0755), 0);
	copy_file(test_plugin("course-bump"), victim);
	chmod(victim, 0755);
	char *before = read_file(victim);
	hostile(subs, "snoop", evidence, victim, ntohs(a.sin_port));
	write_text(path_in(subs, "snoop/rootonly"), "root's alone\n");
	chmod(path_in(subs, "snoop/rootonly"), 0600);
	hostile(subs, "vandal", evidence, victim, 0);
	hostile(subs, "killer", evidence, victim, 0);
	/* A build that reads /etc/shadow and lists the class as meson sets it up. */
	char *builder = path_in(subs, "builder"), meson[4096], *text = read_file(source("tests/grade/hostile-meson.build"));
	cr_assert_eq(mkdir(builder, 0755), 0);
	char *at = strstr(text, "EVIDENCE, SUBMISSIONS");
	cr_assert_not_null(at);
	snprintf(meson, sizeof meson, "%.*s'%s', '%s'%s", (int)(at - text), text, evidence, subs,
		 at + strlen("EVIDENCE, SUBMISSIONS"));
	write_text(path_in(builder, "meson.build"), meson);
	copy_file(source("tests/course/bump.c"), path_in(builder, "builder.c"));
	free(text);

	const char *const args[] = {"grade", "--level", "1", "--no-measure", "--timeout", "60", "subs/snoop", "subs/vandal",
				    "subs/killer", "subs/builder", "subs/victim", NULL};
	struct cmd_result r = run_alloclab(dir, args);
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	sleep(3); /* what a daemon would write after its grading, it has written by now */
	json_t *g = grades(dir);
	/* Nothing got out: no evidence anywhere, no connection. */
	cr_expect_eq(count_files(evidence), 0, "evidence left by a submission: %s", r.out);
	cr_expect(accept(listener, NULL, NULL) < 0 && (errno == EAGAIN || errno == EWOULDBLOCK),
		  "a submission reached the loopback");
	close(listener);
	/* What it printed: in its cases, or, where a case could not run (its
	 * daemon is killed as a stray), in its row's problem. */
	char *said = printed(row_of(g, "snoop"));
	strncat(said, json_string_value(json_object_get(row_of(g, "snoop"), "problem")), 4096);
	cr_expect(strstr(said, "S:denied") && strstr(said, "L:denied") && strstr(said, "N:denied") &&
		  strstr(said, "F:denied"), "%s", said);
	/* (A sanitized alloclab runs its sandboxes without the address-space
	 * limit: the sanitizer's shadow needs terabytes.) */
	if (!getenv("ALLOCLAB_UNDER_SANITIZER"))
		cr_expect(strstr(said, "A:denied"), "%s", said);
	/* As root, the sandbox is an unprivileged user outside too: a file
	 * only root may read stays unread. */
	if (geteuid() == 0)
		cr_expect(strstr(said, "R:denied"), "%s", said);
	int forked = -1;
	const char *p = strstr(said, "P:");
	cr_expect(p && sscanf(p, "P:%d", &forked) == 1 && forked >= 1 && forked < 400, "processes: %s", said);
	free(said);
	said = printed(row_of(g, "vandal"));
	cr_expect(strstr(said, "V:denied"), "%s", said);
	free(said);
	/* The victim's plugin is untouched and its row passes; the killer's
	 * row fails alone; the builder's sandbox read nothing. */
	char *after = read_file(victim);
	cr_expect(before && after && memcmp(before, after, 16) == 0, "the victim's plugin was rewritten");
	cr_expect(json_is_true(json_object_get(row_of(g, "victim"), "passed")), "%s", r.out);
	cr_expect(json_is_false(json_object_get(row_of(g, "killer"), "passed")), "%s", r.out);
	cr_expect(json_is_true(json_object_get(row_of(g, "builder"), "passed")), "%s", r.out);
	cr_expect_eq(json_array_size(json_object_get(g, "rows")), 5);
	json_decref(g);
	cmd_result_free(&r);
}

/* A teacher grades a class in one command: built plugins (the course's
 * solutions, broken ones: crashing in free, hanging, crashing while
 * loading, not a plugin), a folder with nothing in it, source folders
 * built with meson and a bare .c, a build that fails, two folders of one
 * name, a link to another student's file, and a file named like a
 * bundled plugin. Every one is a row named by its path; a hang costs one
 * deadline; measured rows carry their interval. */
Test(grade, a_class_in_one_command, .timeout = 600)
{
	char *dir = scratch_dir();
	const char *const folders[] = {"nothing-built", "a", "b", "a/mine", "b/mine", "linked", "linked/build", NULL};
	for (const char *const *f = folders; *f; f++)
		cr_assert_eq(mkdir(path_in(dir, *f), 0755), 0);
	copy_file(source("tests/course/freelist.c"), path_in(dir, "a/mine/mine.c"));
	copy_file(source("tests/course/bump.c"), path_in(dir, "b/mine/mine.c"));
	write_text(path_in(dir, "a/mine/meson.build"),
		   "project('mine', 'c')\nshared_module('mine', 'mine.c', name_prefix: '', dependencies: "
		   "dependency('alloclab-plugin'))\n");
	write_text(path_in(dir, "broken.c"), "#include <alloclab/plugin.h>\nint broken = ;\n");
	write_text(path_in(dir, "system"), "not the bundled plugin\n");
	cr_assert_eq(symlink(test_plugin("course-segregated"), path_in(dir, "linked/build/fl.so")), 0);
	const char *const args[] = {"grade", "--level", "2", "--timeout", "8", "--processes", "3",
				    test_plugin("course-freelist"), test_plugin("course-segregated"), test_plugin("course-bump"),
				    test_plugin("bad_crash_free"), test_plugin("bad_hang"), test_plugin("crash_in_load"),
				    test_plugin("not_elf"), "nothing-built", "a/mine", "b/mine", "broken.c", "system", "linked",
				    NULL};
	struct cmd_result r = run_alloclab(dir, args);
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	static const struct {
		const char *row, *says;
	} expect[] = {
		{"course-freelist.so", "pass"},
		{"course-bump.so", "footprint"},
		{"bad_crash_free.so", "edge-sizes"},
		{"bad_hang.so", "timed out"},
		{"crash_in_load.so", "does not load"},
		{"not_elf.so", "neither a plugin"},
		{"nothing-built", "nothing to build"},
		{"a/mine", "pass"},
		{"b/mine", "footprint"},
		{"broken.c", "broken.c:2:14: error"},
		{"system", "neither a plugin"},
		{"linked", "build/fl.so is a symbolic link to "},
		{"course-segregated.so", "pass"},
	};
	for (size_t i = 0; i < sizeof expect / sizeof *expect; i++) {
		char head[300];
		snprintf(head, sizeof head, "\n%s ", expect[i].row);
		const char *line = strstr(r.out, head);
		cr_assert_not_null(line, "no row for %s: %s", expect[i].row, r.out);
		char row[1600];
		snprintf(row, sizeof row, "%.*s", (int)strcspn(line + 1, "\n"), line + 1);
		cr_expect(strstr(row, expect[i].says), "%s: '%s' not in '%s'", expect[i].row, expect[i].says, row);
	}
	json_t *g = grades(dir);
	/* The link is the linking student's doing: the other row says nothing of it. */
	cr_expect_str_eq(json_string_value(json_object_get(row_of(g, "course-segregated.so"), "note")), "");
	/* A hang costs one deadline (8 s), not one per case. */
	double hung = json_number_value(json_object_get(row_of(g, "bad_hang.so"), "seconds"));
	cr_expect(hung > 7 && hung < 30, "the hanging submission took %.1f s", hung);
	/* A measured row: its ratio inside its interval, with a verdict. */
	const json_t *t = json_object_get(row_of(g, "a/mine"), "time");
	cr_assert_not_null(t, "a/mine was not measured: %s", r.out);
	double ratio = json_number_value(json_object_get(t, "ratio"));
	const json_t *iv = json_object_get(t, "interval");
	cr_expect(json_number_value(json_array_get(iv, 0)) <= ratio && ratio <= json_number_value(json_array_get(iv, 1)));
	cr_expect(json_is_string(json_object_get(t, "verdict")));
	/* The gradebook's files: a CSV row and a feedback file each. */
	char *csv = read_file(path_in(dir, "alloclab-grade/grades.csv"));
	cr_expect(csv && count_lines(csv) == 1 + 13, "%s", csv);
	free(csv);
	char *fb = read_file(path_in(dir, "alloclab-grade/feedback/10-b-mine.txt"));
	cr_expect(fb && strstr(fb, "footprint") && strstr(fb, "cc -std=gnu11") &&
		  strstr(fb, "alloclab check --case footprint ./build/mine.so"), "%s", fb);
	free(fb);
	char *log = read_file(path_in(dir, "alloclab-grade/logs/11-broken.c.build.log"));
	cr_expect(log && strstr(log, "error"), "%s", log);
	free(log);
	json_decref(g);
	cmd_result_free(&r);
}

/* The journal keeps every row a grading finished: SIGKILL the grader
 * while a submission hangs, and --resume keeps the rows done and grades
 * the rest; a line cut short is dropped and graded again. */
Test(grade, a_killed_grading_keeps_its_rows_and_resumes, .timeout = 300)
{
	char *dir = scratch_dir(), *journal = path_in(dir, "alloclab-grade/journal.jsonl");
	const char *first = strdup(test_plugin("course-bump")), *hang = strdup(test_plugin("bad_hang")),
		   *last = strdup(test_plugin("course-freelist"));
	pid_t pid = fork();
	if (pid == 0) {
		if (chdir(dir) != 0)
			_exit(9);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execl(getenv("ALLOCLAB_EXE"), "alloclab", "grade", "--level", "1", "--no-measure", "--timeout", "60", first,
		      hang, last, (char *)NULL);
		_exit(127);
	}
	/* Once the first row is in the journal, the grader is on the hang. */
	for (int i = 0; i < 600; i++) {
		char *text = read_file(journal);
		int lines = text ? count_lines(text) : 0;
		free(text);
		if (lines >= 2)
			break;
		usleep(50000);
	}
	usleep(300000);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	char *text = read_file(journal);
	cr_assert(text && count_lines(text) == 2, "%s", text);
	free(text);
	/* The grader's kill took its sandbox with it. */
	/* A row cut short at the end, as a kill mid-write leaves it. */
	FILE *f = fopen(journal, "a");
	fputs("{\"name\":\"cut", f);
	fclose(f);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"grade", "--level", "1", "--no-measure", "--timeout",
								      "5", "--resume", first, hang, last, NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cr_expect(strstr(r.out, "1 rows resumed") && strstr(r.out, "cut short"), "%s", r.out);
	cr_expect(strstr(r.out, "course-freelist.so") && strstr(r.out, "bad_hang.so"), "%s", r.out);
	text = read_file(journal);
	cr_expect(text && count_lines(text) == 4, "%s", text);
	free(text);
	cmd_result_free(&r);
	/* Without --resume a grading's folder is not graded over. */
	r = run_alloclab(dir, (const char *const[]){"grade", "--level", "1", first, NULL});
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "--resume") && count_lines(r.err) == 1, "%s", r.err);
	cmd_result_free(&r);
}

/* Where no sandbox can be made, grade refuses with one line, unless told
 * by name to run unsandboxed, and then says so loudly. */
Test(grade, no_sandbox_no_grading_unless_asked)
{
	char *dir = scratch_dir(), *old = strdup(getenv("PATH"));
	setenv("PATH", dir, 1); /* no bwrap in it */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"grade", "--level", "1", "--no-measure",
								      test_plugin("course-bump"), NULL});
	setenv("PATH", old, 1);
	cr_expect_eq(r.status, 2, "%s %s", r.out, r.err);
	cr_expect(strstr(r.err, "bubblewrap") && count_lines(r.err) == 1, "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"grade", "--level", "1", "--no-measure", "--unsandboxed",
						    test_plugin("course-bump"), NULL});
	cr_expect_eq(r.status, 0, "%s %s", r.out, r.err);
	cr_expect(strstr(r.out, "UNSANDBOXED") && strstr(r.err, "UNSANDBOXED"), "%s %s", r.out, r.err);
	cr_expect(strstr(r.out, "course-bump.so pass"), "%s", r.out);
	cmd_result_free(&r);
	/* Bad input: one line, status 2. */
	const char *const *bad[] = {
		(const char *const[]){"grade", "--level", "1", "x", "./x", NULL},
		(const char *const[]){"grade", "--level", "9", "x", NULL},
		(const char *const[]){"grade", "x", NULL},
		(const char *const[]){"grade", "--level", "1", "--reference", "./nosuch.so", "x", NULL},
		(const char *const[]){"grade", "--level", "1", "--processes", "1", "x", NULL},
		(const char *const[]){"grade", "--level", "1", "-o", "sub/out", "sub", NULL},
	};
	mkdir(path_in(dir, "sub"), 0755);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		r = run_alloclab(dir, bad[i]);
		cr_expect_eq(r.status, 2, "case %zu: %s", i, r.err);
		cr_expect_eq(count_lines(r.err), 1, "case %zu: %s", i, r.err);
		cmd_result_free(&r);
	}
}

/* The grader hands its inside one JSON request, not a command line of
 * flags: each field is checked, and a bad one is one line naming it. */
Test(grade, the_inside_reads_one_checked_request)
{
	char *dir = scratch_dir();
	static const char good[] = "\"kind\":\"plugin\",\"submission\":\"/nosuch.so\",\"work\":\"%s\",\"reference\":\"system\","
				   "\"processes\":2,\"measuring\":false,\"build_timeout_s\":5,\"check_timeout_s\":5,"
				   "\"measure_timeout_s\":5";
	char body[1024], request[1200];
	snprintf(body, sizeof body, good, dir);
	const struct {
		const char *request, *names;
	} bad[] = {
		{"not json", "not a JSON object"},
		{"[1]", "not a JSON object"},
		{"{\"level\":9,%s}", "\"level\""},
		{"{\"level\":1.5,%s}", "whole numbers"},
		{"{\"level\":1,%s,\"kind\":\"\"}", "\"kind\""},
		{"{\"level\":1}", "\"kind\""},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		snprintf(request, sizeof request, bad[i].request, body);
		struct cmd_result r = run_alloclab(dir, (const char *const[]){"__grade-inside", request, NULL});
		cr_expect_eq(r.status, 2, "case %zu: %s", i, r.err);
		cr_expect(count_lines(r.err) == 1 && strstr(r.err, bad[i].names), "case %zu: %s", i, r.err);
		cmd_result_free(&r);
	}
	/* A good one runs: a plugin that is not there is its load event. */
	snprintf(request, sizeof request, "{\"level\":1,%s}", body);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"__grade-inside", request, NULL});
	cr_expect_eq(r.status, 0, "%s %s", r.out, r.err);
	cr_expect(strstr(r.out, "\"event\": \"load\"") || strstr(r.out, "\"event\":\"load\""), "%s", r.out);
	cr_expect(strstr(r.out, "\"end\""), "%s", r.out);
	cmd_result_free(&r);
}

/* The grader's own process in a sandbox is out of the submission's
 * reach: a build that runs beside it reads no environment of the
 * grader's (a secret in the grader's environment stays unread, in the
 * sandbox's first process too), cannot write an event into its output,
 * and cannot attach to it with ptrace; the row is the honest one. */
Test(grade, the_grader_inside_is_out_of_reach, .timeout = 300)
{
	char *dir = scratch_dir(), *forger = path_in(dir, "forger");
	cr_assert_eq(mkdir(forger, 0755), 0);
	char *text = read_file(source("tests/grade/forger-meson.build")), meson[8192];
	char *at = strstr(text, "SECRET)");
	cr_assert_not_null(at);
	snprintf(meson, sizeof meson, "%.*s'grader-secret-4711')%s", (int)(at - text), text, at + strlen("SECRET)"));
	write_text(path_in(forger, "meson.build"), meson);
	copy_file(source("tests/course/bump.c"), path_in(forger, "forger.c"));
	struct cmd_result r = run_alloclab_env(
		dir, (const char *const[]){"grade", "--level", "1", "--no-measure", "--timeout", "60", "forger", NULL},
		(const char *const[]){"ALLOCLAB_TEST_GRADER_TOKEN=grader-secret-4711", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	char *log = read_file(path_in(dir, "alloclab-grade/logs/01-forger.build.log"));
	cr_assert(log && strstr(log, "ENV:"), "the build did not run its probe: %s", log ? log : r.out);
	cr_expect(strstr(log, "ENV:denied"), "the grader's environment was read: %s", log);
	cr_expect(strstr(log, "FD:denied"), "an event was written into the grader's output: %s", log);
	cr_expect(strstr(log, "PT:denied"), "the grader was attached with ptrace: %s", log);
	json_t *g = grades(dir);
	const json_t *row = row_of(g, "forger"), *c;
	size_t i;
	json_array_foreach(json_object_get(row, "cases"), i, c)
	cr_expect(strcmp(json_string_value(json_object_get(c, "case")), "forged") != 0, "a forged case is in the row");
	json_decref(g);
	free(log);
	free(text);
	cmd_result_free(&r);
}

/* Two gradings at once each have their own process limit: a submission
 * of one that forks until it cannot, and holds what it started, leaves
 * an honest submission of the other its processes (as root, where each
 * grading's sandboxes run as a user of their own). The honest grading
 * starts first: its sandbox's limit is set before the bomb goes off, and
 * its cases fork after, while the bomb holds its processes. */
Test(grade, a_fork_bomb_in_one_grading_spares_another, .timeout = 300)
{
	if (geteuid() != 0)
		cr_skip_test("as another user two gradings share that user's process limit (docs/guides/grading.md)");
	char *dir = scratch_dir(), *bump = read_file(source("tests/course/bump.c"));
	cr_assert_not_null(bump);
	FILE *f = fopen(path_in(dir, "bomb.c"), "w");
	cr_assert_not_null(f);
	fprintf(f, "%s\n#include <signal.h>\n#include <unistd.h>\n"
		   "__attribute__((constructor)) static void bomb(void)\n{\n"
		   "\tfor (int i = 0; i < 5000; i++) {\n\t\tpid_t p = fork();\n"
		   "\t\tif (p == 0) { sleep(30); _exit(0); }\n\t\tif (p < 0) break;\n\t}\n\tsleep(30);\n}\n",
		bump);
	fclose(f);
	char *a = path_in(dir, "a"), *b = path_in(dir, "b"), *honest = path_in(b, "honest");
	cr_assert_eq(mkdir(a, 0755), 0);
	cr_assert_eq(mkdir(b, 0755), 0);
	cr_assert_eq(mkdir(honest, 0755), 0);
	/* A source folder: its build gives the bomb the time to go off
	 * before the honest plugin's cases fork. */
	write_text(path_in(honest, "meson.build"),
		   "project('honest', 'c')\n"
		   "shared_module('honest', 'honest.c', name_prefix: '', dependencies: dependency('alloclab-plugin'))\n");
	copy_file(source("tests/course/bump.c"), path_in(honest, "honest.c"));
	pid_t grading = fork();
	if (grading == 0) {
		struct cmd_result r = run_alloclab(b, (const char *const[]){"grade", "--level", "1", "--no-measure",
									    "--timeout", "60", "honest", NULL});
		int ok = r.status == 0 && strstr(r.out, "honest") && strstr(r.out, " pass ") && !strstr(r.out, "fork");
		if (!ok)
			fprintf(stderr, "the honest grading: %s %s\n", r.out, r.err);
		_exit(ok ? 0 : 1);
	}
	usleep(300 * 1000);
	struct cmd_result r = run_alloclab(a, (const char *const[]){"grade", "--level", "1", "--no-measure",
								    "--timeout", "45", "../bomb.c", NULL});
	int status = 0;
	waitpid(grading, &status, 0);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the honest grading failed beside the bomb (its "
								 "output is on stderr)");
	cr_expect_eq(r.status, 0, "%s %s", r.out, r.err);
	cmd_result_free(&r);
	free(bump);
}

/* The reference's time cannot be bent by the submission's code: a
 * submission that, wherever it finds glibc's malloc measured in its own
 * process, makes every glibc allocation a system call (M_MMAP_THRESHOLD
 * 0) reads no faster against the reference than its honest twin, the
 * same allocator without that. */
Test(grade, a_submission_cannot_slow_the_reference, .timeout = 600)
{
	char *dir = scratch_dir(), *bump = read_file(source("tests/course/bump.c"));
	cr_assert_not_null(bump);
	FILE *f = fopen(path_in(dir, "bender.c"), "w");
	cr_assert_not_null(f);
	fprintf(f, "%s\n#define _GNU_SOURCE 1\n#include <malloc.h>\n#include <string.h>\n"
		   "/* Wherever the reference (system.so) is loaded beside it. */\n"
		   "__attribute__((constructor)) static void bend(void)\n{\n"
		   "\tFILE *m = fopen(\"/proc/self/maps\", \"r\");\n\tchar line[4096];\n"
		   "\twhile (m && fgets(line, sizeof line, m))\n"
		   "\t\tif (strstr(line, \"/system.so\"))\n\t\t\tmallopt(M_MMAP_THRESHOLD, 0);\n"
		   "\tif (m)\n\t\tfclose(m);\n}\n",
		bump);
	fclose(f);
	f = fopen(path_in(dir, "twin.c"), "w");
	cr_assert_not_null(f);
	fputs(bump, f);
	fclose(f);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"grade", "--level", "1", "--processes", "6",
								      "--timeout", "120", "bender.c", "twin.c", NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	json_t *g = grades(dir);
	double mean[2];
	const char *names[2] = {"bender.c", "twin.c"};
	for (int k = 0; k < 2; k++) {
		const json_t *ratios = json_object_get(row_of(g, names[k]), "ratios"), *x;
		size_t i;
		double logs = 0;
		cr_assert(json_array_size(ratios) >= 2, "%s was not measured: %s", names[k], r.out);
		json_array_foreach(ratios, i, x) logs += log(json_number_value(x));
		mean[k] = exp(logs / (double)json_array_size(ratios));
	}
	/* Bent, it read tens of times faster than its twin; measured apart,
	 * the two are one allocator, within the noise of a shared machine. */
	cr_expect(mean[0] > mean[1] / 2, "bender %.3f against its twin %.3f: the reference was slowed\n%s", mean[0],
		  mean[1], r.out);
	json_decref(g);
	cmd_result_free(&r);
	free(bump);
}

/* A build's log is kept whole: a NUL it printed does not end it (the
 * text after it, and the compiler's error there, are in the log and the
 * row), and a log past the bound kept says, at its end, how much was left
 * out. Graded unsandboxed, where the build finds a compiler of the test's
 * own on PATH. */
Test(grade, a_build_log_is_kept_whole_and_says_where_it_was_cut, .timeout = 120)
{
	char *dir = scratch_dir(), *bin = path_in(dir, "bin"), *old = strdup(getenv("PATH")), path[8192];
	cr_assert_eq(mkdir(bin, 0755), 0);
	write_text(path_in(bin, "cc"), "#!/bin/sh\nprintf 'before\\000after\\nmine.c:1:1: error: boom\\n'\n"
				       "head -c 300000 /dev/zero | tr '\\000' x\necho\nexit 1\n");
	cr_assert_eq(chmod(path_in(bin, "cc"), 0755), 0);
	write_text(path_in(dir, "mine.c"), "int mine;\n");
	snprintf(path, sizeof path, "%s:%s", bin, old);
	setenv("PATH", path, 1);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"grade", "--level", "1", "--no-measure",
								      "--unsandboxed", "mine.c", NULL});
	setenv("PATH", old, 1);
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	cr_expect(strstr(r.out, "build failed: mine.c:1:1: error: boom"), "%s", r.out);
	char *log = read_file(path_in(dir, "alloclab-grade/logs/01-mine.c.build.log"));
	cr_assert_not_null(log);
	cr_expect(strstr(log, "before\xef\xbf\xbd" "after\nmine.c:1:1: error: boom\n"), "%.300s", log);
	const char *mark = strstr(log, "[... ");
	size_t left = 0;
	cr_assert(mark && sscanf(mark, "[... %zu bytes left out]", &left) == 1, "no mark of the cut: ...%s",
		  log + strlen(log) - 200);
	cr_expect_eq(mark[strcspn(mark, "\n")], '\n');
	cr_expect_eq(mark[strcspn(mark, "\n") + 1], '\0', "the mark is not the log's last line");
	/* What cc printed past the 256 KiB kept, with the step's own lines. */
	cr_expect(left > 300000 - (256 << 10) && left < 300000 - (256 << 10) + 4096, "%zu bytes left out", left);
	free(log);
	cmd_result_free(&r);
	free(old);
}

/* The grader's reader cuts a build's log only past what an honest inside
 * sends, and says so at the cut. */
Test(grade, a_log_past_the_events_bound_is_cut_with_a_word)
{
	size_t n = ALLOCLAB_GRADE_LOG_EVENT_MAX + 10;
	char *big = malloc(n + 1);
	memset(big, 'x', n);
	big[n] = '\0';
	json_t *e = json_pack("{s:s,s:s,s:s,s:s,s:s}", "event", "build", "status", "failed", "first_error", "boom",
			      "log", big, "plugin", "");
	char *line = json_dumps(e, JSON_COMPACT), *log = NULL;
	size_t len = strlen(line);
	line = realloc(line, len + 32);
	strcpy(line + len, "\n{\"event\":\"end\"}\n");
	struct alloclab_grade_row row;
	memset(&row, 0, sizeof row);
	struct alloclab_grade_seen seen = {"/submission", "/work"};
	alloclab_grade_events_read(line, strlen(line), 1, &seen, "", &row, &log);
	cr_assert_not_null(log);
	cr_expect_eq(strspn(log, "x"), ALLOCLAB_GRADE_LOG_EVENT_MAX);
	cr_expect_str_eq(log + ALLOCLAB_GRADE_LOG_EVENT_MAX, "\n[... 10 bytes left out]\n");
	free(log);
	free(line);
	free(big);
	json_decref(e);
}

/* A row speaks to the student of their own files: not of the sandbox's
 * /work and /submission, but of build/m2.so, their own sources by name,
 * the plugin's path as given; and a plugin that leaves a process behind as it loads is
 * told so in the grading's words, not a run's worker and measurement. */
Test(grade, a_row_names_the_students_own_files, .timeout = 300)
{
	char *dir = scratch_dir(), *bump = read_file(source("tests/course/bump.c"));
	cr_assert_not_null(bump);
	static const char meson[] = "project('%s', 'c')\nshared_module('%s', '%s.c', name_prefix: '', dependencies: "
				    "dependency('alloclab-plugin'))\n";
	char text[400], *c;
	const char *names[] = {"m1", "m2"};
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(mkdir(path_in(dir, names[i]), 0755), 0);
		snprintf(text, sizeof text, meson, names[i], names[i], names[i]);
		write_text(path_in(path_in(dir, names[i]), "meson.build"), text);
	}
	write_text(path_in(dir, "m1/m1.c"), "#include <alloclab/plugin.h>\nint broken = ;\n");
	/* m2: the course's bump allocator, crashing on free(NULL). */
	char *m2 = malloc(strlen(bump) + 200);
	c = strstr(bump, "\t(void)block;\n");
	cr_assert_not_null(c);
	sprintf(m2, "%.*s\t(void)block;\n\tif (!block)\n\t\t*(volatile int *)0 = 1;\n%s", (int)(c - bump), bump,
		c + strlen("\t(void)block;\n"));
	write_text(path_in(dir, "m2/m2.c"), m2);
	FILE *f = fopen(path_in(dir, "daemon.c"), "w");
	cr_assert_not_null(f);
	fprintf(f, "%s\n#include <unistd.h>\n__attribute__((constructor)) static void daemonize(void)\n{\n"
		   "\tif (fork() == 0) {\n\t\tsleep(30);\n\t\t_exit(0);\n\t}\n}\n", bump);
	fclose(f);
	const char *crash = test_plugin("bad_crash_free");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"grade", "--level", "1", "--no-measure", "--timeout",
								      "60", "m1", "m2", "daemon.c", crash, NULL});
	cr_assert_eq(r.status, 0, "%s %s", r.out, r.err);
	/* The sandbox's own folders (/work/build, /work/src, /submission):
	 * not alloclab's path, which may lie anywhere, /work/... too. */
	cr_expect(!strstr(r.out, "/work/build") && !strstr(r.out, "/work/src") && !strstr(r.out, "/submission") &&
		  !strstr(r.out, "../src"), "%s", r.out);
	char *json = read_file(path_in(dir, "alloclab-grade/grades.json"));
	cr_expect(json && !strstr(json, "/work/build") && !strstr(json, "/work/src") && !strstr(json, "/submission") &&
		  !strstr(json, "../src"), "%s", json);
	free(json);
	json_t *g = grades(dir);
	const char *error = json_string_value(json_object_get(row_of(g, "m1"), "build_error"));
	cr_expect(strncmp(error, "m1.c:2:14: error", 16) == 0, "%s", error);
	const json_t *cases = json_object_get(row_of(g, "m2"), "cases"), *one;
	size_t i;
	int named = 0;
	json_array_foreach(cases, i, one)
	named |= strstr(json_string_value(json_object_get(one, "why")), "check --case edge-sizes build/m2.so") != NULL;
	cr_expect(named, "%s", r.out);
	char want[4200];
	snprintf(want, sizeof want, "check --case edge-sizes %s", crash);
	cr_expect(strstr(r.out, want), "%s", r.out);
	cr_expect_str_eq(json_string_value(json_object_get(row_of(g, "daemon.c"), "problem")),
			 "while being loaded it left 1 process running (a plugin that forks, or a daemon): killed");
	json_decref(g);
	free(m2);
	free(bump);
	cmd_result_free(&r);
}

/* The supervisor's words for a worker that left processes behind, as a
 * run says them, become the grading's in a measured row; run's own stay. */
Test(grade, a_stray_in_the_measurement_is_told_in_the_gradings_words)
{
	struct alloclab_child_result res;
	char said[ALLOCLAB_ERR_LEN], events[4096];
	int na = 0;
	memset(&res, 0, sizeof res);
	res.exited = 1;
	res.strays = 2;
	cr_assert_null(alloclab_child_answer(&res, "/submission/x.so", 10, &na, said, sizeof said));
	cr_assert(strstr(said, "the worker left 2 processes"), "run's own words changed: %s", said);
	size_t n = 0;
	for (const char *const *c = alloclab_check_level(1); *c; c++)
		n += (size_t)snprintf(events + n, sizeof events - n,
				      "{\"event\":\"case\",\"case\":\"%s\",\"status\":\"pass\",\"why\":\"\"}\n", *c);
	json_t *why = json_string(said);
	char *quoted = json_dumps(why, JSON_ENCODE_ANY);
	snprintf(events + n, sizeof events - n, "{\"event\":\"measure\",\"why\":%s}\n{\"event\":\"end\"}\n", quoted);
	struct alloclab_grade_row row;
	memset(&row, 0, sizeof row);
	snprintf(row.kind, sizeof row.kind, "plugin");
	snprintf(row.plugin, sizeof row.plugin, "x.so");
	snprintf(row.path, sizeof row.path, "class/x.so");
	struct alloclab_grade_seen seen = {"/submission/x.so", "/work"};
	char *log = NULL;
	alloclab_grade_events_read(events, strlen(events), 1, &seen, "", &row, &log);
	cr_expect(row.passed, "%s", row.problem);
	cr_expect_str_eq(row.measure_note, "while being measured it left 2 processes running (a plugin that forks, or a "
					   "daemon): killed, and its time not kept");
	free(quoted);
	json_decref(why);
}

/* A row that passed, timed or not, with a note. */
static struct alloclab_grade_row passing_row(const char *name, unsigned nratios)
{
	struct alloclab_grade_row row;
	memset(&row, 0, sizeof row);
	snprintf(row.name, sizeof row.name, "%s", name);
	snprintf(row.path, sizeof row.path, "class/%s", name);
	snprintf(row.kind, sizeof row.kind, "meson");
	snprintf(row.build, sizeof row.build, "ok");
	snprintf(row.plugin, sizeof row.plugin, "build/%s.so", name);
	snprintf(row.note, sizeof row.note, "a note on %s", name);
	row.ncases = row.npass = 1;
	snprintf(row.cases[0].name, sizeof row.cases[0].name, "alignment");
	row.passed = 1;
	for (unsigned i = 0; i < nratios; i++)
		row.ratios[row.nratios++] = 0.9 + 0.3 * i;
	if (nratios == 0)
		snprintf(row.measure_note, sizeof row.measure_note, "the run failed");
	return row;
}

/* The gradebook's words: a passing row's first failure is empty (its
 * note has a column of its own); a row with no case says what happened,
 * not "0 of 0 cases passed"; where time is printed it is told as a noisy
 * indicator that cannot rank, with what can. */
Test(grade, the_gradebook_says_what_happened_and_what_time_is)
{
	char *dir = scratch_dir(), err[ALLOCLAB_ERR_LEN];
	struct alloclab_grade_settings s = {.level = 1, .reference = "system", .measuring = 1, .processes = 3,
					    .build_timeout_s = 1, .check_timeout_s = 1, .measure_timeout_s = 1,
					    .sandboxed = 1};
	struct alloclab_grade_row rows[3] = {passing_row("timed", 3), passing_row("untimed", 0)};
	memset(&rows[2], 0, sizeof rows[2]);
	snprintf(rows[2].name, sizeof rows[2].name, "broken.c");
	snprintf(rows[2].path, sizeof rows[2].path, "class/broken.c");
	snprintf(rows[2].kind, sizeof rows[2].kind, "c-file");
	snprintf(rows[2].build, sizeof rows[2].build, "failed");
	snprintf(rows[2].build_error, sizeof rows[2].build_error, "broken.c:2:14: error: expected expression");
	char *out = path_in(dir, "g");
	cr_assert_eq(alloclab_grade_write(out, &s, rows, 3, "", err, sizeof err), 0, "%s", err);
	char *csv = read_file(path_in(out, "grades.csv"));
	cr_assert_not_null(csv);
	cr_expect(strstr(csv, ",1.1745,0.6217,2.2188,3,not resolved,,a note on timed\n"), "%s", csv);
	cr_expect(strstr(csv, ",,not timed: the run failed; a note on untimed\n"), "%s", csv);
	cr_expect(strstr(csv, "broken.c,class/broken.c,c-file,fail,,,failed,,,,,,build failed: broken.c:2:14: error: "
			      "expected expression,\n"), "%s", csv);
	char *fb = read_file(path_in(out, "feedback/03-broken.c.txt"));
	cr_expect(fb && strstr(fb, "level 1: FAIL, not checked: its build failed\n") && !strstr(fb, "0 of 0"), "%s", fb);
	free(fb);
	fb = read_file(path_in(out, "feedback/01-timed.txt"));
	cr_expect(fb && strstr(fb, "a noisy indicator, not a ranking") &&
		  strstr(fb, "alloclab run --measure instructions -p system -p ./build/timed.so -w churn"), "%s", fb);
	free(fb);
	char *table = read_file(path_in(out, "table.txt"));
	cr_expect(table && strstr(table, "not a ranking") && strstr(table, "\"not resolved\"") &&
		  strstr(table, "alloclab run --measure instructions -p system -p ./student.so -w churn"), "%s", table);
	/* The timed row's interval holds 1: the verdict says so. */
	cr_expect(table && strstr(table, "not resolved   a note on timed\n"), "%s", table);
	free(table);
	free(csv);
}

/* A symbolic link to a classmate's file is noted on the row of the
 * submission that holds the link, naming the link and where it leads,
 * and not on the classmate's; a hard link (no telling which name came
 * first) is noted on both. */
Test(grade, a_link_is_noted_on_the_row_that_holds_it)
{
	char *dir = scratch_dir(), real[4096];
	sh("mkdir -p %s/victim/build %s/linker/build %s/folder %s/a %s/b", dir, dir, dir, dir, dir);
	sh("cp %s %s/victim/build/v.so && ln -s ../../victim/build/v.so %s/linker/build/l.so", test_plugin("course-bump"),
	   dir, dir);
	sh("ln -s ../victim/build %s/folder/build", dir);
	sh("cp %s %s/a/a.so && ln %s/a/a.so %s/b/b.so", test_plugin("course-bump"), dir, dir, dir);
	/* Two links to a file of no submission's: each row names its own. */
	sh("mkdir -p %s/c %s/d && cp %s %s/outside.so && ln -s ../outside.so %s/c/c.so && ln -s ../outside.so %s/d/d.so",
	   dir, dir, test_plugin("course-bump"), dir, dir, dir);
	cr_assert_not_null(realpath(path_in(dir, "victim/build/v.so"), real));
	char *args[] = {path_in(dir, "victim"), path_in(dir, "linker"), path_in(dir, "folder"), path_in(dir, "a"),
			path_in(dir, "b"),	path_in(dir, "c"),	path_in(dir, "d")};
	struct alloclab_submission subs[7];
	cr_assert_eq(alloclab_submissions_resolve(args, 7, subs), 0);
	char want[8192];
	cr_expect_str_eq(subs[0].note, "", "the victim's row: %s", subs[0].note);
	snprintf(want, sizeof want, "build/l.so is a symbolic link to %s (victim's build/v.so)", real);
	cr_expect_str_eq(subs[1].note, want);
	snprintf(want, sizeof want, "build/v.so lies, through a symbolic link, at %s (victim's build/v.so)", real);
	cr_expect_str_eq(subs[2].note, want);
	cr_expect_str_eq(subs[3].note, "a.so is the same file as b's b.so");
	cr_expect_str_eq(subs[4].note, "b.so is the same file as a's a.so");
	cr_assert_not_null(realpath(path_in(dir, "outside.so"), real));
	snprintf(want, sizeof want, "c.so is a symbolic link to %s (d's d.so)", real);
	cr_expect_str_eq(subs[5].note, want);
	snprintf(want, sizeof want, "d.so is a symbolic link to %s (c's c.so)", real);
	cr_expect_str_eq(subs[6].note, want);
	alloclab_submissions_free(subs, 7);
}

/* The grading's folder is decided before the first submission runs and
 * never mixed with the submissions: -o . with submissions named logs and
 * feedback is refused (their folders would have taken the grading's
 * files), and so is a folder holding a teacher's own grades.csv, at once,
 * with nothing written (it was refused after the whole class had run,
 * the journal, logs and table already there). */
Test(grade, the_gradings_folder_is_decided_first_and_apart)
{
	char *dir = scratch_dir();
	cr_assert_eq(mkdir(path_in(dir, "logs"), 0755), 0);
	cr_assert_eq(mkdir(path_in(dir, "feedback"), 0755), 0);
	copy_file(test_plugin("course-bump"), path_in(dir, "logs/a.so"));
	copy_file(test_plugin("course-bump"), path_in(dir, "feedback/b.so"));
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"grade", "--level", "1", "--no-measure",
								      "--unsandboxed", "-o", ".", "logs", "feedback", NULL});
	cr_expect_eq(r.status, 2, "%s %s", r.out, r.err);
	cr_expect(count_lines(r.err) == 1 && strstr(r.err, "holds the submission"), "%s", r.err);
	cr_expect_null(read_file(path_in(dir, "journal.jsonl")));
	cmd_result_free(&r);
	char *out = path_in(dir, "out");
	cr_assert_eq(mkdir(out, 0755), 0);
	write_text(path_in(out, "grades.csv"), "student,grade\nada,A\n");
	r = run_alloclab(dir, (const char *const[]){"grade", "--level", "1", "--no-measure", "--unsandboxed", "-o", "out",
						    "logs/a.so", NULL});
	cr_expect_eq(r.status, 2, "%s %s", r.out, r.err);
	cr_expect(count_lines(r.err) == 1 && strstr(r.err, "grades.csv"), "%s", r.err);
	cr_expect_null(read_file(path_in(out, "journal.jsonl")), "the journal was written before the refusal");
	cr_expect(access(path_in(out, "logs"), F_OK) != 0, "logs/ was made before the refusal");
	char *kept = read_file(path_in(out, "grades.csv"));
	cr_expect(kept && strstr(kept, "ada,A"), "the teacher's file was changed");
	cmd_result_free(&r);
}
