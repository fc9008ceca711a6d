/*
 * Building a submission, as its course says to (inside its sandbox): a
 * folder with a meson.build with meson and ninja against the plugin SDK
 * (pkg-config alloclab-plugin: PKG_CONFIG_PATH holds the SDK's folder),
 * a folder of C files or one C file with the C compiler as one shared
 * object. The whole build has one deadline; its log (compiler and all) is
 * kept, and a failed build is told by its first error.
 */
#ifndef ALLOCLAB_GRADE_BUILD_H
#define ALLOCLAB_GRADE_BUILD_H

#include <stddef.h>

#include "build/step.h"

/* The most of a build's log that is kept (and its event carries). */
#define ALLOCLAB_GRADE_LOG_MAX ALLOCLAB_BUILD_LOG_MAX

struct alloclab_grade_build {
	char status[16];        /* "ok", "failed", "timed out" */
	char first_error[1000]; /* a failed build's first error line */
	char plugin[4096];      /* ok: the plugin built (a path) */
	char note[300];         /* e.g. several plugins built, which one is graded */
	char *log;              /* everything the build printed, at most ALLOCLAB_GRADE_LOG_MAX bytes kept (malloc'd) */
	size_t log_len;
};

/* Builds src (a folder, or a .c file for kind "c-file") in build_dir. */
void alloclab_grade_build(const char *kind, const char *src, const char *build_dir, double timeout_s,
			  struct alloclab_grade_build *out);
void alloclab_grade_build_free(struct alloclab_grade_build *b);


#endif
