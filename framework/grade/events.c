/*
 * The grader's one reader of a sandbox's events (inside.h): each line
 * checked as text from outside is (a known event, in its order, every
 * field of its type and bounded, a case of the level named once, ratios
 * finite and positive), copied into the row with control characters
 * shown as '?', and its messages then put in the student's words (the
 * sandbox's paths as the student knows their files). A sandbox that
 * ended before its end event leaves the cases it did not report "not
 * run", with how it ended.
 */
#define _GNU_SOURCE 1
#include "grade/inside.h"
#include "grade/submission_build.h"
#include "check/check.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A string field into out, at most len - 1 bytes, control characters
 * shown as '?'. 0, or -1 when the field is there and not a string (or
 * missing and required). */
static int text(const json_t *obj, const char *key, int required, char *out, size_t len)
{
	const json_t *v = json_object_get(obj, key);
	out[0] = '\0';
	if (v == NULL)
		return required ? -1 : 0;
	if (!json_is_string(v))
		return -1;
	snprintf(out, len, "%s", json_string_value(v));
	for (char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t')
			*p = '?';
	return 0;
}

/* Whether c can be part of a path: a place is matched only where a path
 * starts, and a whole one only where it ends. */
static int path_char(char c)
{
	return c != '\0' && (isalnum((unsigned char)c) || strchr("._-+~@/", c) != NULL);
}

/* A path the inside used and what the student knows it as. whole: the
 * path itself, not a folder's start. */
struct place {
	const char *seen, *known;
	int whole;
};

/* Every place in text (at most len bytes) written as the student knows
 * it. */
static void rewrite_places(char *text, size_t len, const struct place *places, size_t n)
{
	char *out = malloc(len);
	size_t o = 0;
	if (out == NULL)
		return;
	for (size_t i = 0; text[i] && o + 1 < len;) {
		int start = i == 0 || !path_char(text[i - 1]);
		size_t k = n, m = 0;
		for (size_t j = 0; start && j < n && k == n; j++) {
			m = strlen(places[j].seen);
			if (m && strncmp(text + i, places[j].seen, m) == 0 && !(places[j].whole && path_char(text[i + m])))
				k = j;
		}
		if (k < n) {
			o += (size_t)snprintf(out + o, len - o, "%s", places[k].known);
			o = o < len ? o : len - 1;
			i += m;
		} else {
			out[o++] = text[i++];
		}
	}
	out[o] = '\0';
	memcpy(text, out, o + 1);
	free(out);
}

/* What a run's supervisor says of a worker that left processes behind
 * (process/child_answer.c) speaks of a worker and a measurement; in a
 * row, it is what the submission did in the step it was in. 1 when the
 * words were there. */
static int stray_words(char *text, size_t len, const char *step, const char *lost)
{
	static const char head[] = "the worker left ", tail[] = "for it ran beside it";
	char *at = strstr(text, head), *end = at ? strstr(at, tail) : NULL, rest[ALLOCLAB_GRADE_TEXT];
	unsigned n = 0;
	int used = 0;
	if (end == NULL || sscanf(at + sizeof head - 1, "%u process%n", &n, &used) != 1 || used == 0)
		return 0;
	snprintf(rest, sizeof rest, "%s", end + sizeof tail - 1);
	snprintf(at, len - (size_t)(at - text), "%s it left %u process%s running (a plugin that forks, or a daemon): "
						 "killed%s%s", step, n, n == 1 ? "" : "es", lost, rest);
	return 1;
}

static int one_of(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(s, *set) == 0)
			return 1;
	return 0;
}

/* Where the reading is: what has been seen, in order. */
enum stage { START, BUILT, CASES, MEASURED, LOAD_FAILED, ENDED };

/* The log an event carries, whole up to the bound an honest inside
 * keeps to (submission_build.h), and beyond it cut at a character's start
 * with its mark: never cut without a word. malloc'd, or NULL. */
static char *bounded_log(const json_t *log)
{
	const char *l = json_string_value(log);
	size_t n = json_string_length(log), cut = ALLOCLAB_GRADE_LOG_EVENT_MAX;
	if (n <= cut)
		return strndup(l, n);
	while (cut > 0 && ((unsigned char)l[cut] & 0xc0) == 0x80)
		cut--;
	char *out = malloc(cut + 100);
	if (out)
		snprintf(out, cut + 100, "%.*s\n" ALLOCLAB_GRADE_LOG_CUT, (int)cut, l, n - cut);
	return out;
}

static int read_build(const json_t *e, struct alloclab_grade_row *row, char **log)
{
	static const char *const statuses[] = {"ok", "failed", "timed out", NULL};
	char plugin[sizeof row->plugin];
	if (text(e, "status", 1, row->build, sizeof row->build) != 0 || !one_of(row->build, statuses) ||
	    text(e, "first_error", 1, row->build_error, sizeof row->build_error) != 0 ||
	    text(e, "plugin", 0, plugin, sizeof plugin) != 0 || !json_is_string(json_object_get(e, "log")))
		return -1;
	char note[sizeof row->note];
	if (text(e, "note", 0, note, sizeof note) != 0)
		return -1;
	if (note[0]) {
		size_t used = strlen(row->note);
		snprintf(row->note + used, sizeof row->note - used, "%s%s", used ? "; " : "", note);
	}
	if (strcmp(row->build, "ok") == 0)
		snprintf(row->plugin, sizeof row->plugin, "%s", plugin);
	*log = bounded_log(json_object_get(e, "log"));
	return 0;
}

static int read_case(const json_t *e, unsigned level, struct alloclab_grade_row *row)
{
	static const char *const statuses[] = {"pass", "fail", "skip", "not run", NULL};
	char name[64], status[16];
	if (text(e, "case", 1, name, sizeof name) != 0 || !one_of(name, alloclab_check_level(level)) ||
	    text(e, "status", 1, status, sizeof status) != 0 || !one_of(status, statuses) ||
	    row->ncases >= ALLOCLAB_GRADE_MAX_CASES)
		return -1;
	for (unsigned i = 0; i < row->ncases; i++)
		if (strcmp(row->cases[i].name, name) == 0)
			return -1;
	struct alloclab_grade_case *c = &row->cases[row->ncases];
	if (text(e, "why", 1, c->why, sizeof c->why) != 0 || text(e, "plugin_output", 0, c->printed, sizeof c->printed) != 0)
		return -1;
	snprintf(c->name, sizeof c->name, "%s", name);
	c->status = strcmp(status, "pass") == 0	  ? ALLOCLAB_GRADE_PASS
		    : strcmp(status, "skip") == 0 ? ALLOCLAB_GRADE_SKIP
		    : strcmp(status, "fail") == 0 ? ALLOCLAB_GRADE_FAIL
						  : ALLOCLAB_GRADE_NOT_RUN;
	row->ncases++;
	return 0;
}

static int read_measure(const json_t *e, struct alloclab_grade_row *row)
{
	const json_t *ratios = json_object_get(e, "ratios"), *v;
	size_t i;
	if (ratios == NULL)
		return text(e, "why", 1, row->measure_note, sizeof row->measure_note);
	if (!json_is_array(ratios) || json_array_size(ratios) == 0 || json_array_size(ratios) > ALLOCLAB_GRADE_MAX_RATIOS)
		return -1;
	json_array_foreach(ratios, i, v)
	{
		double r = json_number_value(v);
		if (!json_is_number(v) || !isfinite(r) || r <= 0 || r > 1e6)
			return -1;
		row->ratios[i] = r;
	}
	row->nratios = (unsigned)json_array_size(ratios);
	return 0;
}

/* One line's event; -1 when it is none, or out of order. */
static int read_event(const char *line, size_t n, unsigned level, enum stage *at, struct alloclab_grade_row *row,
		      char **log)
{
	json_t *e = json_loadb(line, n, JSON_REJECT_DUPLICATES, NULL);
	const char *kind = json_string_value(json_object_get(e, "event"));
	int rc = -1;
	if (kind == NULL || *at == ENDED)
		;
	else if (strcmp(kind, "build") == 0 && *at == START && *log == NULL) {
		rc = read_build(e, row, log);
		*at = BUILT;
	} else if (strcmp(kind, "load") == 0 && *at <= BUILT) {
		char why[ALLOCLAB_GRADE_TEXT - 20];
		rc = text(e, "why", 1, why, sizeof why);
		/* A plugin that left a process behind did load. */
		int stray = stray_words(why, sizeof why, "while being loaded", "");
		snprintf(row->problem, sizeof row->problem, "%s%s", stray ? "" : "does not load: ", why);
		*at = LOAD_FAILED;
	} else if (strcmp(kind, "case") == 0 && *at <= CASES) {
		rc = read_case(e, level, row);
		*at = CASES;
	} else if (strcmp(kind, "measure") == 0 && *at == CASES) {
		rc = read_measure(e, row);
		*at = MEASURED;
	} else if (strcmp(kind, "end") == 0) {
		rc = 0;
		*at = ENDED;
	}
	json_decref(e);
	return rc;
}

/* Every message of the row in the student's words: the paths the inside
 * used (its sandbox's /submission and /work) as their submission's path
 * and the names of their own folder (build/x.so, mine.c), and a stray
 * process as what their plugin did. The one place the row's words are
 * made the student's. */
static void in_students_words(const struct alloclab_grade_seen *seen, struct alloclab_grade_row *row)
{
	char build[ALLOCLAB_PATH_PLUS_LEN], src[ALLOCLAB_PATH_PLUS_LEN], folder[ALLOCLAB_PATH_PLUS_LEN];
	int file = strcmp(row->kind, "plugin") == 0 || strcmp(row->kind, "c-file") == 0;
	snprintf(build, sizeof build, "%s/build/", seen->work);
	snprintf(src, sizeof src, "%s/src/", seen->work);
	snprintf(folder, sizeof folder, "%s/", seen->submission);
	/* Ninja runs in WORK/build and names the copy's sources from there. */
	const struct place places[] = {
		{build, "build/", 0},		  {src, "", 0}, {"../src/", "", 0}, {file ? "" : folder, "", 0},
		{seen->submission, row->path, 1},
	};
	size_t n = sizeof places / sizeof *places;
	rewrite_places(row->build_error, sizeof row->build_error, places, n);
	rewrite_places(row->problem, sizeof row->problem, places, n);
	rewrite_places(row->measure_note, sizeof row->measure_note, places, n);
	for (unsigned i = 0; i < row->ncases; i++) {
		rewrite_places(row->cases[i].why, sizeof row->cases[i].why, places, n);
		rewrite_places(row->cases[i].printed, sizeof row->cases[i].printed, places, n);
	}
	stray_words(row->measure_note, sizeof row->measure_note, "while being measured", ", and its time not kept");
}

/* The level's cases the sandbox never reported, "not run". */
static void add_missing(unsigned level, const char *why, struct alloclab_grade_row *row)
{
	for (const char *const *name = alloclab_check_level(level); *name; name++) {
		unsigned i = 0;
		while (i < row->ncases && strcmp(row->cases[i].name, *name) != 0)
			i++;
		if (i < row->ncases || row->ncases >= ALLOCLAB_GRADE_MAX_CASES)
			continue;
		struct alloclab_grade_case *c = &row->cases[row->ncases++];
		snprintf(c->name, sizeof c->name, "%s", *name);
		c->status = ALLOCLAB_GRADE_NOT_RUN;
		snprintf(c->why, sizeof c->why, "not run: %.1180s", why);
	}
}

void alloclab_grade_events_read(const char *text_in, size_t len, unsigned level, const struct alloclab_grade_seen *seen,
				const char *ended, struct alloclab_grade_row *row, char **log)
{
	enum stage at = START;
	unsigned line_no = 0;
	int load_failed = 0;
	*log = NULL;
	for (size_t off = 0; off < len;) {
		const char *line = text_in + off, *nl = memchr(line, '\n', len - off);
		if (nl == NULL)
			break; /* cut short where the sandbox ended */
		line_no++;
		if (read_event(line, (size_t)(nl - line), level, &at, row, log) != 0) {
			snprintf(row->problem, sizeof row->problem,
				 "its sandbox sent line %u that is no event in its place: its grading was stopped there",
				 line_no);
			at = ENDED;
			break;
		}
		load_failed |= at == LOAD_FAILED;
		off = (size_t)(nl - text_in) + 1;
	}
	int built = !row->build[0] || strcmp(row->build, "ok") == 0;
	if (at != ENDED && !row->problem[0])
		snprintf(row->problem, sizeof row->problem, "its grading ended early: %s",
			 ended[0] ? ended : "the sandbox stopped without a word");
	if (built && row->plugin[0] && !load_failed)
		add_missing(level, row->problem[0] ? row->problem : "its grading ended early", row);
	row->npass = row->nfail = 0;
	for (unsigned i = 0; i < row->ncases; i++) {
		if (row->cases[i].status == ALLOCLAB_GRADE_PASS || row->cases[i].status == ALLOCLAB_GRADE_SKIP)
			row->npass++;
		else
			row->nfail++;
	}
	in_students_words(seen, row);
	row->passed = built && row->plugin[0] && !row->problem[0] && row->ncases > 0 && row->nfail == 0;
	if (!row->passed)
		row->nratios = 0;
}
