/* The run matrix and its worker processes. See runner.h. */
#define _GNU_SOURCE 1
#include "runner.h"

#include "child.h"
#include "progress.h"
#include "report.h"
#include "results.h"
#include "self_exe.h"
#include "worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void alloclab_plugin_arg_parse(const char *text, struct alloclab_plugin_arg *out)
{
	const char *slash = strrchr(text, '/');
	const char *colon = strchr(slash ? slash : text, ':');

	out->spec = colon ? strndup(text, (size_t)(colon - text)) : strdup(text);
	out->options = strdup(colon ? colon + 1 : "");
}

struct probe_arg {
	const struct alloclab_plugin_arg *plugin;
};

static int probe_child(void *arg, int fd)
{
	const struct probe_arg *p = arg;
	return alloclab_child_send_json(fd, alloclab_worker_probe(p->plugin->spec, p->plugin->options));
}

/*
 * A measuring worker is a freshly executed alloclab, not a bare fork of
 * this process: a fork would start with the parent's heap (for the system
 * plugin, the very allocator under test, already fragmented by the parent's
 * results) and would count the parent's pages in its resident set.
 */
static int measure_child(void *arg, int fd)
{
	char *spec = json_dumps(alloclab_cell_spec_to_json(arg), JSON_COMPACT);
	char *argv[] = {"alloclab", "__worker", spec, NULL};

	if (fd != 3) {
		if (dup2(fd, 3) < 0)
			return 3;
		close(fd);
	}
	execv(alloclab_self_path(), argv);
	/* exec failed: measure in this forked process rather than not at all. */
	return alloclab_child_send_json(3, alloclab_worker_measure(arg));
}

static json_t *child_outcome(const struct alloclab_child_result *res, double timeout_s);

json_t *alloclab_measure_isolated(const struct alloclab_cell_spec *spec, double timeout_s, int *interrupted)
{
	struct alloclab_child_result res;
	char err[ALLOCLAB_ERR_LEN];
	json_t *outcome;

	*interrupted = 0;
	if (alloclab_child_run(measure_child, (void *)spec, timeout_s, &res, err, sizeof err) != 0)
		return json_pack("{s:s}", "error", err);
	if (res.interrupted) {
		*interrupted = 1;
		alloclab_child_result_free(&res);
		return json_pack("{s:s}", "error", "interrupted");
	}
	outcome = child_outcome(&res, timeout_s);
	if (!json_object_get(outcome, "error"))
		json_object_set_new(outcome, "elapsed_s", json_real(res.elapsed_s));
	alloclab_child_result_free(&res);
	return outcome;
}

/* Parses a child's output. A child that exited 0 or 1 wrote an object; any
 * other fate is described from how it ended. Returns the object (with
 * "error" set on failure); never NULL. */
static json_t *child_outcome(const struct alloclab_child_result *res, double timeout_s)
{
	char why[512];
	json_t *obj;

	if (res->exited && (res->exit_code == 0 || res->exit_code == 1)) {
		obj = json_loads(res->output, 0, NULL);
		if (json_is_object(obj))
			return obj;
		json_decref(obj);
		snprintf(why, sizeof why, "worker exited with status %d but wrote no result", res->exit_code);
		return json_pack("{s:s}", "error", why);
	}
	alloclab_child_describe(res, timeout_s, why, sizeof why);
	return json_pack("{s:s}", "error", why);
}

static const char *applicability(const json_t *plugin_info, const struct alloclab_workload *w, unsigned threads)
{
	int thread_safe = 0, cross = 0, realloc_ok = 0;
	json_t *cap;
	size_t i;

	json_array_foreach(json_object_get(plugin_info, "caps"), i, cap)
	{
		const char *c = json_string_value(cap);
		thread_safe |= strcmp(c, "thread-safe") == 0;
		cross |= strcmp(c, "cross-thread-free") == 0;
		realloc_ok |= strcmp(c, "realloc") == 0;
	}
	if (threads > 1 && !thread_safe)
		return "plugin is not thread-safe: runs with 1 thread only";
	if ((w->flags & ALLOCLAB_WORKLOAD_CROSS_THREAD_FREE) && !cross)
		return "workload frees across threads; plugin does not declare cross-thread-free";
	if ((w->flags & ALLOCLAB_WORKLOAD_NEEDS_REALLOC) && !realloc_ok)
		return "workload needs realloc; plugin does not offer it";
	return NULL;
}

struct cell {
	struct alloclab_cell_spec spec;
	unsigned processes;
	json_t *json; /* borrowed from the document's cells array */
	int failed;
};

json_t *alloclab_params_json(const struct alloclab_workload *w, const struct alloclab_params *params)
{
	json_t *obj = json_object();
	for (unsigned i = 0; i < w->nparams; i++) {
		char text[4096];
		if (w->params[i].type == ALLOCLAB_PARAM_NUMBER) {
			json_object_set_new(obj, w->params[i].name, json_integer((json_int_t)params->v[i]));
		} else {
			alloclab_param_format(w, params, i, text, sizeof text);
			json_object_set_new(obj, w->params[i].name, json_string(text));
		}
	}
	return obj;
}

/* Adds the headline figure to each value: the time one thread takes per
 * operation, wall time x threads / all threads' operations. */
static void add_ns_per_op(json_t *values, unsigned threads)
{
	json_t *v;
	size_t i;

	json_array_foreach(values, i, v)
	{
		json_t *ops = json_object_get(v, "thread_ops"), *o;
		size_t k;
		double total = 0;
		json_array_foreach(ops, k, o) total += (double)json_integer_value(o);
		double wall = (double)json_integer_value(json_object_get(v, "wall_ns"));
		json_object_set_new(v, "ns_per_op", json_real(total > 0 ? wall * threads / total : 0));
	}
}

static int probe_plugins(const struct alloclab_run_config *cfg, json_t *plugins)
{
	for (unsigned i = 0; i < cfg->nplugins; i++) {
		struct probe_arg arg = {&cfg->plugins[i]};
		struct alloclab_child_result res;
		char err[ALLOCLAB_ERR_LEN];
		json_t *info;

		if (alloclab_child_run(probe_child, &arg, cfg->timeout_s, &res, err, sizeof err) != 0) {
			fprintf(stderr, "alloclab: %s\n", err);
			return -1;
		}
		info = child_outcome(&res, cfg->timeout_s);
		alloclab_child_result_free(&res);
		if (json_object_get(info, "error")) {
			const char *why = json_string_value(json_object_get(info, "error"));
			if (strchr(cfg->plugins[i].spec, '/') || strstr(why, cfg->plugins[i].spec))
				fprintf(stderr, "alloclab: %s\n", why);
			else
				fprintf(stderr, "alloclab: plugin '%s': %s\n", cfg->plugins[i].spec, why);
			json_decref(info);
			return -1;
		}
		json_object_set_new(info, "spec", json_string(cfg->plugins[i].spec));
		json_object_set_new(info, "options", json_string(cfg->plugins[i].options));
		json_array_append_new(plugins, info);
	}
	return 0;
}

static void default_output(char *out, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	char stamp[32];

	localtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	snprintf(out, len, "alloclab-results/run-%s.json", stamp);
}

int alloclab_run(const struct alloclab_run_config *cfg)
{
	char output[4096], err[ALLOCLAB_ERR_LEN];
	json_t *doc, *plugins = json_array(), *cells_json = json_array();
	unsigned aligns = (cfg->cache_align & 1u) + ((cfg->cache_align >> 1) & 1u);
	unsigned ncells = cfg->nplugins * aligns * cfg->nworkloads * cfg->nthreads, failed = 0;
	struct cell *cells = calloc(ncells, sizeof *cells);
	struct alloclab_progress progress;
	int status = ALLOCLAB_EXIT_OK;
	unsigned max_processes = 0, total_workers = 0;

	if (cfg->output)
		snprintf(output, sizeof output, "%s", cfg->output);
	else
		default_output(output, sizeof output);
	alloclab_catch_interrupts();
	if (probe_plugins(cfg, plugins) != 0) {
		free(cells);
		json_decref(plugins);
		json_decref(cells_json);
		return alloclab_interrupted() ? ALLOCLAB_EXIT_INTERRUPTED : ALLOCLAB_EXIT_USAGE;
	}

	doc = json_pack("{s:s,s:i,s:o,s:{s:i,s:i,s:i,s:f,s:b,s:s},s:o,s:o,s:b}", "format", ALLOCLAB_RESULTS_FORMAT,
			"format_version", ALLOCLAB_RESULTS_VERSION, "metadata", alloclab_metadata(cfg->argc, cfg->argv),
			"config", "processes", cfg->processes, "values", cfg->values, "warmups", cfg->warmups,
			"timeout_s", cfg->timeout_s, "pin", cfg->pin, "cache_align",
			cfg->cache_align == 3 ? "both" : cfg->cache_align == 2 ? "on" : "off", "plugins", plugins, "cells", cells_json,
			"interrupted", 0);

	unsigned k = 0;
	for (unsigned p = 0; p < cfg->nplugins; p++)
		for (unsigned al = 0; al < 2; al++)
		for (unsigned w = 0; w < cfg->nworkloads; w++)
			for (unsigned t = 0; t < cfg->nthreads; t++) {
				if (!(cfg->cache_align & (1u << al)))
					continue;
				const struct alloclab_workload *wl = cfg->workloads[w].workload;
				json_t *info = json_array_get(plugins, p);
				const char *na = applicability(info, wl, cfg->threads[t]);
				struct cell *c = &cells[k++];

				c->spec.plugin = cfg->plugins[p].spec;
				c->spec.cache_align = al;
				c->spec.plugin_options = cfg->plugins[p].options;
				c->spec.workload = wl;
				c->spec.params = cfg->workloads[w].params;
				c->spec.threads = cfg->threads[t];
				c->spec.warmups = cfg->warmups_set || !wl->default_warmups ? cfg->warmups : wl->default_warmups;
				c->spec.values = cfg->values_set || !wl->default_values ? cfg->values : wl->default_values;
				c->processes = cfg->processes_set || !wl->default_processes ? cfg->processes
											     : wl->default_processes;
				if (c->processes > max_processes)
					max_processes = c->processes;
				c->spec.pin = cfg->pin;
				c->json = json_pack("{s:s,s:s,s:i,s:s,s:o,s:i,s:s,s:s,s:s,s:[]}", "plugin",
						    json_string_value(json_object_get(info, "name")), "plugin_options",
						    cfg->plugins[p].options, "plugin_index", p,
						    "workload", wl->name, "params", alloclab_params_json(wl, &c->spec.params),
						    "threads", cfg->threads[t], "metric", "ns_per_op", "unit_op",
						    wl->unit_op, "status", na ? "not applicable" : "pending", "runs");
				json_object_set_new(c->json, "cache_aligned", json_boolean(al));
				if (na)
					json_object_set_new(c->json, "reason", json_string(na));
				else
					total_workers += c->processes;
				c->failed = na != NULL;
				json_array_append_new(cells_json, c->json);
			}

	alloclab_progress_start(&progress, total_workers);
	for (unsigned round = 0; round < max_processes && !alloclab_interrupted(); round++) {
		for (k = 0; k < ncells && !alloclab_interrupted(); k++) {
			struct cell *c = &cells[k];
			char label[256];
			json_t *outcome;

			if (c->failed || round >= c->processes)
				continue;
			snprintf(label, sizeof label, "%s%s%s%s %s threads=%u process %u/%u",
				 json_string_value(json_object_get(c->json, "plugin")), c->spec.plugin_options[0] ? ":" : "",
				 c->spec.plugin_options, c->spec.cache_align ? " +align" : "", c->spec.workload->name,
				 c->spec.threads, round + 1, c->processes);
			alloclab_progress_show(&progress, label);
			int interrupted;
			outcome = alloclab_measure_isolated(&c->spec, cfg->timeout_s, &interrupted);
			if (interrupted) {
				json_decref(outcome);
				break;
			}
			if (json_object_get(outcome, "error")) {
				char line[ALLOCLAB_ERR_LEN * 2];
				snprintf(line, sizeof line, "process %u: %s", round + 1,
					 json_string_value(json_object_get(outcome, "error")));
				json_object_set_new(c->json, "status", json_string("error"));
				json_object_set_new(c->json, "error", json_string(line));
				c->failed = 1;
				failed++;
				json_decref(outcome);
			} else {
				add_ns_per_op(json_object_get(outcome, "warmups"), c->spec.threads);
				add_ns_per_op(json_object_get(outcome, "values"), c->spec.threads);
				json_object_set_new(outcome, "process", json_integer(round));
				json_array_append_new(json_object_get(c->json, "runs"), outcome);
				if (round + 1 == c->processes)
					json_object_set_new(c->json, "status", json_string("ok"));
			}
			alloclab_progress_step(&progress);
			if (alloclab_results_write(doc, output, err, sizeof err) != 0) {
				alloclab_progress_end(&progress);
				fprintf(stderr, "alloclab: %s\n", err);
				status = ALLOCLAB_EXIT_USAGE;
				goto out;
			}
		}
	}
	alloclab_progress_end(&progress);
	if (alloclab_interrupted()) {
		json_object_set_new(doc, "interrupted", json_true());
		status = ALLOCLAB_EXIT_INTERRUPTED;
	} else if (failed) {
		status = ALLOCLAB_EXIT_CELL_FAILED;
	}
	if (alloclab_results_write(doc, output, err, sizeof err) != 0) {
		fprintf(stderr, "alloclab: %s\n", err);
		status = ALLOCLAB_EXIT_USAGE;
		goto out;
	}
	if (!cfg->quiet)
		alloclab_report_print(doc, stdout, !cfg->brief);
	if (status == ALLOCLAB_EXIT_INTERRUPTED)
		fprintf(stderr, "alloclab: interrupted; the cells finished so far are in %s\n", output);
	else if (cfg->brief && !cfg->quiet)
		printf("\nresults: %s (all reports, with the unicode workload's seed lines: alloclab show %s)\n", output,
		       output);
	else
		printf("\nresults: %s\n", output);
out:
	json_decref(doc);
	free(cells);
	return status;
}
