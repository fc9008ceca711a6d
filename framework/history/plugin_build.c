/* A side as a plugin file, built where it must be. See plugin_build.h. */
#define _GNU_SOURCE 1
#include "history/plugin_build.h"

#include "files/self_exe.h"
#include "history/revision.h"
#include "build/step.h"
#include "process/sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* A folder, not a link to one: a link would lead the search for the
 * built plugin out of the build. */
static int is_real_dir(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The .so files under dir (two levels down at most, no hidden folders,
 * none of meson's own): how many, and the first by path in *found. */
static int find_plugins(const char *dir, int depth, char *found, size_t len)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), count = 0;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char path[PATH_MAX];
		size_t k = strlen(name);
		if (name[0] != '.' && strcmp(name, "meson-private") != 0 && strcmp(name, "meson-logs") != 0 &&
		    (size_t)snprintf(path, sizeof path, "%s/%s", dir, name) < sizeof path) {
			if (k > 3 && strcmp(name + k - 3, ".so") == 0 && is_file(path)) {
				if (count++ == 0)
					snprintf(found, len, "%s", path);
			} else if (depth > 0 && is_real_dir(path)) {
				char deeper[PATH_MAX];
				int m = find_plugins(path, depth - 1, deeper, sizeof deeper);
				if (m && count == 0)
					snprintf(found, len, "%s", deeper);
				count += m;
			}
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return count;
}

/* Where a revision's paths must stay: a revision names its plugin's
 * folder (--subdir), its meson.build or Makefile and its built plugin by
 * paths that a link it commits could lead anywhere (a folder of the
 * user's to build in, a library the repository does not hold to
 * measure). Both folders are alloclab's, their paths free of links. */
struct confine {
	const char *commit;
	const char *tree;  /* the revision's files */
	const char *build; /* the folder meson builds in */
	const struct alloclab_sandbox *sandbox; /* NULL: the build runs with the user's rights */
};

/* What a sandboxed build may take (docs/guides/plugin-history.md says
 * these): memory for its home, processes, address space, file size. */
#define BUILD_HOME_BYTES (1ull << 30)
#define BUILD_PROCESSES 256
#define BUILD_ADDRESS_SPACE (16ull << 30)
#define BUILD_FILE_SIZE (1ull << 30)

/* s as a part of one line: control characters as '?'. */
static void shown(const char *s, char *out, size_t len)
{
	size_t k = 0;
	for (; s[k] && k + 1 < len; k++)
		out[k] = (unsigned char)s[k] < 0x20 || s[k] == 0x7f ? '?' : s[k];
	out[k] = '\0';
}

static int within(const char *folder, const char *real)
{
	size_t k = strlen(folder);
	return strncmp(real, folder, k) == 0 && (real[k] == '/' || real[k] == '\0');
}

/* Whether the part of path below folder climbs above it by its '..'s
 * alone, whatever is there. */
static int climbs_out(const char *folder, const char *path)
{
	size_t k = strlen(folder), depth = 0;
	if (strncmp(path, folder, k) != 0 || path[k] != '/')
		return 0;
	for (const char *p = path + k + 1; *p; p += strspn(p, "/")) {
		size_t n = strcspn(p, "/");
		if (n == 2 && strncmp(p, "..", 2) == 0) {
			if (depth-- == 0)
				return 1;
		} else if (!(n == 1 && p[0] == '.')) {
			depth++;
		}
		p += n;
	}
	return 0;
}

/* Why path, below folder, resolves to real outside it: the first of its
 * parts that is a link, and to where. */
static void why_out(const char *folder, const char *path, const char *real, char *out, size_t len)
{
	size_t k = strlen(folder);
	char walk[PATH_MAX], to[PATH_MAX], a[300], b[300];
	shown(real, b, sizeof b);
	snprintf(out, len, "it resolves to %s", b);
	if (strncmp(path, folder, k) != 0 || path[k] != '/')
		return;
	for (const char *p = path + k + 1; *p; p += strspn(p, "/")) {
		p += strcspn(p, "/");
		struct stat st;
		snprintf(walk, sizeof walk, "%.*s", (int)(p - path), path);
		ssize_t t = lstat(walk, &st) == 0 && S_ISLNK(st.st_mode) ? readlink(walk, to, sizeof to - 1) : -1;
		if (t >= 0) {
			to[t] = '\0';
			shown(walk + k + 1, a, sizeof a);
			shown(to, b, sizeof b);
			snprintf(out, len, "%s is a symbolic link to %s", a, b);
			return;
		}
	}
}

/* path (below folder) with every link followed, into real. 0 when it
 * stays inside folder, 1 when nothing is there, -1 with err when it
 * leads out (what: how the message names it). */
static int resolve_inside(const struct confine *c, const char *folder, const char *path, const char *what, char *real,
			  char *err, size_t err_len)
{
	char why[700], name[300];
	int climbs = climbs_out(folder, path);
	if (climbs)
		snprintf(why, sizeof why, "'..' climbs out of it");
	else if (realpath(path, real) == NULL)
		return 1;
	else if (within(folder, real))
		return 0;
	else
		why_out(folder, path, real, why, sizeof why);
	shown(what, name, sizeof name);
	snprintf(err, err_len, "revision %.12s: %s leaves %s (%s)", c->commit, name,
		 folder == c->tree ? "the revision's files" : "the build folder", why);
	return -1;
}

/* The plugin a build made: the one named, else the only one. */
static int built_plugin(const struct alloclab_build_spec *spec, const char *where, char *out, size_t len, char *err,
			size_t err_len)
{
	if (spec->plugin) {
		snprintf(out, len, "%s/%s", where, spec->plugin);
		if (is_file(out))
			return 0;
		snprintf(err, err_len, "the build made no %.300s (--plugin)", spec->plugin);
		return -1;
	}
	int n = find_plugins(where, 2, out, len);
	if (n == 1)
		return 0;
	snprintf(err, err_len, n == 0 ? "the build made no plugin (no .so in %.600s)"
				      : "the build made several plugins in %.600s: name one with --plugin", where);
	return -1;
}

/* The plugin a revision's build made, resolved: inside the revision's
 * files, or the build folder when meson built it there. */
static int plugin_inside(const struct alloclab_build_spec *spec, const struct confine *c, const char *where, char *out,
			 size_t len, char *err, size_t err_len)
{
	char real[PATH_MAX], what[PATH_MAX + 16];
	const char *root = where == c->build ? c->build : c->tree;
	if (spec->plugin)
		snprintf(what, sizeof what, "--plugin %s", spec->plugin);
	else
		snprintf(what, sizeof what, "the plugin %s", out + strlen(where) + (out[strlen(where)] == '/'));
	int rc = resolve_inside(c, root, out, what, real, err, err_len);
	if (rc == 1)
		snprintf(err, err_len, "revision %.12s: %.300s is a link to nothing", c->commit, what);
	else if (rc == 0)
		snprintf(out, len, "%s", real);
	return rc == 0 ? 0 : -1;
}

/* A build file src/name: 0 absent or inside the revision's files, -1
 * with err when a link leads it out (the tool would read a build of
 * somewhere else's). c NULL: a folder of the user's, taken as it is. */
static int build_file_inside(const struct confine *c, const char *src, const char *name, char *err, size_t err_len)
{
	char path[PATH_MAX + 16], real[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", src, name);
	return c == NULL || resolve_inside(c, c->tree, path, name, real, err, err_len) >= 0 ? 0 : -1;
}

/* Builds the folder src, in build_dir where the tool builds out of tree,
 * its log into log_path. The plugin into out. With c, a revision's
 * folder: its build files and plugin are refused when a link leads them
 * out. 0, or -1 with err. */
static int build_folder(const struct alloclab_build_spec *spec, const struct confine *c, const char *src,
			const char *build_dir, const char *log_path, char *out, size_t len, char *err, size_t err_len)
{
	struct alloclab_build_log log;
	char meson_file[PATH_MAX], make_file[PATH_MAX];
	const char *where = src;
	int rc;

	snprintf(meson_file, sizeof meson_file, "%s/meson.build", src);
	snprintf(make_file, sizeof make_file, "%s/Makefile", src);
	if (!spec->command && (build_file_inside(c, src, "meson.build", err, err_len) != 0 ||
			       build_file_inside(c, src, "Makefile", err, err_len) != 0))
		return -1;
	if (alloclab_build_log_open(&log, log_path, spec->timeout_s, err, err_len) != 0)
		return -1;
	log.sandbox = c ? c->sandbox : NULL;
	if (spec->command) {
		char *const sh[] = {"sh", "-c", (char *)spec->command, NULL};
		rc = alloclab_build_step(&log, sh, src);
	} else if (is_file(meson_file)) {
		char *const setup[] = {"meson", "setup", "--buildtype=release", "--wrap-mode=nodownload", "--wipe", (char *)build_dir,
				      (char *)src, NULL};
		char *const fresh[] = {"meson", "setup", "--buildtype=release", "--wrap-mode=nodownload", (char *)build_dir,
				      (char *)src, NULL};
		char *const ninja[] = {"ninja", "-C", (char *)build_dir, NULL};
		char probe[PATH_MAX];
		snprintf(probe, sizeof probe, "%s/build.ninja", build_dir);
		rc = alloclab_build_step(&log, is_file(probe) ? setup : fresh, NULL);
		if (rc == 0)
			rc = alloclab_build_step(&log, ninja, NULL);
		where = build_dir;
	} else if (is_file(make_file)) {
		char *const make[] = {"make", "-C", (char *)src, NULL};
		rc = alloclab_build_step(&log, make, NULL);
	} else {
		alloclab_build_log_close(&log);
		snprintf(err, err_len, "%.600s has no meson.build and no Makefile: say how it builds with --build", src);
		return -1;
	}
	if (rc != 0) {
		snprintf(err, err_len, "the build failed: %s (its log: %.600s)", log.first_error, log_path);
		alloclab_build_log_close(&log);
		return -1;
	}
	alloclab_build_log_close(&log);
	if (built_plugin(spec, where, out, len, err, err_len) != 0)
		return -1;
	return c ? plugin_inside(spec, c, where, out, len, err, err_len) : 0;
}

/* Copies from (a path free of links, as resolved) to to. The file read is
 * the one opened: a link put in its place since is refused, not
 * followed. */
static int copy_file(const char *from, const char *to, char *err, size_t err_len)
{
	char buf[65536], fd_path[64], opened[PATH_MAX];
	int in = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), out = -1, rc = -1;
	ssize_t n = 0;
	snprintf(fd_path, sizeof fd_path, "/proc/self/fd/%d", in);
	ssize_t k = in >= 0 ? readlink(fd_path, opened, sizeof opened - 1) : -1;
	if (k >= 0)
		opened[k] = '\0';
	if (in >= 0 && (k < 0 || strcmp(opened, from) != 0)) {
		close(in);
		in = -1;
		errno = ELOOP;
	}
	/* Made anew: what is there (a link, a FIFO that would block the open)
	 * is removed first, not written through. */
	if (in >= 0 && (unlink(to) == 0 || errno == ENOENT))
		out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0755);
	while (out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (in >= 0 && out >= 0 && n == 0)
		rc = 0;
	else
		snprintf(err, err_len, "cannot copy %.600s to %.600s: %s", from, to, strerror(errno));
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

/* The folder the revision's plugin is built in, resolved into src: the
 * top of its files, or --subdir below it, which must stay inside them. 0,
 * or -1 with err. */
static int revision_folder(const struct alloclab_build_spec *spec, const struct confine *c, char *src, char *err,
			   size_t err_len)
{
	char path[PATH_MAX], what[PATH_MAX + 16], shown_dir[300];
	if (spec->subdir == NULL) {
		snprintf(src, PATH_MAX, "%s", c->tree);
		return 0;
	}
	if ((size_t)snprintf(path, sizeof path, "%s/%s", c->tree, spec->subdir) >= sizeof path) {
		snprintf(err, err_len, "the plugin's folder's path is too long");
		return -1;
	}
	snprintf(what, sizeof what, "--subdir %s", spec->subdir);
	int rc = resolve_inside(c, c->tree, path, what, src, err, err_len);
	if (rc < 0)
		return -1;
	if (rc == 1 || !is_dir(src)) {
		shown(spec->subdir, shown_dir, sizeof shown_dir);
		snprintf(err, err_len, "revision %.12s has no folder %s (--subdir)", c->commit, shown_dir);
		return -1;
	}
	return 0;
}

int alloclab_build_commit(const struct alloclab_build_spec *spec, const char *commit, const char *where,
			  struct alloclab_built *out, char *err, size_t err_len)
{
	char tree[PATH_MAX], src[PATH_MAX], build_dir[PATH_MAX], plugin[PATH_MAX], dir[PATH_MAX];
	memset(out, 0, sizeof *out);
	/* Absolute, and free of links: git runs in the repository (-C),
	 * where a relative path would mean a folder of the repository's, and
	 * a revision's paths are checked against these by their text. */
	if ((mkdir(where, 0777) != 0 && errno != EEXIST) || realpath(where, dir) == NULL) {
		snprintf(err, err_len, "%.600s: %s", where, strerror(errno));
		return -1;
	}
	if (strlen(dir) > PATH_MAX - 64) {
		snprintf(err, err_len, "%.600s: the path is too long to build in", dir);
		return -1;
	}
	snprintf(tree, sizeof tree, "%.4000s/tree", dir);
	snprintf(build_dir, sizeof build_dir, "%.4000s/build", dir);
	snprintf(out->log, sizeof out->log, "%.4000s/build.log", dir);
	snprintf(out->plugin, sizeof out->plugin, "%.4000s/plugin.so", dir);
	snprintf(out->source, sizeof out->source, "%s", commit);
	/* The files left by an interrupted build are removed first. */
	alloclab_revision_remove(tree);
	if (alloclab_revision_checkout(spec->repo, commit, tree, err, err_len) != 0)
		return -1;
	/* Confined, the build sees of the machine's files the system's, the
	 * SDK's and, writable, the commit's files and its build folder alone,
	 * at their own paths: nothing of the user's, and not the folder that
	 * holds them, where alloclab keeps the log and copies the plugin to
	 * (a link or a FIFO planted there would be followed or waited on). */
	char own[4][ALLOCLAB_PATH_LEN], pc[ALLOCLAB_PATH_PLUS_LEN];
	struct alloclab_sandbox_bind binds[6];
	size_t nb = alloclab_sandbox_own_binds(binds, own);
	if (spec->sandboxed && mkdir(build_dir, 0755) != 0 && errno != EEXIST) {
		snprintf(err, err_len, "%.600s: %s", build_dir, strerror(errno));
		alloclab_revision_remove(tree);
		return -1;
	}
	binds[nb++] = (struct alloclab_sandbox_bind){tree, tree, 1};
	binds[nb++] = (struct alloclab_sandbox_bind){build_dir, build_dir, 1};
	snprintf(pc, sizeof pc, "PKG_CONFIG_PATH=%s", alloclab_sdk_pkgconfig_dir());
	const char *env[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/work", "TMPDIR=/tmp", "LANG=C.UTF-8",
			     "XDG_CACHE_HOME=/work/cache", pc, NULL};
	struct alloclab_sandbox sb = {binds, nb, NULL, 0, "/work", BUILD_HOME_BYTES, env, BUILD_PROCESSES,
				      BUILD_ADDRESS_SPACE, BUILD_FILE_SIZE, (unsigned)spec->timeout_s + 1};
	struct confine c = {commit, tree, build_dir, spec->sandboxed ? &sb : NULL};
	int rc = revision_folder(spec, &c, src, err, err_len);
	if (rc == 0)
		rc = build_folder(spec, &c, src, build_dir, out->log, plugin, sizeof plugin, err, err_len);
	if (rc == 0)
		rc = copy_file(plugin, out->plugin, err, err_len);
	alloclab_revision_remove(tree);
	return rc;
}

int alloclab_build_side(const struct alloclab_build_spec *spec, const char *text, const char *side, const char *dir,
			struct alloclab_built *out, char *err, size_t err_len)
{
	char name[32], build_dir[PATH_MAX];
	size_t k = 0;
	for (; side[k] && k + 1 < sizeof name; k++)
		name[k] = (char)(side[k] >= 'A' && side[k] <= 'Z' ? side[k] - 'A' + 'a' : side[k]);
	name[k] = '\0';
	memset(out, 0, sizeof *out);
	snprintf(build_dir, sizeof build_dir, "%s/%s-build", dir, name);
	if (spec->repo) {
		char commit[65];
		if (alloclab_revision_resolve(spec->repo, text, commit, err, err_len) != 0)
			return -1;
		return alloclab_build_commit(spec, commit, build_dir, out, err, err_len);
	}
	/* A file may carry its plugin's options as run's -p does:
	 * PATH.so:OPTIONS. */
	const char *opts = strstr(text, ".so:");
	char path[PATH_MAX];
	if (opts && !is_file(text) && (size_t)(opts + 3 - text) < sizeof path) {
		snprintf(path, sizeof path, "%.*s", (int)(opts + 3 - text), text);
		snprintf(out->options, sizeof out->options, "%s", opts + 4);
		text = path;
	}
	if (is_file(text)) {
		if (realpath(text, out->plugin) == NULL) {
			snprintf(err, err_len, "%s", strerror(errno));
			return -1;
		}
		return 0;
	}
	if (!is_dir(text)) {
		snprintf(err, err_len, "neither a plugin file nor a source folder%s", errno == ENOENT ? " (no such path)" : "");
		return -1;
	}
	char src[PATH_MAX];
	if (realpath(text, src) == NULL) {
		snprintf(err, err_len, "%s", strerror(errno));
		return -1;
	}
	alloclab_revision_of_folder(src, out->source, sizeof out->source);
	if (mkdir(build_dir, 0777) != 0 && errno != EEXIST) {
		snprintf(err, err_len, "%.600s: %s", build_dir, strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(out->log, sizeof out->log, "%s/build.log", build_dir) >= sizeof out->log) {
		snprintf(err, err_len, "the output folder's path is too long");
		return -1;
	}
	char meson_dir[PATH_MAX + 8];
	snprintf(meson_dir, sizeof meson_dir, "%s/meson", build_dir);
	return build_folder(spec, NULL, src, meson_dir, out->log, out->plugin, sizeof out->plugin, err, err_len);
}

void alloclab_built_clear(struct alloclab_built *b)
{
	memset(b, 0, sizeof *b);
}
