/*
 * Child processes with deadlines. See child.h.
 *
 * The child gets its own process group, so a terminal's Ctrl-C reaches only
 * the parent, which then kills the child and keeps the results it already
 * has; and so a deadline kill takes any process the plugin may have spawned.
 */
#define _GNU_SOURCE 1
#include "process/child.h"
#include "process/memory_timeline.h"
#include "memory/live.h"
#include "process/process_tree.h"
#include "files/scratch.h"
#include "plugin/loader.h"
#include "base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t interrupt_flag;

/* This process's phase page: set in a supervised child, NULL elsewhere. */
static char *phase_page;
#define PHASE_SIZE 64
/* The page: the step, a string, in its first STEP_SIZE bytes; the member
 * of a paired worker (alloclab_phase_member) as an int at MEMBER_AT; the
 * round (alloclab_phase_round) as an int at ROUND_AT. */
#define STEP_SIZE 48
#define MEMBER_AT 48
#define ROUND_AT 56

void alloclab_phase(const char *step)
{
	if (phase_page) {
		/* Several threads of a worker may mark steps at once: byte by
		 * byte, atomically, so none of them races (the reader, in another
		 * process, only looks once the writers have stopped; a mix of two
		 * steps is possible and harmless). */
		size_t n = strlen(step);
		if (n >= STEP_SIZE)
			n = STEP_SIZE - 1;
		for (size_t i = 0; i < n; i++)
			__atomic_store_n(&phase_page[i], step[i], __ATOMIC_RELAXED);
		__atomic_store_n(&phase_page[n], '\0', __ATOMIC_RELAXED);
	}
}

void alloclab_phase_round(int round)
{
	if (phase_page)
		__atomic_store_n((int *)(void *)(phase_page + ROUND_AT), round, __ATOMIC_RELAXED);
}

void alloclab_phase_member(int member)
{
	if (phase_page)
		__atomic_store_n((int *)(void *)(phase_page + MEMBER_AT), member, __ATOMIC_RELAXED);
}

void alloclab_phase_attach(void)
{
	struct stat st;
	void *p;

	if (fstat(ALLOCLAB_PHASE_FD, &st) != 0 || st.st_size != PHASE_SIZE)
		return;
	p = mmap(NULL, PHASE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, ALLOCLAB_PHASE_FD, 0);
	if (p != MAP_FAILED) {
		phase_page = p;
		alloclab_plugin_mark_steps(alloclab_phase);
	}
	close(ALLOCLAB_PHASE_FD);
}

struct alloclab_live *alloclab_live_attach(void)
{
	static struct alloclab_live *slots;
	const size_t size = ALLOCLAB_LIVE_SLOTS * sizeof *slots;
	struct stat st;

	if (slots)
		return slots;
	if (fstat(ALLOCLAB_LIVE_FD, &st) == 0 && (size_t)st.st_size == size) {
		void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, ALLOCLAB_LIVE_FD, 0);
		close(ALLOCLAB_LIVE_FD);
		if (p != MAP_FAILED)
			return slots = p;
	}
	/* Private ones, mapped: not from the C library's heap, which the
	 * system plugin shares with the harness (its layout is part of what
	 * glibc's malloc does in the measured region). */
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return slots = p == MAP_FAILED ? NULL : p;
}

/* What the child's workload threads hold, summed; -1 with no counters. */
static int64_t live_bytes(const struct alloclab_live *slots)
{
	uint64_t sum = 0;
	if (slots == NULL)
		return -1;
	for (unsigned i = 0; i < ALLOCLAB_LIVE_SLOTS; i++)
		sum += __atomic_load_n((const uint64_t *)&slots[i].bytes, __ATOMIC_RELAXED);
	return (int64_t)sum;
}

static void on_interrupt(int sig)
{
	(void)sig;
	interrupt_flag = 1;
}

void alloclab_catch_interrupts(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: poll() must return so the parent notices. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* Orphans of a worker (a plugin's grandchild that left the process
	 * group with setsid) become ours, so they can be found and reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

int alloclab_interrupted(void) { return interrupt_flag != 0; }

static int append(struct alloclab_child_result *res, size_t *cap, const char *buf, size_t n)
{
	if (res->output_len + n + 1 > *cap) {
		size_t want = (*cap ? *cap * 2 : 4096);
		while (want < res->output_len + n + 1)
			want *= 2;
		char *grown = realloc(res->output, want);
		if (grown == NULL)
			return -1;
		res->output = grown;
		*cap = want;
	}
	memcpy(res->output + res->output_len, buf, n);
	res->output_len += n;
	res->output[res->output_len] = '\0';
	return 0;
}

static void keep_printed(struct alloclab_child_result *res, const char *buf, size_t n)
{
	size_t room = ALLOCLAB_CHILD_KEPT_OUTPUT - (res->printed_len < ALLOCLAB_CHILD_KEPT_OUTPUT ? res->printed_len
												   : ALLOCLAB_CHILD_KEPT_OUTPUT);
	size_t keep = n < room ? n : room, at = res->printed_len < ALLOCLAB_CHILD_KEPT_OUTPUT ? res->printed_len
											  : ALLOCLAB_CHILD_KEPT_OUTPUT;
	memcpy(res->printed + at, buf, keep);
	res->printed[at + keep] = '\0';
	res->printed_len += n;
}

int alloclab_child_run(alloclab_child_fn fn, void *arg, double timeout_s, struct alloclab_child_result *res,
		       char *err, size_t err_len)
{
	return alloclab_child_run_sampled(fn, arg, timeout_s, 0, res, err, err_len);
}

/* The phase page's step, copied (the child may be writing it), with its
 * round: "run 2", "warm-up 1" (any step of a warm-up), or the step alone. */
static void read_phase(const char *page, char *out, size_t len)
{
	char step[STEP_SIZE];
	size_t i = 0;
	for (; i < STEP_SIZE - 1; i++) {
		step[i] = __atomic_load_n(&page[i], __ATOMIC_RELAXED);
		if (step[i] == '\0')
			break;
	}
	step[i] = '\0';
	int round = __atomic_load_n((const int *)(const void *)(page + ROUND_AT), __ATOMIC_RELAXED);
	int per_round = strcmp(step, "prepare") == 0 || strcmp(step, "run") == 0 || strcmp(step, "finish") == 0 ||
			strcmp(step, "stats") == 0;
	if (round < 0 && per_round)
		snprintf(out, len, "warm-up %d", -round);
	else if (round > 0 && per_round)
		snprintf(out, len, "%s %d", step, round);
	else
		snprintf(out, len, "%s", step);
}

/* One supervised child: what the parent keeps of it from fork to reaping. */
struct supervised {
	struct alloclab_child_result *res;
	double timeout_s, start, deadline;
	pid_t pid;
	int status, reaped;
	int fds[2];  /* the result pipe */
	int outs[2]; /* what the child prints, stdout and stderr */
	int result_open, printed_open;
	size_t cap; /* of res->output */
	char scratch[ALLOCLAB_SCRATCH_LEN];
	int phase_fd;
	char *phase; /* MAP_FAILED: none */
	int live_fd;
	struct alloclab_live *live; /* NULL: none */
	uint64_t limit_kib;
	double next_look;
	struct alloclab_timeline *timeline;
};

#define LIVE_SIZE (ALLOCLAB_LIVE_SLOTS * sizeof(struct alloclab_live))

/* The child's scratch folder, its pipes, its phase page and (sampled) its
 * live counters. 0, or -1 with err and nothing left made. */
static int prepare(struct supervised *s, unsigned sample_ms, char *err, size_t err_len)
{
	/* The child's scratch folder, its TMPDIR: made and removed here, so
	 * that whatever the child or the programs it runs leave in it goes
	 * when the child does, however it ends. */
	if (alloclab_scratch_make("worker", s->scratch, sizeof s->scratch) != 0) {
		snprintf(err, err_len, "cannot make a scratch folder in %s: %s", alloclab_scratch_root(), strerror(errno));
		return -1;
	}
	if (pipe2(s->fds, O_CLOEXEC) != 0) {
		snprintf(err, err_len, "cannot create a pipe: %s", strerror(errno));
		alloclab_scratch_remove(s->scratch);
		return -1;
	}
	if (pipe2(s->outs, O_CLOEXEC) != 0) {
		snprintf(err, err_len, "cannot create a pipe: %s", strerror(errno));
		close(s->fds[0]);
		close(s->fds[1]);
		alloclab_scratch_remove(s->scratch);
		return -1;
	}
	/* The child's phase page: a shared file, so that an exec'd program
	 * can map it again from its descriptor. */
	s->phase_fd = memfd_create("alloclab-phase", MFD_CLOEXEC);
	s->phase = MAP_FAILED;
	if (s->phase_fd >= 0 && ftruncate(s->phase_fd, PHASE_SIZE) == 0)
		s->phase = mmap(NULL, PHASE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, s->phase_fd, 0);
	/* The live counters, when the memory is sampled. */
	s->live_fd = sample_ms ? memfd_create("alloclab-live", MFD_CLOEXEC) : -1;
	s->live = NULL;
	if (s->live_fd >= 0 && ftruncate(s->live_fd, (off_t)LIVE_SIZE) == 0) {
		void *p = mmap(NULL, LIVE_SIZE, PROT_READ, MAP_SHARED, s->live_fd, 0);
		s->live = p == MAP_FAILED ? NULL : p;
	}
	return 0;
}

/* What prepare made, undone when there is no child to give it to. */
static void unprepare(struct supervised *s)
{
	alloclab_scratch_remove(s->scratch);
	close(s->fds[0]);
	close(s->fds[1]);
	close(s->outs[0]);
	close(s->outs[1]);
	if (s->phase != MAP_FAILED)
		munmap(s->phase, PHASE_SIZE);
	if (s->phase_fd >= 0)
		close(s->phase_fd);
	if (s->live)
		munmap(s->live, LIVE_SIZE);
	if (s->live_fd >= 0)
		close(s->live_fd);
}

/* In the child, from fork: its process group, signals, descriptors and
 * TMPDIR set up, then fn, whose status it exits with. */
static _Noreturn void become_child(struct supervised *s, pid_t parent, alloclab_child_fn fn, void *arg)
{
	/* Dies with the parent; if the parent is already gone, now. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(3);
	setpgid(0, 0);
	setenv("TMPDIR", s->scratch, 1);
	alloclab_plugin_mark_steps(alloclab_phase);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	/* Printing after the parent stopped reading must not kill it. */
	signal(SIGPIPE, SIG_IGN);
	close(s->fds[0]);
	close(s->outs[0]);
	/* Nothing a child runs ever reads the terminal (a benchmark's
	 * input(), a program waiting on stdin): its stdin is empty. */
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, 0);
		close(devnull);
	}
	dup2(s->outs[1], 1);
	dup2(s->outs[1], 2);
	close(s->outs[1]);
	/* The descriptors the child finds at known numbers (its phase
	 * page, its live counters) are moved there last: first every
	 * descriptor involved goes above them, so that none is
	 * overwritten by another's dup2 (dup2 clears close-on-exec). */
	int result_fd = fcntl(s->fds[1], F_DUPFD_CLOEXEC, 10);
	int high_phase = s->phase != MAP_FAILED ? fcntl(s->phase_fd, F_DUPFD_CLOEXEC, 10) : -1;
	int high_live = s->live != NULL ? fcntl(s->live_fd, F_DUPFD_CLOEXEC, 10) : -1;
	if (result_fd < 0)
		result_fd = s->fds[1];
	if (s->phase != MAP_FAILED) {
		phase_page = s->phase;
		if (high_phase >= 0)
			dup2(high_phase, ALLOCLAB_PHASE_FD);
	}
	if (high_live >= 0)
		dup2(high_live, ALLOCLAB_LIVE_FD);
	_exit(fn(arg, result_fd));
}

/* The memory limit, looked at ten times a second from here, so that the
 * measured process pays nothing for it. 1: over it. */
static int over_memory_limit(struct supervised *s)
{
	if (s->limit_kib && alloclab_now_s() >= s->next_look) {
		uint64_t kib = alloclab_tree_resident_kib(s->pid, NULL);
		s->next_look = alloclab_now_s() + 0.1;
		if (kib > s->res->peak_kib)
			s->res->peak_kib = kib;
		if (kib > s->limit_kib) {
			s->res->over_memory = 1;
			return 1;
		}
	}
	return 0;
}

/* The memory timeline, from here too: statm at every sample, with the
 * step the worker is in. wait_ms shortened to the next sample. */
static void sample_timeline(struct supervised *s, int *wait_ms)
{
	double now = alloclab_now_s();
	if (now >= alloclab_timeline_due(s->timeline)) {
		char step[PHASE_SIZE] = "";
		if (s->phase != MAP_FAILED)
			read_phase(s->phase, step, sizeof step);
		alloclab_timeline_sample(s->timeline, s->pid, now, step, live_bytes(s->live));
	}
	double until = alloclab_timeline_due(s->timeline) - alloclab_now_s();
	int ms = until > 0 ? (int)(until * 1000) + 1 : 0;
	if (ms < *wait_ms)
		*wait_ms = ms;
}

/* Reads what is in the pipes: once, or, when the child has exited, until
 * they are empty. -1 when reading must stop (a flood, out of memory). */
static int read_pipes(struct supervised *s, int exited)
{
	char buf[8192];

	for (int drained = 0; !drained;) {
		drained = 1;
		if (s->printed_open) {
			ssize_t n = read(s->outs[0], buf, sizeof buf);
			if (n > 0) {
				keep_printed(s->res, buf, (size_t)n);
				drained = !exited;
			} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
				s->printed_open = 0;
			}
		}
		if (s->result_open) {
			ssize_t n = read(s->fds[0], buf, sizeof buf);
			if (n > 0) {
				if (s->res->output_len + (size_t)n > ALLOCLAB_CHILD_MAX_RESULT) {
					s->res->flooded = 1;
					return -1;
				}
				if (append(s->res, &s->cap, buf, (size_t)n) != 0)
					return -1; /* out of memory: what we have is reported as is */
				drained = !exited;
			} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
				s->result_open = 0; /* EOF: the child closed its end, normally by exiting */
			}
		}
	}
	return 0;
}

/* Follows the child until it exits, closes both pipes, or has to be
 * stopped (interrupted, timed out, over the memory limit, flooding). */
static void watch(struct supervised *s)
{
	/* Non-blocking, so that once the child has exited what is left in the
	 * pipes can be drained without waiting on a grandchild that holds them
	 * open (a plugin's daemon inherits them). */
	fcntl(s->fds[0], F_SETFL, O_NONBLOCK);
	fcntl(s->outs[0], F_SETFL, O_NONBLOCK);
	while (s->result_open || s->printed_open) {
		struct pollfd pfd[2] = {{.fd = s->result_open ? s->fds[0] : -1, .events = POLLIN},
					{.fd = s->printed_open ? s->outs[0] : -1, .events = POLLIN}};
		double left = s->deadline - alloclab_now_s();
		int exited = 0;

		if (interrupt_flag) {
			s->res->interrupted = 1;
			break;
		}
		if (left <= 0) {
			s->res->timed_out = 1;
			break;
		}
		if (over_memory_limit(s))
			break;
		int wait_ms = left > 0.05 ? 50 : (int)(left * 1000) + 1;
		if (s->timeline)
			sample_timeline(s, &wait_ms);
		if (poll(pfd, 2, wait_ms) < 0 && errno != EINTR)
			break;
		/* Has the child itself gone? Then its pipes hold all it wrote. */
		if (waitpid(s->pid, &s->status, WNOHANG) == s->pid) {
			s->reaped = 1;
			exited = 1;
		}
		/* Read what is there (all of it once the child has exited). */
		if (read_pipes(s, exited) != 0)
			break;
		if (exited)
			break;
	}
}

/* Waits for the child, killing it at the deadline or on an interrupt. */
static void reap(struct supervised *s)
{
	/* After EOF the child may still be running (a plugin could close the fd
	 * and hang in destroy); keep the deadline while reaping. */
	s->deadline = s->start + s->timeout_s;
	while (!s->reaped) {
		pid_t got = waitpid(s->pid, &s->status, WNOHANG);
		if (got == s->pid)
			break;
		if (got < 0 && errno != EINTR)
			break;
		if (interrupt_flag && !s->res->interrupted) {
			s->res->interrupted = 1;
			kill(-s->pid, SIGKILL);
		} else if (alloclab_now_s() > s->deadline && !s->res->timed_out && !s->res->interrupted) {
			s->res->timed_out = 1;
			kill(-s->pid, SIGKILL);
		} else if (!s->res->over_memory && !s->res->timed_out && !s->res->interrupted && over_memory_limit(s)) {
			/* Its pipes closed (a plugin that closes descriptors) is no
			 * leave to take all the memory there is. */
			kill(-s->pid, SIGKILL);
		}
		usleep(1000);
	}
}

/* Once the child is gone: what it left killed, what prepare made undone,
 * and the result filled in from its phase page, timeline and status. */
static void finish(struct supervised *s)
{
	struct alloclab_child_result *res = s->res;

	/* What it left running is killed and counted, for whatever ran beside
	 * it may have disturbed the measurement (orphans reparent to us, the
	 * subreaper). */
	kill(-s->pid, SIGSTOP);
	res->strays = alloclab_kill_children();
	kill(-s->pid, SIGKILL);
	alloclab_kill_children();
	alloclab_scratch_remove(s->scratch);
	if (s->phase != MAP_FAILED) {
		memcpy(res->phase, s->phase, STEP_SIZE - 1);
		res->phase[STEP_SIZE - 1] = '\0';
		res->member = __atomic_load_n((const int *)(const void *)(s->phase + MEMBER_AT), __ATOMIC_RELAXED);
		res->round = __atomic_load_n((const int *)(const void *)(s->phase + ROUND_AT), __ATOMIC_RELAXED);
		munmap(s->phase, PHASE_SIZE);
	}
	if (s->phase_fd >= 0)
		close(s->phase_fd);
	if (s->live)
		munmap(s->live, LIVE_SIZE);
	if (s->live_fd >= 0)
		close(s->live_fd);
	res->elapsed_s = alloclab_now_s() - s->start;
	res->memory = alloclab_timeline_take(s->timeline);
	alloclab_timeline_free(s->timeline);
	if (WIFEXITED(s->status)) {
		res->exited = 1;
		res->exit_code = WEXITSTATUS(s->status);
	} else if (WIFSIGNALED(s->status)) {
		res->term_signal = WTERMSIG(s->status);
	}
	if (res->output == NULL)
		append(res, &s->cap, "", 0);
}

int alloclab_child_run_sampled(alloclab_child_fn fn, void *arg, double timeout_s, unsigned sample_ms,
			       struct alloclab_child_result *res, char *err, size_t err_len)
{
	struct supervised s = {.res = res, .timeout_s = timeout_s, .result_open = 1, .printed_open = 1};
	pid_t parent;

	s.start = alloclab_now_s();
	s.deadline = s.start + timeout_s;
	parent = getpid();
	s.limit_kib = alloclab_memory_limit() / 1024;
	s.next_look = s.start;
	memset(res, 0, sizeof *res);
	{
		struct timespec wall;
		clock_gettime(CLOCK_REALTIME, &wall);
		res->started_unix_s = (double)wall.tv_sec + wall.tv_nsec * 1e-9;
	}
	/* Whatever the child leaves behind is reparented to us, to be found. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (prepare(&s, sample_ms, err, err_len) != 0)
		return -1;
	fflush(NULL);
	s.pid = fork();
	if (s.pid < 0) {
		snprintf(err, err_len, "cannot fork a worker: %s", strerror(errno));
		unprepare(&s);
		return -1;
	}
	if (s.pid == 0)
		become_child(&s, parent, fn, arg);
	setpgid(s.pid, s.pid); /* also here, so the group exists before any kill */
	s.timeline = sample_ms ? alloclab_timeline_new(sample_ms, s.start) : NULL;
	close(s.fds[1]);
	close(s.outs[1]);
	watch(&s);
	close(s.fds[0]);
	close(s.outs[0]);
	if (res->timed_out || res->interrupted || res->flooded || res->over_memory)
		kill(-s.pid, SIGKILL);
	reap(&s);
	finish(&s);
	return 0;
}

char *alloclab_child_printed(const struct alloclab_child_result *res)
{
	size_t n = strlen(res->printed), k = 0;
	char *out;

	if (res->printed_len == 0)
		return NULL;
	out = malloc(n * 3 + 64);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)res->printed[i];
		if (c == '\n') {
			if (i + 1 < n) {
				memcpy(out + k, " | ", 3);
				k += 3;
			}
		} else {
			out[k++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
		}
	}
	out[k] = '\0';
	if (res->printed_len > n)
		snprintf(out + k, 64, " ... (%zu bytes in all)", res->printed_len);
	return out;
}

int alloclab_child_send_json(int fd, json_t *obj)
{
	int failed = json_object_get(obj, "error") != NULL;
	char *text = json_dumps(obj, JSON_COMPACT);
	size_t len = text ? strlen(text) : 0, off = 0;

	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* Closed under us: by a plugin that closes descriptors it
			 * does not own. The phase page still reaches the parent. */
			if (n < 0 && errno == EBADF)
				alloclab_phase(ALLOCLAB_PHASE_ANSWER_CLOSED);
			break;
		}
		off += (size_t)n;
	}
	free(text);
	json_decref(obj);
	return text == NULL || off < len ? 3 : failed ? 1 : 0;
}

void alloclab_child_result_free(struct alloclab_child_result *res)
{
	free(res->output);
	alloclab_memory_timeline_free(res->memory);
	memset(res, 0, sizeof *res);
}

static void describe(const struct alloclab_child_result *res, double timeout_s, char *out, size_t out_len);

void alloclab_child_describe(const struct alloclab_child_result *res, double timeout_s, char *out, size_t out_len)
{
	size_t used;

	describe(res, timeout_s, out, out_len);
	used = strlen(out);
	if (res->phase[0] && !res->interrupted && used < out_len)
		snprintf(out + used, out_len - used, " in %s", res->phase);
}

static void describe(const struct alloclab_child_result *res, double timeout_s, char *out, size_t out_len)
{
	if (res->interrupted)
		snprintf(out, out_len, "interrupted");
	else if (res->flooded)
		snprintf(out, out_len, "worker sent more than %u MiB on its result pipe and was killed",
			 ALLOCLAB_CHILD_MAX_RESULT >> 20);
	else if (res->over_memory)
		snprintf(out, out_len, "killed at %.0f MiB resident, over the memory limit of %.0f MiB (--memory-limit)",
			 (double)res->peak_kib / 1024, (double)alloclab_memory_limit() / (1 << 20));
	else if (res->timed_out)
		snprintf(out, out_len, "timed out after %g s (raise --timeout if it is just slow)", timeout_s);
	else if (!res->exited)
		snprintf(out, out_len, "killed by signal %d (%s)", res->term_signal, strsignal(res->term_signal));
	else
		snprintf(out, out_len, "exited with status %d", res->exit_code);
}
