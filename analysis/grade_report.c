/* A grading's table, CSV, JSON and feedback files. See grade_report.h. */
#define _GNU_SOURCE 1
#include "grade_report.h"
#include "csv_field.h"
#include "pair_report.h"
#include "base/json_text.h"
#include "base/shell_word.h"
#include "files/output_path.h"
#include "grade/grade_journal.h"
#include "statistics/pairs.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The row's time against the reference: 1 with st, 0 when not measured. */
static int time_of(const struct alloclab_grade_row *row, struct alloclab_pair_stat *st)
{
	if (row->nratios == 0)
		return 0;
	alloclab_pair_stat_of(row->ratios, row->nratios, st);
	return 1;
}

/* The first thing that failed, as one line: "" for a row that passed. */
static void failure(const struct alloclab_grade_row *row, char *out, size_t len)
{
	char raw[ALLOCLAB_GRADE_TEXT + 100] = "";
	if (row->build[0] && strcmp(row->build, "ok") != 0)
		snprintf(raw, sizeof raw, "build %s: %s", row->build, row->build_error);
	else if (row->problem[0])
		snprintf(raw, sizeof raw, "%s", row->problem);
	for (unsigned i = 0; !raw[0] && i < row->ncases; i++)
		if (row->cases[i].status == ALLOCLAB_GRADE_FAIL || row->cases[i].status == ALLOCLAB_GRADE_NOT_RUN)
			snprintf(raw, sizeof raw, "%s: %s", row->cases[i].name, row->cases[i].why);
	for (char *p = raw; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	alloclab_printable(raw, out, len);
}

/* What the reader should know beside a failure: the row's note and, for
 * a row that passed and was not timed, why; "" none. */
static void to_know(const struct alloclab_grade_row *row, char *out, size_t len)
{
	char raw[ALLOCLAB_GRADE_TEXT] = "";
	if (row->passed && row->nratios == 0 && row->measure_note[0])
		snprintf(raw, sizeof raw, "not timed: %s", row->measure_note);
	if (row->note[0]) {
		size_t used = strlen(raw);
		snprintf(raw + used, sizeof raw - used, "%s%s", used ? "; " : "", row->note);
	}
	for (char *p = raw; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	alloclab_printable(raw, out, len);
}

/* The table's last column: the failure, then what to know in brackets. */
static void reason(const struct alloclab_grade_row *row, char *out, size_t len)
{
	char failed[ALLOCLAB_GRADE_TEXT + 200], know[ALLOCLAB_GRADE_TEXT + 200];
	failure(row, failed, sizeof failed);
	to_know(row, know, sizeof know);
	size_t n = (size_t)snprintf(out, len, "%s", failed[0] ? failed : know);
	if (failed[0] && know[0] && n < len)
		snprintf(out + n, len - n, "  [%s]", know);
}

/* A row with no case: what stopped it before its cases, in a few words
 * (its problem up to its first colon, the rest being said beside). */
static void unchecked(const struct alloclab_grade_row *row, char *out, size_t len)
{
	if (row->build[0] && strcmp(row->build, "ok") != 0)
		snprintf(out, len, "not checked: its build %s", row->build);
	else if (strcmp(row->kind, "none") == 0)
		snprintf(out, len, "not checked: nothing to grade");
	else if (row->problem[0])
		snprintf(out, len, "not checked: %.*s", (int)strcspn(row->problem, ":"), row->problem);
	else
		snprintf(out, len, "not checked");
}

void alloclab_grade_table(FILE *out, const struct alloclab_grade_settings *s, const struct alloclab_grade_row *rows,
			  size_t n, const char *note)
{
	size_t width = 10;
	char reference[ALLOCLAB_PRINTED_LEN];
	alloclab_printable(s->reference, reference, sizeof reference);
	for (size_t i = 0; i < n; i++)
		if (strlen(rows[i].name) > width)
			width = strlen(rows[i].name) < 40 ? strlen(rows[i].name) : 40;
	fprintf(out, "%slevel %u, %s\n", ALLOCLAB_GRADE_TEXT_MARK, s->level,
		!s->sandboxed ? "UNSANDBOXED: every submission ran with your own rights (--unsandboxed)"
		: s->measuring ? "each submission built, checked and timed in a sandbox of its own"
			       : "each submission built and checked in a sandbox of its own");
	if (s->measuring)
		fprintf(out, "time: the submission's time over %s's on churn, each in processes of its own, back to back, "
			     "in %u rounds: the geometric mean of the rounds' ratios and its 95%% interval.\n"
			     "      A noisy indicator, not a ranking: the same code reads faster or slower with what else the "
			     "machine runs, and a row whose interval holds 1 is \"not resolved\". To rank, count "
			     "instructions: alloclab run --measure instructions -p system -p ./student.so -w churn\n",
			reference, s->processes);
	fprintf(out, "%-*s %-5s %-6s %-7s %-16s %-14s %s\n", (int)width, "submission", "level", "cases", "time",
		"95% interval", "verdict", "first failing case, or what to know");
	for (size_t i = 0; i < n; i++) {
		const struct alloclab_grade_row *r = &rows[i];
		char name[256], cases[32] = "-", time[32] = "-", interval[48] = "-", verdict[64] = "-", why[1600];
		struct alloclab_pair_stat st;
		if (!r->name[0])
			continue;
		alloclab_printable(r->name, name, sizeof name);
		if (r->ncases)
			snprintf(cases, sizeof cases, "%u/%u", r->npass, r->ncases);
		if (time_of(r, &st)) {
			snprintf(time, sizeof time, "%.3fx", st.ratio);
			if (st.n > 1)
				snprintf(interval, sizeof interval, "%.3f .. %.3f", st.lo, st.hi);
			alloclab_verdict_words(alloclab_pair_verdict_of(&st), st.ratio, 0, 1, verdict, sizeof verdict);
		}
		reason(r, why, sizeof why);
		fprintf(out, "%-*s %-5s %-6s %-7s %-16s %-14s %s\n", (int)width, name, r->passed ? "pass" : "FAIL", cases,
			time, interval, verdict, why);
	}
	if (note && note[0])
		fprintf(out, "(%s)\n", note);
}

/* One CSV field and its separator. */
static void csv(FILE *out, const char *s, int last)
{
	alloclab_csv_field(out, s);
	fputc(last ? '\n' : ',', out);
}

static void write_csv(FILE *out, const struct alloclab_grade_row *rows, size_t n)
{
	fputs(ALLOCLAB_GRADE_CSV_HEADER "kind,verdict,cases_passed,cases,build,ratio,ratio_low,ratio_high,processes,"
					"time_verdict,first_failure,note\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		const struct alloclab_grade_row *r = &rows[i];
		char num[6][64] = {"", "", "", "", "", ""}, verdict[64] = "", why[1600];
		struct alloclab_pair_stat st;
		if (!r->name[0])
			continue;
		char know[ALLOCLAB_GRADE_TEXT + 200];
		/* A row with no case is no score of 0: left empty, the
		 * first failure says why. */
		if (r->ncases) {
			snprintf(num[0], 64, "%u", r->npass);
			snprintf(num[1], 64, "%u", r->ncases);
		}
		if (time_of(r, &st)) {
			snprintf(num[2], 64, "%.4f", st.ratio);
			if (st.n > 1) {
				snprintf(num[3], 64, "%.4f", st.lo);
				snprintf(num[4], 64, "%.4f", st.hi);
			}
			snprintf(num[5], 64, "%u", st.n);
			alloclab_verdict_words(alloclab_pair_verdict_of(&st), st.ratio, 0, 1, verdict, sizeof verdict);
		}
		failure(r, why, sizeof why);
		to_know(r, know, sizeof know);
		const char *fields[] = {r->name, r->path, r->kind, r->passed ? "pass" : "fail", num[0], num[1],
					r->build, num[2], num[3], num[4], num[5], verdict, why, know};
		for (size_t f = 0; f < sizeof fields / sizeof *fields; f++)
			csv(out, fields[f], f + 1 == sizeof fields / sizeof *fields);
	}
}

static json_t *grades_json(const struct alloclab_grade_settings *s, const struct alloclab_grade_row *rows, size_t n)
{
	json_t *list = json_array();
	for (size_t i = 0; i < n; i++) {
		struct alloclab_pair_stat st;
		if (!rows[i].name[0])
			continue;
		json_t *row = alloclab_grade_row_json(&rows[i]);
		if (time_of(&rows[i], &st)) {
			char verdict[64];
			alloclab_verdict_words(alloclab_pair_verdict_of(&st), st.ratio, 0, 1, verdict, sizeof verdict);
			json_t *t = json_pack("{s:f,s:i,s:b,s:s}", "ratio", st.ratio, "processes", (int)st.n, "resolved",
					      st.resolved, "verdict", verdict);
			if (st.n > 1)
				json_object_set_new(t, "interval", json_pack("[f,f]", st.lo, st.hi));
			json_object_set_new(row, "time", t);
		}
		json_array_append_new(list, row);
	}
	return json_pack("{s:i,s:o,s:o}", ALLOCLAB_GRADE_MARK, 1, "settings", alloclab_grade_settings_json(s), "rows",
			 list);
}

/* The commands that show a failing case again, from the submission's
 * own folder. */
static void reproduce(FILE *out, const struct alloclab_grade_settings *s, const struct alloclab_grade_row *r,
		      const char *failing)
{
	const char *plugin = r->plugin[0] ? r->plugin : "build/PLUGIN.so";
	const char *dot = strrchr(plugin, '/');
	int race = strcmp(failing, "threads") == 0 || strcmp(failing, "cross-thread") == 0 ||
		   strcmp(failing, "thread-lifecycle") == 0;
	fputs("\nto see it again:\n  ", out);
	if (strcmp(r->kind, "plugin") != 0) {
		fputs("cd ", out);
		if (strcmp(r->kind, "c-file") == 0) {
			char dir[ALLOCLAB_PATH_LEN];
			snprintf(dir, sizeof dir, "%s", r->path);
			char *slash = strrchr(dir, '/');
			if (slash)
				*slash = '\0';
			alloclab_shell_word_shown(out, slash ? dir : ".");
		} else {
			alloclab_shell_word_shown(out, r->path);
		}
		fputs(" && ", out);
	}
	if (strcmp(r->kind, "meson") == 0)
		fputs("meson setup build && ninja -C build && ", out);
	else if (strcmp(r->kind, "sources") == 0 || strcmp(r->kind, "c-file") == 0) {
		/* The file and the plugin are the submission's names: words of
		 * the command, shown (a name may hold an escape sequence). */
		fputs("mkdir -p build && cc -std=gnu11 -O2 -g -shared -fPIC $(pkg-config --cflags alloclab-plugin) ", out);
		if (strcmp(r->kind, "c-file") == 0)
			alloclab_shell_word_shown(out, strrchr(r->path, '/') ? strrchr(r->path, '/') + 1 : r->path);
		else
			fputs("*.c", out);
		fputs(" -o ", out);
		alloclab_shell_word_shown(out, plugin);
		fputs(" && ", out);
	}
	char target[ALLOCLAB_PATH_PLUS_LEN];
	snprintf(target, sizeof target, "%s%s", strcmp(r->kind, "plugin") == 0 || dot == NULL ? "" : "./", plugin);
	if (strcmp(r->kind, "plugin") == 0)
		snprintf(target, sizeof target, "%s", r->path);
	if (race)
		fputs("for i in 1 2 3 4 5 6 7 8 9 10; do ", out);
	fprintf(out, "alloclab check --case %s ", failing);
	alloclab_shell_word_shown(out, target);
	fputs(race ? " || break; done\n  (a race between threads may need several runs to show again: the loop stops at "
		     "the first that fails)\n"
		   : "\n",
	      out);
	fprintf(out, "the whole level: alloclab check --level %u ", s->level);
	alloclab_shell_word_shown(out, target);
	fputs("\n", out);
}

static void write_feedback(FILE *out, const struct alloclab_grade_settings *s, const struct alloclab_grade_row *r,
			   const char *stem)
{
	char text[ALLOCLAB_GRADE_TEXT + 64], failing[32] = "";
	alloclab_printable(r->name, text, sizeof text);
	fprintf(out, "%sfeedback for %s", ALLOCLAB_GRADE_TEXT_MARK, text);
	alloclab_printable(r->path, text, sizeof text);
	fprintf(out, " (%s), level %u: %s, ", text, s->level, r->passed ? "pass" : "FAIL");
	if (r->ncases) {
		fprintf(out, "%u of %u cases passed\n", r->npass, r->ncases);
	} else {
		unchecked(r, text, sizeof text);
		alloclab_printable(text, text + sizeof text / 2, sizeof text / 2);
		fprintf(out, "%s\n", text + sizeof text / 2);
	}
	if (r->note[0])
		alloclab_printable(r->note, text, sizeof text), fprintf(out, "note: %s\n", text);
	if (r->build[0]) {
		alloclab_printable(r->build_error, text, sizeof text);
		fprintf(out, "build: %s%s%s (its log: logs/%s.build.log)\n", r->build, text[0] ? ": " : "", text, stem);
	}
	if (r->problem[0])
		alloclab_printable(r->problem, text, sizeof text), fprintf(out, "problem: %s\n", text);
	for (unsigned i = 0; i < r->ncases; i++) {
		const struct alloclab_grade_case *c = &r->cases[i];
		alloclab_printable(c->why, text, sizeof text);
		fprintf(out, "  %-17s %-7s %s\n", c->name, alloclab_grade_case_status_name((int)c->status), text);
		if (c->printed[0])
			alloclab_printable(c->printed, text, sizeof text), fprintf(out, "  %-17s (it printed: %s)\n", "", text);
		if (!failing[0] && (c->status == ALLOCLAB_GRADE_FAIL || c->status == ALLOCLAB_GRADE_NOT_RUN))
			snprintf(failing, sizeof failing, "%s", c->name);
	}
	if (failing[0])
		reproduce(out, s, r, failing);
	struct alloclab_pair_stat st;
	if (time_of(r, &st)) {
		char verdict[64];
		alloclab_verdict_words(alloclab_pair_verdict_of(&st), st.ratio, 0, 1, verdict, sizeof verdict);
		char reference[ALLOCLAB_PRINTED_LEN];
		fprintf(out, "time on churn: %.3f times %s's", st.ratio,
			alloclab_printable(s->reference, reference, sizeof reference));
		if (st.n > 1)
			fprintf(out, ", 95%% interval %.3f .. %.3f", st.lo, st.hi);
		fprintf(out, ": %s (%u rounds, back to back)\n", verdict, st.n);
		/* The student's own plugin, named as in the commands above. */
		char plugin[ALLOCLAB_PATH_PLUS_LEN];
		if (strcmp(r->kind, "plugin") == 0 || !r->plugin[0])
			snprintf(plugin, sizeof plugin, "%s", r->path);
		else
			snprintf(plugin, sizeof plugin, "./%s", r->plugin);
		fputs("  a noisy indicator, not a ranking: the same code reads faster or slower with what else the "
		      "machine runs;\n  exact, and the same on any machine: your plugin's instructions an operation, "
		      "from your folder: alloclab run --measure instructions -p system -p ",
		      out);
		alloclab_shell_word_shown(out, plugin);
		fputs(" -w churn\n", out);
	} else if (r->passed && r->measure_note[0]) {
		alloclab_printable(r->measure_note, text, sizeof text);
		fprintf(out, "time: %s\n", text);
	}
}

/* Writes one file of the grading through the output policy. */
struct content {
	const struct alloclab_grade_settings *s;
	const struct alloclab_grade_row *rows;
	size_t n, at;
	const char *note, *stem;
};

static int write_one(const char *path, void (*fill)(FILE *, const struct content *), const struct content *c, char *err,
		     size_t err_len)
{
	struct alloclab_output_file f;
	if (alloclab_output_begin(path, ALLOCLAB_OUTPUT_GRADE, &f, err, err_len) != 0)
		return -1;
	FILE *out = fdopen(dup(f.fd), "w");
	if (out == NULL) {
		alloclab_output_discard(&f);
		snprintf(err, err_len, "cannot write %s", path);
		return -1;
	}
	fill(out, c);
	if (fclose(out) != 0) {
		alloclab_output_discard(&f);
		snprintf(err, err_len, "cannot write %s", path);
		return -1;
	}
	return alloclab_output_commit(&f, path, ALLOCLAB_OUTPUT_GRADE, err, err_len);
}

static void fill_table(FILE *out, const struct content *c) { alloclab_grade_table(out, c->s, c->rows, c->n, c->note); }
static void fill_csv(FILE *out, const struct content *c) { write_csv(out, c->rows, c->n); }
static void fill_feedback(FILE *out, const struct content *c) { write_feedback(out, c->s, &c->rows[c->at], c->stem); }
static void fill_json(FILE *out, const struct content *c)
{
	json_t *j = grades_json(c->s, c->rows, c->n);
	json_dumpf(j, out, JSON_INDENT(1));
	fputc('\n', out);
	json_decref(j);
}

static const struct {
	const char *name;
	void (*fill)(FILE *, const struct content *);
} grade_files[] = {{"table.txt", fill_table}, {"grades.csv", fill_csv}, {"grades.json", fill_json}};

int alloclab_grade_outputs_usable(const char *dir, char *err, size_t err_len)
{
	char path[ALLOCLAB_PATH_PLUS2_LEN];
	for (size_t i = 0; i < sizeof grade_files / sizeof *grade_files; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, grade_files[i].name);
		if (alloclab_output_usable(path, ALLOCLAB_OUTPUT_GRADE, err, err_len) != 0)
			return -1;
	}
	/* Its folders: folders of its own, not links to elsewhere. */
	static const char *const folders[] = {"feedback", "logs"};
	for (size_t i = 0; i < sizeof folders / sizeof *folders; i++) {
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, folders[i]);
		if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
			snprintf(err, err_len, "%.900s is not a folder (%s): the grading writes its %s there; give another -o",
				 path, S_ISLNK(st.st_mode) ? "a symbolic link" : "a file", folders[i]);
			return -1;
		}
	}
	return 0;
}

int alloclab_grade_write(const char *dir, const struct alloclab_grade_settings *s,
			 const struct alloclab_grade_row *rows, size_t n, const char *note, char *err, size_t err_len)
{
	struct content c = {s, rows, n, 0, note, ""};
	char path[ALLOCLAB_PATH_PLUS2_LEN], stem[300];
	const size_t nfiles = sizeof grade_files / sizeof *grade_files;
	for (size_t i = 0; i < nfiles; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, grade_files[i].name);
		if (write_one(path, grade_files[i].fill, &c, err, err_len) != 0)
			return -1;
	}
	for (c.at = 0; c.at < n; c.at++) {
		if (!rows[c.at].name[0])
			continue;
		alloclab_grade_file_stem(c.at, rows[c.at].name, stem, sizeof stem);
		c.stem = stem;
		snprintf(path, sizeof path, "%s/feedback/%s.txt", dir, stem);
		if (write_one(path, fill_feedback, &c, err, err_len) != 0)
			return -1;
	}
	return 0;
}
