/*
 * Executables: where another program is (PATH), and the path of the
 * running alloclab executable, for running itself again
 * (the static-TLS re-exec, the measuring workers). /proc/self/exe is not
 * it under valgrind, which runs programs inside its own executable, so the
 * path is worked out once from argv[0] and handed down in ALLOCLAB_SELF.
 */
#ifndef ALLOCLAB_SELF_EXE_H
#define ALLOCLAB_SELF_EXE_H

/* Call first thing in main(). */
void alloclab_self_init(const char *argv0);

/* The executable to run for another alloclab. */
const char *alloclab_self_path(void);

/* Whether the running alloclab code (the executable, or the preload
 * library inside a program) lives in the build tree it was built in (then
 * its plugins and preload library are the build's), not installed (then
 * they are the installed ones, whatever build tree is still there). */
int alloclab_running_from_build_tree(void);

/* Whether an executable of this name is in one of PATH's folders: what the
 * shell's `command -v` answers, without a shell. */
int alloclab_program_on_path(const char *program);

/* The plugin SDK of this alloclab: the folder holding alloclab/plugin.h,
 * and the one holding alloclab-plugin.pc (PKG_CONFIG_PATH): the build
 * tree's when running from it, else where they were installed. */
const char *alloclab_sdk_include_dir(void);
const char *alloclab_sdk_pkgconfig_dir(void);

#endif
