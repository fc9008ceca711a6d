/*
 * One submission, inside its sandbox: built, loaded, checked, measured,
 * reporting each step as an event. See inside.h.
 */
#define _GNU_SOURCE 1
#include "grade/inside.h"
#include "grade/build.h"
#include "base/json_text.h"
#include "check/check.h"
#include "check/probe.h"
#include "files/self_exe.h"
#include "process/child.h"
#include "process/program.h"
#include "results/results.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	char out[4200], n[16], timeout[32], why[ALLOCLAB_ERR_LEN] = "", said[300], *text = NULL;
	snprintf(out, sizeof out, "%s/measure.json", in->work);
	snprintf(n, sizeof n, "%u", s->processes);
	snprintf(timeout, sizeof timeout, "%g", s->measure_timeout_s);
	char *argv[] = {(char *)alloclab_self_path(), "run", "--paired", "--no-check", "-p", (char *)in->reference,
			"-p", (char *)plugin, "-w", "churn:ops=50000", "-t", "1", "-n", n, "-v", "2", "--timeout",
			timeout, "-q", "-o", out, NULL};
	int rc = alloclab_capture(argv, NULL, s->measure_timeout_s, 1 << 16, &text, why, sizeof why, said, sizeof said);
	free(text);
	json_t *ratios = NULL;
	if (rc >= 0) {
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
