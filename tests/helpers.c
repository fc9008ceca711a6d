/* Test helpers. See helpers.h. */
#define _GNU_SOURCE 1
#include "helpers.h"

#include "registry.h"
#include "results/results.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)len + 1);
	if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

char *file_in(const char *dir, const char *name)
{
	char *path = path_in(dir, name), *text = read_file(path);
	cr_assert_not_null(text, "%s is missing", path);
	free(path);
	return text;
}

static char *scratch[64];
static unsigned nscratch;

/* Only what scratch_dir made, by coreutils' rm, which walks by
 * descriptor and follows no link: nftw stopped at a tree deeper than
 * PATH_MAX (the sandbox test plants one) and left the folder behind. */
static void remove_scratch(void)
{
	for (unsigned i = 0; i < nscratch; i++) {
		if (strncmp(scratch[i], "/tmp/alloclab-test-", 19) != 0)
			continue;
		char *argv[] = {"rm", "-rf", "--one-file-system", "--", scratch[i], NULL};
		pid_t pid;
		int status;
		if (posix_spawn(&pid, "/bin/rm", NULL, NULL, argv, environ) == 0)
			waitpid(pid, &status, 0);
	}
}

char *scratch_dir(void)
{
	char tmpl[] = "/tmp/alloclab-test-XXXXXX";
	char *dir = mkdtemp(tmpl);

	if (dir == NULL)
		return NULL;
	if (nscratch == 0)
		atexit(remove_scratch);
	if (nscratch < 64)
		scratch[nscratch++] = strdup(dir);
	return strdup(dir);
}

struct alloclab_results *load_results(const char *dir, const char *name)
{
	char path[4200], err[1024];
	struct alloclab_results *r;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	r = alloclab_results_load(path, alloclab_workload_check_report, err, sizeof err);
	cr_assert_not_null(r, "%s", err);
	return r;
}

void add_one_value_process(struct alloclab_cell *cell, unsigned index, unsigned threads, double per_op)
{
	struct alloclab_process pr = {.index = index, .peak_rss_kib = 1000};
	pr.values = calloc(1, sizeof *pr.values);
	pr.nvalues = 1;
	pr.values[0].wall_ns = 1000;
	pr.values[0].thread_ns = calloc(threads, sizeof(uint64_t));
	pr.values[0].thread_ops = calloc(threads, sizeof(uint64_t));
	for (unsigned i = 0; i < threads; i++)
		pr.values[0].thread_ops[i] = 100;
	pr.values[0].per_op = per_op;
	alloclab_cell_add_process(cell, &pr);
}

const struct alloclab_cell *cell_of(const struct alloclab_results *r, const char *plugin, unsigned threads)
{
	for (unsigned i = 0; i < r->ncells; i++)
		if (strcmp(r->cells[i].plugin, plugin) == 0 && r->cells[i].threads == threads)
			return &r->cells[i];
	return NULL;
}

/* Whether "NAME=..." sets an allocator (what a run records as its
 * allocator environment, results.h: facts.allocator_env), less the two a
 * test's own set-up gives (LD_PRELOAD, GLIBC_TUNABLES). */
static int allocator_setting(const char *entry)
{
	static const char *const prefixes[] = {"MALLOC_", "MIMALLOC_", "TCMALLOC_", "TBB_MALLOC_", "PYTHONMALLOC",
					       "PYTHONDEVMODE=", "PYTHONTRACEMALLOC="};
	const char *eq = strchr(entry, '=');
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (strncmp(entry, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return eq && eq - entry >= 11 && strncmp(eq - 11, "MALLOC_CONF", 11) == 0;
}

/* The tests measure what they measure whatever environment runs them:
 * meson gives every test a random MALLOC_PERTURB_ (glibc then fills every
 * block it hands out and takes back: 819,250 page faults a value where
 * 100 are the test's), and a developer's shell may set MALLOC_ARENA_MAX.
 * Before any test starts, they are taken out of what the test's children
 * inherit (this process's own malloc read them already, as meson meant
 * it to); a test that wants one passes it (run_alloclab_env). */
__attribute__((constructor)) static void allocator_settings_cleared(void)
{
	for (size_t i = 0; environ[i];) {
		if (allocator_setting(environ[i])) {
			char name[256];
			snprintf(name, sizeof name, "%.*s", (int)strcspn(environ[i], "="), environ[i]);
			unsetenv(name);
			continue;
		}
		i++;
	}
}

struct cmd_result run_alloclab(const char *cwd, const char *const *args)
{
	return run_alloclab_env(cwd, args, NULL);
}

struct cmd_result run_alloclab_env(const char *cwd, const char *const *args, const char *const *env)
{
	struct cmd_result r = {0};
	char **envp = environ;
	char out_path[] = "/tmp/alloclab-out-XXXXXX", err_path[] = "/tmp/alloclab-err-XXXXXX";
	int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path), status;
	const char *exe = getenv("ALLOCLAB_EXE");
	char *argv[256];
	size_t n = 0;
	posix_spawn_file_actions_t fa;
	pid_t pid;

	argv[n++] = (char *)exe;
	for (; args[n - 1] && n < 255; n++)
		argv[n] = (char *)args[n - 1];
	argv[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", 0, 0);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	if (env) {
		size_t n_env = 0, n_more = 0;
		while (environ[n_env])
			n_env++;
		while (env[n_more])
			n_more++;
		envp = calloc(n_env + n_more + 1, sizeof *envp);
		memcpy(envp, environ, n_env * sizeof *envp);
		memcpy(envp + n_env, env, n_more * sizeof *envp);
	}
	if (exe == NULL || posix_spawn(&pid, exe, &fa, NULL, argv, envp) != 0) {
		r.status = -1;
	} else {
		waitpid(pid, &status, 0);
		r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	posix_spawn_file_actions_destroy(&fa);
	if (envp != environ)
		free(envp);
	close(out_fd);
	close(err_fd);
	r.out = read_file(out_path);
	r.err = read_file(err_path);
	unlink(out_path);
	unlink(err_path);
	return r;
}

void cmd_result_free(struct cmd_result *r)
{
	free(r->out);
	free(r->err);
}

int count_lines(const char *text)
{
	int n = 0;
	if (text == NULL)
		return 0;
	for (const char *c = text; *c; c++)
		n += *c == '\n';
	if (*text && text[strlen(text) - 1] != '\n')
		n++;
	return n;
}

const char *test_plugin(const char *name)
{
	static char bufs[8][4096];
	static unsigned next;
	char *buf = bufs[next++ % 8];
	snprintf(buf, sizeof bufs[0], "%s/%s.so", getenv("ALLOCLAB_TEST_PLUGIN_DIR"), name);
	return buf;
}

char *path_in(const char *dir, const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);
	sprintf(p, "%s/%s", dir, name);
	return p;
}

void skip_unless_valgrind_counts(void)
{
	if (system("command -v valgrind >/dev/null 2>&1") != 0)
		cr_skip_test("valgrind is not installed");
	if (getenv("ALLOCLAB_UNDER_VALGRIND") || getenv("ALLOCLAB_UNDER_SANITIZER"))
		cr_skip_test("valgrind cannot run a sanitized or already valgrinded alloclab");
}

int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d))) {
		char sub[4200];
		if (e->d_name[0] == '.' && (e->d_name[1] == '\0' || (e->d_name[1] == '.' && e->d_name[2] == '\0')))
			continue;
		snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
		n += e->d_type == DT_DIR ? count_files(sub) : 1;
	}
	closedir(d);
	return n;
}

void assert_run_refused(const char *dir, const char *const *args, const char *text)
{
	struct cmd_result r = run_alloclab(dir, args);
	char out[4200];
	struct stat st;
	cr_expect_eq(r.status, 2, "%s: status %d: %s", text, r.status, r.err);
	cr_expect(strstr(r.err, text) != NULL, "expected '%s', got: %s", text, r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	snprintf(out, sizeof out, "%s/refused.json", dir);
	cr_expect_neq(stat(out, &st), 0, "%s: a results file was written", text);
	cmd_result_free(&r);
}

int alive(long pid)
{
	char path[128], state = 0;
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return 0;
	int n = fscanf(f, "%*d %*s %c", &state);
	fclose(f);
	return n == 1 && state != 'Z' && state != 'X';
}

void sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	cr_assert(rc == 0, "command failed (%d): %s", rc, cmd);
}

void make_history_repo(const char *repo)
{
	sh("mkdir -p '%s' && cd '%s' && git init -q && git config user.email t@example.org && git config user.name t && "
	   "cp %s/tests/fixtures/history/plugin.c . && printf '#define EXTRA_WORK 0\\n#define SLACK_PERCENT 0\\n' > "
	   "config.h && git add . && git commit -qm first && echo notes > README && git add README && git commit -qm readme "
	   "&& printf '#define EXTRA_WORK 16\\n#define SLACK_PERCENT 0\\n' > config.h && git commit -qam 'more work' && "
	   "printf '#error broken\\n' > config.h && git commit -qam broken && printf '#define EXTRA_WORK 16\\n#define "
	   "SLACK_PERCENT 0\\n' > config.h && git commit -qam fixed && echo more >> README && git commit -qam readme2",
	   repo, repo, getenv("ALLOCLAB_SOURCE_ROOT"));
}

void history_build_command(char *out, size_t len)
{
	snprintf(out, len, "cc -O2 -shared -fPIC -I%s/framework/include plugin.c -o plugin.so",
		 getenv("ALLOCLAB_SOURCE_ROOT"));
}
