/*
 * Plugin loader: finds a plugin by name or path, dlopens it RTLD_LOCAL (so
 * its allocator never becomes the process's malloc) and validates its
 * descriptor against the ABI. Every failure is one line naming the file and
 * the reason.
 */
#ifndef ALLOCLAB_LOADER_H
#define ALLOCLAB_LOADER_H

#include <alloclab/plugin.h>
#include <stddef.h>

#include "base/lengths.h"

struct alloclab_loaded_plugin {
	void *handle;  /* from dlopen; NULL once unloaded */
	char *path;    /* the file that was opened (malloc'd) */
	/* The plugin's descriptor copied into the host's layout: the first
	 * struct_size bytes of the plugin's, the rest zero (ops it does not know
	 * about are NULL). Invariant: required ops non-NULL, every op-naming
	 * capability bit set iff its op is non-NULL, min_align a power of two. */
	struct alloclab_plugin desc;
};

/*
 * Turns a plugin name or path into a file path. A spec containing '/' is a
 * path; otherwise NAME.so is searched in each folder of ALLOCLAB_PLUGIN_PATH
 * (colon-separated), then the build tree's plugin folder, then the installed
 * plugin folder. Returns 0, or -1 with err set.
 */
int alloclab_plugin_find(const char *spec, char *path, size_t path_len, char *err, size_t err_len);

/*
 * Whether two plugins (names or paths) are one file to the dynamic loader.
 * dlopen takes a file it has already loaded, whatever path names it, when
 * its device and inode are those of one loaded: after every symbolic link
 * is followed, a link, a hard link or a path through a linked folder names
 * the file it leads to. 1: one file; 0: two, or either cannot be found.
 */
int alloclab_plugin_same_file(const char *a, const char *b);

/* Loads and validates the plugin at `spec` (name or path). 0 or -1 with err. */
int alloclab_plugin_load(const char *spec, struct alloclab_loaded_plugin *out, char *err, size_t err_len);
/* The same with more dlopen flags (the preload library's RTLD_DEEPBIND). */
int alloclab_plugin_load_flags(const char *spec, int dlopen_flags, struct alloclab_loaded_plugin *out, char *err,
			       size_t err_len);

void alloclab_plugin_unload(struct alloclab_loaded_plugin *plugin);

/* Where a process marks the steps it is in (process/child.h's
 * alloclab_phase, in a supervised child): the loader marks "entry" before
 * it calls the plugin's entry function, so that a crash or a hang there is
 * told from one in dlopen or the plugin's constructors ("load"). NULL:
 * nothing marked. */
void alloclab_plugin_mark_steps(void (*mark)(const char *step));

/* The folders searched for plugins by name, in order, for `alloclab list`.
 * Calls visit once per folder. */
void alloclab_plugin_search_dirs(void (*visit)(const char *dir, void *arg), void *arg);

/* Writes the names of the capability bits in `caps` ("thread-safe,calloc"). */
void alloclab_caps_format(unsigned long long caps, char *out, size_t out_len);

#endif
