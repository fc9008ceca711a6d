/* Building a submission. See submission_build.h. */
#define _GNU_SOURCE 1
#include "grade/submission_build.h"
#include "build/step.h"
#include "base/json_text.h"
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

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && strcmp(s + n - k, suffix) == 0;
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

static void build_c(struct alloclab_grade_build *b, struct alloclab_build_log *log, const char *kind, const char *src,
		    const char *build_dir)
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
	} else if (alloclab_build_step(log, argv, cwd) == 0) {
		snprintf(b->plugin, sizeof b->plugin, "%.4095s", out);
	}
	for (int i = first; i < n; i++)
		free(argv[i]);
}

/* The log as text that can be kept whole: a NUL (which ends it wherever
 * it travels as a C string: the event, the row, the log file) and each
 * byte that is not UTF-8 (one such byte turns all of an event's text past
 * ASCII into '?') become U+FFFD; what the build printed past the bound
 * kept is said at its end, not left out in silence. malloc'd, or NULL. */
static char *log_text(const char *raw, size_t len, size_t left_out, size_t *out_len)
{
	static const char replacement[] = "\xef\xbf\xbd";
	char mark[96] = "";
	if (left_out)
		snprintf(mark, sizeof mark, "%s" ALLOCLAB_GRADE_LOG_CUT, len && raw[len - 1] != '\n' ? "\n" : "", left_out);
	char *out = malloc(len * 3 + strlen(mark) + 1);
	size_t n = 0;
	if (out == NULL)
		return NULL;
	/* raw[len] is a NUL, which no UTF-8 sequence runs into. */
	for (size_t i = 0; i < len;) {
		size_t k = raw[i] ? alloclab_utf8_char((const unsigned char *)raw + i) : 0;
		if (k == 0 || i + k > len) {
			memcpy(out + n, replacement, 3);
			n += 3;
			i++;
		} else {
			memcpy(out + n, raw + i, k);
			n += k;
			i += k;
		}
	}
	memcpy(out + n, mark, strlen(mark) + 1);
	*out_len = n + strlen(mark);
	return out;
}

void alloclab_grade_build(const char *kind, const char *src, const char *build_dir, double timeout_s,
			  struct alloclab_grade_build *out)
{
	struct alloclab_build_log log;
	char err[256];
	memset(out, 0, sizeof *out);
	snprintf(out->status, sizeof out->status, "ok");
	alloclab_build_log_open(&log, NULL, timeout_s, err, sizeof err); /* in memory: it cannot fail */
	if (strcmp(kind, "meson") == 0) {
		char *setup[] = {"meson", "setup", "--buildtype=release", "--wrap-mode=nodownload", (char *)build_dir,
				 (char *)src, NULL};
		char *ninja[] = {"ninja", "-C", (char *)build_dir, NULL};
		if (alloclab_build_step(&log, setup, NULL) == 0 && alloclab_build_step(&log, ninja, NULL) == 0)
			find_built(out, build_dir);
	} else {
		build_c(out, &log, kind, src, build_dir);
	}
	if (strcmp(log.status, "ok") != 0) {
		snprintf(out->status, sizeof out->status, "%s", log.status);
		snprintf(out->first_error, sizeof out->first_error, "%s", log.first_error);
	}
	out->log = log_text(log.text ? log.text : "", log.len, log.left_out, &out->log_len);
	/* A failed step's first error was read from its log as a C string,
	 * which ends at a NUL: read again from the whole of it. */
	if (out->log && strcmp(log.status, "failed") == 0 && log.text && memchr(log.text, '\0', log.len))
		alloclab_build_first_error(out->log, out->first_error, sizeof out->first_error);
	if (strcmp(out->status, "ok") != 0 && !out->first_error[0])
		alloclab_build_first_error(out->log ? out->log : log.text, out->first_error, sizeof out->first_error);
	alloclab_build_log_close(&log);
}

void alloclab_grade_build_free(struct alloclab_grade_build *b)
{
	free(b->log);
	b->log = NULL;
}
