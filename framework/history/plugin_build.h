/*
 * BASE, HEAD or a commit as a plugin file: given as one, or built from a
 * source folder, or from a revision of a repository whose files are
 * written to a folder of their own (revision.h). A folder builds with the
 * command the user gave (sh -c COMMAND in it), else with meson when it has
 * a meson.build, else with make when it has a Makefile, against
 * alloclab's plugin SDK (PKG_CONFIG_PATH names its alloclab-plugin.pc).
 * The whole build has one deadline, its log is kept beside the build, and
 * a build that fails is told by its log's first error. A revision's
 * --subdir, its meson.build or Makefile and its built plugin must resolve,
 * every link followed, inside its files (the plugin: or the folder meson
 * built in); one that leads out is refused in one line (the folder and the
 * build files before anything is built). The build itself runs with the
 * user's rights, unconfined, unless spec->sandboxed: then a revision's
 * build runs in a sandbox (process/sandbox.h: no network, no home, none
 * of the user's files, only its own folder writable).
 */
#ifndef ALLOCLAB_HISTORY_BUILD_H
#define ALLOCLAB_HISTORY_BUILD_H

#include <limits.h>
#include <stddef.h>

struct alloclab_build_spec {
	const char *repo;     /* NULL: sides are files or folders; else revisions of this repository */
	const char *subdir;   /* the plugin's folder within a revision (NULL: its top) */
	const char *command;  /* how a folder builds (NULL: meson or make) */
	const char *plugin;   /* the built plugin, relative to the folder or its build folder (NULL: the only .so) */
	double timeout_s;     /* the whole build's deadline */
	int sandboxed;        /* a revision's build in a sandbox (only with repo) */
};

struct alloclab_built {
	char plugin[PATH_MAX]; /* the plugin file */
	char options[1024];    /* the plugin's options, given after ".so:" with a file ("" none) */
	char source[80];       /* "COMMIT", "COMMIT+dirty", or "" unknown */
	char log[PATH_MAX];    /* the build's log ("" nothing was built) */
};

/* Makes `text` (a file, a folder, or with spec->repo a revision) a plugin
 * file, building in dir/NAME-build (NAME: side, lower case). 0, or -1 with
 * err: the build's first error, its log's path, or why text is none of
 * the three. */
int alloclab_build_side(const struct alloclab_build_spec *spec, const char *text, const char *side, const char *dir,
			struct alloclab_built *out, char *err, size_t err_len);

/* A commit of spec->repo as a plugin, built in `dir` (made; its files in
 * dir/tree, the plugin copied to dir/plugin.so, the log to dir/build.log,
 * the files removed). 0, or -1 with err (the first error). */
int alloclab_build_commit(const struct alloclab_build_spec *spec, const char *commit, const char *dir,
			  struct alloclab_built *out, char *err, size_t err_len);

void alloclab_built_clear(struct alloclab_built *b);

#endif
