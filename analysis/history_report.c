/* What history prints. See history_report.h. */
#include "history_report.h"

#include "base/json_text.h"
#include "base/shell_word.h"
#include "statistics/significance.h"
#include "statistics/summary.h"
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[] = {"none", "less", "more", "not resolved", "cannot tell"};

static const char *unit_of(enum alloclab_ab_metric m)
{
	return m == ALLOCLAB_AB_INSTRUCTIONS ? "instructions per op" : m == ALLOCLAB_AB_TIME ? "time per op" : "peak memory";
}

void alloclab_history_level_text(enum alloclab_ab_metric m, double v, char *out, size_t len)
{
	if (v < 0)
		snprintf(out, len, "-");
	else if (m == ALLOCLAB_AB_INSTRUCTIONS)
		snprintf(out, len, "%.3f", v);
	else if (m == ALLOCLAB_AB_TIME)
		alloclab_format_ns(v, out, len);
	else
		alloclab_format_kib(v, out, len);
}

void alloclab_history_change_text(enum alloclab_ab_metric m, const struct alloclab_history_point *p, double base,
				  char *out, size_t len)
{
	double pct = (p->ratio - 1) * 100;
	if (m == ALLOCLAB_AB_TIME && p->has_size)
		/* Whether from the slices; how much from whole values. */
		snprintf(out, len, "%s; whole values %+.1f%%", pct > 0 ? "slower" : "faster", (p->size_ratio - 1) * 100);
	else if (m == ALLOCLAB_AB_INSTRUCTIONS)
		snprintf(out, len, "%+.3f instr/op (%+.2f%%)", p->level - base, pct);
	else if (m == ALLOCLAB_AB_TIME)
		snprintf(out, len, "%.1f%% %s", fabs(pct), pct > 0 ? "slower" : "faster");
	else
		snprintf(out, len, "%.1f%% %s", fabs(pct), pct > 0 ? "larger" : "smaller");
}

double alloclab_history_level_at(const struct alloclab_history_series *s, size_t commit)
{
	for (size_t i = 0; i < s->npoints; i++)
		if (s->points[i].commit == commit)
			return s->points[i].level;
	return -1;
}

/* Everything a store says is shown through alloclab_printable: its rows
 * are written by whoever had the file (a commit subject holding a screen
 * clear, a host name that retitles the terminal). */
static void print_series(const struct alloclab_history_view *v, const struct alloclab_history_series *s, FILE *out)
{
	char row[ALLOCLAB_PRINTED_LEN], machine[ALLOCLAB_PRINTED_LEN];
	fprintf(out, "\n%s, %s (%s; each commit over the one before it, side by side, and its 95%% interval)\n",
		alloclab_ab_metric_names[s->metric], alloclab_printable(s->row, row, sizeof row), unit_of(s->metric));
	if (v->machine && strncmp(v->machine, "several: ", 9) == 0)
		fprintf(out, "  on %s (a series of its own: runs of two machines are never one series)\n",
			alloclab_printable(s->machine, machine, sizeof machine));
	/* Time decided in slices has each step's whole values beside it. */
	int sized = 0;
	for (size_t i = 0; i < s->npoints; i++)
		sized |= s->points[i].has_size;
	if (sized)
		fprintf(out, "  (step and interval: slices, whether; how much: paired whole values)\n");
	fprintf(out, "  %4s  %-12s %12s %8s  %-18s %-*s%-22s %s\n", "#", "commit", "level", "step", "95% interval",
		sized ? 26 : 0, sized ? "how much" : "", s->metric == ALLOCLAB_AB_TIME && v->reference ? "against the reference" : "",
		"subject");
	for (size_t i = 0; i < s->npoints; i++) {
		const struct alloclab_history_point *p = &s->points[i];
		const struct alloclab_commit *c = &v->commits[p->commit];
		char level[32], step[16] = "-", iv[48] = "-", ref[48] = "", size[48] = "", mark[96] = "", commit[13],
			subject[61];
		alloclab_history_level_text(s->metric, p->level, level, sizeof level);
		if (p->has_step) {
			snprintf(step, sizeof step, "%.4f", p->ratio);
			if (p->same_code)
				snprintf(iv, sizeof iv, "same code");
			else if (p->has_interval)
				snprintf(iv, sizeof iv, p->lo == p->hi ? "exact" : "%.4f .. %.4f", p->lo, p->hi);
		}
		if (p->has_reference)
			snprintf(ref, sizeof ref, "%.3f [%.3f .. %.3f]", p->ref_ratio, p->ref_lo, p->ref_hi);
		if (p->has_size)
			snprintf(size, sizeof size, "%.4f [%.4f .. %.4f]", p->size_ratio, p->size_lo, p->size_hi);
		if (p->change) {
			char what[64];
			alloclab_history_change_text(s->metric, p, alloclab_history_level_at(s, p->base), what, sizeof what);
			snprintf(mark, sizeof mark, "CHANGE %s  ", what);
		}
		fprintf(out, "  %4u  %-12s %12s %8s  %-18s %-*s%-22s %s%s\n", c->ordinal,
			alloclab_printable(c->commit, commit, sizeof commit), level, step, iv, sized ? 26 : 0, size, ref, mark,
			alloclab_printable(c->subject, subject, sizeof subject));
	}
	if (s->has_drift)
		fprintf(out, "  against %s, the last commit over the first: %.4f [%.4f .. %.4f], %s\n",
			alloclab_printable(v->reference, machine, sizeof machine), s->drift, s->drift_lo, s->drift_hi,
			s->drift_resolved ? "a resolved drift" : "no drift resolved");
	if (s->has_chain)
		fprintf(out, "  the steps between, multiplied: %.4f [%.4f .. %.4f]: %s\n", s->chain, s->chain_lo, s->chain_hi,
			s->drift_agrees ? "the drift agrees with them"
					: "the drift DISAGREES with them beyond both intervals: a step or the reference "
					  "is not what it seems (a reference of another allocator moves with the machine)");
	/* Where the two disagree: the drift over the chained steps is the
	 * product of each commit's two readings against the reference (in
	 * its own step and in the next), one over the other. */
	int moved = 0;
	for (size_t i = 0; i < s->npoints; i++) {
		const struct alloclab_history_point *p = &s->points[i];
		char commit[13];
		if (!p->level_moved)
			continue;
		moved = 1;
		fprintf(out,
			"  %u %s read %.4f [%.4f .. %.4f] against the reference in its own step and %.4f [%.4f .. %.4f] "
			"in the next: the machine changed between the two (history run measures a step again, once, when it sees this)\n",
			v->commits[p->commit].ordinal, alloclab_printable(v->commits[p->commit].commit, commit, sizeof commit),
			p->ref_ratio, p->ref_lo, p->ref_hi, p->next_ratio, p->next_lo, p->next_hi);
	}
	if (s->has_chain && !s->drift_agrees && !moved)
		fputs("  no commit read apart against the reference in its two steps (p < 0.001): the steps' small "
		      "differences add up\n",
		      out);
}

static void print_text(const struct alloclab_history_view *v, FILE *out)
{
	size_t measured = 0, broken = 0;
	for (size_t i = 0; i < v->ncommits; i++) {
		measured += v->commits[i].state == ALLOCLAB_COMMIT_MEASURED;
		broken += v->commits[i].state == ALLOCLAB_COMMIT_BROKEN;
	}
	char repo[ALLOCLAB_PRINTED_LEN], text[ALLOCLAB_PRINTED_LEN], commit[13];
	fprintf(out, "repository %s: %zu commits, %zu measured, %zu broken\nmeasured on %s\n",
		alloclab_printable(v->repo, repo, sizeof repo), v->ncommits, measured, broken,
		v->machine ? alloclab_printable(v->machine, text, sizeof text) : "(nothing measured yet)");
	if (v->reference)
		fprintf(out, "reference: %s (each commit's time against it, in the same processes)\n",
			alloclab_printable(v->reference, text, sizeof text));
	for (size_t i = 0; i < v->nseries; i++)
		print_series(v, &v->series[i], out);
	int same = 0;
	for (size_t i = 0; i < v->nseries; i++)
		for (size_t k = 0; k < v->series[i].npoints; k++)
			same |= v->series[i].points[k].same_code;
	if (same)
		fputs("\nsame code: the commit's plugin loads the same bytes as the one before it (debugging\n"
		      "information aside); not measured, its step is 1 and its level and reference are that one's\n",
		      out);
	fprintf(out, "\nchange points (time and memory: resolved steps kept by Benjamini-Hochberg at %g%% false "
		     "discoveries over each series; instructions: any difference beyond the counts' own variation):\n",
		100 * ALLOCLAB_CHANGE_FDR);
	size_t n = 0;
	for (size_t i = 0; i < v->nseries; i++)
		for (size_t k = 0; k < v->series[i].npoints; k++) {
			const struct alloclab_history_series *s = &v->series[i];
			const struct alloclab_history_point *p = &s->points[k];
			if (!p->change)
				continue;
			char what[64];
			alloclab_history_change_text(s->metric, p, alloclab_history_level_at(s, p->base), what, sizeof what);
			fprintf(out, "  %4u  %s  %s %s: %.4f, %s\n", v->commits[p->commit].ordinal,
				alloclab_printable(v->commits[p->commit].commit, commit, sizeof commit),
				alloclab_ab_metric_names[s->metric], alloclab_printable(s->row, text, sizeof text), p->ratio,
				what);
			n++;
		}
	if (n == 0)
		fputs("  none\n", out);
	for (size_t i = 0; i < v->ncommits; i++)
		if (v->commits[i].state == ALLOCLAB_COMMIT_BROKEN)
			fprintf(out, "broken: %u %s: %s\n", v->commits[i].ordinal,
				alloclab_printable(v->commits[i].commit, commit, sizeof commit),
				alloclab_printable(v->commits[i].why, text, 301));
}

static json_t *point_json(const struct alloclab_history_view *v, const struct alloclab_history_point *p)
{
	json_t *o = json_pack("{s:i,s:s,s:f}", "index", (int)v->commits[p->commit].ordinal, "commit",
			      v->commits[p->commit].commit, "level", p->level);
	if (p->has_step)
		json_object_set_new(o, "step", json_pack("{s:s,s:f,s:o,s:o,s:s,s:b,s:b}", "base", v->commits[p->base].commit,
							 "ratio", p->ratio, "interval",
							 p->has_interval ? json_pack("[f,f]", p->lo, p->hi) : json_null(),
							 "p", p->p >= 0 ? json_real(p->p) : json_null(), "verdict",
							 verdict_names[p->verdict], "change", p->change, "same_code",
							 p->same_code));
	if (p->has_size)
		json_object_set_new(o, "how_much", json_pack("{s:f,s:[f,f],s:s}", "ratio", p->size_ratio, "interval",
							     p->size_lo, p->size_hi, "design", "paired, whole values"));
	if (p->has_reference) {
		json_t *ref = json_pack("{s:f,s:[f,f]}", "ratio", p->ref_ratio, "interval", p->ref_lo, p->ref_hi);
		if (p->has_next_reference)
			json_object_set_new(ref, "next_step",
					    json_pack("{s:f,s:[f,f],s:b}", "ratio", p->next_ratio, "interval", p->next_lo,
						      p->next_hi, "moved", p->level_moved));
		json_object_set_new(o, "reference", ref);
	}
	return o;
}

json_t *alloclab_history_json(const struct alloclab_history_view *v)
{
	static const char *const states[] = {"pending", "measured", "broken"};
	json_t *commits = json_array(), *series = json_array();
	for (size_t i = 0; i < v->ncommits; i++) {
		const struct alloclab_commit *c = &v->commits[i];
		json_array_append_new(commits, json_pack("{s:i,s:s,s:o,s:o,s:s,s:o}", "index", (int)c->ordinal, "commit",
							 c->commit, "subject", alloclab_json_text(c->subject ? c->subject : ""),
							 "date", c->date ? alloclab_json_text(c->date) : json_null(), "state",
							 states[c->state], "why",
							 c->why ? alloclab_json_text(c->why) : json_null()));
	}
	for (size_t i = 0; i < v->nseries; i++) {
		const struct alloclab_history_series *s = &v->series[i];
		json_t *points = json_array();
		for (size_t k = 0; k < s->npoints; k++)
			json_array_append_new(points, point_json(v, &s->points[k]));
		json_t *o = json_pack("{s:s,s:o,s:o,s:o}", "metric", alloclab_ab_metric_names[s->metric], "row",
				      alloclab_json_text(s->row), "machine", alloclab_json_text(s->machine), "points", points);
		if (s->has_drift)
			json_object_set_new(o, "drift", json_pack("{s:f,s:[f,f],s:b}", "ratio", s->drift, "interval", s->drift_lo,
								  s->drift_hi, "resolved", s->drift_resolved));
		if (s->has_chain)
			json_object_set_new(o, "steps_chained", json_pack("{s:f,s:[f,f],s:b}", "ratio", s->chain, "interval",
									  s->chain_lo, s->chain_hi, "drift_agrees",
									  s->drift_agrees));
		json_array_append_new(series, o);
	}
	return json_pack("{s:o,s:o,s:o,s:o,s:o}", "repository", alloclab_json_text(v->repo), "machine",
			 v->machine ? alloclab_json_text(v->machine) : json_null(), "reference",
			 v->reference ? alloclab_json_text(v->reference) : json_null(), "commits", commits, "series", series);
}

void alloclab_history_print(const struct alloclab_history_view *v, int json, FILE *out)
{
	if (!json) {
		print_text(v, out);
		return;
	}
	json_t *doc = alloclab_history_json(v);
	/* ASCII: a bidirectional control or a C1 in a store's text is written
	 * as its \u escape, the same JSON, harmless on a terminal. */
	json_dumpf(doc, out, JSON_INDENT(1) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII);
	fputc('\n', out);
	json_decref(doc);
}

/* A cell's level (the mean of its process means) and its ±95% in
 * percent. */
static void cell_level(const struct alloclab_store_cell_row *c, double *level, double *half)
{
	struct alloclab_summary s;
	alloclab_summarize(c->process_means, c->nprocesses, &s);
	*level = c->nprocesses ? s.mean : -1;
	*half = c->nprocesses >= 2 ? alloclab_ci_half_width_percent(c->process_means, c->nprocesses) : -1;
}

/* A run's line and its cells', every text as alloclab_printable shows it:
 * the rows are the store's, written by whoever had the file. */
static void print_run_row(const struct alloclab_store_run_row *r, FILE *out)
{
	char date[64], machine[ALLOCLAB_PRINTED_LEN], version[64];
	fprintf(out, "run %lld, %s on %s (alloclab %s)\n", (long long)r->id, alloclab_printable(r->date, date, sizeof date),
		alloclab_printable(r->machine, machine, sizeof machine),
		alloclab_printable(r->alloclab_version, version, sizeof version));
	for (size_t c = 0; c < r->ncells; c++) {
		const struct alloclab_store_cell_row *cell = &r->cells[c];
		char label[29], workload[11], sha[13], source[13], metric[64];
		double level, half;
		cell_level(cell, &level, &half);
		fprintf(out, "  %-28s %-10s t=%-3u sha256 %s%s%s  ", alloclab_printable(cell->label, label, sizeof label),
			alloclab_printable(cell->workload, workload, sizeof workload), cell->threads,
			cell->sha256[0] ? alloclab_printable(cell->sha256, sha, sizeof sha) : "?",
			cell->source_commit[0] ? " @ " : "", alloclab_printable(cell->source_commit, source, sizeof source));
		alloclab_printable(cell->metric, metric, sizeof metric);
		if (level < 0)
			fprintf(out, "%s\n", strcmp(cell->status, "error") == 0 ? "error" : "not measured");
		else if (half < 0) /* one process: no interval */
			fprintf(out, "%.4g %s\n", level, metric);
		else
			fprintf(out, "%.4g %s ±%.1f%%\n", level, metric, half);
	}
}

int alloclab_history_print_runs(struct alloclab_store *s, FILE *out, char *err, size_t err_len)
{
	int64_t *ids;
	size_t n;
	if (alloclab_store_runs(s, &ids, &n, err, err_len) != 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct alloclab_store_run_row r;
		if (alloclab_store_run_row(s, ids[i], &r, err, err_len) != 0) {
			rc = -1;
			break;
		}
		print_run_row(&r, out);
		alloclab_store_run_row_clear(&r);
	}
	free(ids);
	return rc;
}

void alloclab_history_print_outcome(const struct alloclab_history_outcome *o, const char *db, FILE *out)
{
	fprintf(out, "%zu commits: %zu steps measured now, %zu measured before, %zu broken", o->commits, o->measured,
		o->known, o->broken);
	if (o->same)
		fprintf(out, ", %zu not measured (the same code as the commit before)", o->same);
	if (o->elsewhere)
		fprintf(out, ", %zu left to other shards", o->elsewhere);
	if (o->again)
		fprintf(out, ", %zu measured again (a commit read apart against the reference in two steps)", o->again);
	if (o->failed_again)
		fprintf(out, ", %zu failed when measured again (their first measurements kept)", o->failed_again);
	if (db)
		fprintf(out, "\nkept in %s: alloclab history show --db %s\n", db, db);
	else
		fputs("\nthis shard's results are in the run's folder: a run without --shard adds them to the store\n", out);
}

void alloclab_bisect_print(const struct alloclab_bisect_outcome *o, enum alloclab_ab_metric metric, FILE *out)
{
	char row[ALLOCLAB_PRINTED_LEN];
	if (o->same_code) {
		fprintf(out, "good and bad load the same code (their plugins' loaded bytes are one): nothing measured, "
			     "nothing to find (%zu builds)\n",
			o->builds);
		return;
	}
	fprintf(out, "%s, %s: bad over good %.4f [%.4f .. %.4f]\n", alloclab_ab_metric_names[metric],
		alloclab_printable(o->row, row, sizeof row), o->change, o->change_lo, o->change_hi);
	for (size_t i = 0; i < o->nsteps; i++) {
		const struct alloclab_bisect_step *s = &o->steps[i];
		if (s->broken)
			fprintf(out, "  %.12s  does not build: skipped\n", s->commit);
		else if (s->same_code)
			fprintf(out, "  %.12s  loads %s code: %s, not measured\n", s->commit, s->same_code == 1 ? "good's" : "bad's",
				s->same_code == 1 ? "unchanged (like good)" : "changed (like bad)");
		else
			fprintf(out, "  %.12s  over good %.4f [%.4f .. %.4f]: %s\n", s->commit, s->ratio, s->lo, s->hi,
				s->bad ? "changed (like bad)" : "unchanged (like good)");
	}
	if (o->first_bad[0])
		fprintf(out, "first commit with the change: %s (%zu builds)\n", o->first_bad, o->builds);
	else if (metric == ALLOCLAB_AB_INSTRUCTIONS)
		fprintf(out, "good and bad count the same instructions: nothing to find (%zu builds)\n", o->builds);
	else
		/* Not resolved is not "the same": a change smaller than the
		 * interval may be there, and the instruction counts may see it. */
		fprintf(out, "the change from good to bad in %s is not resolved (%.4f [%.4f .. %.4f] holds 1): nothing to "
			     "bisect on; more processes (-n) may resolve it, or --metric instructions (exact) "
			     "(%zu builds)\n",
			alloclab_ab_metric_names[metric], o->change, o->change_lo, o->change_hi, o->builds);
}
