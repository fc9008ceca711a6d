/* A report's site as files. See site.h. */
#define _GNU_SOURCE 1
#include "site.h"
#include "assets.h"
#include "base/lengths.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int alloclab_site_begin(struct alloclab_site *s, const char *dir, char *err, size_t err_len)
{
	memset(s, 0, sizeof *s);
	return alloclab_output_folder_begin(dir, ALLOCLAB_SITE_MARK, ALLOCLAB_SITE_SIGNATURE, &s->folder, err, err_len);
}

/* A file written, once: found by name (a run's page writes a file a cell,
 * and looking through every file for each made 20,000 cells minutes). */
static void record(struct alloclab_site *s, const char *name)
{
	if (s->written == NULL && (s->written = alloclab_text_index_new()) == NULL)
		return;
	if (s->nfiles == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		char **grown = realloc(s->files, cap * sizeof *grown);
		if (grown == NULL)
			return;
		s->files = grown;
		s->cap = cap;
	}
	if (alloclab_text_index_put(s->written, name, (long)s->nfiles) == (long)s->nfiles)
		s->files[s->nfiles++] = strdup(name);
}

int alloclab_site_has(const struct alloclab_site *s, const char *name)
{
	return s->written && alloclab_text_index_get(s->written, name) >= 0;
}

/* The folders of name made inside the staging folder (ours, private:
 * nothing in it was planted). */
static int make_folders(const struct alloclab_site *s, const char *name, char *err, size_t err_len)
{
	char path[ALLOCLAB_PATH_PLUS2_LEN];
	int n = snprintf(path, sizeof path, "%s/%s", s->folder.staging, name);
	for (char *p = path + n - (int)strlen(name); *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(path, 0777) != 0 && errno != EEXIST) {
				snprintf(err, err_len, "cannot create %s: %s", path, strerror(errno));
				return -1;
			}
			*p = '/';
		}
	return 0;
}

FILE *alloclab_site_open(struct alloclab_site *s, const char *name, char *err, size_t err_len)
{
	char path[ALLOCLAB_PATH_PLUS2_LEN];
	if (!alloclab_output_folder_name_ok(name) || strcmp(name, ALLOCLAB_SITE_MARK) == 0) {
		snprintf(err, err_len, "'%.200s' is no name for a file of the report", name);
		return NULL;
	}
	if (make_folders(s, name, err, err_len) != 0)
		return NULL;
	snprintf(path, sizeof path, "%s/%s", s->folder.staging, name);
	FILE *f = fopen(path, "we");
	if (f == NULL) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		return NULL;
	}
	record(s, name);
	return f;
}

int alloclab_site_close(FILE *f, const char *name, char *err, size_t err_len)
{
	int bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		snprintf(err, err_len, "cannot write the report's %s: %s", name, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

int alloclab_site_json(struct alloclab_site *s, const char *name, const json_t *doc, char *err, size_t err_len)
{
	FILE *f = alloclab_site_open(s, name, err, err_len);
	if (f == NULL)
		return -1;
	/* ASCII: a bidirectional control in a file's text is its \u escape, the
	 * same JSON, and cannot turn around what a browser shows of the file. */
	int bad = json_dumpf(doc, f, JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII) != 0;
	fputc('\n', f);
	if (bad) {
		fclose(f);
		snprintf(err, err_len, "cannot write the report's %s", name);
		return -1;
	}
	return alloclab_site_close(f, name, err, err_len);
}

int alloclab_site_folder(struct alloclab_site *s, const char *name, char *out, size_t len, char *err, size_t err_len)
{
	char inner[512];
	snprintf(inner, sizeof inner, "%s/x", name);
	if (!alloclab_output_folder_name_ok(inner) || make_folders(s, inner, err, err_len) != 0) {
		if (!alloclab_output_folder_name_ok(inner))
			snprintf(err, err_len, "'%.200s' is no name for a folder of the report", name);
		return -1;
	}
	snprintf(out, len, "%s/%s", s->folder.staging, name);
	return 0;
}

int alloclab_site_add(struct alloclab_site *s, const char *name)
{
	char path[ALLOCLAB_PATH_PLUS2_LEN];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", s->folder.staging, name);
	if (!alloclab_output_folder_name_ok(name) || lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	record(s, name);
	return 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int write_text(struct alloclab_site *s, const char *name, const char *text, char *err, size_t err_len)
{
	FILE *f = alloclab_site_open(s, name, err, err_len);
	if (f == NULL)
		return -1;
	fputs(text, f);
	return alloclab_site_close(f, name, err, err_len);
}

int alloclab_site_finish(struct alloclab_site *s, char *err, size_t err_len)
{
	char path[ALLOCLAB_PATH_PLUS2_LEN];
	if (write_text(s, "assets/style.css", alloclab_site_style, err, err_len) != 0 ||
	    write_text(s, "assets/site.js", alloclab_site_script, err, err_len) != 0) {
		alloclab_site_abandon(s);
		return -1;
	}
	/* The mark, last: what this report is made of, so that the next one
	 * may replace exactly that. */
	snprintf(path, sizeof path, "%s/%s", s->folder.staging, ALLOCLAB_SITE_MARK);
	FILE *f = fopen(path, "we");
	if (f == NULL) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		alloclab_site_abandon(s);
		return -1;
	}
	qsort(s->files, s->nfiles, sizeof *s->files, by_name);
	fputs(ALLOCLAB_SITE_SIGNATURE ": the files alloclab report wrote in this folder, one a line. It replaces the "
	      "folder only while it holds nothing else.\n",
	      f);
	for (size_t i = 0; i < s->nfiles; i++)
		fprintf(f, "%s\n", s->files[i]);
	if (alloclab_site_close(f, ALLOCLAB_SITE_MARK, err, err_len) != 0) {
		alloclab_site_abandon(s);
		return -1;
	}
	int rc = alloclab_output_folder_commit(&s->folder, ALLOCLAB_SITE_MARK, ALLOCLAB_SITE_SIGNATURE, err, err_len);
	alloclab_site_abandon(s);
	return rc;
}

void alloclab_site_abandon(struct alloclab_site *s)
{
	alloclab_output_folder_discard(&s->folder);
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i]);
	free(s->files);
	alloclab_text_index_free(s->written);
	s->files = NULL;
	s->written = NULL;
	s->nfiles = s->cap = 0;
}
