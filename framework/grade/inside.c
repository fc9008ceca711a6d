/*
 * One submission, inside its sandbox: built, loaded, checked, measured,
 * reporting each step as an event. See inside.h.
 */
#define _GNU_SOURCE 1
#include "grade/inside.h"
#include "grade/submission_build.h"
#include "base/json_text.h"
#include "check/check.h"
#include "check/probe.h"
#include "files/self_exe.h"
#include "run/runner.h"
#include "process/child.h"
#include "process/program.h"
#include "results/results.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* One event: a line of JSON on stdout, written whole at once. Takes obj. */
static void emit(json_t *obj)
{
	alloclab_json_line(1, obj);
	json_decref(obj);
}

static void case_event(const json_t *record, void *arg)
{
	(void)arg;
	json_t *e = json_deep_copy(record);
	json_object_set_new(e, "event", json_string("case"));
	emit(e);
}

/* Copies the submission's folder to one of its own, writable. */
static int copy_in(const char *from, const char *to, double timeout_s, char *why, size_t why_len)
{
	char src[4200], *out = NULL, said[300];
	snprintf(src, sizeof src, "%s/.", from);
	char *argv[] = {"cp", "-R", src, (char *)to, NULL};
	int rc = alloclab_capture(argv, NULL, timeout_s, 1 << 12, &out, why, why_len, said, sizeof said);
	free(out);
	/* A file the sandbox's user may not read is left out, and said: the
	 * build goes on without it. */
	if (rc > 0)
		snprintf(why, why_len, "some files were not copied: %s", said);
	return rc >= 0 ? 0 : -1;
}

/* The build, as an event; the plugin's path into plugin. 0 when built. */
static int build(const struct alloclab_grade_inside *in, char *plugin, size_t len)
{
	char src[4200], dir[4200], why[ALLOCLAB_ERR_LEN] = "";
	struct alloclab_grade_build b;
	snprintf(src, sizeof src, "%s/src", in->work);
	snprintf(dir, sizeof dir, "%s/build", in->work);
	if (strcmp(in->kind, "c-file") == 0)
		snprintf(src, sizeof src, "%s", in->submission);
	else if (copy_in(in->submission, src, in->settings->build_timeout_s, why, sizeof why) != 0) {
		emit(json_pack("{s:s,s:s,s:o,s:s}", "event", "build", "status", "failed", "first_error",
			       alloclab_json_text(why), "log", ""));
		return -1;
	}
	alloclab_grade_build(in->kind, src, dir, in->settings->build_timeout_s, &b);
	if (why[0] && !b.note[0])
		snprintf(b.note, sizeof b.note, "%.299s", why);
	const char *shown = b.plugin;
	if (strncmp(shown, in->work, strlen(in->work)) == 0)
		shown += strlen(in->work) + 1;
	emit(json_pack("{s:s,s:s,s:o,s:o,s:o,s:o}", "event", "build", "status", b.status, "first_error",
		       alloclab_json_text(b.first_error), "log", alloclab_json_text(b.log ? b.log : ""), "plugin",
		       alloclab_json_text(shown), "note", alloclab_json_text(b.note)));
	int ok = strcmp(b.status, "ok") == 0;
	snprintf(plugin, len, "%s", b.plugin);
	alloclab_grade_build_free(&b);
	return ok ? 0 : -1;
}

/* Each paired process's ratio of the plugin to the reference, from the
 * run's results (read by the one reader). */
static json_t *ratios_of(const char *path, const char *plugin, char *why, size_t why_len)
{
	char err[ALLOCLAB_ERR_LEN];
	struct alloclab_results *r = alloclab_results_load(path, NULL, err, sizeof err);
	if (r == NULL) {
		snprintf(why, why_len, "the run left no results: %.480s", err);
		return NULL;
	}
	json_t *ratios = NULL;
	for (size_t c = 0; c < r->ncells; c++) {
		const struct alloclab_cell *cell = &r->cells[c];
		if (strcmp(r->plugins[cell->plugin_index].spec, plugin) != 0)
			continue;
		if (cell->status != ALLOCLAB_CELL_OK) {
			snprintf(why, why_len, "%s", cell->message ? cell->message : "the measurement failed");
			break;
		}
		ratios = json_array();
		for (unsigned p = 0; p < cell->nprocs; p++)
			if (cell->procs[p].pair_ratio > 0)
				json_array_append_new(ratios, json_real(cell->procs[p].pair_ratio));
	}
	if (ratios == NULL && !why[0])
		snprintf(why, why_len, "the run has no cell of the submission");
	alloclab_results_free(r);
	return ratios;
}

/* Its time over the reference's on churn, side by side, process by
 * process, as an event. */
static void measure(const struct alloclab_grade_inside *in, const char *plugin)
{
	const struct alloclab_grade_settings *s = in->settings;
	/* Large (every cell's plugin and workload): not on the stack. */
	static struct alloclab_run_config cfg;
	char out[4200], why[ALLOCLAB_ERR_LEN] = "";
	const unsigned one = 1;
	snprintf(out, sizeof out, "%s/measure.json", in->work);
	alloclab_run_config_init(&cfg);
	/* The reference in processes of its own: in one process with the
	 * submission, the submission's code could slow it (re-execute the
	 * worker with itself as the C library's malloc, patch the reference's
	 * code) and look faster than it is. */
	cfg.paired = 1;
	cfg.pair_apart = 1;
	cfg.check = ALLOCLAB_CHECK_NONE;
	cfg.processes = s->processes;
	cfg.values = 2;
	cfg.processes_set = cfg.values_set = 1;
	cfg.timeout_s = s->measure_timeout_s;
	cfg.quiet = 1;
	cfg.output = out;
	cfg.argc = in->argc;
	cfg.argv = in->argv;
	int rc = in->workload ? 0 : -1;
	if (rc != 0)
		snprintf(why, sizeof why, "no workload to measure on");
	if (rc == 0)
		rc = alloclab_run_config_add_plugin(&cfg, in->reference, "", NULL, NULL, why, sizeof why);
	if (rc == 0)
		rc = alloclab_run_config_add_plugin(&cfg, plugin, "", NULL, NULL, why, sizeof why);
	if (rc == 0)
		rc = alloclab_run_config_add_workload(&cfg, in->workload, 0, why, sizeof why);
	if (rc == 0)
		rc = alloclab_run_config_threads(&cfg, &one, 1, why, sizeof why);
	if (rc == 0)
		rc = alloclab_run_in_child(&cfg, s->measure_timeout_s, why, sizeof why);
	alloclab_run_config_clear(&cfg);
	json_t *ratios = NULL;
	if (rc >= 0) {
		char said[ALLOCLAB_ERR_LEN];
		snprintf(said, sizeof said, "%s", why);
		why[0] = '\0';
		ratios = ratios_of(out, plugin, why, sizeof why);
		if (ratios == NULL && rc != 0 && said[0])
			snprintf(why, sizeof why, "%s", said);
	}
	if (ratios)
		emit(json_pack("{s:s,s:o}", "event", "measure", "ratios", ratios));
	else
		emit(json_pack("{s:s,s:o}", "event", "measure", "why", alloclab_json_text(why[0] ? why : "the run failed")));
}

int alloclab_grade_inside(const struct alloclab_grade_inside *in)
{
	const struct alloclab_grade_settings *s = in->settings;
	char plugin[4200], err[ALLOCLAB_ERR_LEN], pc[4400];
	const char *old = getenv("PKG_CONFIG_PATH");
	snprintf(pc, sizeof pc, "%s%s%s", alloclab_sdk_pkgconfig_dir(), old && old[0] ? ":" : "", old ? old : "");
	setenv("PKG_CONFIG_PATH", pc, 1);
	/* Out of the submission's reach: its build and its plugin run beside
	 * this process as the same user, and a dumpable process of one's own
	 * user can be attached with ptrace, its memory written, its
	 * descriptors (the events' channel) opened through /proc. A process
	 * that is not dumpable allows none of that without a capability the
	 * sandbox does not give. What it starts by fork (the runner) stays
	 * so; a program it executes (a build, a worker) does not. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	alloclab_catch_interrupts();
	if (strcmp(in->kind, "plugin") == 0)
		snprintf(plugin, sizeof plugin, "%s", in->submission);
	else if (strcmp(in->kind, "built") == 0)
		snprintf(plugin, sizeof plugin, "%s/%s", in->submission, in->plugin ? in->plugin : "");
	else if (build(in, plugin, sizeof plugin) != 0) {
		emit(json_pack("{s:s}", "event", "end"));
		return 0;
	}
	struct alloclab_plugin_arg arg = {.spec = plugin, .options = (char *)""};
	struct alloclab_probe probe;
	if (alloclab_probe_isolated(&arg, s->check_timeout_s, &probe, err, sizeof err) != 0) {
		emit(json_pack("{s:s,s:o}", "event", "load", "why", alloclab_json_text(err)));
		emit(json_pack("{s:s}", "event", "end"));
		return 0;
	}
	alloclab_probe_clear(&probe);
	const char *const *level = alloclab_check_level(s->level);
	int nonly = 0, failed = 0;
	while (level[nonly])
		nonly++;
	/* Cases of a few seconds each; a case that hangs takes what is left
	 * of the deadline they share. */
	json_t *cases = alloclab_check_plugin_within(plugin, "", (char *const *)level, nonly,
						     alloclab_check_level_required(s->level), s->check_timeout_s,
						     s->check_timeout_s, case_event, NULL, &failed);
	json_decref(cases);
	if (failed == 0 && s->measuring && !alloclab_interrupted())
		measure(in, plugin);
	emit(json_pack("{s:s}", "event", "end"));
	return 0;
}

char *alloclab_grade_request_text(const struct alloclab_grade_settings *s, const struct alloclab_grade_inside *in)
{
	json_t *o = json_pack("{s:I,s:s,s:s,s:s,s:s,s:I,s:b,s:f,s:f,s:f}", "level", (json_int_t)s->level, "kind", in->kind,
			      "submission", in->submission, "work", in->work, "reference", in->reference, "processes",
			      (json_int_t)s->processes, "measuring", s->measuring, "build_timeout_s", s->build_timeout_s,
			      "check_timeout_s", s->check_timeout_s, "measure_timeout_s", s->measure_timeout_s);
	if (o && in->plugin)
		json_object_set_new(o, "plugin", json_string(in->plugin));
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return text;
}

/* A string field: 0 with *out, or -1 with err. Absent is allowed only
 * where optional. */
static int request_string(const json_t *o, const char *key, int optional, const char **out, char *err, size_t err_len)
{
	const json_t *v = json_object_get(o, key);
	*out = NULL;
	if (v == NULL && optional)
		return 0;
	if (!json_is_string(v) || json_string_length(v) == 0 || strlen(json_string_value(v)) != json_string_length(v)) {
		snprintf(err, err_len, "the grading request: \"%s\" is not a non-empty string", key);
		return -1;
	}
	*out = json_string_value(v);
	return 0;
}

static int request_number(const json_t *o, const char *key, double min, double max, double *out, char *err,
			  size_t err_len)
{
	const json_t *v = json_object_get(o, key);
	if (!json_is_number(v) || json_number_value(v) < min || json_number_value(v) > max) {
		snprintf(err, err_len, "the grading request: \"%s\" is not a number in [%g, %g]", key, min, max);
		return -1;
	}
	*out = json_number_value(v);
	return 0;
}

int alloclab_grade_request_read(const char *text, struct alloclab_grade_settings *s, struct alloclab_grade_inside *in,
				json_t **held, char *err, size_t err_len)
{
	json_error_t je;
	json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	double level, processes;
	*held = NULL;
	if (!json_is_object(o)) {
		snprintf(err, err_len, "the grading request is not a JSON object: %s", o ? "another value" : je.text);
		json_decref(o);
		return -1;
	}
	const json_t *measuring = json_object_get(o, "measuring");
	int rc = request_string(o, "kind", 0, &in->kind, err, err_len) != 0 ||
		 request_string(o, "submission", 0, &in->submission, err, err_len) != 0 ||
		 request_string(o, "work", 0, &in->work, err, err_len) != 0 ||
		 request_string(o, "reference", 0, &s->reference, err, err_len) != 0 ||
		 request_string(o, "plugin", 1, &in->plugin, err, err_len) != 0 ||
		 request_number(o, "level", 1, ALLOCLAB_CHECK_LEVELS, &level, err, err_len) != 0 ||
		 request_number(o, "processes", 2, 64, &processes, err, err_len) != 0 ||
		 request_number(o, "build_timeout_s", 0.001, 86400, &s->build_timeout_s, err, err_len) != 0 ||
		 request_number(o, "check_timeout_s", 0.001, 86400, &s->check_timeout_s, err, err_len) != 0 ||
		 request_number(o, "measure_timeout_s", 0.001, 86400, &s->measure_timeout_s, err, err_len) != 0
		 ? -1 : 0;
	if (rc == 0 && !json_is_boolean(measuring)) {
		snprintf(err, err_len, "the grading request: \"measuring\" is not true or false");
		rc = -1;
	}
	if (rc == 0 && (level != (unsigned)level || processes != (unsigned)processes)) {
		snprintf(err, err_len, "the grading request: \"level\" and \"processes\" are whole numbers");
		rc = -1;
	}
	if (rc != 0) {
		json_decref(o);
		return -1;
	}
	s->level = (unsigned)level;
	s->processes = (unsigned)processes;
	s->measuring = json_is_true(measuring);
	in->reference = s->reference;
	in->settings = s;
	*held = o;
	return 0;
}
