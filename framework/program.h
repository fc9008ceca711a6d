/*
 * Running a whole program with a plugin as its malloc: the environment
 * liballoclab-preload.so needs (the library, the plugin, the static TLS
 * reserve some allocators need, recording), and one run of the program
 * measured from outside: wall time, CPU time, peak RSS, how it ended and
 * the last of what it wrote on stderr. `alloclab exec` and the exec
 * workload both run programs through here.
 */
#ifndef ALLOCLAB_PROGRAM_H
#define ALLOCLAB_PROGRAM_H

#include <stddef.h>

struct alloclab_program {
	const char *const *argv;     /* the program (searched in PATH) and its arguments */
	const char *cwd;             /* NULL: the current folder */
	const char *stdin_path;      /* NULL: /dev/null (inherit when pass_through) */
	const char *stdout_path;     /* NULL: /dev/null (inherit when pass_through) */
	int pass_through;            /* stdin, stdout and stderr are the caller's */
	const char *plugin;          /* name or path; NULL: the C library's malloc, no preload */
	const char *plugin_options;  /* "" or NULL: none */
	int gil;                     /* one lock around every call */
	const char *record_path;     /* record the program's calls to a new trace there; NULL: no */
	/* With plugin NULL: a library preloaded instead (an allocator's own
	 * LD_PRELOAD form, the reference the preload path is measured
	 * against); NULL: none. */
	const char *native_preload;
};

struct alloclab_program_result {
	int exited;                  /* 1: status is its exit status; 0: killed by signal */
	int status, signal;
	double wall_s, user_s, sys_s;
	long peak_rss_kib;           /* the largest of the program and the children it waited for */
	char stderr_tail[1024];      /* its last lines on stderr ("" when passed through) */
};

/* Whether an executable of this name is in one of PATH's folders: what the
 * shell's `command -v` answers, without a shell. */
int alloclab_program_on_path(const char *program);

/* The preload library: the build tree's when running from it, else the
 * installed one. */
const char *alloclab_preload_path(void);

/* Runs the program to its end. 0 with *r filled (whatever its fate), or
 * -1 with err when it could not be started. */
int alloclab_program_run(const struct alloclab_program *p, struct alloclab_program_result *r, char *err,
			 size_t err_len);

/* "exit status 3", "killed by signal 11 (Segmentation fault)". */
void alloclab_program_describe(const struct alloclab_program_result *r, char *out, size_t len);

#endif
