/* What a supervised worker's end means, in words. See child.h. */
#define _GNU_SOURCE 1
#include "process/child.h"
#include "base/json_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The steps a worker marks in which the plugin's own code runs, with what
 * each is in words: a crash or hang there is the plugin's, named as such. */
static const char *plugin_step(const char *phase)
{
	static const char *const steps[][2] = {
		{"load", "while being loaded (dlopen or its constructors)"},
		{"entry", "in its entry function (alloclab_plugin_entry)"},
		{"create", "in create"},
		{"thread_attach", "in thread_attach"},               {"thread_detach", "in thread_detach"},
		{"stats", "in stats"},                               {"destroy", "in destroy"},
		{"trim", "in trim"},
	};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
		if (strcmp(phase, steps[i][0]) == 0)
			return steps[i][1];
	return NULL;
}

/* The step a failure happened in, in words, when it is the plugin's: one
 * of its own steps (plugin_step), or in a paired worker any step the
 * member marked as its own (its prepare, its value, its finish: whatever
 * ran, ran for it), with the value or warm-up. NULL otherwise. */
static const char *blamed_step(const struct alloclab_child_result *res, char *buf, size_t len)
{
	const char *own = plugin_step(res->phase);
	if (own || res->member <= 0 || res->phase[0] == '\0')
		return own;
	if (res->round > 0)
		snprintf(buf, len, "in %s of value %d", res->phase, res->round);
	else if (res->round < 0)
		snprintf(buf, len, "in %s of warm-up %d", res->phase, -res->round);
	else
		snprintf(buf, len, "in %s", res->phase);
	return buf;
}

json_t *alloclab_child_answer(const struct alloclab_child_result *res, const char *plugin, double timeout_s,
			    int *not_applicable, char *err, size_t err_len)
{
	json_t *obj;
	char words[96];

	/* A child the supervisor ended (deadline, memory, flood, interrupt)
	 * is described by that; what its group still held then was ended with
	 * it and is no stray of its own. */
	const int ended_by_us = res->timed_out || res->over_memory || res->flooded || res->interrupted;
	if (res->strays && !ended_by_us) {
		snprintf(err, err_len,
			 "the worker left %u process%s of its own running when it ended (a plugin that forks, or a "
			 "program's daemon?): killed, and the measurement not kept, for it ran beside it",
			 res->strays, res->strays == 1 ? "" : "es");
		return NULL;
	}
	if (res->exited && strcmp(res->phase, ALLOCLAB_PHASE_ANSWER_CLOSED) == 0) {
		snprintf(err, err_len, "%s%s%sclosed the worker's descriptors, so its answer could not be sent (a plugin "
			 "must close only descriptors it opened)", plugin ? "plugin '" : "", plugin ? plugin : "",
			 plugin ? "' " : "something in the worker ");
		return NULL;
	}
	if (res->exited && !res->flooded && (res->exit_code == 0 || res->exit_code == 1)) {
		obj = json_loads(res->output, JSON_REJECT_DUPLICATES, NULL);
		if (json_is_object(obj)) {
			json_t *e = json_object_get(obj, "error");
			if (e == NULL)
				return obj;
			snprintf(err, err_len, "%s", json_is_string(e) ? json_string_value(e) : "failed without saying why");
			/* A child's words are one line shown as they are. */
			alloclab_text_make_line(err);
			*not_applicable = json_is_true(json_object_get(obj, "not_applicable"));
		} else if (plugin && blamed_step(res, words, sizeof words)) {
			/* exit() in a constructor or an op: the plugin's doing. */
			snprintf(err, err_len, "plugin '%s' ended the worker (exit status %d) %s, before it could answer",
				 plugin, res->exit_code, blamed_step(res, words, sizeof words));
		} else {
			snprintf(err, err_len,
				 "worker exited with status %d but wrote no result (something in it ended the process%s%s)",
				 res->exit_code, res->phase[0] ? " in " : "", res->phase);
		}
		json_decref(obj);
		return NULL;
	}
	const char *step = plugin && !res->interrupted ? blamed_step(res, words, sizeof words) : NULL;
	if (step) {
		struct alloclab_child_result unmarked = *res;
		char how[256];
		unmarked.phase[0] = '\0';
		alloclab_child_describe(&unmarked, timeout_s, how, sizeof how);
		snprintf(err, err_len, "plugin '%s' %s %s", plugin, how, step);
	} else {
		alloclab_child_describe(res, timeout_s, err, err_len);
	}
	return NULL;
}

void alloclab_child_add_printed(const struct alloclab_child_result *res, char *err, size_t err_len)
{
	char *printed = alloclab_child_printed(res);
	if (printed) {
		size_t used = strlen(err);
		snprintf(err + used, err_len - used, " (it printed: %.200s)", printed);
		free(printed);
	}
}
