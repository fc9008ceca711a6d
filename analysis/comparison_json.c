/* A comparison as JSON. See comparison_json.h. */
#include "comparison_json.h"
#include "base/json_text.h"

static const char *status_text(enum alloclab_entry_status s)
{
	return s == ALLOCLAB_ENTRY_ERROR ? "error" : s == ALLOCLAB_ENTRY_NOT_APPLICABLE ? "not applicable" : "not measured";
}

static json_t *entry_json(const struct alloclab_comparison_entry *e)
{
	if (e->status == ALLOCLAB_ENTRY_ABSENT)
		return json_null();
	if (e->status != ALLOCLAB_ENTRY_MEASURED)
		return json_pack("{s:s,s:s?}", "status", status_text(e->status), "message", e->message);
	json_t *warnings = json_array();
	for (size_t w = 0; w < e->nwarnings; w++)
		json_array_append_new(warnings, json_string(e->warnings[w]));
	json_t *j = json_pack("{s:f,s:f,s:f,s:I,s:I,s:o}", "mean", e->mean, "median", e->median, "stdev", e->stdev,
			      "values", (json_int_t)e->nvalues, "processes", (json_int_t)e->nprocesses, "warnings",
			      warnings);
	if (e->has_faults)
		json_object_set_new(j, "faults_per_1000_ops", json_real(e->faults_per_kop));
	if (!e->compared)
		return j;
	json_object_set_new(j, "ratio", json_real(e->ratio));
	if (e->tested == ALLOCLAB_TESTED_PAIRED)
		json_object_set_new(j, "interval", e->has_interval ? json_pack("[f,f]", e->lo, e->hi) : json_null());
	json_object_set_new(j, "p", e->has_p ? json_real(e->p) : json_null());
	json_object_set_new(j, "statistic", json_real(e->statistic));
	json_object_set_new(j, "tested", json_string(alloclab_tested_text(e->tested)));
	json_object_set_new(j, "significant", json_boolean(e->significant));
	json_object_set_new(j, "reachable", json_boolean(e->reachable));
	/* Where the test cannot decide at these counts: how many it takes,
	 * so that a reader of the JSON need not parse the warning. */
	if (!e->reachable && e->processes_needed)
		json_object_set_new(j, "processes_needed", json_integer((json_int_t)e->processes_needed));
	return j;
}

static json_t *row_json(const struct alloclab_comparison *cmp, const struct alloclab_comparison_row *row)
{
	json_t *entries = json_array();
	for (size_t c = 0; c < cmp->ncols; c++)
		json_array_append_new(entries, entry_json(&row->entries[c]));
	return json_pack("{s:s,s:s,s:O,s:i,s:o,s:s}", "plugin", row->cell->plugin, "workload", row->cell->workload,
			 "params", row->cell->params, "threads", (int)row->cell->threads, "columns", entries, "name",
			 row->name);
}

json_t *alloclab_comparison_to_json(const struct alloclab_comparison *cmp)
{
	json_t *columns = json_array(), *rows = json_array(), *geomean = json_array();
	for (size_t c = 0; c < cmp->ncols; c++) {
		json_array_append_new(columns, json_string(cmp->columns[c]));
		json_array_append_new(geomean, cmp->has_geometric_mean[c] ? json_real(cmp->geometric_mean[c]) : json_null());
	}
	for (size_t r = 0; r < cmp->nrows; r++)
		json_array_append_new(rows, row_json(cmp, &cmp->rows[r]));
	json_t *doc = json_pack("{s:o,s:s,s:s,s:f,s:f,s:o,s:o,s:b}", "columns", columns, "metric", cmp->metric, "test",
				alloclab_comparison_test_text(cmp), "alpha", cmp->alpha, "min_speed_percent", cmp->min_speed,
				"rows", rows, "geometric_mean", geomean, "paired", cmp->paired);
	/* Only when there are any: the document of runs alike is as it was. */
	if (cmp->nnotes > 0) {
		json_t *notes = json_array();
		for (size_t i = 0; i < cmp->nnotes; i++)
			json_array_append_new(notes, alloclab_json_text(cmp->notes[i]));
		json_object_set_new(doc, "notes", notes);
	}
	return doc;
}
