/* A/B of two builds. See ab.h. */
#define _GNU_SOURCE 1
#include "history/ab.h"

#include "check/probe.h"

#include "base/lengths.h"
#include "files/code_hash.h"
#include "run/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *const alloclab_ab_metric_names[ALLOCLAB_AB_NMETRICS] = {"instructions", "time", "memory"};

/* A copy of a side's plugin in the plan's folder: two builds are then two
 * files whatever they were (the same file given twice, an A/A, too), so
 * the loader gives each its own state. */
static int copy_plugin(const char *from, const char *to, char *err, size_t err_len)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC | O_NONBLOCK), out = -1, rc = -1;
	struct stat st;
	if (in < 0 || fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, err_len, "%.900s: %s", from, in < 0 ? strerror(errno) : "not a regular file");
		goto done;
	}
	unlink(to);
	if ((out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0755)) < 0) {
		snprintf(err, err_len, "%.900s: %s", to, strerror(errno));
		goto done;
	}
	ssize_t n;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	if (n != 0) {
		snprintf(err, err_len, "cannot copy %.900s: %s", from, strerror(errno));
		goto done;
	}
	rc = 0;
done:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

/* The run that measures one metric into path: the plan's settings in a
 * run configuration, the two builds' copies as its plugins. */
static int fill_config(const struct alloclab_ab_plan *p, enum alloclab_ab_metric m, int size, const char *const copies[2],
		       const char *path, const char *dumps, struct alloclab_run_config *cfg, char *err, size_t err_len)
{
	const struct alloclab_ab_build *sides[2] = {&p->base, &p->head};
	alloclab_run_config_init(cfg);
	if (m == ALLOCLAB_AB_INSTRUCTIONS) {
		/* Counts are the same in every process: one, two values after
		 * a warm-up, the cells in the plan's order. */
		cfg->measure = ALLOCLAB_MEASURE_INSTRUCTIONS;
		cfg->processes = 1;
		cfg->values = 2;
		cfg->order_fixed = 1;
		/* Kept: where the instructions went is read from them
		 * (alloclab_ab_row's cells). */
		cfg->dumps_dir = dumps;
	} else if (m == ALLOCLAB_AB_TIME) {
		cfg->paired = !p->unpaired;
		cfg->processes = p->processes;
		cfg->values = p->values;
		if (p->slice_ops && !p->unpaired && !size) {
			cfg->slice_ops = p->slice_ops;
			cfg->slice_warm = p->slice_warm;
		}
	} else {
		cfg->processes = p->memory_processes;
		cfg->values = 1;
	}
	cfg->processes_set = cfg->values_set = 1;
	if (m == ALLOCLAB_AB_TIME && p->reference &&
	    alloclab_run_config_add_plugin(cfg, p->reference, "", p->reference_label, NULL, err, err_len) != 0)
		return -1;
	for (int k = 0; k < 2; k++)
		if (alloclab_run_config_add_plugin(cfg, copies[k], sides[k]->options, sides[k]->label, sides[k]->source, err,
						   err_len) != 0)
			return -1;
	for (size_t i = 0; i < p->nworkloads; i++)
		if (alloclab_run_config_add_workload(cfg, &p->workloads[i], 0, err, err_len) != 0)
			return -1;
	if (alloclab_run_config_threads(cfg, p->threads, p->nthreads, err, err_len) != 0)
		return -1;
	cfg->timeout_s = p->timeout_s;
	/* What a build does right is check's question, not ab's: a failing
	 * case is seen in `alloclab check`; a crash is a cell's error here. */
	cfg->check = ALLOCLAB_CHECK_NONE;
	cfg->quiet = 1;
	cfg->output = path;
	cfg->argc = p->argc;
	cfg->argv = p->argv;
	return 0;
}

/* How long a run of the plan may take in all: every worker's deadline,
 * and a margin for the runner itself. */
static double run_deadline(const struct alloclab_ab_plan *p, enum alloclab_ab_metric m)
{
	double workers = (double)p->nworkloads * 4 * (m == ALLOCLAB_AB_TIME ? p->processes
						      : m == ALLOCLAB_AB_MEMORY ? 2.0 * p->memory_processes : 2);
	return workers * p->timeout_s + 120;
}

/* The failed cells of the side labelled `label`: 1 with why set, else 0. */
static int side_failed(const struct alloclab_results *r, const char *label, char *why, size_t len)
{
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *c = &r->cells[i];
		/* A cell lost with its pair is the other side's failure. */
		const char *colon = c->message ? strstr(c->message, ": ") : NULL;
		if (colon && strncmp(colon + 2, ALLOCLAB_LOST_WITH_PAIR, strlen(ALLOCLAB_LOST_WITH_PAIR)) == 0)
			continue;
		if (strcmp(c->plugin, label) == 0 && c->status == ALLOCLAB_CELL_ERROR) {
			snprintf(why, len, "%s t=%u: %s", c->workload, c->threads, c->message ? c->message : "failed");
			return 1;
		}
	}
	return 0;
}

/* A run that finished with failed cells: which side, and what. */
static void name_failure(const struct alloclab_ab_plan *p, const struct alloclab_results *r,
			 struct alloclab_ab_result *out, char *err, size_t err_len)
{
	char wb[700] = "", wh[700] = "";
	int b = side_failed(r, p->base.label, wb, sizeof wb), h = side_failed(r, p->head.label, wh, sizeof wh);
	snprintf(out->failed_side, sizeof out->failed_side, "%s", b && h ? "both" : b ? "BASE" : h ? "HEAD" : "");
	if (b && h)
		snprintf(err, err_len, "BASE (%s) and HEAD (%s) both failed: BASE %s; HEAD %s", p->base.label, p->head.label,
			 wb, wh);
	else if (b || h)
		snprintf(err, err_len, "%s (%s) failed: %s", b ? "BASE" : "HEAD", b ? p->base.label : p->head.label,
			 b ? wb : wh);
	else
		snprintf(err, err_len, "the run failed, though neither build's cells say why (the reference's?)");
}

static void add_row(struct alloclab_ab_result *out, const struct alloclab_ab_row *row)
{
	struct alloclab_ab_row *grown = realloc(out->rows, (out->nrows + 1) * sizeof *grown);
	if (grown == NULL)
		return;
	out->rows = grown;
	out->rows[out->nrows++] = *row;
}

/* Why a row has no comparison: the first side that was not measured. */
static char *unmeasured_text(const struct alloclab_comparison_entry *b, const struct alloclab_comparison_entry *h)
{
	const struct alloclab_comparison_entry *e = b->status != ALLOCLAB_ENTRY_MEASURED ? b : h;
	const char *what = e->status == ALLOCLAB_ENTRY_NOT_APPLICABLE ? "not applicable"
			   : e->status == ALLOCLAB_ENTRY_ERROR	     ? "error"
			   : e->status == ALLOCLAB_ENTRY_ABSENT	     ? "not measured"
								     : "not measured";
	char *text = NULL;
	if (asprintf(&text, "%s%s%s", what, e->message ? ": " : "", e->message ? e->message : "") < 0)
		return NULL;
	return text;
}

static void design_text(enum alloclab_ab_metric m, const struct alloclab_results *r,
			const struct alloclab_comparison_entry *e, char *out, size_t len)
{
	const char *d = e->cell ? e->cell->pair_design : NULL;
	if (m == ALLOCLAB_AB_INSTRUCTIONS)
		snprintf(out, len, "callgrind, exact");
	else if (m == ALLOCLAB_AB_MEMORY)
		snprintf(out, len, "processes of their own, each one's high-water mark net of the harness");
	else if (e->tested != ALLOCLAB_TESTED_PAIRED)
		snprintf(out, len, "processes of their own (not paired)");
	else if (d && strcmp(d, ALLOCLAB_PAIR_SLICES) == 0)
		snprintf(out, len, "paired, slices of %llu operations (%llu untimed before each)",
			 (unsigned long long)r->facts.slice_ops, (unsigned long long)r->facts.slice_warm);
	else if (d && strcmp(d, ALLOCLAB_PAIR_VALUES) != 0)
		snprintf(out, len, "paired, processes back to back");
	else
		snprintf(out, len, "paired, whole values");
}

int alloclab_ab_rows_of(const struct alloclab_ab_plan *p, enum alloclab_ab_metric metric,
			const struct alloclab_results *r, struct alloclab_ab_result *out, char *err, size_t err_len)
{
	struct alloclab_column cols[2] = {{p->base.label, r, p->base.label}, {p->head.label, r, p->head.label}};
	struct alloclab_compare_opts o = {ALLOCLAB_TEST_RANK, 0, {0, -1, NULL, ALLOCLAB_MEMORY_NONE}, p->name_rows};
	/* The kernel's high-water mark, exact: the samples of a short run
	 * missed its peak, and read 1.11 [0.98, 1.27] for a build whose
	 * every process held 3 to 6% more at its peak. */
	if (metric == ALLOCLAB_AB_MEMORY)
		o.measure.memory = ALLOCLAB_MEMORY_HIGH_WATER;
	struct alloclab_comparison *cmp = alloclab_compare(cols, 2, &o, err, err_len);
	if (cmp == NULL)
		return -1;
	for (size_t i = 0; i < cmp->nrows; i++) {
		const struct alloclab_comparison_entry *b = &cmp->rows[i].entries[0], *h = &cmp->rows[i].entries[1];
		if (b->status != ALLOCLAB_ENTRY_MEASURED || h->status != ALLOCLAB_ENTRY_MEASURED || !h->compared) {
			struct alloclab_ab_row row = {.metric = metric, .name = strdup(cmp->rows[i].name),
						      .verdict = ALLOCLAB_VERDICT_NONE};
			row.status = unmeasured_text(b, h);
			add_row(out, &row);
			continue;
		}
		struct alloclab_ab_row row = {
			.metric = metric, .name = strdup(cmp->rows[i].name), .base = b->mean, .head = h->mean,
			.base_cell = b->cell ? (int)(b->cell - r->cells) : -1, .head_cell = h->cell ? (int)(h->cell - r->cells) : -1,
			.ratio = h->ratio, .has_interval = h->has_interval, .lo = h->lo, .hi = h->hi,
			.verdict = h->verdict, .p = h->p_interval,
			.n = h->tested == ALLOCLAB_TESTED_PAIRED ? h->npairs : (unsigned)h->nprocesses,
		};
		design_text(metric, r, h, row.design, sizeof row.design);
		if (h->cell)
			snprintf(row.workload, sizeof row.workload, "%s", h->cell->workload);
		/* Time apart and memory: the verdict is the interval's shown
		 * (the rank test beside it could call a row whose interval left
		 * 1 out "not resolved", and one that held 1 a change). */
		if (h->tested == ALLOCLAB_TESTED_PROCESSES)
			row.verdict = !h->has_interval ? ALLOCLAB_VERDICT_CANNOT_TELL
				      : h->lo > 1	 ? ALLOCLAB_VERDICT_MORE
				      : h->hi < 1	 ? ALLOCLAB_VERDICT_LESS
							 : ALLOCLAB_VERDICT_NOT_RESOLVED;
		if (b->has_faults && h->has_faults) {
			row.has_faults = 1;
			row.base_faults = b->faults_per_kop;
			row.head_faults = h->faults_per_kop;
			for (size_t w = 0; w < h->nwarnings && !row.fault_note; w++)
				if (strncmp(h->warnings[w], "time includes ", 14) == 0)
					row.fault_note = strdup(h->warnings[w]);
		}
		add_row(out, &row);
	}
	alloclab_comparison_free(cmp);
	return 0;
}

/* Whether a run's last words name plugin `label` as the one that failed
 * ("alloclab: plugin 'LABEL': ..."). */
static int names_plugin(const char *why, const char *label)
{
	char want[200];
	snprintf(want, sizeof want, "plugin '%.150s':", label);
	return label && label[0] && strstr(why, want) != NULL;
}

/* One metric's run (or, size, time's run in whole values): made into a
 * results file in the plan's folder, or read again where reuse allows;
 * loaded into *loaded. 0; -1 with err (out->failed_side set where a
 * build failed a cell). */
static int run_metric(const struct alloclab_ab_plan *p, enum alloclab_ab_metric m, int size, const char *const copies[2],
		      char *path, size_t path_len, struct alloclab_results **loaded, struct alloclab_ab_result *out,
		      char *err, size_t err_len)
{
	char why[ALLOCLAB_ERR_LEN] = "";
	/* Large (every cell's plugin and workload): not on the stack. */
	static struct alloclab_run_config cfg;
	*loaded = NULL;
	snprintf(path, path_len, "%s/%s.json", p->dir, size ? ALLOCLAB_AB_TIME_SIZE : alloclab_ab_metric_names[m]);
	if (p->reuse) {
		struct alloclab_results *old = alloclab_results_load(path, p->check, err, err_len);
		if (old && old->complete && !old->interrupted) {
			*loaded = old;
			return 0;
		}
		alloclab_results_free(old);
	}
	char dumps[4200];
	snprintf(dumps, sizeof dumps, "%s/%s", p->dir, ALLOCLAB_AB_DUMPS);
	if (m == ALLOCLAB_AB_INSTRUCTIONS && mkdir(dumps, 0777) != 0 && errno != EEXIST) {
		snprintf(err, err_len, "%.900s: %s", dumps, strerror(errno));
		return -1;
	}
	if (fill_config(p, m, size, copies, path, dumps, &cfg, err, err_len) != 0) {
		alloclab_run_config_clear(&cfg);
		return -1;
	}
	if (p->progress)
		fprintf(stderr, "alloclab ab: measuring %s%s\n", alloclab_ab_metric_names[m],
			size ? " in whole values (how much)" : m == ALLOCLAB_AB_TIME && p->size_in_values ? " in slices (whether)" : "");
	int rc = alloclab_run_in_child(&cfg, run_deadline(p, m), why, sizeof why);
	alloclab_run_config_clear(&cfg);
	if (rc != ALLOCLAB_EXIT_OK && rc != ALLOCLAB_EXIT_CELL_FAILED) {
		snprintf(err, err_len, "measuring %s: %s", alloclab_ab_metric_names[m],
			 why[0] ? why : rc == ALLOCLAB_EXIT_INTERRUPTED ? "interrupted" : "the run failed");
		/* The run's own check of its plugins names the one that failed
		 * by its label (check/probe.c): a build that failed there now,
		 * though it was created alone a moment before, is its side's. */
		int b = rc != ALLOCLAB_EXIT_INTERRUPTED && names_plugin(why, p->base.label),
		    h = rc != ALLOCLAB_EXIT_INTERRUPTED && names_plugin(why, p->head.label);
		if (b != h)
			snprintf(out->failed_side, sizeof out->failed_side, "%s", h ? "HEAD" : "BASE");
		return -1;
	}
	struct alloclab_results *r = alloclab_results_load(path, p->check, err, err_len);
	if (r == NULL)
		return -1;
	if (rc == ALLOCLAB_EXIT_CELL_FAILED) {
		name_failure(p, r, out, err, err_len);
		alloclab_results_free(r);
		return -1;
	}
	*loaded = r;
	return 0;
}

/* The whole-value run's figures onto the time rows, row by row. */
static int add_sizes(const struct alloclab_ab_plan *p, const struct alloclab_results *r, struct alloclab_ab_result *out,
		     char *err, size_t err_len)
{
	struct alloclab_ab_result sized = {0};
	if (alloclab_ab_rows_of(p, ALLOCLAB_AB_TIME, r, &sized, err, err_len) != 0)
		return -1;
	for (size_t i = 0; i < sized.nrows; i++) {
		const struct alloclab_ab_row *v = &sized.rows[i];
		for (size_t k = 0; k < out->nrows && !v->status && v->has_interval; k++) {
			struct alloclab_ab_row *row = &out->rows[k];
			if (row->metric != ALLOCLAB_AB_TIME || row->status || strcmp(row->name, v->name) != 0)
				continue;
			row->has_size = 1;
			row->size_ratio = v->ratio;
			row->size_lo = v->lo;
			row->size_hi = v->hi;
		}
	}
	alloclab_ab_result_clear(&sized);
	return 0;
}

/* Whether the plan's time is measured twice: in slices, and in whole
 * values for how much. */
static int sized_apart(const struct alloclab_ab_plan *p)
{
	return p->size_in_values && p->slice_ops && !p->unpaired;
}

/* One metric: its run made (a results file in the plan's folder), read
 * back, its rows added; time's whole-value run beside it where asked. */
static int measure_metric(const struct alloclab_ab_plan *p, enum alloclab_ab_metric m, const char *const copies[2],
			  struct alloclab_ab_result *out, char *err, size_t err_len)
{
	struct alloclab_results *r;
	if (run_metric(p, m, 0, copies, out->files[m], sizeof out->files[m], &r, out, err, err_len) != 0) {
		out->files[m][0] = '\0';
		return -1;
	}
	int rc = alloclab_ab_rows_of(p, m, r, out, err, err_len);
	alloclab_results_free(r);
	if (rc != 0 || m != ALLOCLAB_AB_TIME || !sized_apart(p))
		return rc;
	if (run_metric(p, m, 1, copies, out->size_file, sizeof out->size_file, &r, out, err, err_len) != 0) {
		out->size_file[0] = '\0';
		return -1;
	}
	rc = add_sizes(p, r, out, err, err_len);
	alloclab_results_free(r);
	return rc;
}

/* Whether every run the plan asks for is in its folder, finished, to be
 * read again rather than measured. */
int alloclab_ab_reused(const struct alloclab_ab_plan *p)
{
	if (!p->reuse)
		return 0;
	for (int m = 0; m <= ALLOCLAB_AB_NMETRICS; m++) {
		int size = m == ALLOCLAB_AB_NMETRICS;
		if (size ? !sized_apart(p) || !(p->metrics & (1u << ALLOCLAB_AB_TIME)) : !(p->metrics & (1u << m)))
			continue;
		char path[4200], err[256];
		snprintf(path, sizeof path, "%s/%s.json", p->dir, size ? ALLOCLAB_AB_TIME_SIZE : alloclab_ab_metric_names[m]);
		struct alloclab_results *r = alloclab_results_load(path, p->check, err, sizeof err);
		int done = r && r->complete && !r->interrupted;
		alloclab_results_free(r);
		if (!done)
			return 0;
	}
	return 1;
}

int alloclab_ab_measure(const struct alloclab_ab_plan *p, struct alloclab_ab_result *out, char *err, size_t err_len)
{
	char copies[2][4200];
	const struct alloclab_ab_build *sides[2] = {&p->base, &p->head};
	const char *const names[2] = {copies[0], copies[1]};
	int rc = 0;

	memset(out, 0, sizeof *out);
	if (mkdir(p->dir, 0777) != 0 && errno != EEXIST) {
		snprintf(err, err_len, "%.900s: %s", p->dir, strerror(errno));
		return -1;
	}
	/* The same code run with other options is another allocator. */
	char code[2][ALLOCLAB_SHA256_HEX], why[1200];
	out->same_code = strcmp(p->base.options ? p->base.options : "", p->head.options ? p->head.options : "") == 0 &&
			 alloclab_plugin_code_sha256(p->base.plugin, code[0], why, sizeof why) == 0 &&
			 alloclab_plugin_code_sha256(p->head.plugin, code[1], why, sizeof why) == 0 &&
			 strcmp(code[0], code[1]) == 0;
	/* Neutral names, drawn anew for each plan, which of the two is BASE
	 * drawn too: a plugin that looks at where it was loaded from (its
	 * file's name, which of the copies sorts first) learns nothing of its
	 * role. Once named base.so and head.so, one file read 4.54 times
	 * faster against itself as HEAD. */
	uint64_t draw = 0;
	if (getrandom(&draw, sizeof draw, 0) != (ssize_t)sizeof draw)
		draw = (uint64_t)getpid() * 0x9e3779b97f4a7c15u ^ (uint64_t)time(NULL);
	unsigned first = (unsigned)(draw >> 63);
	for (int k = 0; k < 2 && rc == 0; k++) {
		unsigned tag = (unsigned)(draw >> (k == (int)first ? 0 : 16)) & 0xffffu;
		snprintf(copies[k], sizeof copies[k], "%s/build-%04x%c.so", p->dir, tag, k == (int)first ? 'a' : 'b');
		rc = copy_plugin(sides[k]->plugin, copies[k], err, err_len);
	}
	/* Each build loaded and created alone first, where anything is to be
	 * measured: one that cannot be is its side's failure, named so (the
	 * run's own check of the plugins would end the run without saying
	 * whose). */
	int reused = alloclab_ab_reused(p); /* read once: it parses each results file */
	for (int k = 0; k < 2 && rc == 0 && !reused; k++) {
		struct alloclab_plugin_arg arg = {.spec = copies[k], .options = (char *)(sides[k]->options ? sides[k]->options : ""),
						  .as = (char *)sides[k]->label};
		struct alloclab_probe probe;
		if (alloclab_probe_isolated(&arg, p->timeout_s, &probe, err, err_len) != 0) {
			snprintf(out->failed_side, sizeof out->failed_side, "%s", k ? "HEAD" : "BASE");
			rc = -1;
		} else {
			alloclab_probe_clear(&probe);
		}
	}
	for (int m = 0; m < ALLOCLAB_AB_NMETRICS && rc == 0; m++)
		if (p->metrics & (1u << m))
			rc = measure_metric(p, (enum alloclab_ab_metric)m, names, out, err, err_len);
	/* One code counts the same instructions: counts that differ say the
	 * hash was fooled (a note made to look like a build ID), and the
	 * gate gates. */
	for (size_t i = 0; i < out->nrows; i++)
		if (out->rows[i].metric == ALLOCLAB_AB_INSTRUCTIONS && !out->rows[i].status &&
		    (out->rows[i].verdict == ALLOCLAB_VERDICT_LESS || out->rows[i].verdict == ALLOCLAB_VERDICT_MORE))
			out->same_code = 0;
	return rc;
}

void alloclab_ab_result_clear(struct alloclab_ab_result *r)
{
	for (size_t i = 0; i < r->nrows; i++) {
		free(r->rows[i].name);
		free(r->rows[i].status);
		free(r->rows[i].fault_note);
	}
	free(r->rows);
	memset(r, 0, sizeof *r);
}

void alloclab_ab_gate_init(struct alloclab_ab_gate *g)
{
	memset(g, 0, sizeof *g);
	for (int m = 0; m < ALLOCLAB_AB_NMETRICS; m++)
		g->metric[m] = -1;
}

double alloclab_ab_gate_threshold(const struct alloclab_ab_gate *g, const struct alloclab_ab_row *r)
{
	for (size_t i = 0; i < g->nown; i++)
		if (g->own[i].metric == r->metric &&
		    (strcmp(g->own[i].workload, r->workload) == 0 || strcmp(g->own[i].workload, r->name) == 0))
			return g->own[i].percent;
	return g->metric[r->metric];
}

int alloclab_ab_row_fails(const struct alloclab_ab_row *r, const struct alloclab_ab_gate *g)
{
	double threshold = g ? alloclab_ab_gate_threshold(g, r) : -1;
	double ratio = r->has_size ? r->size_ratio : r->ratio;
	return threshold >= 0 && r->verdict == ALLOCLAB_VERDICT_MORE && (ratio - 1) * 100 > threshold;
}
