/* See program.h. */
#define _GNU_SOURCE 1
#include "program.h"
#include "self_exe.h"
#include "lengths.h"

#include "static_tls.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

const char *alloclab_preload_path(void)
{
	return alloclab_running_from_build_tree() ? ALLOCLAB_PRELOAD_BUILD_PATH : ALLOCLAB_PRELOAD_INSTALL_PATH;
}

int alloclab_program_on_path(const char *program)
{
	/* As execvp searches: PATH unset is glibc's default, an empty entry
	 * the current folder. */
	const char *path = getenv("PATH");
	char *copy, *cursor, *dir;
	int found = 0;

	copy = cursor = strdup(path ? path : "/bin:/usr/bin");
	while (!found && (dir = strsep(&cursor, ":")) != NULL) {
		char candidate[ALLOCLAB_PATH_PLUS_LEN];
		snprintf(candidate, sizeof candidate, "%s/%s", *dir ? dir : ".", program);
		found = access(candidate, X_OK) == 0;
	}
	free(copy);
	return found;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

static void tail_of(int fd, char *out, size_t len)
{
	char buf[ALLOCLAB_PATH_LEN];
	off_t size = lseek(fd, 0, SEEK_END);
	off_t from = size > (off_t)sizeof buf - 1 ? size - (off_t)sizeof buf + 1 : 0;
	ssize_t got = pread(fd, buf, sizeof buf - 1, from);
	size_t o = 0;

	out[0] = '\0';
	if (got <= 0)
		return;
	buf[got] = '\0';
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		buf[--got] = '\0';
	/* The last three lines, as one. */
	char *start = buf + got;
	for (int lines = 0; start > buf && lines < 3; lines += *--start == '\n')
		;
	if (*start == '\n')
		start++;
	for (char *c = start; *c && o + 4 < len; c++) {
		if (*c == '\n') {
			memcpy(out + o, " | ", 3);
			o += 3;
		} else {
			out[o++] = (*c >= ' ' && *c < 127) ? *c : '?';
		}
	}
	out[o] = '\0';
}

int alloclab_program_run(const struct alloclab_program *p, struct alloclab_program_result *r, char *err,
			 size_t err_len)
{
	char *set[5], *tunables = NULL, *preload = NULL, *plugin = NULL, *record = NULL;
	const char *old_tunables = getenv("GLIBC_TUNABLES"), *old_preload = getenv("LD_PRELOAD");
	size_t nset = 0;
	int errfd = -1, rc = -1, status;
	struct rusage ru;
	pid_t pid;
	double t0;

	memset(r, 0, sizeof *r);
	if (p->plugin) {
		/* The preload library first, before whatever else is preloaded;
		 * the static TLS reserve that jemalloc's dlopen needs. */
		if (asprintf(&preload, "LD_PRELOAD=%s%s%s", alloclab_preload_path(), old_preload ? ":" : "",
			     old_preload ? old_preload : "") < 0 ||
		    asprintf(&plugin, "ALLOCLAB_PRELOAD_PLUGIN=%s%s%s", p->plugin,
			     p->plugin_options && p->plugin_options[0] ? ":" : "",
			     p->plugin_options ? p->plugin_options : "") < 0) {
			preload = plugin = NULL;
			goto oom;
		}
		set[nset++] = preload;
		set[nset++] = plugin;
		if (!old_tunables || !strstr(old_tunables, "glibc.rtld.optional_static_tls")) {
			if (asprintf(&tunables, "GLIBC_TUNABLES=%s%sglibc.rtld.optional_static_tls=%d",
				     old_tunables ? old_tunables : "", old_tunables ? ":" : "", ALLOCLAB_STATIC_TLS_BYTES) < 0) {
				tunables = NULL;
				goto oom;
			}
			set[nset++] = tunables;
		}
		set[nset++] = p->gil ? "ALLOCLAB_PRELOAD_GIL=1" : "ALLOCLAB_PRELOAD_GIL=0";
		if (p->record_path) {
			if (asprintf(&record, "ALLOCLAB_PRELOAD_RECORD=%s", p->record_path) < 0) {
				record = NULL;
				goto oom;
			}
			set[nset++] = record;
		}
	} else if (p->native_preload) {
		if (asprintf(&preload, "LD_PRELOAD=%s%s%s", p->native_preload, old_preload ? ":" : "",
			     old_preload ? old_preload : "") < 0) {
			preload = NULL;
			goto oom;
		}
		set[nset++] = preload;
	}
	char **env = environment(set, nset);
	if (env == NULL)
		goto oom;
	if (!p->pass_through && (errfd = memfd_create("stderr", MFD_CLOEXEC)) < 0) {
		snprintf(err, err_len, "cannot capture the program's stderr: %s", strerror(errno));
		free(env);
		goto out;
	}
	t0 = now_s();
	pid = fork();
	if (pid < 0) {
		snprintf(err, err_len, "cannot start '%s': %s", p->argv[0], strerror(errno));
		free(env);
		goto out;
	}
	if (pid == 0) {
		/* Only async-signal-safe calls from here to exec. */
		if (p->cwd && chdir(p->cwd) != 0) {
			static const char msg[] = "alloclab: cannot enter the program's folder\n";
			if (write(errfd >= 0 ? errfd : 2, msg, sizeof msg - 1) < 0)
				_exit(126);
			_exit(126);
		}
		if (!p->pass_through) {
			int in = open(p->stdin_path ? p->stdin_path : "/dev/null", O_RDONLY);
			int o = open(p->stdout_path ? p->stdout_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (in < 0 || o < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(errfd, 2) < 0)
				_exit(126);
		}
		signal(SIGPIPE, SIG_DFL);
		execvpe(p->argv[0], (char *const *)p->argv, env);
		static const char msg[] = "alloclab: cannot run the program: ";
		if (write(2, msg, sizeof msg - 1) < 0 || write(2, p->argv[0], strlen(p->argv[0])) < 0 ||
		    write(2, "\n", 1) < 0)
			_exit(127);
		_exit(127);
	}
	free(env);
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			snprintf(err, err_len, "cannot wait for '%s': %s", p->argv[0], strerror(errno));
			goto out;
		}
	r->wall_s = now_s() - t0;
	r->user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	r->sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	r->peak_rss_kib = ru.ru_maxrss;
	r->exited = WIFEXITED(status);
	r->status = r->exited ? WEXITSTATUS(status) : 0;
	r->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	if (errfd >= 0)
		tail_of(errfd, r->stderr_tail, sizeof r->stderr_tail);
	rc = 0;
	goto out;
oom:
	snprintf(err, err_len, "out of memory");
out:
	if (errfd >= 0)
		close(errfd);
	free(tunables);
	free(preload);
	free(plugin);
	free(record);
	return rc;
}

void alloclab_program_describe(const struct alloclab_program_result *r, char *out, size_t len)
{
	if (r->exited)
		snprintf(out, len, "exit status %d", r->status);
	else
		snprintf(out, len, "killed by signal %d (%s)", r->signal, strsignal(r->signal));
}
