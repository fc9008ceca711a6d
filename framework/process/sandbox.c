/*
 * Sandboxes made by bubblewrap. See sandbox.h.
 *
 * As root, the child (child.c's supervised child) first shows each bind
 * at a place of its own in a private mount namespace (a folder of mode
 * 0711 under the scratch root), so that the unprivileged user bwrap then
 * runs as can reach it wherever it lies (a submission under /root, a
 * build tree in a folder of mode 0700) while what is in it keeps its own
 * permissions; then it sets the limits, drops to the unprivileged user
 * and only then executes bwrap.
 */
#define _GNU_SOURCE 1
#include "process/sandbox.h"
#include "base/lengths.h"
#include "files/scratch.h"
#include "files/self_exe.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <grp.h>
#include <limits.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* The users sandboxes run as when alloclab is root: one of its own for
 * each alloclab process (a grading), numbered from SANDBOX_UID_BASE by
 * the process's id, in no user database and owning no file. A user of
 * their own, because the kernel counts processes per user: under one
 * shared user (nobody) a fork bomb in one grading took the processes an
 * honest submission of another grading needed. */
#define SANDBOX_UID_BASE 0x7ff00000u
#define SANDBOX_UID_SPAN 0x000fffffu
#define MAX_BINDS 64

/* A sanitizer's runtime reserves terabytes of address space for its
 * shadow: an alloclab built with one (the asan and tsan test setups)
 * cannot run under an address-space limit, and goes without it. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

unsigned alloclab_sandbox_uid(void)
{
	return geteuid() == 0 ? SANDBOX_UID_BASE + (unsigned)getpid() % SANDBOX_UID_SPAN : (unsigned)getuid();
}

/* bwrap, as an absolute path from PATH's absolute folders (a relative one
 * could name a file a submission wrote). 0, or -1. */
static int find_bwrap(char *out, size_t len)
{
	const char *path = getenv("PATH");
	char *copy = strdup(path ? path : "/usr/bin:/bin"), *cursor = copy, *dir;
	int found = -1;
	while (copy && found != 0 && (dir = strsep(&cursor, ":")) != NULL)
		if (dir[0] == '/' && (size_t)snprintf(out, len, "%s/bwrap", dir) < len && access(out, X_OK) == 0)
			found = 0;
	free(copy);
	return found;
}

/* Tasks (processes and threads) the user runs now: RLIMIT_NPROC counts
 * them all, the user's other programs included. */
static unsigned user_tasks(unsigned uid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned n = 0;
	while (d && (e = readdir(d)) != NULL) {
		char path[300], line[256];
		unsigned real = ~0u, threads = 0;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
		FILE *f = fopen(path, "re");
		while (f && fgets(line, sizeof line, f)) {
			sscanf(line, "Uid: %u", &real);
			sscanf(line, "Threads: %u", &threads);
		}
		if (f)
			fclose(f);
		if (real == uid)
			n += threads ? threads : 1;
	}
	if (d)
		closedir(d);
	return n;
}

/* A growing argument vector. */
struct args {
	char **v;
	size_t n, cap;
	int failed;
};

static void add_word(struct args *a, const char *word)
{
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 128;
		char **grown = realloc(a->v, cap * sizeof *grown);
		if (grown == NULL) {
			a->failed = 1;
			return;
		}
		a->v = grown;
		a->cap = cap;
	}
	a->v[a->n] = strdup(word);
	a->failed |= a->v[a->n] == NULL;
	a->v[++a->n] = NULL;
}

/* bwrap's options take one value ("--tmpfs DIR") or two ("--ro-bind FROM TO"). */
static void add_flag_value(struct args *a, const char *flag, const char *value)
{
	add_word(a, flag), add_word(a, value);
}
static void add_flag_pair(struct args *a, const char *flag, const char *from, const char *to)
{
	add_word(a, flag), add_word(a, from), add_word(a, to);
}

static void args_free(struct args *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

/* The system's folders: /usr read-only, the merged-/usr links as links,
 * and of /etc what the dynamic linker, the compilers' alternatives and
 * the user database need. */
static const char *const system_dirs[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", NULL};
static const char *const etc_files[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
					"/etc/passwd",      "/etc/group",      "/etc/nsswitch.conf", "/etc/localtime",
					"/etc/os-release",  "/etc/debian_version", NULL};

static void add_system(struct args *a)
{
	for (const char *const *d = system_dirs; *d; d++) {
		struct stat st;
		char target[PATH_MAX];
		if (lstat(*d, &st) != 0)
			continue;
		ssize_t n = S_ISLNK(st.st_mode) ? readlink(*d, target, sizeof target - 1) : -1;
		if (n > 0) {
			target[n] = '\0';
			add_flag_pair(a, "--symlink", target, *d);
		} else if (S_ISDIR(st.st_mode)) {
			add_flag_pair(a, "--ro-bind", *d, *d);
		}
	}
	for (const char *const *f = etc_files; *f; f++)
		add_flag_pair(a, "--ro-bind-try", *f, *f);
}

/* Where a host path is seen inside when a bind (src at dest) holds it:
 * into out, 1; 0 when it is not under src. */
static int seen_at(const char *path, const char *src, const char *dest, char *out, size_t len)
{
	size_t n = strlen(src);
	if (strncmp(path, src, n) != 0 || (path[n] != '/' && !(n == 1 && src[0] == '/')))
		return 0;
	return (size_t)snprintf(out, len, "%s%s", dest, path + (n == 1 ? 0 : n)) < len;
}

/* Covers each hidden path that a bind (or a system folder) would show. */
static void add_hides(struct args *a, const struct alloclab_sandbox *sb, const char (*srcs)[PATH_MAX])
{
	for (size_t h = 0; h < sb->nhide; h++) {
		char real[PATH_MAX], inside[PATH_MAX + 64];
		struct stat st;
		if (realpath(sb->hide[h], real) == NULL || stat(real, &st) != 0)
			continue;
		for (size_t b = 0; b <= sb->nbinds; b++) {
			const char *src = b < sb->nbinds ? srcs[b] : "/usr";
			const char *dest = b < sb->nbinds ? sb->binds[b].dest : src;
			if (src[0] == '\0' || !seen_at(real, src, dest, inside, sizeof inside))
				continue;
			if (S_ISDIR(st.st_mode)) {
				add_flag_value(a, "--tmpfs", inside);
				add_flag_value(a, "--remount-ro", inside);
			} else {
				add_flag_pair(a, "--ro-bind", "/dev/null", inside);
			}
		}
	}
}

/* bwrap's arguments, then argv. Each bind is shown from stage/i where
 * stage is not "" (as root), else from where it is. */
static int build_args(const struct alloclab_sandbox *sb, const char *bwrap, const char *stage, char *const *argv,
		      struct args *a)
{
	char (*srcs)[PATH_MAX] = calloc(sb->nbinds + 1, PATH_MAX);
	char num[64];
	if (srcs == NULL)
		return -1;
	add_word(a, bwrap);
	add_word(a, "--unshare-all");
	add_word(a, "--unshare-user");
	add_word(a, "--disable-userns");
	add_word(a, "--die-with-parent");
	add_word(a, "--new-session");
	/* What runs is the namespace's first process itself, with no reaper
	 * of bwrap's before it: a process of bwrap's there would hold the
	 * command's standard output and bwrap's own environment, and anything
	 * the command starts could attach to it, read it, or stop it (and
	 * with it the sandbox until its deadline). As the first process, the
	 * command also cannot be killed from inside. */
	add_word(a, "--as-pid-1");
	add_flag_value(a, "--hostname", "sandbox");
	add_word(a, "--clearenv");
	for (const char *const *e = sb->env; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char name[256];
		if (eq == NULL || (size_t)(eq - *e) >= sizeof name)
			continue;
		snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
		add_flag_pair(a, "--setenv", name, eq + 1);
	}
	add_system(a);
	add_flag_value(a, "--proc", "/proc");
	/* /dev of the harmless devices, read-only but for a small /dev/shm:
	 * bwrap's own is a tmpfs as large as half the memory. */
	add_flag_value(a, "--dev", "/dev");
	add_flag_value(a, "--remount-ro", "/dev");
	add_flag_pair(a, "--size", "67108864", "--tmpfs"), add_word(a, "/dev/shm");
	add_flag_pair(a, "--size", "67108864", "--tmpfs"), add_word(a, "/tmp");
	snprintf(num, sizeof num, "%llu", (unsigned long long)sb->work_bytes);
	add_flag_pair(a, "--size", num, "--tmpfs"), add_word(a, sb->work);
	for (size_t i = 0; i < sb->nbinds; i++) {
		char staged[ALLOCLAB_PATH_PLUS_LEN];
		if (realpath(sb->binds[i].src, srcs[i]) == NULL)
			srcs[i][0] = '\0';
		snprintf(staged, sizeof staged, "%s/%zu", stage, i);
		add_flag_pair(a, sb->binds[i].writable ? "--bind" : "--ro-bind", stage[0] ? staged : sb->binds[i].src,
			      sb->binds[i].dest);
	}
	add_hides(a, sb, (const char (*)[PATH_MAX])srcs);
	free(srcs);
	add_flag_value(a, "--chdir", sb->work);
	add_word(a, "--");
	for (char *const *w = argv; *w; w++)
		add_word(a, *w);
	return a->failed ? -1 : 0;
}

struct sandbox_child {
	const struct alloclab_sandbox *sb;
	char **argv;
	pid_t parent;
	const char *stage; /* "" none */
	unsigned uid;      /* alloclab_sandbox_uid() of the process that asked */
};

static void limit(int resource, uint64_t soft, uint64_t hard)
{
	struct rlimit r = {soft, hard};
	setrlimit(resource, &r);
}

/* Drops root for good: no groups, the sandbox user's id as gid and uid,
 * all three of each. 0, or -1. */
static int drop_root(unsigned uid)
{
	if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0)
		return -1;
	uid_t r, e, s;
	if (getresuid(&r, &e, &s) != 0 || r != uid || e != uid || s != uid || setuid(0) == 0)
		return -1;
	return 0;
}

/* As root: a private mount namespace where each bind is also at
 * stage/i. 0, or -1. */
static int stage_binds(const struct sandbox_child *c)
{
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		fprintf(stderr, "sandbox: cannot make a mount namespace: %s\n", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < c->sb->nbinds; i++) {
		char staged[ALLOCLAB_PATH_PLUS_LEN];
		snprintf(staged, sizeof staged, "%s/%zu", c->stage, i);
		if (mount(c->sb->binds[i].src, staged, NULL, MS_BIND | MS_REC, NULL) != 0) {
			fprintf(stderr, "sandbox: cannot show %s: %s\n", c->sb->binds[i].src, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int sandbox_child(void *arg, int fd)
{
	const struct sandbox_child *c = arg;
	const struct alloclab_sandbox *sb = c->sb;
	if (c->stage[0] && stage_binds(c) != 0)
		return 126;
	if (dup2(fd, 1) < 0)
		return 126;
	/* Nothing else of alloclab's goes in: every other descriptor closes
	 * at exec. */
	close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);
	unsigned uid = c->uid;
	uint64_t tasks = user_tasks(uid) + (uint64_t)sb->processes;
	limit(RLIMIT_NPROC, tasks, tasks);
#if !SANITIZED
	limit(RLIMIT_AS, sb->address_space, sb->address_space);
#endif
	limit(RLIMIT_FSIZE, sb->file_size, sb->file_size);
	limit(RLIMIT_CPU, sb->cpu_s, sb->cpu_s + 5);
	limit(RLIMIT_CORE, 0, 0);
	if (geteuid() == 0 && drop_root(uid) != 0) {
		fprintf(stderr, "sandbox: cannot drop root to uid %u: %s\n", uid, strerror(errno));
		return 126;
	}
	/* A change of user clears the parent-death signal: set again. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != c->parent)
		return 126;
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	/* bwrap itself gets no environment: what is in a process's
	 * environment can be read back (/proc/PID/environ), and the command's
	 * own is sb->env, set by --clearenv and --setenv. */
	char *const no_env[] = {NULL};
	execve(c->argv[0], c->argv, no_env);
	fprintf(stderr, "sandbox: cannot run %s: %s\n", c->argv[0], strerror(errno));
	return 127;
}

/* As root, the folder the binds are staged in: mode 0711 (the dropped
 * user may pass, not list), an empty folder or file for each bind to
 * be mounted on. 0, or -1 with err. */
static int make_stage(const struct alloclab_sandbox *sb, char *stage, size_t len, char *err, size_t err_len)
{
	stage[0] = '\0';
	if (geteuid() != 0)
		return 0;
	if (alloclab_scratch_make("sandbox", stage, len) != 0 || chmod(stage, 0711) != 0) {
		snprintf(err, err_len, "cannot make a scratch folder: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < sb->nbinds; i++) {
		char at[ALLOCLAB_PATH_PLUS_LEN];
		struct stat st;
		snprintf(at, sizeof at, "%s/%zu", stage, i);
		int made = stat(sb->binds[i].src, &st) != 0 ? -1
			   : S_ISDIR(st.st_mode)	     ? mkdir(at, 0755)
							     : close(open(at, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
		if (made != 0) {
			snprintf(err, err_len, "cannot show %s in a sandbox: %s", sb->binds[i].src, strerror(errno));
			alloclab_scratch_remove(stage);
			return -1;
		}
	}
	return 0;
}

static size_t argc_of(char *const *argv)
{
	size_t n = 0;
	while (argv[n])
		n++;
	return n;
}

/* The deadline of one tool's walk over a writable bind. */
#define TOOL_TIMEOUT_S 300

static int tool_child(void *arg, int fd)
{
	char *const *argv = arg;
	if (dup2(fd, 1) < 0)
		return 127;
	execv(argv[0], argv);
	return 127;
}

/* Runs one of the system's tools (coreutils' chown and chmod, findutils'
 * find) on a writable bind. They walk a tree by file descriptors (fts), so
 * a tree deeper than PATH_MAX, which a walk by paths (nftw) cannot
 * finish, is walked whole; links are not followed. 0 when it exited 0,
 * what it printed into *out (with out); else -1 with err. */
static int run_tool(char *const *argv, char **out, char *err, size_t err_len)
{
	struct alloclab_child_result res;
	if (out)
		*out = NULL;
	if (alloclab_child_run(tool_child, (void *)argv, TOOL_TIMEOUT_S, &res, err, err_len) != 0)
		return -1;
	int ok = res.exited && res.exit_code == 0;
	if (!ok) {
		char how[256], *said = alloclab_child_printed(&res);
		alloclab_child_describe(&res, TOOL_TIMEOUT_S, how, sizeof how);
		snprintf(err, err_len, "%s %s: %s%s%.300s", argv[0], argv[argc_of(argv) - 1], how, said ? ": " : "",
			 said ? said : "");
		free(said);
	} else if (out && res.output_len) {
		*out = strndup(res.output, res.output_len);
	}
	alloclab_child_result_free(&res);
	return ok ? 0 : -1;
}

/* As root, before the run: every file of each writable bind, whoever
 * owns it (a killed run's user too), becomes the sandbox user's. */
static int hand_over(const struct alloclab_sandbox *sb, unsigned uid, char *err, size_t err_len)
{
	char owner[32];
	snprintf(owner, sizeof owner, "%u:%u", uid, uid);
	for (size_t i = 0; i < sb->nbinds; i++) {
		if (!sb->binds[i].writable)
			continue;
		char *const chown_all[] = {"/bin/chown", "-R", "-P", "-h", owner, "--", (char *)sb->binds[i].src, NULL};
		if (run_tool(chown_all, NULL, err, err_len) != 0)
			return -1;
	}
	return 0;
}

/* As root, after the run (its processes gone with its pid namespace):
 * what the sandbox user owns in each writable bind becomes alloclab's
 * (its effective user and group), and loses what would let another user
 * use it (set-id bits, the sticky bit, writing by group and others); then
 * nothing of the sandbox user's may be left there. 0, or -1 with err. */
static int hand_back(const struct alloclab_sandbox *sb, unsigned uid, char *err, size_t err_len)
{
	char from[32], to[32], uid_text[16];
	snprintf(from, sizeof from, "--from=%u", uid);
	snprintf(to, sizeof to, "%u:%u", (unsigned)geteuid(), (unsigned)getegid());
	snprintf(uid_text, sizeof uid_text, "%u", uid);
	for (size_t i = 0; i < sb->nbinds; i++) {
		if (!sb->binds[i].writable)
			continue;
		char *src = (char *)sb->binds[i].src, *left = NULL;
		char *const chown_back[] = {"/bin/chown", "-R", "-P", "-h", from, to, "--", src, NULL};
		char *const chmod_safe[] = {"/bin/chmod", "-R", "go-w,ug-s,a-t", "--", src, NULL};
		char *const find_left[] = {"/usr/bin/find", src, "-xdev", "-uid", uid_text, "-print", "-quit", NULL};
		if (run_tool(chown_back, NULL, err, err_len) != 0 || run_tool(chmod_safe, NULL, err, err_len) != 0 ||
		    run_tool(find_left, &left, err, err_len) != 0)
			return -1;
		if (left && left[0]) {
			left[strcspn(left, "\n")] = '\0';
			snprintf(err, err_len, "a file of the sandbox's user is left after it: %.400s", left);
			free(left);
			return -1;
		}
		free(left);
	}
	return 0;
}

size_t alloclab_sandbox_own_binds(struct alloclab_sandbox_bind *b, char (*paths)[ALLOCLAB_PATH_LEN])
{
	size_t n = 0;
	if (alloclab_running_from_build_tree()) {
		snprintf(paths[n], ALLOCLAB_PATH_LEN, "%s", ALLOCLAB_BUILD_ROOT);
		snprintf(paths[n + 1], ALLOCLAB_PATH_LEN, "%s", alloclab_sdk_include_dir());
		n += 2;
	} else {
		/* PREFIX/bin/alloclab: the prefix holds the plugins and the SDK. */
		char *slash;
		snprintf(paths[n], ALLOCLAB_PATH_LEN, "%s", alloclab_self_path());
		for (int up = 0; up < 2 && (slash = strrchr(paths[n], '/')) != NULL && slash != paths[n]; up++)
			*slash = '\0';
		snprintf(paths[n + 1], ALLOCLAB_PATH_LEN, "%s", ALLOCLAB_INSTALL_PLUGIN_DIR);
		snprintf(paths[n + 2], ALLOCLAB_PATH_LEN, "%s", alloclab_sdk_include_dir());
		snprintf(paths[n + 3], ALLOCLAB_PATH_LEN, "%s", alloclab_sdk_pkgconfig_dir());
		n += 4;
	}
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		if (access(paths[i], F_OK) == 0)
			b[kept++] = (struct alloclab_sandbox_bind){paths[i], paths[i], 0};
	return kept;
}

int alloclab_sandbox_run(const struct alloclab_sandbox *sb, char *const *argv, double timeout_s,
			 struct alloclab_child_result *res, char *err, size_t err_len)
{
	char bwrap[ALLOCLAB_PATH_LEN], stage[ALLOCLAB_SCRATCH_LEN];
	struct args a = {0};
	if (sb->nbinds > MAX_BINDS) {
		snprintf(err, err_len, "a sandbox takes at most %d binds", MAX_BINDS);
		return -1;
	}
	if (find_bwrap(bwrap, sizeof bwrap) != 0) {
		snprintf(err, err_len, "no bwrap on PATH (Debian's package bubblewrap)");
		return -1;
	}
	if (make_stage(sb, stage, sizeof stage, err, err_len) != 0)
		return -1;
	int rc = -1;
	if (build_args(sb, bwrap, stage, argv, &a) != 0) {
		snprintf(err, err_len, "out of memory");
	} else {
		struct sandbox_child c = {sb, a.v, getpid(), stage, alloclab_sandbox_uid()};
		if (stage[0] && hand_over(sb, c.uid, err, err_len) != 0) {
			rc = -1;
		} else {
			rc = alloclab_child_run(sandbox_child, &c, timeout_s, res, err, err_len);
			char back[ALLOCLAB_ERR_LEN];
			if (stage[0] && hand_back(sb, c.uid, back, sizeof back) != 0 && rc == 0) {
				alloclab_child_result_free(res);
				snprintf(err, err_len, "%s", back);
				rc = -1;
			}
		}
	}
	args_free(&a);
	if (stage[0])
		alloclab_scratch_remove(stage);
	return rc;
}

int alloclab_sandbox_usable(char *why, size_t why_len)
{
	const char *env[] = {"PATH=/usr/bin:/bin", NULL};
	struct alloclab_sandbox sb = {.work = "/work", .work_bytes = 1 << 20, .env = env, .processes = 64,
				      .address_space = 1ull << 32, .file_size = 1 << 20, .cpu_s = 10};
	char *argv[] = {(char *)"/bin/true", NULL};
	struct alloclab_child_result res;
	char err[ALLOCLAB_ERR_LEN];
	if (alloclab_sandbox_run(&sb, argv, 20, &res, err, sizeof err) != 0) {
		snprintf(why, why_len, "%s", err);
		return -1;
	}
	int ok = res.exited && res.exit_code == 0;
	if (!ok) {
		char *said = alloclab_child_printed(&res), how[256];
		alloclab_child_describe(&res, 20, how, sizeof how);
		snprintf(why, why_len, "bwrap cannot make a sandbox here (%s%s%.300s); user namespaces may be off "
				       "(sysctl kernel.unprivileged_userns_clone, user.max_user_namespaces)",
			 how, said ? ": " : "", said ? said : "");
		free(said);
	}
	alloclab_child_result_free(&res);
	return ok ? 0 : -1;
}
