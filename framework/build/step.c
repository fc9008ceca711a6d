/* A build's steps. See step.h. */
#define _GNU_SOURCE 1
#include "build/step.h"
#include "base/clock.h"

#include "base/lengths.h"
#include "files/self_exe.h"
#include "process/child.h"
#include "process/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Appends text to the log: the file whole, memory up to its bound. */
static void log_add(struct alloclab_build_log *b, const char *text, size_t n)
{
	if (b->fd >= 0 && n && write(b->fd, text, n) < 0) {
		/* A log that cannot be written loses its text, not the build. */
	}
	size_t keep = b->len + n > ALLOCLAB_BUILD_LOG_MAX ? ALLOCLAB_BUILD_LOG_MAX - b->len : n;
	char *grown = keep ? realloc(b->text, b->len + keep + 1) : NULL;
	/* Counted, so that a reader of the text can be told it is not all. */
	b->left_out += grown ? n - keep : n;
	if (grown == NULL)
		return;
	b->text = grown;
	memcpy(b->text + b->len, text, keep);
	b->len += keep;
	b->text[b->len] = '\0';
}

int alloclab_build_log_open(struct alloclab_build_log *log, const char *path, double timeout_s, char *err,
			    size_t err_len)
{
	memset(log, 0, sizeof *log);
	log->fd = -1;
	log->until = alloclab_now_s() + timeout_s;
	snprintf(log->status, sizeof log->status, "ok");
	/* Made anew: a FIFO left where the log goes would block the open, a
	 * link would be written through. */
	if (path && ((unlink(path) != 0 && errno != ENOENT) ||
		     (log->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644)) < 0)) {
		snprintf(err, err_len, "%.900s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

void alloclab_build_log_close(struct alloclab_build_log *log)
{
	if (log->fd >= 0)
		close(log->fd);
	free(log->text);
	log->fd = -1;
	log->text = NULL;
	log->len = 0;
}

struct command {
	char *const *argv;
	const char *cwd;
};

static int step_child(void *arg, int fd)
{
	const struct command *c = arg;
	char pc[ALLOCLAB_PATH_PLUS_LEN];
	const char *old = getenv("PKG_CONFIG_PATH");
	snprintf(pc, sizeof pc, "%s%s%s", alloclab_sdk_pkgconfig_dir(), old && old[0] ? ":" : "", old ? old : "");
	setenv("PKG_CONFIG_PATH", pc, 1);
	if (dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || (c->cwd && chdir(c->cwd) != 0))
		return 127;
	execvp(c->argv[0], c->argv);
	fprintf(stderr, "cannot run %s: %s\n", c->argv[0], strerror(errno));
	return 127;
}

/* The step as a supervised child, or in the log's sandbox: there a
 * shell goes to cwd (its path as an argument, never in the script's
 * text) and runs argv with its errors on its output, as the log reads
 * them outside. */
static int run_step(const struct alloclab_build_log *b, const struct command *c, double left,
		    struct alloclab_child_result *res, char *err, size_t err_len)
{
	if (b->sandbox == NULL)
		return alloclab_child_run(step_child, (void *)c, left, res, err, err_len);
	size_t n = 0;
	while (c->argv[n])
		n++;
	char **argv = calloc(n + 6, sizeof *argv);
	if (argv == NULL) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = "cd \"$1\" || exit 126; shift; exec \"$@\" 2>&1";
	argv[3] = "sh";
	argv[4] = (char *)(c->cwd ? c->cwd : b->sandbox->work);
	memcpy(argv + 5, c->argv, n * sizeof *argv);
	int rc = alloclab_sandbox_run(b->sandbox, argv, left, res, err, err_len);
	free(argv);
	return rc;
}

int alloclab_build_step(struct alloclab_build_log *b, char *const *argv, const char *cwd)
{
	struct command command = {argv, cwd};
	char line[700], err[ALLOCLAB_ERR_LEN];
	struct alloclab_child_result res;
	double left = b->until - alloclab_now_s();
	int n = snprintf(line, sizeof line, "$");
	for (char *const *w = argv; *w && n > 0 && (size_t)n < sizeof line; w++)
		n += snprintf(line + n, sizeof line - (size_t)n, " %s", *w);
	log_add(b, line, strlen(line) < sizeof line ? strlen(line) : sizeof line - 1);
	log_add(b, "\n", 1);
	if (left <= 0 || run_step(b, &command, left, &res, err, sizeof err) != 0) {
		snprintf(b->status, sizeof b->status, left <= 0 ? "timed out" : "failed");
		snprintf(b->first_error, sizeof b->first_error, "%s", left <= 0 ? "the build's time ran out" : err);
		return -1;
	}
	log_add(b, res.output, res.output_len);
	/* A sandbox's own complaints (bwrap's) come on its error output. */
	char *said = b->sandbox ? alloclab_child_printed(&res) : NULL;
	if (said)
		log_add(b, said, strlen(said));
	free(said);
	int ok = res.exited && res.exit_code == 0;
	if (!ok) {
		char how[300];
		alloclab_child_describe(&res, left, how, sizeof how);
		/* A build's deadline is its own option's. */
		if (res.timed_out)
			snprintf(how, sizeof how, "timed out: the build's deadline (raise --build-timeout if it is just slow)");
		snprintf(b->status, sizeof b->status, res.timed_out ? "timed out" : "failed");
		snprintf(line, sizeof line, "%s: %s\n", argv[0], how);
		log_add(b, line, strlen(line));
		if (res.timed_out)
			snprintf(b->first_error, sizeof b->first_error, "%s %s", argv[0], how);
		else
			alloclab_build_first_error(b->text, b->first_error, sizeof b->first_error);
	}
	alloclab_child_result_free(&res);
	return ok ? 0 : -1;
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

void alloclab_build_first_error(const char *log, char *out, size_t len)
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
