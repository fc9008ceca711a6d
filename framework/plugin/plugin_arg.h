/*
 * A plugin as a command line names it: "name[:options]" or
 * "path.so[:options]", with the framework's own options taken out of the
 * plugin's: as=LABEL (its name in tables) and gil=1 (a global lock the
 * framework puts around every call).
 */
#ifndef ALLOCLAB_PLUGIN_ARG_H
#define ALLOCLAB_PLUGIN_ARG_H

struct alloclab_plugin_arg {
	char *spec;     /* name or path */
	char *options;  /* "" when none; what the plugin gets */
	char *as;       /* the label asked for with as=NAME, or NULL */
	int gil;        /* gil=1: the framework's global lock around every call */
	/* source=COMMIT[+dirty]: the source the file was built from, as the
	 * one who built it says (ab and history run), recorded with the run;
	 * NULL unknown. Checked where it is used (alloclab_source_parse). */
	char *source;
};

/* Frees what alloclab_plugin_arg_parse made. */
void alloclab_plugin_arg_clear(struct alloclab_plugin_arg *arg);

/* A source= value: a commit hash (7 to 64 hex digits), then "+dirty" when
 * the tree held changes not committed. 0 with commit (NUL-terminated) and
 * *dirty, or -1. */
int alloclab_source_parse(const char *text, char commit[65], int *dirty);

/* Splits "name[:options]" or "path.so[:options]" (a path's options start
 * after ".so:", so options may hold paths) and takes the framework's own
 * options out of them: as=LABEL (its name in tables), source=COMMIT and gil=1 (a global
 * lock the framework puts around every call, so a plugin that is not
 * thread-safe runs in threads, as CPython's allocator does under its GIL).
 * Strings are malloc'd. */
void alloclab_plugin_arg_parse(const char *text, struct alloclab_plugin_arg *out);

#endif
