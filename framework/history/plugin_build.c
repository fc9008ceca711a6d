/* A side as a plugin file, built where it must be. See plugin_build.h. */
#define _GNU_SOURCE 1
#include "history/plugin_build.h"

#include "files/self_exe.h"
#include "history/revision.h"
#include "build/step.h"

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
			} else if (depth > 0 && is_dir(path)) {
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

/* Builds the folder src, in build_dir where the tool builds out of tree,
 * its log into log_path. The plugin into out. 0, or -1 with err. */
static int build_folder(const struct alloclab_build_spec *spec, const char *src, const char *build_dir,
			const char *log_path, char *out, size_t len, char *err, size_t err_len)
{
	struct alloclab_build_log log;
	char meson_file[PATH_MAX], make_file[PATH_MAX];
	const char *where = src;
	int rc;

	snprintf(meson_file, sizeof meson_file, "%s/meson.build", src);
	snprintf(make_file, sizeof make_file, "%s/Makefile", src);
	if (alloclab_build_log_open(&log, log_path, spec->timeout_s, err, err_len) != 0)
		return -1;
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
	return built_plugin(spec, where, out, len, err, err_len);
}

static int copy_file(const char *from, const char *to, char *err, size_t err_len)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
	ssize_t n = 0;
	if (in >= 0)
		out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0755);
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

int alloclab_build_commit(const struct alloclab_build_spec *spec, const char *commit, const char *where,
			  struct alloclab_built *out, char *err, size_t err_len)
{
	char tree[PATH_MAX], src[PATH_MAX], build_dir[PATH_MAX], plugin[PATH_MAX], dir[PATH_MAX];
	memset(out, 0, sizeof *out);
	/* Absolute: git runs in the repository (-C), where a relative path
	 * would mean a folder of the repository's. */
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
	if ((size_t)snprintf(src, sizeof src, "%s%s%s", tree, spec->subdir ? "/" : "", spec->subdir ? spec->subdir : "") >=
	    sizeof src) {
		snprintf(err, err_len, "the plugin's folder's path is too long");
		alloclab_revision_remove(tree);
		return -1;
	}
	int rc = build_folder(spec, src, build_dir, out->log, plugin, sizeof plugin, err, err_len);
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
	return build_folder(spec, src, meson_dir, out->log, out->plugin, sizeof out->plugin, err, err_len);
}

void alloclab_built_clear(struct alloclab_built *b)
{
	memset(b, 0, sizeof *b);
}
