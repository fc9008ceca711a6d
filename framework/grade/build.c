/* Building a submission. See build.h. */
#define _GNU_SOURCE 1
#include "grade/build.h"
#include "base/lengths.h"
#include "process/child.h"
#include "files/self_exe.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && strcmp(s + n - k, suffix) == 0;
}

/* Appends text to the log, keeping at most ALLOCLAB_GRADE_LOG_MAX bytes. */
static void log_add(struct alloclab_grade_build *b, const char *text, size_t n)
{
	if (b->log_len + n > ALLOCLAB_GRADE_LOG_MAX)
		n = ALLOCLAB_GRADE_LOG_MAX - b->log_len;
	char *grown = realloc(b->log, b->log_len + n + 1);
	if (grown == NULL)
		return;
	b->log = grown;
	memcpy(b->log + b->log_len, text, n);
	b->log_len += n;
	b->log[b->log_len] = '\0';
}

struct command {
	char *const *argv;
	const char *cwd; /* NULL: here */
};

static int logged_child(void *arg, int fd)
{
	const struct command *c = arg;
	char *const *argv = c->argv;
	if (dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || (c->cwd && chdir(c->cwd) != 0))
		return 127;
	execvp(argv[0], argv);
	fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
	return 127;
}

/* Runs one step of the build until `until`, its output and how it ended
 * into the log. 0 when it exited 0; else -1 with status set. */
static int step(struct alloclab_grade_build *b, char *const *argv, const char *cwd, double until)
{
	struct command command = {argv, cwd};
	char line[600], err[ALLOCLAB_ERR_LEN];
	struct alloclab_child_result res;
	double left = until - now_s();
	int n = snprintf(line, sizeof line, "$");
	for (char *const *w = argv; *w && n > 0 && (size_t)n < sizeof line; w++)
		n += snprintf(line + n, sizeof line - (size_t)n, " %s", *w);
	log_add(b, line, strlen(line));
	log_add(b, "\n", 1);
	if (left <= 0 || alloclab_child_run(logged_child, &command, left, &res, err, sizeof err) != 0) {
		snprintf(b->status, sizeof b->status, left <= 0 ? "timed out" : "failed");
		snprintf(b->first_error, sizeof b->first_error, "%s", left <= 0 ? "the build's time ran out" : err);
		return -1;
	}
	log_add(b, res.output, res.output_len);
	int ok = res.exited && res.exit_code == 0;
	if (!ok) {
		char how[300];
		alloclab_child_describe(&res, left, how, sizeof how);
		snprintf(b->status, sizeof b->status, res.timed_out ? "timed out" : "failed");
		snprintf(line, sizeof line, "%s: %s\n", argv[0], how);
		log_add(b, line, strlen(line));
		if (res.timed_out)
			snprintf(b->first_error, sizeof b->first_error, "%s %s", argv[0], how);
		else
			alloclab_grade_first_error(b->log, b->first_error, sizeof b->first_error);
	}
	alloclab_child_result_free(&res);
	return ok ? 0 : -1;
}

/* The plugin meson built: the first .so at the top of the build folder
 * (by name), with a note when there were several. */
static void find_built(struct alloclab_grade_build *b, const char *build_dir)
{
	struct dirent **names;
	int n = scandir(build_dir, &names, NULL, alphasort), count = 0;
	char first[256] = "";
	for (int i = 0; i < n; i++) {
		if (ends_with(names[i]->d_name, ".so")) {
			if (count++ == 0)
				snprintf(first, sizeof first, "%s", names[i]->d_name);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	if (count == 0) {
		snprintf(b->status, sizeof b->status, "failed");
		snprintf(b->first_error, sizeof b->first_error, "the build made no plugin (no .so in its build folder)");
		return;
	}
	snprintf(b->plugin, sizeof b->plugin, "%s/%s", build_dir, first);
	if (count > 1)
		snprintf(b->note, sizeof b->note, "%d plugins built: %s graded (the first by name)", count, first);
}

/* A folder's .c files (at most 64), or the one file, by name: the
 * compiler's arguments from argv[at], run in the folder *cwd; the
 * plugin's name from the first. */
static int c_sources(const char *kind, const char *src, char **argv, int at, int max, char *stem, size_t stem_len,
		     char *cwd, size_t cwd_len)
{
	if (strcmp(kind, "c-file") == 0) {
		const char *slash = strrchr(src, '/'), *base = slash ? slash + 1 : src;
		snprintf(cwd, cwd_len, "%.*s", slash ? (int)(slash - src) : 1, slash ? src : ".");
		argv[at++] = strdup(base);
		snprintf(stem, stem_len, "%.*s", (int)strlen(base) - 2, base);
		return at;
	}
	snprintf(cwd, cwd_len, "%s", src);
	struct dirent **names;
	int n = scandir(src, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (ends_with(names[i]->d_name, ".c") && names[i]->d_name[0] != '.' && at < max) {
			if (!stem[0])
				snprintf(stem, stem_len, "%.*s", (int)strlen(names[i]->d_name) - 2, names[i]->d_name);
			argv[at++] = strdup(names[i]->d_name);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return at;
}

static void build_c(struct alloclab_grade_build *b, const char *kind, const char *src, const char *build_dir,
		    double until)
{
	char inc[4200], out[4400], stem[200] = "", cwd[4200];
	char *argv[80] = {"cc", "-std=gnu11", "-O2", "-g", "-Wall", "-shared", "-fPIC", inc};
	snprintf(inc, sizeof inc, "-I%s", alloclab_sdk_include_dir());
	int first = 8, n = c_sources(kind, src, argv, first, 76, stem, sizeof stem, cwd, sizeof cwd);
	argv[n] = "-o";
	argv[n + 1] = out;
	argv[n + 2] = NULL;
	snprintf(out, sizeof out, "%s/%s.so", build_dir, stem[0] ? stem : "plugin");
	if (mkdir(build_dir, 0755) != 0 && errno != EEXIST) {
		snprintf(b->status, sizeof b->status, "failed");
		snprintf(b->first_error, sizeof b->first_error, "cannot make %s: %s", build_dir, strerror(errno));
	} else if (n == first) {
		snprintf(b->status, sizeof b->status, "failed");
		snprintf(b->first_error, sizeof b->first_error, "no .c file to build");
	} else if (step(b, argv, cwd, until) == 0) {
		snprintf(b->plugin, sizeof b->plugin, "%.4095s", out);
	}
	for (int i = first; i < n; i++)
		free(argv[i]);
}

void alloclab_grade_build(const char *kind, const char *src, const char *build_dir, double timeout_s,
			  struct alloclab_grade_build *out)
{
	double until = now_s() + timeout_s;
	memset(out, 0, sizeof *out);
	snprintf(out->status, sizeof out->status, "ok");
	if (strcmp(kind, "meson") == 0) {
		char *setup[] = {"meson", "setup", "--buildtype=release", "--wrap-mode=nodownload", (char *)build_dir,
				 (char *)src, NULL};
		char *ninja[] = {"ninja", "-C", (char *)build_dir, NULL};
		if (step(out, setup, NULL, until) == 0 && step(out, ninja, NULL, until) == 0)
			find_built(out, build_dir);
	} else {
		build_c(out, kind, src, build_dir, until);
	}
	if (strcmp(out->status, "ok") != 0 && !out->first_error[0])
		alloclab_grade_first_error(out->log, out->first_error, sizeof out->first_error);
}

void alloclab_grade_build_free(struct alloclab_grade_build *b)
{
	free(b->log);
	b->log = NULL;
}

/* Whether a line of a log reads as an error. */
static int is_error(const char *line, size_t n)
{
	static const char *const marks[] = {": error:", "fatal error:", "ERROR:", "Error:", "undefined reference",
					    "error: ", NULL};
	for (const char *const *m = marks; *m; m++) {
		size_t k = strlen(*m);
		for (size_t i = 0; i + k <= n; i++)
			if (memcmp(line + i, *m, k) == 0)
				return 1;
	}
	return 0;
}

void alloclab_grade_first_error(const char *log, char *out, size_t len)
{
	const char *last = NULL;
	size_t last_n = 0;
	out[0] = '\0';
	for (const char *p = log ? log : ""; *p;) {
		size_t n = strcspn(p, "\n");
		if (is_error(p, n)) {
			snprintf(out, len, "%.*s", (int)n, p);
			return;
		}
		if (n > 0 && p[0] != '$') {
			last = p;
			last_n = n;
		}
		p += n + (p[n] == '\n');
	}
	if (last)
		snprintf(out, len, "%.*s", (int)last_n, last);
}
