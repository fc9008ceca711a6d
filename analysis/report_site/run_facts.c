/* The head of a run's page. See run_facts.h. */
#define _GNU_SOURCE 1
#include "run_facts.h"
#include "html.h"

#include "base/shell_word.h"
#include "figures/cell_values.h"

#include <stdlib.h>
#include <string.h>

/* What a page shows of one text from a file, and of a command line in
 * its card: the rest is in the run's raw values, one click away. */
#define SHOWN_VALUE_BYTES 4096
#define SHOWN_COMMAND_BYTES 512
#define SHOWN_COMMAND_WHOLE_BYTES (16 * 1024)

void alloclab_json_value_text(FILE *f, const json_t *v)
{
	if (json_is_string(v)) {
		alloclab_html_text_max(f, json_string_value(v), SHOWN_VALUE_BYTES);
		return;
	}
	char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
	alloclab_html_text_max(f, text ? text : "?", SHOWN_VALUE_BYTES);
	free(text);
}

static void fact(FILE *f, const char *name, const char *value)
{
	fputs("<dt>", f);
	alloclab_html_text(f, name);
	fputs("</dt><dd>", f);
	alloclab_html_text(f, value ? value : "unknown");
	fputs("</dd>", f);
}

static void load_text(double start, double end, char *out, size_t len)
{
	if (start < 0 && end < 0)
		snprintf(out, len, "unknown");
	else if (end < 0)
		snprintf(out, len, "%.2f at the start", start);
	else
		snprintf(out, len, "%.2f at the start, %.2f at the end", start, end);
}

/* The title and a line of what the run holds. */
static void headline(FILE *f, const struct alloclab_results *r, const char *source)
{
	unsigned ok = 0, failed = 0, pending = 0, threads_max = 0;
	for (unsigned i = 0; i < r->ncells; i++) {
		ok += r->cells[i].status == ALLOCLAB_CELL_OK;
		failed += r->cells[i].status == ALLOCLAB_CELL_ERROR;
		pending += r->cells[i].status == ALLOCLAB_CELL_PENDING;
		threads_max = r->cells[i].threads > threads_max ? r->cells[i].threads : threads_max;
	}
	fputs("<h1>", f);
	alloclab_html_printf(f, "Run of %s on %s", r->facts.date ? r->facts.date : "an unknown date",
			     r->facts.host ? r->facts.host : "an unknown host");
	fputs("</h1>\n<p class=\"lead\">", f);
	alloclab_html_printf(f, "%u cells of %u plugins, up to %u threads: %u measured whole, %u failed, %u not "
				"finished. %s: ",
			     r->ncells, r->nplugins, threads_max, ok, failed, pending,
			     r->ncells && alloclab_metric_deterministic(r->cells[0].metric)
				     ? "Instructions per operation, counted by callgrind"
				     : "Time per operation");
	alloclab_html_text(f, source);
	fputs(".</p>\n", f);
	if (r->interrupted || !r->complete)
		fputs("<p class=\"note bad\">This run was interrupted: cells marked partial or not measured hold fewer "
		      "processes than planned, and their figures say less than a whole run's.</p>\n",
		      f);
}

static void machine_card(FILE *f, const struct alloclab_results *r)
{
	char text[256];
	fputs("<div class=\"card\"><h3>Where</h3><dl>", f);
	fact(f, "host", r->facts.host);
	fact(f, "CPU", r->facts.cpu_model);
	if (r->facts.cpus_allowed > 0)
		snprintf(text, sizeof text, "%d", r->facts.cpus_allowed);
	fact(f, "CPUs allowed", r->facts.cpus_allowed > 0 ? text : NULL);
	fact(f, "kernel", r->facts.kernel);
	load_text(r->facts.load_start, r->facts.load_end, text, sizeof text);
	fact(f, "load average", text);
	/* What the run's note and plot's LOADED MACHINE are made of: other
	 * work measured while the run ran, not the load average (which counts
	 * the run's own workers). */
	if (r->facts.other_cpus_peak >= 0)
		snprintf(text, sizeof text, "%.2f CPUs on average (%.2f of them stolen by the host), up to %.2f",
			 r->facts.other_cpus_mean + r->facts.stolen_cpus_mean, r->facts.stolen_cpus_mean,
			 r->facts.other_cpus_peak);
	fact(f, "other processes took", r->facts.other_cpus_peak >= 0 ? text : "not recorded");
	/* What a page fault costs here: a ratio that faults explain on this
	 * machine may not hold on another. */
	if (r->facts.page_fault_ns > 0)
		snprintf(text, sizeof text, "%.1f us of CPU (probed at the run's start)", r->facts.page_fault_ns / 1000);
	fact(f, "a first-touch page fault", r->facts.page_fault_ns > 0 ? text : "not recorded");
	char env[2048];
	if (alloclab_results_env_text(r, env, sizeof env))
		fact(f, "allocator settings", env);
	else
		fact(f, "allocator settings", r->facts.allocator_env ? "none in the environment" : "not recorded");
	fputs("</dl></div>\n", f);
}

static void run_card(FILE *f, const struct alloclab_results *r)
{
	char text[64];
	fputs("<div class=\"card\"><h3>When and by what</h3><dl>", f);
	fact(f, "date", r->facts.date);
	fact(f, "alloclab", r->facts.alloclab_version);
	snprintf(text, sizeof text, "%llu", (unsigned long long)r->facts.order_seed);
	fact(f, "cells' order seed", r->facts.order_seed ? text : NULL);
	if (r->facts.shard_count) {
		snprintf(text, sizeof text, "%u of %u", r->facts.shard_index, r->facts.shard_count);
		fact(f, "shard", text);
	}
	if (r->facts.npair) {
		fputs("<dt>paired</dt><dd>", f);
		for (unsigned i = 0; i < r->facts.npair; i++) {
			fputs(i ? ", " : "", f);
			alloclab_html_text(f, r->facts.pair_plugins[i]);
		}
		fputs(" (the first the reference)</dd>", f);
	}
	fputs("</dl></div>\n", f);
	const json_t *cmd = alloclab_results_command(r);
	if (cmd) {
		char *line = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&line, &len);
		size_t i;
		json_t *word;
		json_array_foreach(cmd, i, word) {
			fputs(i ? " " : "", m);
			alloclab_shell_word(m, json_string_value(word) ? json_string_value(word) : "");
		}
		fclose(m);
		fputs("<div class=\"card\"><h3>Command</h3><code>", f);
		int cut = alloclab_html_text_max(f, line, SHOWN_COMMAND_BYTES);
		fputs("</code>", f);
		if (cut) {
			fputs("<details><summary>", f);
			alloclab_html_printf(f, "The whole command (%zu bytes)", len);
			fputs("</summary><code>", f);
			alloclab_html_text_max(f, line, SHOWN_COMMAND_WHOLE_BYTES);
			fputs("</code></details>", f);
		}
		fputs("</div>\n", f);
		free(line);
	}
}

/* Every key of an object as the file has it. */
static void generic(FILE *f, const char *title, const json_t *obj)
{
	const char *key;
	json_t *v;
	fputs("<div class=\"card\"><h3>", f);
	alloclab_html_text(f, title);
	fputs("</h3><dl>", f);
	json_object_foreach((json_t *)obj, key, v) {
		fputs("<dt>", f);
		alloclab_html_text(f, key);
		fputs("</dt><dd>", f);
		alloclab_json_value_text(f, v);
		fputs("</dd>", f);
	}
	fputs("</dl></div>", f);
}

/* What each plugin is, and what alloclab check said of it. */
static void plugins_table(FILE *f, const struct alloclab_results *r)
{
	fputs("<h2 id=\"plugins\">Plugins</h2>\n<div class=\"table-wrap\"><table class=\"sortable plugins\"><thead><tr>"
	      "<th>label</th><th>name</th><th>version</th><th>file</th><th>SHA-256</th><th>source</th><th>check</th>"
	      "</tr></thead><tbody>\n",
	      f);
	for (unsigned i = 0; i < r->nplugins; i++) {
		const struct alloclab_plugin_info *p = &r->plugins[i];
		fputs("<tr><td class=\"label\">", f);
		alloclab_html_text(f, p->label);
		fputs("</td>", f);
		alloclab_html_cell(f, p->name);
		alloclab_html_cell(f, p->version);
		fputs("<td class=\"mono\">", f);
		alloclab_html_text(f, p->path);
		fputs("</td><td class=\"mono\">", f);
		alloclab_html_printf(f, "%.12s", p->sha256 ? p->sha256 : "unknown");
		fputs("</td><td class=\"mono\">", f);
		alloclab_html_printf(f, "%.12s%s", p->source_commit ? p->source_commit : "unknown",
				     p->source_dirty > 0 ? " (dirty)" : "");
		fputs("</td><td>", f);
		size_t k;
		json_t *c;
		if (p->check == NULL)
			fputs("not checked", f);
		else if (json_array_size(p->check) == 0)
			fputs("passed", f);
		json_array_foreach(p->check, k, c) {
			fputs(k ? "; " : "<span class=\"verdict failed\">fails</span> ", f);
			alloclab_html_printf(f, "%s: %s", json_string_value(json_object_get(c, "case")),
					     json_string_value(json_object_get(c, "why")));
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

/* What plugins printed while measured: their figures may include it. */
static void plugin_notes(FILE *f, const struct alloclab_results *r)
{
	for (unsigned i = 0; i < r->ncells; i++)
		for (unsigned p = 0; p < r->cells[i].nprocs; p++)
			if (r->cells[i].procs[p].plugin_output) {
				char label[512];
				alloclab_cell_label(&r->cells[i], label, sizeof label);
				fputs("<p class=\"note\">", f);
				alloclab_html_printf(f, "Plugin %s printed while measured (%s, %u thread%s): %.300s", label,
						     r->cells[i].workload, r->cells[i].threads, r->cells[i].threads == 1 ? "" : "s",
						     r->cells[i].procs[p].plugin_output);
				fputs("</p>\n", f);
				break;
			}
}

void alloclab_run_facts_write(FILE *f, const struct alloclab_results *r, const char *source)
{
	headline(f, r, source);
	fputs("<div class=\"facts\">\n", f);
	machine_card(f, r);
	run_card(f, r);
	fputs("</div>\n", f);
	plugin_notes(f, r);
	fputs("<details><summary>Everything the file records of the run</summary><div class=\"facts\">", f);
	generic(f, "metadata", r->metadata);
	generic(f, "plan (config)", r->config);
	fputs("</div></details>\n", f);
}

void alloclab_run_plugins_write(FILE *f, const struct alloclab_results *r)
{
	plugins_table(f, r);
}
