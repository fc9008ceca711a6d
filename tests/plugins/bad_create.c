/* Misbehaves in create, the first of its ops a process calls, by its
 * options: how=segv (the default) raises SIGSEGV, how=abort calls abort(),
 * how=hang never returns; in=program only in a program the preload
 * library runs (alloclab exec, the exec workload), in=worker only in a
 * measuring worker, so that the probes before them pass. Every command
 * that loads it must name it and the step, and end a hang at a deadline. */
#include "test_plugin_common.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

/* Whether this process is one the options pick. */
static int picked(const char *options)
{
	if (strstr(options, "in=program"))
		return getenv("ALLOCLAB_PRELOAD_PLUGIN") != NULL;
	if (strstr(options, "in=worker")) {
		char buf[4096];
		FILE *f = fopen("/proc/self/cmdline", "r");
		size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n] = '\0';
		for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
			if (strcmp(buf + i, "__worker") == 0)
				return 1;
		return 0;
	}
	return 1;
}

static int bc_create(const char *options, void **instance, char *err, size_t err_len)
{
	(void)err, (void)err_len;
	options = options ? options : "";
	if (picked(options)) {
		if (strstr(options, "how=abort"))
			abort();
		if (strstr(options, "how=hang"))
			for (;;)
				pause();
		raise(SIGSEGV);
	}
	*instance = NULL;
	return 0;
}

static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("bad_create"),
	.create = bc_create,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
