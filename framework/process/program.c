/* See program.h. */
#define _GNU_SOURCE 1
#include "process/program.h"
#include "files/self_exe.h"
#include "base/lengths.h"
#include "base/clock.h"

#include "plugin/static_tls.h"
#include "base/hash.h"
#include "process/process_tree.h"
#include "process/child.h"
#include "files/input_file.h"
#include "measure/latency_hist.h"

#include <jansson.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *alloclab_preload_path(void)
{
	return alloclab_running_from_build_tree() ? ALLOCLAB_PRELOAD_BUILD_PATH : ALLOCLAB_PRELOAD_INSTALL_PATH;
}

/* environ with each of `set` ("NAME=value") put in place of its name's
 * entry, or added. NULL out of memory. */
static char **environment(char *const *set, size_t nset)
{
	size_t n = 0, k = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + nset + 1, sizeof *env);
	if (env == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int replaced = 0;
		for (size_t j = 0; j < nset; j++) {
			size_t len = strcspn(set[j], "=") + 1;
			replaced |= strncmp(environ[i], set[j], len) == 0;
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < nset; j++)
		env[k++] = set[j];
	return env;
}

/* The last of what a program wrote on stderr, kept as it streams. */
struct tail {
	char buf[1024];
	size_t len; /* bytes in buf, the most recent last */
};

static void tail_add(struct tail *t, const char *data, size_t n)
{
	if (n >= sizeof t->buf) {
		memcpy(t->buf, data + n - sizeof t->buf, sizeof t->buf);
		t->len = sizeof t->buf;
		return;
	}
	if (t->len + n > sizeof t->buf) {
		size_t drop = t->len + n - sizeof t->buf;
		memmove(t->buf, t->buf + drop, t->len - drop);
		t->len -= drop;
	}
	memcpy(t->buf + t->len, data, n);
	t->len += n;
}

/* The last three lines, as one, printable. */
static void tail_line(const struct tail *t, char *out, size_t len)
{
	size_t got = t->len, o = 0;
	const char *buf = t->buf;

	out[0] = '\0';
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		got--;
	size_t start = got;
	for (int lines = 0; start > 0 && lines < 3; lines += buf[--start] == '\n')
		;
	if (buf[start] == '\n')
		start++;
	for (size_t i = start; i < got && o + 4 < len; i++) {
		if (buf[i] == '\n') {
			memcpy(out + o, " | ", 3);
			o += 3;
		} else {
			out[o++] = (buf[i] >= ' ' && buf[i] < 127) ? buf[i] : '?';
		}
	}
	out[o] = '\0';
}

static int pidfd_of(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

/* Kills the program and everything it started (it may not be a group of
 * its own: passed through, it shares the terminal's). */
static void kill_tree(pid_t pid)
{
	kill(pid, SIGSTOP); /* it may not start more meanwhile */
	alloclab_tree_kill(pid);
}

int alloclab_preload_environment(const char *plugin, const char *options, int gil, char *out[4])
{
	const char *old_tunables = getenv("GLIBC_TUNABLES"), *old_preload = getenv("LD_PRELOAD");
	out[0] = out[1] = out[2] = NULL;
	out[3] = gil ? "ALLOCLAB_PRELOAD_GIL=1" : "ALLOCLAB_PRELOAD_GIL=0";
	/* The preload library first, before whatever else is preloaded; the
	 * static TLS reserve that jemalloc's dlopen needs. */
	if (asprintf(&out[0], "LD_PRELOAD=%s%s%s", alloclab_preload_path(), old_preload ? ":" : "",
		     old_preload ? old_preload : "") < 0 ||
	    asprintf(&out[1], "ALLOCLAB_PRELOAD_PLUGIN=%s%s%s", plugin, options && options[0] ? ":" : "",
		     options ? options : "") < 0 ||
	    ((!old_tunables || !strstr(old_tunables, "glibc.rtld.optional_static_tls")) &&
	     asprintf(&out[2], "GLIBC_TUNABLES=%s%sglibc.rtld.optional_static_tls=%d", old_tunables ? old_tunables : "",
		      old_tunables ? ":" : "", ALLOCLAB_STATIC_TLS_BYTES) < 0)) {
		free(out[0]);
		free(out[1]);
		out[0] = out[1] = out[2] = NULL;
		return -1;
	}
	return 0;
}

/* The variables a program gets from the runner ("NAME=value"), made for
 * it and freed once it has started. */
struct program_env {
	char *set[8];
	size_t nset;
	char *tunables, *preload, *plugin, *record, *handshake, *latency, *census;
};

/* The preload library's variables, for a program run with a plugin; the
 * handshake pipe's identity is its inode. -1 out of memory. */
static int plugin_environment(const struct alloclab_program *p, unsigned long hs_ino, struct program_env *e)
{
	char *common[4];
	if (alloclab_preload_environment(p->plugin, p->plugin_options, p->gil, common) != 0)
		return -1;
	/* Taken over at once, so that whatever fails next frees them with
	 * the rest (free_environment). */
	e->preload = common[0], e->plugin = common[1], e->tunables = common[2];
	/* The pipe's identity with its number, so that a program that reuses
	 * the number for something else is never written to by the library
	 * in a child of it. */
	if (asprintf(&e->handshake, "ALLOCLAB_PRELOAD_HANDSHAKE=%d:%lu", ALLOCLAB_HANDSHAKE_FD, hs_ino) < 0) {
		e->handshake = NULL;
		return -1;
	}
	e->set[e->nset++] = e->preload;
	e->set[e->nset++] = e->plugin;
	e->set[e->nset++] = e->handshake;
	if (e->tunables)
		e->set[e->nset++] = e->tunables;
	e->set[e->nset++] = common[3];
	if (p->record_path) {
		if (asprintf(&e->record, "ALLOCLAB_PRELOAD_RECORD=%s", p->record_path) < 0) {
			e->record = NULL;
			return -1;
		}
		e->set[e->nset++] = e->record;
	}
	if (p->latency_every) {
		if (asprintf(&e->latency, "ALLOCLAB_PRELOAD_LATENCY=%u:%s", p->latency_every, p->latency_path) < 0) {
			e->latency = NULL;
			return -1;
		}
		e->set[e->nset++] = e->latency;
	}
	if (p->census_path) {
		if (asprintf(&e->census, "ALLOCLAB_PRELOAD_CENSUS=%s", p->census_path) < 0) {
			e->census = NULL;
			return -1;
		}
		e->set[e->nset++] = e->census;
	}
	return 0;
}

/* The variables the program gets: the preload library's with a plugin,
 * the native allocator's LD_PRELOAD with one, none otherwise. -1 out of
 * memory. */
static int program_environment(const struct alloclab_program *p, unsigned long hs_ino, struct program_env *e)
{
	const char *old_preload = getenv("LD_PRELOAD");

	if (p->plugin)
		return plugin_environment(p, hs_ino, e);
	if (p->native_preload) {
		if (asprintf(&e->preload, "LD_PRELOAD=%s%s%s", p->native_preload, old_preload ? ":" : "",
			     old_preload ? old_preload : "") < 0) {
			e->preload = NULL;
			return -1;
		}
		e->set[e->nset++] = e->preload;
	}
	return 0;
}

static void program_env_free(struct program_env *e)
{
	free(e->tunables);
	free(e->preload);
	free(e->plugin);
	free(e->record);
	free(e->latency);
	free(e->census);
	free(e->handshake);
}

/* One program run: its descriptors, as the runner holds them (-1: closed
 * or never opened), and what is kept of its stderr. */
struct program_run {
	const struct alloclab_program *p;
	struct alloclab_program_result *r;
	int out_pipe[2], err_pipe[2], hs[2], pidfd;
	int start[2]; /* the child says on it why it did not start (closed at exec) */
	pid_t pid;
	struct tail tail;
};

/* In the child, from fork: its descriptors put in place, then the
 * program. Only async-signal-safe calls from here to exec. */
/* In the child: why it does not start, for the runner to say. */
static _Noreturn void not_started(const struct program_run *run, char step, int code)
{
	char why[1 + sizeof(int)];
	int e = errno;
	why[0] = step;
	memcpy(why + 1, &e, sizeof e);
	if (write(run->start[1], why, sizeof why) < 0)
		_exit(code);
	_exit(code);
}

static _Noreturn void exec_program(const struct program_run *run, char **env)
{
	const struct alloclab_program *p = run->p;
	if (p->cwd && chdir(p->cwd) != 0)
		not_started(run, 'C', 126);
	if (!p->pass_through) {
		/* Close-on-exec: the program gets it as its stdin only. */
		int in = open(p->stdin_path ? p->stdin_path : "/dev/null", O_RDONLY | O_CLOEXEC);
		if (in < 0 || dup2(in, 0) < 0 || dup2(run->out_pipe[1], 1) < 0 || dup2(run->err_pipe[1], 2) < 0)
			_exit(126);
	}
	/* The handshake's end at its number, kept across exec (dup2
	 * clears close-on-exec, but does nothing when it is already
	 * there). */
	if (p->plugin && (run->hs[1] == ALLOCLAB_HANDSHAKE_FD ? fcntl(run->hs[1], F_SETFD, 0)
							      : dup2(run->hs[1], ALLOCLAB_HANDSHAKE_FD)) < 0)
		_exit(126);
	signal(SIGPIPE, SIG_DFL);
	execvpe(p->argv[0], (char *const *)p->argv, env);
	not_started(run, 'E', 127);
}

/* The runner's end of pipe i: 0 stdout, 1 stderr, 2 the handshake. */
static int *read_end(struct program_run *run, int i)
{
	return i == 0 ? &run->out_pipe[0] : i == 1 ? &run->err_pipe[0] : &run->hs[0];
}

/* The handshake's bytes: 'L' loading (unless it has already served),
 * 'S' served. */
static void note_handshake(struct alloclab_program_result *r, const char *buf, ssize_t n)
{
	for (ssize_t k = 0; k < n; k++)
		if (buf[k] == 'L' && r->served < ALLOCLAB_SERVED_LOADING)
			r->served = ALLOCLAB_SERVED_LOADING;
		else if (buf[k] == 'S')
			r->served = ALLOCLAB_SERVED_YES;
}

/* Reads each pipe poll found ready, once. The program and what it started
 * are killed when its stdout floods. */
static void read_ready(struct program_run *run, const struct pollfd *pfd, char *buf, size_t len)
{
	struct alloclab_program_result *r = run->r;

	for (int i = 0; i < 3; i++) {
		int *fd = read_end(run, i);
		if (*fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		ssize_t n = read(*fd, buf, len);
		if (n <= 0) {
			if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
				close(*fd);
				*fd = -1;
			}
			continue;
		}
		if (i == 0) {
			r->stdout_hash = alloclab_fnv1a(r->stdout_hash, buf, (size_t)n);
			r->stdout_bytes += (uint64_t)n;
			if (r->stdout_bytes > ALLOCLAB_PROGRAM_MAX_STDOUT && !r->flooded) {
				r->flooded = 1;
				kill_tree(run->pid);
			}
		} else if (i == 1) {
			tail_add(&run->tail, buf, (size_t)n);
		} else {
			note_handshake(r, buf, n);
		}
	}
}

/* Once the program has ended: what is in the pipes, read without waiting
 * for more (what it left running may hold them open); the pipes closed
 * once a round finds nothing. */
static void drain(struct program_run *run, char *buf, size_t len)
{
	struct alloclab_program_result *r = run->r;
	int more = 0;

	for (int i = 0; i < 3; i++) {
		int *fd = read_end(run, i);
		ssize_t n;
		while (*fd >= 0 && (n = read(*fd, buf, len)) > 0) {
			more = 1;
			if (i == 0) {
				r->stdout_hash = alloclab_fnv1a(r->stdout_hash, buf, (size_t)n);
				r->stdout_bytes += (uint64_t)n;
			} else if (i == 1) {
				tail_add(&run->tail, buf, (size_t)n);
			} else {
				note_handshake(r, buf, n);
			}
		}
	}
	if (!more) {
		for (int i = 0; i < 3; i++) {
			int *fd = read_end(run, i);
			if (*fd >= 0)
				close(*fd);
			*fd = -1;
		}
	}
}

/* Whether the program has ended (not reaped: waited for later, with its
 * resource usage); if so, its pipes made non-blocking. */
static int has_ended(struct program_run *run)
{
	siginfo_t si = {0};
	if (waitid(P_PID, (id_t)run->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == run->pid) {
		/* What it left running holds the pipes: what is in them is
		 * read without waiting for more. */
		for (int i = 0; i < 3; i++)
			if (*read_end(run, i) >= 0)
				fcntl(*read_end(run, i), F_SETFL, O_NONBLOCK);
		return 1;
	}
	return 0;
}

/* Everything at once until the program has ended and its output is read:
 * its output as it streams, the handshake, its end, its deadline and its
 * memory. */
static void follow(struct program_run *run, double t0)
{
	const struct alloclab_program *p = run->p;
	struct alloclab_program_result *r = run->r;
	uint64_t limit_kib = alloclab_memory_limit() / 1024, peak_kib = 0;
	double next_look = t0, deadline = p->timeout_s > 0 ? t0 + p->timeout_s : 0;
	int ended = 0;

	for (;;) {
		struct pollfd pfd[4] = {
			{.fd = run->out_pipe[0], .events = POLLIN},
			{.fd = run->err_pipe[0], .events = POLLIN},
			{.fd = run->hs[0], .events = POLLIN},
			{.fd = run->pidfd, .events = POLLIN},
		};
		char buf[65536];
		double now = alloclab_now_s();
		if (ended && run->out_pipe[0] < 0 && run->err_pipe[0] < 0)
			break;
		if (deadline && now > deadline && !ended) {
			r->timed_out = 1;
			kill_tree(run->pid);
		}
		if (limit_kib && now >= next_look && !ended) {
			uint64_t kib = alloclab_tree_resident_kib(run->pid, NULL);
			next_look = now + 0.1;
			peak_kib = kib > peak_kib ? kib : peak_kib;
			if (kib > limit_kib) {
				r->over_memory = 1;
				kill_tree(run->pid);
			}
		}
		int wait_ms = ended ? 0 : run->pidfd < 0 ? 10 : 100;
		if (poll(pfd, 4, wait_ms) < 0 && errno != EINTR)
			break;
		read_ready(run, pfd, buf, sizeof buf);
		if (!ended && (run->pidfd < 0 || (pfd[3].revents & POLLIN)))
			ended = has_ended(run);
		if (ended && (run->out_pipe[0] >= 0 || run->err_pipe[0] >= 0 || run->hs[0] >= 0))
			drain(run, buf, sizeof buf);
	}
}

int alloclab_program_run(const struct alloclab_program *p, struct alloclab_program_result *r, char *err,
			 size_t err_len)
{
	struct program_env e = {.nset = 0};
	struct program_run run = {.p = p, .r = r, .out_pipe = {-1, -1}, .err_pipe = {-1, -1}, .hs = {-1, -1},
				  .pidfd = -1, .start = {-1, -1}, .tail = {.len = 0}};
	int rc = -1, status = 0;
	struct rusage ru;
	struct stat hs_st;
	double t0;

	memset(r, 0, sizeof *r);
	r->stdout_hash = ALLOCLAB_FNV_OFFSET;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (pipe2(run.hs, O_CLOEXEC) != 0 || fstat(run.hs[0], &hs_st) != 0 || pipe2(run.start, O_CLOEXEC) != 0 ||
	    (!p->pass_through && (pipe2(run.out_pipe, O_CLOEXEC) != 0 || pipe2(run.err_pipe, O_CLOEXEC) != 0))) {
		snprintf(err, err_len, "cannot make the program's pipes: %s", strerror(errno));
		goto out;
	}
	/* Above the numbers the child puts its descriptors at (0 to 2, the
	 * handshake's), so that none of them lands on it. */
	for (int i = 0; i < 2; i++) {
		int high = fcntl(run.start[i], F_DUPFD_CLOEXEC, 10);
		close(run.start[i]);
		run.start[i] = high;
	}
	if (run.start[0] < 0 || run.start[1] < 0) {
		snprintf(err, err_len, "cannot make the program's pipes: %s", strerror(errno));
		goto out;
	}
	if (program_environment(p, (unsigned long)hs_st.st_ino, &e) != 0)
		goto oom;
	char **env = environment(e.set, e.nset);
	if (env == NULL)
		goto oom;
	t0 = alloclab_now_s();
	run.pid = fork();
	if (run.pid < 0) {
		snprintf(err, err_len, "cannot start '%s': %s", p->argv[0], strerror(errno));
		free(env);
		goto out;
	}
	if (run.pid == 0)
		exec_program(&run, env);
	free(env);
	close(run.hs[1]);
	close(run.start[1]);
	run.hs[1] = run.start[1] = -1;
	if (!p->pass_through) {
		close(run.out_pipe[1]);
		close(run.err_pipe[1]);
		run.out_pipe[1] = run.err_pipe[1] = -1;
	}
	run.pidfd = pidfd_of(run.pid);
	follow(&run, t0);
	while (wait4(run.pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			snprintf(err, err_len, "cannot wait for '%s': %s", p->argv[0], strerror(errno));
			goto out;
		}
	/* What it started and left behind goes with it (ours, as the
	 * subreaper). */
	alloclab_kill_children();
	r->wall_s = alloclab_now_s() - t0;
	r->user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	r->sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	r->peak_rss_kib = ru.ru_maxrss;
	r->exited = WIFEXITED(status);
	r->status = r->exited ? WEXITSTATUS(status) : 0;
	r->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	tail_line(&run.tail, r->stderr_tail, sizeof r->stderr_tail);
	{
		/* It has ended: what it said before exec, if it never got there,
		 * is in the pipe (nothing: it started). */
		char why[1 + sizeof(int)];
		if (read(run.start[0], why, sizeof why) == (ssize_t)sizeof why && (why[0] == 'C' || why[0] == 'E')) {
			r->not_started = why[0];
			memcpy(&r->start_errno, why + 1, sizeof r->start_errno);
		}
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, err_len, "out of memory");
out:
	for (int i = 0; i < 2; i++) {
		if (run.out_pipe[i] >= 0)
			close(run.out_pipe[i]);
		if (run.err_pipe[i] >= 0)
			close(run.err_pipe[i]);
		if (run.hs[i] >= 0)
			close(run.hs[i]);
		if (run.start[i] >= 0)
			close(run.start[i]);
	}
	if (run.pidfd >= 0)
		close(run.pidfd);
	program_env_free(&e);
	return rc;
}

struct capture {
	char *const *argv;
	const char *cwd;
};

static int capture_child(void *arg, int fd)
{
	const struct capture *c = arg;
	if ((c->cwd && chdir(c->cwd) != 0) || dup2(fd, 1) < 0)
		return 127;
	execvp(c->argv[0], c->argv);
	fprintf(stderr, "cannot run %s: %s\n", c->argv[0], strerror(errno));
	return 127;
}

int alloclab_capture(char *const *argv, const char *cwd, double timeout_s, size_t max, char **out, char *why,
		     size_t why_len, char *printed, size_t printed_len)
{
	struct capture c = {argv, cwd};
	struct alloclab_child_result res;
	char err[ALLOCLAB_ERR_LEN];

	*out = NULL;
	if (printed_len)
		printed[0] = '\0';
	if (alloclab_child_run(capture_child, &c, timeout_s, &res, err, sizeof err) != 0) {
		snprintf(why, why_len, "cannot run %s: %s", argv[0], err);
		return -1;
	}
	char *said = alloclab_child_printed(&res);
	if (printed_len)
		snprintf(printed, printed_len, "%s", said ? said : "");
	free(said);
	if (!res.exited || res.timed_out || res.interrupted) {
		alloclab_child_describe(&res, timeout_s, err, sizeof err);
		snprintf(why, why_len, "%s %s", argv[0], err);
		alloclab_child_result_free(&res);
		return -1;
	}
	if (res.output_len > max)
		res.output[max] = '\0';
	*out = res.output;
	res.output = NULL;
	int status = res.exit_code;
	alloclab_child_result_free(&res);
	return status;
}

int alloclab_program_latency(const char *path, struct alloclab_latency **out, char *why, size_t why_len)
{
	char err[300] = "";
	json_error_t jerr;
	FILE *f = alloclab_fopen_regular(path, err, sizeof err);
	json_t *j = f ? json_loadf(f, 0, &jerr) : NULL;

	*out = NULL;
	if (f)
		fclose(f);
	unlink(path);
	if (j == NULL) {
		snprintf(why, why_len, "the program left no latency record (%s): it must end by exit or by returning from main",
			 f ? jerr.text : err);
		return -1;
	}
	int rc = alloclab_latency_from_json(j, 0, out, err, sizeof err);
	json_decref(j);
	if (rc != 0)
		snprintf(why, why_len, "the program's latency record: %s", err);
	return rc;
}

int alloclab_program_census(const char *path, uint64_t *live_bytes, uint64_t *peak_bytes, uint64_t *anon_start_kib,
			    uint64_t *anon_peak_kib, uint64_t *rss_start_kib, char *why, size_t why_len)
{
	char dir[ALLOCLAB_PATH_LEN], prefix[ALLOCLAB_PATH_LEN];
	const char *slash = strrchr(path, '/');
	const char *const keys[] = {"live_bytes", "peak_bytes", "anon_start_kib", "anon_peak_kib", "rss_start_kib"};
	uint64_t *const out[] = {live_bytes, peak_bytes, anon_start_kib, anon_peak_kib};
	unsigned found = 0;
	int rc = 0;

	*live_bytes = *peak_bytes = *anon_start_kib = *anon_peak_kib = *rss_start_kib = 0;
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	snprintf(prefix, sizeof prefix, "%s.", slash ? slash + 1 : path);
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 ||
		    strspn(e->d_name + strlen(prefix), "0123456789") != strlen(e->d_name + strlen(prefix)))
			continue;
		char file[ALLOCLAB_PATH_LEN * 2], err[300] = "";
		json_error_t jerr;
		snprintf(file, sizeof file, "%s/%s", dir, e->d_name);
		FILE *f = alloclab_fopen_regular(file, err, sizeof err);
		json_t *j = f ? json_loadf(f, 0, &jerr) : NULL;
		if (f)
			fclose(f);
		unlink(file);
		if (rc != 0)
			continue; /* the rest removed, the first error kept */
		if (j == NULL) {
			snprintf(why, why_len, "the program's census %s: %s", e->d_name, f ? jerr.text : err);
			rc = -1;
			continue;
		}
		uint64_t v[5];
		for (int k = 0; k < 5 && rc == 0; k++) {
			json_t *x = json_object_get(j, keys[k]);
			if (!json_is_integer(x) || json_integer_value(x) < 0) {
				snprintf(why, why_len, "the program's census %s: '%s' is not a count", e->d_name, keys[k]);
				rc = -1;
			} else {
				v[k] = (uint64_t)json_integer_value(x);
			}
		}
		json_decref(j);
		if (rc == 0 && v[0] > v[1]) {
			snprintf(why, why_len, "the program's census %s: held more at exit than at most", e->d_name);
			rc = -1;
		}
		/* The most held is the largest process's, as the program's peak
		 * by wait4 is: the sum would count processes that ran one after
		 * the other as if at once. */
		for (int k = 0; k < 4 && rc == 0; k++)
			*out[k] = k == 1 ? (v[k] > *out[k] ? v[k] : *out[k]) : *out[k] + v[k];
		if (rc == 0 && v[4] > *rss_start_kib)
			*rss_start_kib = v[4];
		found += rc == 0;
	}
	if (d)
		closedir(d);
	if (rc == 0 && found == 0) {
		snprintf(why, why_len, "the program left no census: it must end by exit or by returning from main");
		rc = -1;
	}
	return rc;
}

int alloclab_program_ok(const struct alloclab_program *p, const struct alloclab_program_result *r)
{
	return r->exited && r->status == 0 && !r->timed_out && !r->flooded && !r->over_memory &&
	       (p->plugin == NULL || r->served == ALLOCLAB_SERVED_YES);
}

void alloclab_program_describe(const struct alloclab_program *p, const struct alloclab_program_result *r, char *out,
			       size_t len)
{
	char how[160];
	if (r->timed_out)
		snprintf(how, sizeof how, "timed out after %g s", p->timeout_s);
	else if (r->flooded)
		snprintf(how, sizeof how, "stopped: wrote more than %llu MiB on its standard output",
			 ALLOCLAB_PROGRAM_MAX_STDOUT >> 20);
	else if (r->over_memory)
		snprintf(how, sizeof how, "killed over the memory limit of %.0f MiB (--memory-limit)",
			 (double)alloclab_memory_limit() / (1 << 20));
	else if (r->exited)
		snprintf(how, sizeof how, "exit status %d", r->status);
	else
		snprintf(how, sizeof how, "killed by signal %d (%s)", r->signal, strsignal(r->signal));
	if (r->not_started == 'C')
		snprintf(out, len, "never started: its folder %s cannot be entered: %s", p->cwd ? p->cwd : "",
			 strerror(r->start_errno));
	else if (r->not_started == 'E')
		snprintf(out, len, "never started: %s cannot be run: %s", p->argv[0], strerror(r->start_errno));
	else if (p->plugin && r->served == ALLOCLAB_SERVED_NEVER)
		snprintf(out, len,
			 "%s; the plugin never served it: no preload library ran in it (a statically linked or setuid "
			 "program, or one that cleared LD_PRELOAD), so it ran on its own malloc",
			 how);
	else if (p->plugin && r->served == ALLOCLAB_SERVED_LOADING)
		snprintf(out, len, "%s while the preload library was loading plugin '%s': the program never ran", how,
			 p->plugin);
	else
		snprintf(out, len, "%s", how);
}
