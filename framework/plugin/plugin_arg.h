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
};

/* Splits "name[:options]" or "path.so[:options]" (a path's options start
 * after ".so:", so options may hold paths) and takes the framework's own
 * options out of them: as=LABEL (its name in tables) and gil=1 (a global
 * lock the framework puts around every call, so a plugin that is not
 * thread-safe runs in threads, as CPython's allocator does under its GIL).
 * Strings are malloc'd. */
void alloclab_plugin_arg_parse(const char *text, struct alloclab_plugin_arg *out);

#endif
