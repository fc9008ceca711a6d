/*
 * Running the conformance cases of one plugin (check.h), each in a child
 * process of its own with a deadline: what `alloclab check` prints and what
 * `alloclab run`'s pre-flight records. See check.h.
 */
#define _GNU_SOURCE 1
#include "check/check.h"
#include "base/clock.h"

#include "process/child.h"
#include "plugin/loader.h"
#include "base/json_text.h"
#include "base/shell_word.h"
#include "files/self_exe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct case_arg {
	const char *spec, *options;
	const struct alloclab_check_case *c;
};

/* The differences from glibc a case's process reported (check.h), into
 * entry: what that process says is the plugin's to forge, so only an
 * array of at most ALLOCLAB_CHECK_DIFFERS texts, each cut to
 * ALLOCLAB_CHECK_DIFFER_LEN bytes, is taken. */
static void copy_differs(const json_t *out, json_t *entry)
{
	const json_t *differs = json_object_get(out, "differs");
	json_t *taken = json_array();
	size_t k;
	const json_t *d;

	if (!json_is_array(differs) || taken == NULL) {
		json_decref(taken);
		return;
	}
	json_array_foreach(differs, k, d)
	{
		char text[ALLOCLAB_CHECK_DIFFER_LEN];
		if (k >= ALLOCLAB_CHECK_DIFFERS || !json_is_string(d))
			break;
		snprintf(text, sizeof text, "%s", json_string_value(d));
		json_array_append_new(taken, alloclab_json_text(text));
	}
	if (json_array_size(taken))
		json_object_set_new(entry, "differs", taken);
	else
		json_decref(taken);
}

static int case_child(void *arg, int fd)
{
	const struct case_arg *ca = arg;
	struct alloclab_loaded_plugin p;
	struct alloclab_allocator a;
	struct alloclab_check_result r;
	char err[ALLOCLAB_ERR_LEN];
	const char *step = "load";
	json_t *out;

	alloclab_phase("load");
	if (alloclab_plugin_load(ca->spec, &p, err, sizeof err) != 0 ||
	    (alloclab_phase(step = "create"), alloclab_allocator_create(&a, &p, ca->options, err, sizeof err)) != 0) {
		r.status = ALLOCLAB_CHECK_FAIL;
		snprintf(r.why, sizeof r.why, "%s", err);
		out = json_pack("{s:s,s:o,s:s}", "status", "fail", "why", alloclab_json_text(r.why), "step", step);
		return alloclab_child_send_json(fd, out);
	}
	alloclab_check_run_case(ca->c, &a, &r);
	alloclab_phase("destroy");
	alloclab_allocator_destroy(&a);
	alloclab_phase("exit");
	out = json_pack("{s:s,s:o}", "status",
			r.status == ALLOCLAB_CHECK_PASS ? "pass" : r.status == ALLOCLAB_CHECK_SKIP ? "skip" : "fail", "why",
			alloclab_json_text(r.why));
	if (r.ndiffers) {
		json_t *differs = json_array();
		for (unsigned k = 0; k < r.ndiffers && k < ALLOCLAB_CHECK_DIFFERS; k++)
			json_array_append_new(differs, alloclab_json_text(r.differs[k]));
		json_object_set_new(out, "differs", differs);
	}
	return alloclab_child_send_json(fd, out);
}

/* The command that runs one case alone, for a debugger or valgrind:
 * "ALLOCLAB check --case NAME SPEC[:OPTIONS]", each word quoted. */
static void repro_command(const char *spec, const char *options, const char *name, char *out, size_t len)
{
	char *text = NULL, word[4200];
	size_t text_len = 0;
	FILE *f = open_memstream(&text, &text_len);
	if (f == NULL) {
		snprintf(out, len, "alloclab check --case %s", name);
		return;
	}
	alloclab_shell_word(f, alloclab_self_path());
	fprintf(f, " check --case %s ", name);
	snprintf(word, sizeof word, "%s%s%s", spec, options && options[0] ? ":" : "", options ? options : "");
	alloclab_shell_word(f, word);
	fclose(f);
	snprintf(out, len, "%s", text ? text : "");
	free(text);
}

/* The cases whose failures may be races between threads, which a run
 * alone may not show again. */
static int threaded_case(const char *name)
{
	return strcmp(name, "threads") == 0 || strcmp(name, "cross-thread") == 0 || strcmp(name, "thread-lifecycle") == 0;
}

/* The steps every case goes through: when one crashes or hangs there, the
 * other cases would only do the same. */
static int shared_step(const char *step)
{
	return strcmp(step, "load") == 0 || strcmp(step, "create") == 0 || strcmp(step, "thread_attach") == 0 ||
	       strcmp(step, "thread_detach") == 0 || strcmp(step, "destroy") == 0;
}

static int wanted(const struct alloclab_check_case *c, char *const *only, int nonly)
{
	const char *name = c->name;
	if (nonly == 0)
		return !c->course_only;
	for (int i = 0; i < nonly; i++)
		if (strcmp(only[i], name) == 0)
			return 1;
	return 0;
}

json_t *alloclab_check_plugin(const char *spec, const char *options, char *const *only, int nonly,
			      const char *const *required, double timeout,
			      void (*progress)(const json_t *record, void *arg), void *arg, int *failed)
{
	return alloclab_check_plugin_within(spec, options, only, nonly, required, timeout, 0, progress, arg, failed);
}

json_t *alloclab_check_plugin_within(const char *spec, const char *options, char *const *only, int nonly,
				     const char *const *required, double timeout, double budget_s,
				     void (*progress)(const json_t *record, void *arg), void *arg, int *failed)
{
	json_t *cases = json_array();
	char stopped[700] = "";
	double until = alloclab_now_s() + budget_s;

	*failed = 0;
	for (size_t i = 0; alloclab_check_cases[i].name && !alloclab_interrupted(); i++) {
		const struct alloclab_check_case *c = &alloclab_check_cases[i];
		struct case_arg ca = {spec, options, c};
		struct alloclab_child_result res;
		char why[2400], step[64], err[ALLOCLAB_ERR_LEN];
		const char *status;
		json_t *out = NULL, *entry;

		if (!wanted(c, only, nonly))
			continue;
		/* One deadline for all the cases: what a case that hangs takes
		 * is taken from the rest. */
		double left = budget_s > 0 ? until - alloclab_now_s() : timeout;
		if (budget_s > 0 && left < 0.5 && !stopped[0])
			snprintf(stopped, sizeof stopped, "not run: the %g s the cases are given together ran out", budget_s);
		if (left < timeout)
			timeout = left > 0.5 ? left : 0.5;
		if (stopped[0]) {
			/* A shared step failed: every other case would too. */
			entry = json_pack("{s:s,s:s,s:o}", "case", c->name, "status", "not run", "why",
					  alloclab_json_text(stopped));
			if (progress)
				progress(entry, arg);
			json_array_append_new(cases, entry);
			continue;
		}
		if (alloclab_child_run(case_child, &ca, timeout, &res, err, sizeof err) != 0) {
			entry = json_pack("{s:s,s:s,s:o}", "case", c->name, "status", "fail", "why", alloclab_json_text(err));
			(*failed)++;
			if (progress)
				progress(entry, arg);
			json_array_append_new(cases, entry);
			break;
		}
		snprintf(step, sizeof step, "%s", res.phase);
		if (res.exited && res.exit_code <= 1 && !res.flooded)
			out = json_loads(res.output, 0, NULL);
		if (json_is_string(json_object_get(out, "status")) && json_is_string(json_object_get(out, "why"))) {
			status = json_string_value(json_object_get(out, "status"));
			snprintf(why, sizeof why, "%s", json_string_value(json_object_get(out, "why")));
			if (json_is_string(json_object_get(out, "step"))) {
				/* The plugin cannot be loaded or created. */
				snprintf(step, sizeof step, "%s", json_string_value(json_object_get(out, "step")));
				snprintf(stopped, sizeof stopped, "not run: %s failed in case %s", step, c->name);
			}
		} else {
			char how[256];
			alloclab_child_describe(&res, timeout, how, sizeof how);
			status = "fail";
			char again[600];
			repro_command(spec, options, c->name, again, sizeof again);
			snprintf(why, sizeof why, "plugin %s: the case's process %s; alone: %s (under valgrind: valgrind "
						  "--trace-children=yes %s)%s", spec, how, again, again,
				 threaded_case(c->name) ? "; a race may need several runs to show again: repeat it until it fails"
							: "");
			if (shared_step(step))
				snprintf(stopped, sizeof stopped, "not run: %s %s in case %s", step,
					 res.timed_out ? "hung" : "failed", c->name);
		}
		/* At a course level, a case the step is to make hold may not be
		 * skipped. */
		int is_required = 0;
		for (const char *const *q = required; q && *q; q++)
			is_required |= strcmp(*q, c->name) == 0;
		if (is_required && strcmp(status, "skip") == 0) {
			char skipped[sizeof why];
			snprintf(skipped, sizeof skipped, "%s", why);
			snprintf(why, sizeof why, "this level requires it, and it was skipped: %.2000s", skipped);
			status = "fail";
		}
		*failed += strcmp(status, "fail") == 0;
		entry = json_pack("{s:s,s:s,s:o}", "case", c->name, "status", status, "why", alloclab_json_text(why));
		copy_differs(out, entry);
		if (res.printed_len) {
			/* The plugin's own chatter: kept and flagged, never mixed
			 * into alloclab's output. */
			char *printed = alloclab_child_printed(&res);
			json_object_set_new(entry, "plugin_output", alloclab_json_text(printed));
			free(printed);
		}
		if (progress)
			progress(entry, arg);
		json_array_append_new(cases, entry);
		json_decref(out);
		alloclab_child_result_free(&res);
	}
	return cases;
}
