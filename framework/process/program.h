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
#include <stdint.h>

/* The most of a program's standard output that is hashed: past it the
 * program is stopped and the run fails (a program that floods). */
#define ALLOCLAB_PROGRAM_MAX_STDOUT (1ull << 30)
/* The descriptor on which the preload library tells the runner that it is
 * loading the plugin ('L') and that the plugin has served ('S'). */
#define ALLOCLAB_HANDSHAKE_FD 5

struct alloclab_program {
	const char *const *argv;     /* the program (searched in PATH) and its arguments */
	const char *cwd;             /* NULL: the current folder */
	const char *stdin_path;      /* NULL: /dev/null (inherit when pass_through) */
	/* stdout and stderr: read as they stream (stdout hashed, up to
	 * ALLOCLAB_PROGRAM_MAX_STDOUT; the last of stderr kept), nothing
	 * stored; or, pass_through, the caller's, with stdin too. */
	int pass_through;
	double timeout_s;            /* 0: none; past it the program and what it started are killed */
	const char *plugin;          /* name or path; NULL: the C library's malloc, no preload */
	const char *plugin_options;  /* "" or NULL: none */
	int gil;                     /* one lock around every call */
	const char *record_path;     /* record the program's calls to a new trace there; NULL: no */
	/* With plugin NULL: a library preloaded instead (an allocator's own
	 * LD_PRELOAD form, the reference the preload path is measured
	 * against); NULL: none. */
	const char *native_preload;
	/* With a plugin: every latency_every-th call of each of the program's
	 * threads timed by the preload library (latency.h), and the counts
	 * written as a latency object (latency_hist.h) to latency_path when
	 * the program exits (returns from main or calls exit). 0: not timed. */
	unsigned latency_every;
	const char *latency_path;
	/* With a plugin: every block the program holds counted by the
	 * preload library (census.h), and at each of its processes' exit what
	 * it held then and at most written to census_path.PID; NULL: not
	 * counted. */
	const char *census_path;
};

/* How far the preload library got with the plugin in the program. */
enum alloclab_served {
	ALLOCLAB_SERVED_NEVER,    /* no preload library ran in it (a static program, a setuid one) */
	ALLOCLAB_SERVED_LOADING,  /* it began to load the plugin and never finished */
	ALLOCLAB_SERVED_YES,      /* the plugin was loaded, created and served its first calls */
};

struct alloclab_program_result {
	int exited;                  /* 1: status is its exit status; 0: killed by signal */
	int status, signal;
	int timed_out;               /* killed at timeout_s */
	int flooded;                 /* killed: wrote more than ALLOCLAB_PROGRAM_MAX_STDOUT */
	int over_memory;             /* killed: past alloclab_memory_limit() */
	enum alloclab_served served; /* with a plugin: whether the plugin served the program */
	double wall_s, user_s, sys_s;
	long peak_rss_kib;           /* the largest of the program and the children it waited for */
	uint64_t stdout_hash;        /* FNV-1a of its stdout (not pass_through) */
	uint64_t stdout_bytes;
	char stderr_tail[1024];      /* its last lines on stderr ("" when passed through) */
	/* It never started: 'C' its folder (cwd) could not be entered, 'E'
	 * it could not be executed, with the reason (errno); 0 it started. */
	char not_started;
	int start_errno;
};

/* The latency record a program left at p->latency_path (read, checked
 * and removed): 0 with *out, or -1 with one line in why (none written: the
 * program did not end by exit or by returning from main). */
struct alloclab_latency;
int alloclab_program_latency(const char *path, struct alloclab_latency **out, char *why, size_t why_len);

/* The program's census (program.census_path.PID of each of its
 * processes), read, checked and removed: requested bytes held at exit
 * (summed over its processes) and at most (the largest process's most, as
 * the program's peak by wait4 is its largest process's: a sum would count
 * processes that ran one after the other as if at once), their anonymous
 * memory (KiB, summed) before the plugin served them and at their peaks;
 * and the largest of their whole resident sets before the plugin was
 * loaded (KiB: the start the program's peak by wait4 holds too). 0, or -1
 * with why (no process left one). */
int alloclab_program_census(const char *path, uint64_t *live_bytes, uint64_t *peak_bytes, uint64_t *anon_start_kib,
			    uint64_t *anon_peak_kib, uint64_t *rss_start_kib, char *why, size_t why_len);

/* Runs argv (argv[0] searched in PATH; in folder cwd, NULL: here) as a
 * supervised child (child.h: its own process group, dies with alloclab,
 * killed whole with what it started at timeout_s or on an interrupt), its
 * stdout into a new NUL-terminated buffer (*out, malloc'd; at most max
 * bytes kept). Its exit status (0..255), or -1 with one line in why: it
 * could not start, timed out or was killed. What it printed on stderr
 * ("" when nothing; newlines as " | ") into printed when not NULL. */
int alloclab_capture(char *const *argv, const char *cwd, double timeout_s, size_t max, char **out, char *why,
		     size_t why_len, char *printed, size_t printed_len);


/* The preload library: the build tree's when running from it, else the
 * installed one. */
const char *alloclab_preload_path(void);

/* The environment that makes a program's malloc the plugin's, as
 * "NAME=value" strings: LD_PRELOAD (the library before what is already
 * preloaded), ALLOCLAB_PRELOAD_PLUGIN, GLIBC_TUNABLES (the static TLS
 * reserve; NULL when already there) and ALLOCLAB_PRELOAD_GIL (a constant).
 * The first three are malloc'd. 0, or -1 out of memory. */
int alloclab_preload_environment(const char *plugin, const char *options, int gil, char *out[4]);

/* Runs the program to its end. 0 with *r filled (whatever its fate), or
 * -1 with err when it could not be started. */
int alloclab_program_run(const struct alloclab_program *p, struct alloclab_program_result *r, char *err,
			 size_t err_len);

/* "exit status 3", "killed by signal 11 (Segmentation fault)", "timed
 * out after 5 s"; with a plugin, why the program cannot count as served
 * by it when it was not ("the plugin never served it: ..."). */
void alloclab_program_describe(const struct alloclab_program *p, const struct alloclab_program_result *r, char *out,
			       size_t len);

/* Whether the run measured what it claims: it ended with status 0 and,
 * with a plugin, the plugin served it. */
int alloclab_program_ok(const struct alloclab_program *p, const struct alloclab_program_result *r);

#endif
