/*
 * The grading's loop: each submission in a sandbox of its own (or, asked
 * for by name, with the grader's rights), its events read into its row,
 * the row journalled. See grade.h.
 */
#define _GNU_SOURCE 1
#include "grade/grade.h"
#include "base/shell_word.h"
#include "base/clock.h"
#include "grade/inside.h"
#include "grade/grade_journal.h"
#include "grade/submission.h"
#include "files/output_path.h"
#include "files/scratch.h"
#include "files/self_exe.h"
#include "process/child.h"
#include "process/sandbox.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What the sandbox may take: memory for its folder, processes, address
 * space, file size (docs/guides/grading.md says these). */
#define WORK_BYTES (1ull << 30)
#define SANDBOX_PROCESSES 256
#define ADDRESS_SPACE (16ull << 30)
#define FILE_SIZE (256ull << 20)

void alloclab_grade_file_stem(size_t index, const char *name, char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, "%02zu-", index + 1);
	for (const char *p = name; *p && n + 1 < len; p++)
		out[n++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
				   *p == '_' || *p == '-'
			   ? *p
			   : '-';
	out[n < len ? n : len - 1] = '\0';
}

/* The whole deadline of one submission's sandbox. */
static double deadline_of(const struct alloclab_grade_settings *s)
{
	return s->build_timeout_s + 2 * s->check_timeout_s + (s->measuring ? s->measure_timeout_s : 0) + 30;
}

/* How the inside is started: this executable, and the request (a JSON
 * document, inside.h) as its one word. NULL out of memory; argv[2] is
 * the caller's to free. */
static char *inside_argv(const struct alloclab_grade_settings *s, const struct alloclab_submission *sub,
			 const char *submission, const char *work, const char *reference, char **v)
{
	struct alloclab_grade_inside in = {.settings = s, .kind = sub->kind, .submission = submission, .work = work,
					   .reference = reference};
	if (sub->plugin[0] && strcmp(sub->kind, "built") == 0)
		in.plugin = sub->plugin;
	char *request = alloclab_grade_request_text(s, &in);
	v[0] = (char *)alloclab_self_path();
	v[1] = "__grade-inside";
	v[2] = request;
	v[3] = NULL;
	return request;
}

/* Whether a reference names a plugin by its path (bound into the
 * sandbox), not a bundled one by its name. */
static int reference_is_path(const char *reference) { return strchr(reference, '/') != NULL; }

/* Where a submission is shown in its sandbox: a folder as /submission,
 * a file in it under its own name. */
static void sandbox_submission(const struct alloclab_submission *sub, char *out, size_t len)
{
	if (strcmp(sub->kind, "c-file") == 0 || strcmp(sub->kind, "plugin") == 0)
		snprintf(out, len, "/submission/%s", strrchr(sub->path, '/') + 1);
	else
		snprintf(out, len, "/submission");
}

/* Runs one submission's inside, in its sandbox: its output and how it
 * ended into *res. 0, or -1 with err when it could not be started. */
static int run_sandboxed(const struct alloclab_grade_job *job, const struct alloclab_submission *subs, size_t at,
			 struct alloclab_child_result *res, char *err, size_t err_len)
{
	const struct alloclab_grade_settings *s = job->settings;
	const struct alloclab_submission *sub = &subs[at];
	static char own[8][ALLOCLAB_PATH_LEN];
	struct alloclab_sandbox_bind binds[10];
	char submission[ALLOCLAB_PATH_PLUS_LEN], reference[ALLOCLAB_PATH_PLUS_LEN], pc[ALLOCLAB_PATH_PLUS_LEN];
	size_t nb = alloclab_sandbox_own_binds(binds, own);
	sandbox_submission(sub, submission, sizeof submission);
	binds[nb++] = (struct alloclab_sandbox_bind){sub->path, submission, 0};
	snprintf(reference, sizeof reference, "%s", s->reference);
	if (reference_is_path(s->reference)) {
		const char *rb = strrchr(s->reference, '/') + 1;
		snprintf(reference, sizeof reference, "/reference/%s", rb);
		binds[nb++] = (struct alloclab_sandbox_bind){s->reference, reference, 0};
	}
	/* Every other submission, and the grading's own folder, unseen. */
	const char **hide = calloc(job->nargs + 1, sizeof *hide);
	size_t nh = 0;
	for (size_t i = 0; hide && i < job->nargs; i++)
		if (i != at && subs[i].path[0])
			hide[nh++] = subs[i].path;
	if (hide)
		hide[nh++] = job->dir;
	snprintf(pc, sizeof pc, "PKG_CONFIG_PATH=%s", alloclab_sdk_pkgconfig_dir());
	const char *env[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/work", "TMPDIR=/work/tmp", "LANG=C.UTF-8",
			     "XDG_CACHE_HOME=/work/cache", pc, NULL};
	struct alloclab_sandbox sb = {binds, nb, hide, nh, "/work", WORK_BYTES, env, SANDBOX_PROCESSES, ADDRESS_SPACE,
				      FILE_SIZE, (unsigned)deadline_of(s)};
	char *argv[4];
	if (inside_argv(s, sub, submission, "/work", reference, argv) == NULL) {
		free(hide);
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	int rc = alloclab_sandbox_run(&sb, argv, deadline_of(s), res, err, err_len);
	free(argv[2]);
	free(hide);
	return rc;
}

static int exec_child(void *arg, int fd)
{
	char **argv = arg;
	if (dup2(fd, 1) < 0)
		return 127;
	execv(argv[0], argv);
	return 127;
}

/* The same with the grader's own rights (--unsandboxed), in a scratch
 * folder of its own (its name into work, gone when this returns). */
static int run_unsandboxed(const struct alloclab_grade_job *job, const struct alloclab_submission *sub,
			   struct alloclab_child_result *res, char *work, char *err, size_t err_len)
{
	char tmp[ALLOCLAB_SCRATCH_LEN + 8];
	if (alloclab_scratch_make("grade", work, ALLOCLAB_SCRATCH_LEN) != 0) {
		snprintf(err, err_len, "cannot make a scratch folder: %s", strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof tmp, "%s/tmp", work);
	mkdir(tmp, 0700);
	char *argv[4];
	int rc = -1;
	if (inside_argv(job->settings, sub, sub->path, work, job->settings->reference, argv) == NULL)
		snprintf(err, err_len, "out of memory");
	else
		rc = alloclab_child_run(exec_child, argv, deadline_of(job->settings), res, err, err_len);
	free(argv[2]);
	alloclab_scratch_remove(work);
	return rc;
}

/* The build's log, as DIR/logs/STEM.build.log. */
static void write_log(const char *dir, const char *stem, const struct alloclab_grade_row *row, const char *log)
{
	char path[ALLOCLAB_PATH_PLUS2_LEN], err[ALLOCLAB_ERR_LEN];
	struct alloclab_output_file f;
	snprintf(path, sizeof path, "%s/logs/%s.build.log", dir, stem);
	if (alloclab_output_begin(path, ALLOCLAB_OUTPUT_GRADE, &f, err, sizeof err) != 0)
		return;
	FILE *out = fdopen(dup(f.fd), "w");
	if (out) {
		fprintf(out, "%sthe build of %s (%s), %s\n%s", ALLOCLAB_GRADE_TEXT_MARK, row->name, row->path, row->build,
			log);
		fclose(out);
	}
	if (alloclab_output_commit(&f, path, ALLOCLAB_OUTPUT_GRADE, err, sizeof err) != 0)
		alloclab_say("alloclab grade: %s", err);
}

/* A sandbox past its deadline: which step it was in (the last event it
 * reported says), and the option that gives that step more time. */
static void timed_out_text(const struct alloclab_grade_settings *s, const char *kind,
			   const struct alloclab_child_result *res, char *out, size_t len)
{
	const char *text = res->output ? res->output : "";
	int built = strcmp(kind, "plugin") == 0 || strcmp(kind, "built") == 0 || strstr(text, "\"event\": \"build\"") ||
		    strstr(text, "\"event\":\"build\"");
	int measured = strstr(text, "\"event\": \"case\"") || strstr(text, "\"event\":\"case\"");
	if (!built)
		snprintf(out, len, "its build did not end within the sandbox's deadline of %g s (--build-timeout %g)",
			 deadline_of(s), s->build_timeout_s);
	else if (!measured || !s->measuring)
		snprintf(out, len, "its cases did not end within the sandbox's deadline of %g s (--timeout %g)",
			 deadline_of(s), s->check_timeout_s);
	else
		snprintf(out, len, "its cases or its measurement did not end within the sandbox's deadline of %g s "
				   "(--timeout %g, --measure-timeout %g)",
			 deadline_of(s), s->check_timeout_s, s->measure_timeout_s);
}

/* One submission graded into row. 0, or -1 when it was interrupted
 * (nothing to journal) or its sandbox could not be made (err). */
static int grade_one(const struct alloclab_grade_job *job, const struct alloclab_submission *subs, size_t at,
		     struct alloclab_grade_row *row, char *err, size_t err_len)
{
	const struct alloclab_submission *sub = &subs[at];
	double start = alloclab_now_s();
	memset(row, 0, sizeof *row);
	snprintf(row->name, sizeof row->name, "%s", sub->name);
	snprintf(row->path, sizeof row->path, "%s", sub->arg);
	snprintf(row->kind, sizeof row->kind, "%s", sub->kind);
	snprintf(row->note, sizeof row->note, "%s", sub->note);
	if (strcmp(sub->kind, "none") == 0) {
		snprintf(row->problem, sizeof row->problem, "%s", sub->problem);
		return 0;
	}
	if (strcmp(sub->kind, "plugin") == 0 || strcmp(sub->kind, "built") == 0)
		snprintf(row->plugin, sizeof row->plugin, "%s", sub->plugin);
	struct alloclab_child_result res;
	char submission[ALLOCLAB_PATH_PLUS_LEN], work[ALLOCLAB_SCRATCH_LEN] = "/work";
	struct alloclab_grade_seen seen = {submission, work};
	if (job->settings->sandboxed)
		sandbox_submission(sub, submission, sizeof submission);
	else
		snprintf(submission, sizeof submission, "%s", sub->path);
	int rc = job->settings->sandboxed ? run_sandboxed(job, subs, at, &res, err, err_len)
					  : run_unsandboxed(job, sub, &res, work, err, err_len);
	if (rc != 0)
		return -1;
	if (res.interrupted) {
		alloclab_child_result_free(&res);
		return -1;
	}
	char ended[ALLOCLAB_GRADE_TEXT] = "", *log = NULL;
	if (res.exited && res.exit_code > 128 && res.exit_code < 160 && !res.timed_out) {
		/* bwrap's status for what it ran being killed by a signal. */
		snprintf(ended, sizeof ended, "its process in the sandbox was killed by signal %d (%s)",
			 res.exit_code - 128, strsignal(res.exit_code - 128));
	} else if (res.timed_out) {
		timed_out_text(job->settings, sub->kind, &res, ended, sizeof ended);
	} else if (!res.exited || res.exit_code != 0) {
		alloclab_child_describe(&res, deadline_of(job->settings), ended, sizeof ended);
		alloclab_child_add_printed(&res, ended, sizeof ended);
	}
	alloclab_grade_events_read(res.output, res.output_len, job->settings->level, &seen, ended, row, &log);
	alloclab_child_result_free(&res);
	row->seconds = alloclab_now_s() - start;
	if (log && log[0]) {
		char stem[300];
		alloclab_grade_file_stem(at, row->name, stem, sizeof stem);
		write_log(job->dir, stem, row, log);
	}
	free(log);
	return 0;
}

/* The journal's row of a submission (by its path as given), or NULL. */
static const struct alloclab_grade_row *journalled(const struct alloclab_grade_row *rows, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].path, path) == 0)
			return &rows[i];
	return NULL;
}

int alloclab_grade_run(const struct alloclab_grade_job *job, struct alloclab_grade_row **rows, char *note,
		       size_t note_len, char *err, size_t err_len)
{
	struct alloclab_grade_row *done = NULL;
	size_t ndone = 0;
	struct alloclab_submission *subs = calloc(job->nargs, sizeof *subs);
	*rows = calloc(job->nargs, sizeof **rows);
	int fd = -1, failed = 0;
	if (subs == NULL || *rows == NULL || alloclab_submissions_resolve(job->args, job->nargs, subs) != 0) {
		snprintf(err, err_len, "out of memory");
		failed = 1;
	} else if ((fd = alloclab_grade_journal_open(job->dir, job->settings, job->resume, &done, &ndone, note, note_len,
						     err, err_len)) < 0) {
		failed = 1;
	}
	if (!failed && ndone) {
		size_t used = strlen(note);
		snprintf(note + used, note_len - used, "%s%zu rows resumed from the journal", used ? "; " : "", ndone);
	}
	for (size_t i = 0; !failed && i < job->nargs && !alloclab_interrupted(); i++) {
		const struct alloclab_grade_row *old = journalled(done, ndone, job->args[i]);
		if (old) {
			(*rows)[i] = *old;
			continue;
		}
		if (isatty(2))
			fprintf(stderr, "\rgrading %zu of %zu \033[K", i + 1, job->nargs);
		if (grade_one(job, subs, i, &(*rows)[i], err, err_len) != 0) {
			failed = !alloclab_interrupted();
			memset(&(*rows)[i], 0, sizeof **rows);
			break;
		}
		if (alloclab_grade_journal_append(fd, &(*rows)[i], err, err_len) != 0)
			failed = 1;
	}
	if (isatty(2))
		fputs("\r\033[K", stderr);
	if (fd >= 0)
		close(fd);
	free(done);
	done = NULL;
	ndone = 0;
	/* The rows as the journal holds them: what was written is what is
	 * reported. */
	char again[ALLOCLAB_ERR_LEN];
	if (!failed && (fd = alloclab_grade_journal_open(job->dir, job->settings, 1, &done, &ndone, again, sizeof again,
							 err, err_len)) < 0)
		failed = 1;
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; !failed && i < job->nargs; i++) {
		const struct alloclab_grade_row *row = journalled(done, ndone, job->args[i]);
		if (row)
			(*rows)[i] = *row;
		else
			memset(&(*rows)[i], 0, sizeof **rows);
	}
	free(done);
	if (subs)
		alloclab_submissions_free(subs, job->nargs);
	free(subs);
	return failed ? -1 : 0;
}
