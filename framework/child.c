/*
 * Child processes with deadlines. See child.h.
 *
 * The child gets its own process group, so a terminal's Ctrl-C reaches only
 * the parent, which then kills the child and keeps the results it already
 * has; and so a deadline kill takes any process the plugin may have spawned.
 */
#define _GNU_SOURCE 1
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t interrupt_flag;

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
}

int alloclab_interrupted(void) { return interrupt_flag != 0; }

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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

int alloclab_child_run(alloclab_child_fn fn, void *arg, double timeout_s, struct alloclab_child_result *res,
		       char *err, size_t err_len)
{
	int fds[2], status = 0;
	size_t cap = 0;
	double start = now_s(), deadline = start + timeout_s;
	pid_t pid;

	memset(res, 0, sizeof *res);
	if (pipe2(fds, O_CLOEXEC) != 0) {
		snprintf(err, err_len, "cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(err, err_len, "cannot fork a worker: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		close(fds[0]);
		_exit(fn(arg, fds[1]));
	}
	setpgid(pid, pid); /* also here, so the group exists before any kill */
	close(fds[1]);

	for (;;) {
		char buf[8192];
		struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
		double left = deadline - now_s();
		int ready;

		if (interrupt_flag) {
			res->interrupted = 1;
			break;
		}
		if (left <= 0) {
			res->timed_out = 1;
			break;
		}
		ready = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			continue;
		ssize_t n = read(fds[0], buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* EOF: the child closed its end, normally by exiting */
		if (append(res, &cap, buf, (size_t)n) != 0)
			break; /* out of memory: what we have is reported as is */
	}
	close(fds[0]);
	if (res->timed_out || res->interrupted)
		kill(-pid, SIGKILL);
	/* After EOF the child may still be running (a plugin could close the fd
	 * and hang in destroy); keep the deadline while reaping. */
	for (;;) {
		pid_t got = waitpid(pid, &status, WNOHANG);
		if (got == pid)
			break;
		if (got < 0 && errno != EINTR)
			break;
		if (interrupt_flag && !res->interrupted) {
			res->interrupted = 1;
			kill(-pid, SIGKILL);
		} else if (now_s() > deadline && !res->timed_out && !res->interrupted) {
			res->timed_out = 1;
			kill(-pid, SIGKILL);
		}
		usleep(1000);
	}
	res->elapsed_s = now_s() - start;
	if (WIFEXITED(status)) {
		res->exited = 1;
		res->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->term_signal = WTERMSIG(status);
	}
	if (res->output == NULL)
		append(res, &cap, "", 0);
	return 0;
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
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	free(text);
	json_decref(obj);
	return text == NULL || off < len ? 3 : failed ? 1 : 0;
}

void alloclab_child_result_free(struct alloclab_child_result *res)
{
	free(res->output);
	memset(res, 0, sizeof *res);
}

void alloclab_child_describe(const struct alloclab_child_result *res, double timeout_s, char *out, size_t out_len)
{
	if (res->interrupted)
		snprintf(out, out_len, "interrupted");
	else if (res->timed_out)
		snprintf(out, out_len, "timed out after %g s (raise --timeout if it is just slow)", timeout_s);
	else if (!res->exited)
		snprintf(out, out_len, "killed by signal %d (%s)", res->term_signal, strsignal(res->term_signal));
	else
		snprintf(out, out_len, "exited with status %d", res->exit_code);
}
