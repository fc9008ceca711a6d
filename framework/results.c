/* Results files: metadata, atomic writing, validated loading. See results.h. */
#define _GNU_SOURCE 1
#include "results.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <libgen.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static void cpu_model(char *out, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(out, len, "unknown");
	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) == 0 && colon) {
			colon += 2;
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(out, len, "%s", colon);
			break;
		}
	}
	fclose(f);
}

json_t *alloclab_metadata(int argc, char **argv)
{
	struct utsname u;
	char cpu[256], date[64], kernel[512];
	time_t t = time(NULL);
	struct tm tm;
	json_t *cmd = json_array();
	long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	cpu_set_t allowed;
	int nallowed = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 0;

	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	cpu_model(cpu, sizeof cpu);
	gmtime_r(&t, &tm);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (uname(&u) == 0)
		snprintf(kernel, sizeof kernel, "%s %s %s", u.sysname, u.release, u.machine);
	else
		snprintf(kernel, sizeof kernel, "unknown");
	return json_pack("{s:s,s:s,s:i,s:i,s:i,s:s,s:s,s:s,s:s,s:s,s:o}", "alloclab_version", ALLOCLAB_VERSION,
			 "cpu_model", cpu, "cpu_count", (int)sysconf(_SC_NPROCESSORS_ONLN), "cpus_allowed",
			 nallowed, "cache_line_size", line > 0 ? (int)line : 64,
			 "kernel", kernel, "libc", gnu_get_libc_version(), "compiler", ALLOCLAB_COMPILER,
			 "build_flags", ALLOCLAB_BUILD_FLAGS, "date", date, "command", cmd);
}

static int mkdir_p(const char *dir)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", dir);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0777) != 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	}
	return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

int alloclab_results_write(const json_t *doc, const char *path, char *err, size_t err_len)
{
	char dir_buf[4096], tmp[4200];
	const char *dir;
	int fd;
	FILE *f;

	snprintf(dir_buf, sizeof dir_buf, "%s", path);
	dir = dirname(dir_buf);
	if (mkdir_p(dir) != 0) {
		snprintf(err, err_len, "cannot create folder %s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0 || fputc('\n', f) == EOF ||
	    fflush(f) != 0 || fsync(fd) != 0) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		fclose(f);
		unlink(tmp);
		return -1;
	}
	fchmod(fd, 0644);
	fclose(f);
	if (rename(tmp, path) != 0) {
		snprintf(err, err_len, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int check_cell(const json_t *cell, size_t i, const char *path, char *err, size_t err_len)
{
	static const char *const strings[] = {"plugin", "workload", "status"};
	json_t *runs = json_object_get(cell, "runs");

	for (size_t k = 0; k < 3; k++)
		if (!json_is_string(json_object_get(cell, strings[k]))) {
			snprintf(err, err_len, "%s: cell %zu has no '%s' string: not an alloclab results file", path, i,
				 strings[k]);
			return -1;
		}
	if (!json_is_integer(json_object_get(cell, "threads")) || !json_is_object(json_object_get(cell, "params")) ||
	    !json_is_array(runs)) {
		snprintf(err, err_len, "%s: cell %zu lacks threads, params or runs: not an alloclab results file", path, i);
		return -1;
	}
	for (size_t r = 0; r < json_array_size(runs); r++) {
		json_t *values = json_object_get(json_array_get(runs, r), "values");
		if (!json_is_array(values)) {
			snprintf(err, err_len, "%s: cell %zu run %zu has no values array", path, i, r);
			return -1;
		}
		for (size_t v = 0; v < json_array_size(values); v++)
			if (!json_is_number(json_object_get(json_array_get(values, v), "ns_per_op"))) {
				snprintf(err, err_len, "%s: cell %zu run %zu value %zu has no ns_per_op", path, i, r, v);
				return -1;
			}
	}
	return 0;
}

json_t *alloclab_results_load(const char *path, char *err, size_t err_len)
{
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr), *cells;
	const char *format;

	if (doc == NULL) {
		if (access(path, R_OK) != 0)
			snprintf(err, err_len, "%s: %s", path, strerror(errno));
		else
			snprintf(err, err_len, "%s: not valid JSON (line %d: %s); truncated or not a results file", path,
				 jerr.line, jerr.text);
		return NULL;
	}
	format = json_string_value(json_object_get(doc, "format"));
	if (format == NULL || strcmp(format, ALLOCLAB_RESULTS_FORMAT) != 0) {
		snprintf(err, err_len, "%s: not an alloclab results file (no \"format\": \"%s\")", path,
			 ALLOCLAB_RESULTS_FORMAT);
		json_decref(doc);
		return NULL;
	}
	if (json_integer_value(json_object_get(doc, "format_version")) != ALLOCLAB_RESULTS_VERSION) {
		snprintf(err, err_len, "%s: results format version %lld, this alloclab reads version %d", path,
			 (long long)json_integer_value(json_object_get(doc, "format_version")), ALLOCLAB_RESULTS_VERSION);
		json_decref(doc);
		return NULL;
	}
	cells = json_object_get(doc, "cells");
	if (!json_is_array(cells) || !json_is_object(json_object_get(doc, "metadata"))) {
		snprintf(err, err_len, "%s: no cells or metadata: not an alloclab results file", path);
		json_decref(doc);
		return NULL;
	}
	for (size_t i = 0; i < json_array_size(cells); i++)
		if (check_cell(json_array_get(cells, i), i, path, err, err_len) != 0) {
			json_decref(doc);
			return NULL;
		}
	return doc;
}
