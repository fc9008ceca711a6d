/*
 * A build's steps (meson setup, ninja, make, the command a user gave): each
 * a supervised child (process/child.h: its process group, killed whole
 * with what it started) under the build's one deadline, its standard
 * output and error appended to the build's log, and the first error of a
 * step that fails read back from the log. PKG_CONFIG_PATH names alloclab's
 * plugin SDK (its alloclab-plugin.pc) for every step, before whatever the
 * environment had (in a sandbox, the sandbox's environment, which the
 * caller makes, is all it has).
 */
#ifndef ALLOCLAB_BUILD_STEP_H
#define ALLOCLAB_BUILD_STEP_H

#include <stddef.h>

struct alloclab_sandbox;

/* The most of a build's log kept in memory (the file keeps it all). */
#define ALLOCLAB_BUILD_LOG_MAX (256u << 10)

struct alloclab_build_log {
	int fd;                  /* the log file, or -1 (in memory only) */
	/* NULL: each step runs with the user's rights; else in a sandbox
	 * (process/sandbox.h) that shows it, writable, only its folder. */
	const struct alloclab_sandbox *sandbox;
	double until;            /* the deadline, monotonic seconds */
	char *text;              /* what the steps printed, at most ALLOCLAB_BUILD_LOG_MAX bytes */
	size_t len;
	size_t left_out;         /* what they printed past that bound: not in text */
	char status[16];         /* "ok", "failed", "timed out" */
	char first_error[1000];  /* a failed step's first error line */
};

/* A log at path (NULL: in memory only) for a build of timeout_s. 0, or -1
 * with err. */
int alloclab_build_log_open(struct alloclab_build_log *log, const char *path, double timeout_s, char *err,
			    size_t err_len);
void alloclab_build_log_close(struct alloclab_build_log *log);

/* Runs argv (argv[0] searched in PATH) in cwd (NULL: here; in a
 * sandbox, where it starts) until the deadline. 0 when it exited 0; else
 * -1 with status and first_error set. */
int alloclab_build_step(struct alloclab_build_log *log, char *const *argv, const char *cwd);

/* The first line of a log that reads as an error (a compiler's "error:",
 * meson's "ERROR:", a linker's undefined reference), else its last
 * non-empty line that is not a step's own command, into out. */
void alloclab_build_first_error(const char *log, char *out, size_t len);

#endif
