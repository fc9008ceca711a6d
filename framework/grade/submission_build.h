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

/* The most of a build's log that is kept, in bytes as the build printed
 * them; the text its event carries, each byte that was no text (a NUL,
 * what is not UTF-8) become U+FFFD and the mark of a cut at its end, may
 * take up to three times as much (ALLOCLAB_GRADE_LOG_EVENT_MAX). */
#define ALLOCLAB_GRADE_LOG_MAX ALLOCLAB_BUILD_LOG_MAX
#define ALLOCLAB_GRADE_LOG_EVENT_MAX (3 * ALLOCLAB_GRADE_LOG_MAX + 128)
/* The last line of a log that was cut: how many bytes are not in it. */
#define ALLOCLAB_GRADE_LOG_CUT "[... %zu bytes left out]\n"

struct alloclab_grade_build {
	char status[16];        /* "ok", "failed", "timed out" */
	char first_error[1000]; /* a failed build's first error line */
	char plugin[4096];      /* ok: the plugin built (a path) */
	char note[300];         /* e.g. several plugins built, which one is graded */
	/* Everything the build printed, as text: its first
	 * ALLOCLAB_GRADE_LOG_MAX bytes, a NUL or a byte that is not UTF-8 as
	 * U+FFFD, and ALLOCLAB_GRADE_LOG_CUT at its end when it was cut;
	 * no NUL in it (malloc'd). */
	char *log;
	size_t log_len;
};

/* Builds src (a folder, or a .c file for kind "c-file") in build_dir. */
void alloclab_grade_build(const char *kind, const char *src, const char *build_dir, double timeout_s,
			  struct alloclab_grade_build *out);
void alloclab_grade_build_free(struct alloclab_grade_build *b);


#endif
