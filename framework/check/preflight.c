/*
 * `alloclab run`'s pre-flight: the conformance cases of `alloclab check`
 * for the plugins of a run, so a plugin that fails one is never measured
 * without a word. A plugin's outcome is cached, keyed by the contents of
 * its file, its options and this alloclab's version, so that it costs once
 * per build of a plugin. The key is a cache key, not a signature: a file
 * crafted to collide would skip the check, nothing more.
 */
#define _GNU_SOURCE 1
#include "check/preflight.h"
#include "files/input_file.h"
#include "base/hash.h"
#include "base/lengths.h"

#include "check/check.h"
#include "results/results.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 0 with *key set, or -1 when the file cannot be read. */
static int plugin_key(const char *path, const char *options, uint64_t *key)
{
	FILE *f = fopen(path, "rb");
	char buf[65536];
	size_t n;
	uint64_t h = ALLOCLAB_FNV_OFFSET, ncases = 0;

	if (f == NULL)
		return -1;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		h = alloclab_fnv1a(h, buf, n);
	fclose(f);
	while (alloclab_check_cases[ncases].name)
		ncases++;
	h = alloclab_fnv1a(h, "\0", 1);
	h = alloclab_fnv1a(h, options, strlen(options));
	h = alloclab_fnv1a(h, "\0" ALLOCLAB_VERSION, sizeof ALLOCLAB_VERSION);
	*key = alloclab_fnv1a(h, &ncases, sizeof ncases);
	return 0;
}

int alloclab_check_cache_dir(char *out, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && xdg[0] == '/')
		snprintf(out, len, "%s/alloclab/check", xdg);
	else if (home && home[0] == '/')
		snprintf(out, len, "%s/.cache/alloclab/check", home);
	else
		return -1;
	return 0;
}

static void mkdirs(const char *dir)
{
	char buf[ALLOCLAB_PATH_LEN];
	snprintf(buf, sizeof buf, "%s", dir);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	mkdir(buf, 0755);
}

json_t *alloclab_preflight(const char *spec, const char *path, const char *options, double timeout, int *cached)
{
	char dir[ALLOCLAB_PATH_LEN], file[ALLOCLAB_PATH_PLUS_LEN], tmp[ALLOCLAB_PATH_PLUS2_LEN];
	uint64_t key;
	json_t *failed, *cases, *rec;
	size_t i;
	int nfailed;

	*cached = 0;
	if (plugin_key(path, options, &key) == 0 && alloclab_check_cache_dir(dir, sizeof dir) == 0) {
		snprintf(file, sizeof file, "%s/%016llx.json", dir, (unsigned long long)key);
		/* The cache is ours, but its folder is the user's: read only a
		 * regular file there, never wait on one. */
		char why[128];
		FILE *cached_file = alloclab_fopen_regular(file, why, sizeof why);
		failed = cached_file ? json_loadf(cached_file, 0, NULL) : NULL;
		if (cached_file)
			fclose(cached_file);
		if (json_is_array(failed)) {
			*cached = 1;
			return failed;
		}
		json_decref(failed);
	} else {
		file[0] = '\0';
	}
	cases = alloclab_check_plugin(spec, options, NULL, 0, NULL, timeout, NULL, NULL, &nfailed);
	failed = json_array();
	json_array_foreach(cases, i, rec)
		if (strcmp(json_string_value(json_object_get(rec, "status")), "fail") == 0)
			json_array_append_new(failed, json_pack("{s:O,s:O}", "case", json_object_get(rec, "case"), "why",
								json_object_get(rec, "why")));
	json_decref(cases);
	if (file[0] && !alloclab_interrupted()) {
		/* Written whole, then renamed: a reader never sees half of it. */
		mkdirs(dir);
		snprintf(tmp, sizeof tmp, "%s.tmp-%ld", file, (long)getpid());
		if (json_dump_file(failed, tmp, JSON_COMPACT) == 0 && rename(tmp, file) != 0)
			unlink(tmp);
	}
	return failed;
}
