/* What the subcommands share. See cli.h. */
#define _GNU_SOURCE 1
#include "cli.h"

#include "base/numbers.h"
#include "base/shell_word.h"
#include "process/process_tree.h"
#include "worker/worker.h"
#include "registry.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int alloclab_usage_error(const char *command, const char *fmt, ...)
{
	char *message = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&message, fmt, ap) < 0)
		message = NULL;
	va_end(ap);
	/* The message holds what was typed: shown, not passed to the
	 * terminal. */
	alloclab_say("alloclab: %s (see 'alloclab %s%s--help')", message ? message : "out of memory",
		     command ? command : "", command ? " " : "");
	free(message);
	return 2;
}

int alloclab_parse_whole(const char *command, const char *what, const char *text, uint64_t min, uint64_t max,
			 uint64_t *out)
{
	uint64_t v = 0;

	switch (alloclab_parse_u64(text, strlen(text), 0, &v)) {
	case ALLOCLAB_NUMBER_OK: break;
	case ALLOCLAB_NUMBER_OVERFLOW:
		return alloclab_usage_error(command, "%s '%s' is too large (at most %llu)", what, text,
					    (unsigned long long)max);
	default: return alloclab_usage_error(command, "%s '%s' is not a whole number", what, text);
	}
	if (v < min || v > max)
		return alloclab_usage_error(command, "%s %llu is out of range %llu..%llu", what, (unsigned long long)v,
					    (unsigned long long)min, (unsigned long long)max);
	*out = v;
	return 0;
}

int alloclab_parse_count(const char *command, const char *what, const char *text, unsigned long min,
			 unsigned long max, unsigned *out)
{
	uint64_t v = 0;
	int rc = alloclab_parse_whole(command, what, text, min, max, &v);
	if (rc == 0)
		*out = (unsigned)v;
	return rc;
}

int alloclab_parse_timeout(const char *command, const char *text, double max, double *out)
{
	double v;

	if (alloclab_parse_seconds(text, &v) != 0 || v <= 0 || v > max)
		return alloclab_usage_error(command, "--timeout '%s' is not a number of seconds in (0, %g]", text, max);
	*out = v;
	return 0;
}

int alloclab_parse_memory_limit(const char *command, const char *text)
{
	uint64_t v = 0, unit = 1;
	size_t len = strlen(text);

	if (strcmp(text, "none") == 0) {
		alloclab_set_memory_limit(0);
		return 0;
	}
	if (len > 1 && strchr("KMGT", text[len - 1])) {
		unit = 1ull << (10 * (strchr("KMGT", text[len - 1]) - "KMGT" + 1));
		len--;
	}
	if (alloclab_parse_u64(text, len, 0, &v) != ALLOCLAB_NUMBER_OK || v == 0 || v > (1ull << 50) / unit ||
	    v * unit < (16u << 20))
		return alloclab_usage_error(command,
					    "--memory-limit '%s' is not a size from 16M to 1024T (a number with K, M, G "
					    "or T; bytes without), or 'none'",
					    text);
	alloclab_set_memory_limit(v * unit);
	return 0;
}

struct alloclab_results *alloclab_cli_load(const char *path)
{
	char err[1024];
	struct alloclab_results *r = alloclab_results_load(path, alloclab_workload_check_report, err, sizeof err);

	if (r == NULL)
		alloclab_say("alloclab: %s", err);
	return r;
}

int alloclab_parse_thread_list(const char *command, const char *text, unsigned *out, unsigned max, unsigned *n)
{
	char *copy = strdup(text);
	int rc = 0;

	*n = 0;
	/* strsep, not strtok: "1,,2" has an empty item, and is refused. */
	for (char *cursor = copy, *item; rc == 0 && (item = strsep(&cursor, ",")) != NULL;) {
		if (*n == max) {
			rc = alloclab_usage_error(command, "more than %u thread counts", max);
			break;
		}
		if (*item == '\0') {
			rc = alloclab_usage_error(command, "--threads '%s' has an empty entry", text);
			break;
		}
		rc = alloclab_parse_count(command, "thread count", item, 1, ALLOCLAB_MAX_THREADS, &out[*n]);
		for (unsigned k = 0; rc == 0 && k < *n; k++)
			if (out[k] == out[*n])
				rc = alloclab_usage_error(command, "--threads '%s' gives %u twice", text, out[k]);
		(*n)++;
	}
	free(copy);
	return rc;
}

static int kept_argc;
static char **kept_argv;

void alloclab_command_keep(int argc, char **argv)
{
	kept_argv = calloc((size_t)argc + 1, sizeof *kept_argv);
	if (kept_argv == NULL)
		return;
	for (int i = 0; i < argc; i++)
		kept_argv[i] = argv[i];
	kept_argv[0] = "alloclab";
	kept_argc = argc;
}

void alloclab_command_words(int *argc, char ***argv)
{
	*argc = kept_argc;
	*argv = kept_argv;
}
