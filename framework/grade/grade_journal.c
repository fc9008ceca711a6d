/* A grading's journal and its rows as JSON. See grade_journal.h and grade.h. */
#define _GNU_SOURCE 1
#include "grade/grade_journal.h"
#include "base/invariant.h"
#include "base/json_text.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A journal larger than this is no journal of ours. */
#define JOURNAL_MAX (256u << 20)

static const char *const status_names[] = {"pass", "fail", "skip", "not run"};

const char *alloclab_grade_case_status_name(int status)
{
	return status >= 0 && status <= ALLOCLAB_GRADE_NOT_RUN ? status_names[status] : "?";
}

int alloclab_grade_row_valid(const struct alloclab_grade_row *row)
{
	if (row->ncases > ALLOCLAB_GRADE_MAX_CASES || row->nratios > ALLOCLAB_GRADE_MAX_RATIOS ||
	    row->npass + row->nfail != row->ncases)
		return 0;
	if (row->passed && (row->nfail != 0 || row->ncases == 0 || row->problem[0]))
		return 0;
	return row->nratios == 0 || row->passed;
}

json_t *alloclab_grade_settings_json(const struct alloclab_grade_settings *s)
{
	return json_pack("{s:i,s:i,s:o,s:b,s:i,s:b,s:{s:f,s:f,s:f}}", ALLOCLAB_GRADE_MARK, 1, "level", (int)s->level,
			 "reference", alloclab_json_text(s->reference), "measuring", s->measuring, "processes",
			 (int)s->processes, "sandboxed", s->sandboxed, "timeouts", "build", s->build_timeout_s, "check",
			 s->check_timeout_s, "measure", s->measure_timeout_s);
}

json_t *alloclab_grade_row_json(const struct alloclab_grade_row *row)
{
	ALLOCLAB_CHECK_INVARIANT(alloclab_grade_row_valid(row));
	json_t *cases = json_array(), *ratios = json_array();
	for (unsigned i = 0; i < row->ncases; i++) {
		const struct alloclab_grade_case *c = &row->cases[i];
		json_t *o = json_pack("{s:s,s:s,s:o}", "case", c->name, "status", status_names[c->status], "why",
				      alloclab_json_text(c->why));
		if (c->printed[0])
			json_object_set_new(o, "plugin_output", alloclab_json_text(c->printed));
		json_array_append_new(cases, o);
	}
	for (unsigned i = 0; i < row->nratios; i++)
		json_array_append_new(ratios, json_real(row->ratios[i]));
	return json_pack("{s:o,s:o,s:s,s:o,s:s,s:o,s:o,s:o,s:o,s:i,s:i,s:b,s:o,s:o,s:f}", "name",
			 alloclab_json_text(row->name), "path", alloclab_json_text(row->path), "kind", row->kind, "note",
			 alloclab_json_text(row->note), "build", row->build, "build_error",
			 alloclab_json_text(row->build_error), "plugin", alloclab_json_text(row->plugin), "problem",
			 alloclab_json_text(row->problem), "cases", cases, "cases_passed", (int)row->npass, "cases_failed",
			 (int)row->nfail, "passed", row->passed, "ratios", ratios, "measure_note",
			 alloclab_json_text(row->measure_note), "seconds", row->seconds);
}

int alloclab_grade_journal_append(int fd, const struct alloclab_grade_row *row, char *err, size_t err_len)
{
	json_t *j = alloclab_grade_row_json(row);
	int rc = alloclab_json_line(fd, j);
	json_decref(j);
	if (rc != 0 || fsync(fd) != 0) {
		snprintf(err, err_len, "cannot write the journal: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* A string field, cut to len - 1 bytes. 0, or -1 (not a string). */
static int text(const json_t *o, const char *key, char *out, size_t len)
{
	const json_t *v = json_object_get(o, key);
	if (!json_is_string(v))
		return -1;
	snprintf(out, len, "%s", json_string_value(v));
	return 0;
}

static int read_cases(const json_t *cases, struct alloclab_grade_row *row)
{
	const json_t *c;
	size_t i;
	if (!json_is_array(cases) || json_array_size(cases) > ALLOCLAB_GRADE_MAX_CASES)
		return -1;
	json_array_foreach(cases, i, c)
	{
		struct alloclab_grade_case *gc = &row->cases[i];
		char status[16];
		if (text(c, "case", gc->name, sizeof gc->name) != 0 || text(c, "status", status, sizeof status) != 0 ||
		    text(c, "why", gc->why, sizeof gc->why) != 0)
			return -1;
		if (json_object_get(c, "plugin_output") && text(c, "plugin_output", gc->printed, sizeof gc->printed) != 0)
			return -1;
		int k = 0;
		while (k <= ALLOCLAB_GRADE_NOT_RUN && strcmp(status, status_names[k]) != 0)
			k++;
		if (k > ALLOCLAB_GRADE_NOT_RUN)
			return -1;
		gc->status = (enum alloclab_grade_case_status)k;
		if (k == ALLOCLAB_GRADE_PASS || k == ALLOCLAB_GRADE_SKIP)
			row->npass++;
		else
			row->nfail++;
	}
	row->ncases = (unsigned)json_array_size(cases);
	return 0;
}

/* One row from its line; -1 when it is not one. */
static int read_row(const json_t *j, struct alloclab_grade_row *row)
{
	const json_t *ratios = json_object_get(j, "ratios"), *v;
	size_t i;
	memset(row, 0, sizeof *row);
	if (text(j, "name", row->name, sizeof row->name) || text(j, "path", row->path, sizeof row->path) ||
	    text(j, "kind", row->kind, sizeof row->kind) || text(j, "note", row->note, sizeof row->note) ||
	    text(j, "build", row->build, sizeof row->build) ||
	    text(j, "build_error", row->build_error, sizeof row->build_error) ||
	    text(j, "plugin", row->plugin, sizeof row->plugin) || text(j, "problem", row->problem, sizeof row->problem) ||
	    text(j, "measure_note", row->measure_note, sizeof row->measure_note) ||
	    read_cases(json_object_get(j, "cases"), row) != 0 || !json_is_boolean(json_object_get(j, "passed")) ||
	    !json_is_array(ratios) || json_array_size(ratios) > ALLOCLAB_GRADE_MAX_RATIOS ||
	    !json_is_number(json_object_get(j, "seconds")))
		return -1;
	row->passed = json_is_true(json_object_get(j, "passed"));
	row->seconds = json_number_value(json_object_get(j, "seconds"));
	json_array_foreach(ratios, i, v)
	{
		double r = json_number_value(v);
		if (!json_is_number(v) || !isfinite(r) || r <= 0)
			return -1;
		row->ratios[i] = r;
	}
	row->nratios = (unsigned)json_array_size(ratios);
	return alloclab_grade_row_valid(row) && isfinite(row->seconds) && row->seconds >= 0 ? 0 : -1;
}

/* Whether the journal's settings line asks what s asks. */
static int same_settings(const json_t *head, const struct alloclab_grade_settings *s, char *why, size_t len)
{
	json_t *mine = alloclab_grade_settings_json(s);
	static const char *const keys[] = {"level", "reference", "measuring", "processes", "sandboxed", NULL};
	int same = json_is_object(head) && json_object_get(head, ALLOCLAB_GRADE_MARK) != NULL;
	for (const char *const *k = keys; same && *k; k++)
		if (!json_equal(json_object_get(head, *k), json_object_get(mine, *k))) {
			char *theirs = json_dumps(json_object_get(head, *k), JSON_ENCODE_ANY);
			snprintf(why, len, "it was a grading with %s %.100s, not this one's", *k, theirs ? theirs : "?");
			free(theirs);
			same = 0;
		}
	json_decref(mine);
	return same;
}

/* The rows of an existing journal, text[0..len). 0, or -1 with err. */
static int read_journal(const char *path, const char *text, size_t len, const struct alloclab_grade_settings *s,
			struct alloclab_grade_row **rows, size_t *nrows, char *note, size_t note_len, char *err,
			size_t err_len)
{
	size_t line = 0;
	for (size_t off = 0; off < len; line++) {
		const char *start = text + off, *nl = memchr(start, '\n', len - off);
		if (nl == NULL) {
			snprintf(note, note_len, "the journal's last line was cut short (a grading killed as it wrote): dropped");
			break;
		}
		json_t *j = json_loadb(start, (size_t)(nl - start), JSON_REJECT_DUPLICATES, NULL);
		char why[300] = "not a row of a grading";
		int ok = line == 0 ? same_settings(j, s, why, sizeof why) : j != NULL;
		if (ok && line > 0) {
			struct alloclab_grade_row *grown = realloc(*rows, (*nrows + 1) * sizeof **rows);
			ok = grown != NULL && read_row(j, &grown[*nrows]) == 0;
			if (grown)
				*rows = grown;
			*nrows += ok;
		}
		json_decref(j);
		if (!ok) {
			snprintf(err, err_len, "%s: line %zu: %s", path, line + 1, why);
			return -1;
		}
		off = (size_t)(nl - text) + 1;
	}
	if (line == 0) {
		snprintf(err, err_len, "%s: empty, no grading's journal", path);
		return -1;
	}
	return 0;
}

/* Opens an existing journal to resume it. */
static int resume_journal(const char *path, const struct alloclab_grade_settings *s, struct alloclab_grade_row **rows,
			  size_t *nrows, char *note, size_t note_len, char *err, size_t err_len)
{
	int fd = open(path, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > JOURNAL_MAX) {
		snprintf(err, err_len, "%s: %s", path,
			 fd < 0 ? strerror(errno) : !S_ISREG(st.st_mode) ? "not a regular file" : "too large for a journal");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	char *buf = malloc((size_t)st.st_size + 1);
	ssize_t got = buf ? pread(fd, buf, (size_t)st.st_size, 0) : -1;
	if (got != st.st_size ||
	    read_journal(path, buf, (size_t)got, s, rows, nrows, note, note_len, err, err_len) != 0) {
		if (got != st.st_size)
			snprintf(err, err_len, "%s: cannot read it: %s", path, strerror(errno));
		free(buf);
		close(fd);
		return -1;
	}
	/* A line cut short is taken away, so that the next row starts a line. */
	const char *last = memrchr(buf, '\n', (size_t)got);
	off_t keep = last ? last - buf + 1 : 0;
	free(buf);
	if (keep < st.st_size && ftruncate(fd, keep) != 0) {
		snprintf(err, err_len, "%s: cannot cut its last line: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* The grading's folder, with the folders above it, as `mkdir -p`. */
static int make_folder(const char *dir)
{
	char buf[ALLOCLAB_PATH_LEN];
	if ((size_t)snprintf(buf, sizeof buf, "%s", dir) >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0777) != 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

int alloclab_grade_journal_open(const char *dir, const struct alloclab_grade_settings *s, int resume,
				struct alloclab_grade_row **rows, size_t *nrows, char *note, size_t note_len, char *err,
				size_t err_len)
{
	char path[ALLOCLAB_PATH_PLUS_LEN];
	struct stat st;
	*rows = NULL;
	*nrows = 0;
	note[0] = '\0';
	snprintf(path, sizeof path, "%s/%s", dir, ALLOCLAB_GRADE_JOURNAL_NAME);
	if (make_folder(dir) != 0) {
		snprintf(err, err_len, "cannot make the folder %s: %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(path, &st) == 0 && !resume) {
		snprintf(err, err_len, "%s holds a grading already (%s): give --resume to go on with it, or another -o",
			 dir, ALLOCLAB_GRADE_JOURNAL_NAME);
		return -1;
	}
	if (lstat(path, &st) == 0)
		return resume_journal(path, s, rows, nrows, note, note_len, err, err_len);
	int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	json_t *head = alloclab_grade_settings_json(s);
	char *text = json_dumps(head, JSON_COMPACT);
	json_decref(head);
	int ok = fd >= 0 && text && dprintf(fd, "%s\n", text) > 0 && fsync(fd) == 0;
	free(text);
	if (!ok) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}
