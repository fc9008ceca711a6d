/* Comparisons of cells. See comparison.h. */
#include "statistics/comparison.h"
#include "statistics/faults.h"

#include "figures/cell_index.h"

#include "statistics/pairs.h"
#include "statistics/significance.h"
#include "statistics/summary.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- cells ---- */

static int column_has(const struct alloclab_column *col, const struct alloclab_cell *c)
{
	char label[512];
	alloclab_cell_label(c, label, sizeof label);
	return col->plugin == NULL || strcmp(label, col->plugin) == 0;
}

/* A column's cells by their rows (cell_index.h): each row's, a measured
 * one first, else the first of any (an error or not-applicable cell
 * stands for the row, as such). Looking through the column's every cell
 * for each row made 20,000 cells minutes. */
struct column_cells {
	struct alloclab_text_index *rows;
	const struct alloclab_cell **cell; /* by the number rows keeps */
	size_t n;
};

static int index_column(const struct alloclab_column *col, int with_plugin, struct column_cells *cc)
{
	cc->rows = alloclab_text_index_new();
	cc->cell = calloc(col->results->ncells + 1, sizeof *cc->cell);
	cc->n = 0;
	if (cc->rows == NULL || cc->cell == NULL)
		return -1;
	for (unsigned i = 0; i < col->results->ncells; i++) {
		const struct alloclab_cell *c = &col->results->cells[i];
		if (!column_has(col, c))
			continue;
		char *key = alloclab_cell_row_key(c, with_plugin);
		long k = key ? alloclab_text_index_put(cc->rows, key, (long)cc->n) : -1;
		free(key);
		if (k < 0)
			return -1;
		if ((size_t)k == cc->n)
			cc->cell[cc->n++] = c;
		else if (!alloclab_cell_measured(cc->cell[k]) && alloclab_cell_measured(c))
			cc->cell[k] = c;
	}
	return 0;
}

static const struct alloclab_cell *find_cell(const struct column_cells *cc, const char *row_key)
{
	long k = alloclab_text_index_get(cc->rows, row_key);
	return k >= 0 ? cc->cell[k] : NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void warn(struct alloclab_comparison_entry *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct alloclab_comparison_entry *e, const char *fmt, ...)
{
	char text[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	char **grown = realloc(e->warnings, (e->nwarnings + 1) * sizeof *grown);
	if (grown == NULL)
		return;
	e->warnings = grown;
	e->warnings[e->nwarnings++] = strdup(text);
}

/* pyperf check's kind of warnings, for one cell's values. */
static void cell_warnings(struct alloclab_comparison_entry *e, const double *v, size_t n)
{
	struct alloclab_summary s;

	alloclab_summarize(v, n, &s);
	if (n < 6)
		warn(e, "only %zu values: too few to judge (run more processes)", n);
	if (n >= 2 && s.mean > 0 && s.stdev > 0.10 * s.mean)
		warn(e, "unstable: standard deviation is %.1f%% of the mean (over 10%%)", 100 * s.stdev / s.mean);
	if (n >= 4) {
		double *sorted = malloc(n * sizeof *sorted);
		memcpy(sorted, v, n * sizeof *sorted);
		qsort(sorted, n, sizeof *sorted, cmp_double);
		double q1 = sorted[n / 4], q3 = sorted[(3 * n) / 4], iqr = q3 - q1;
		size_t out = 0;
		for (size_t i = 0; i < n; i++)
			out += sorted[i] < q1 - 3 * iqr || sorted[i] > q3 + 3 * iqr;
		if (out)
			warn(e, "%zu outlier%s beyond 3 interquartile ranges", out, out > 1 ? "s" : "");
		free(sorted);
	}
}

/* Where two cells' processes ran on more than one CPU model (merged
 * shards): the model with the most processes on both sides, at least two
 * each, with a note saying what was left out; or NULL, with a note when
 * the processes are pooled across models. NULL and no note: one model. */
static const char *common_cpu_model(const struct alloclab_cell *a, const struct alloclab_cell *b, char *note, size_t len)
{
	const char *models[64];
	unsigned nmodels = 0, best = 0, best_a = 0, best_b = 0;
	const struct alloclab_cell *both[2] = {a, b};

	for (int s = 0; s < 2; s++)
		for (unsigned i = 0; i < both[s]->nprocs; i++) {
			const char *m = both[s]->procs[i].host_cpu_model ? both[s]->procs[i].host_cpu_model : "";
			unsigned k = 0;
			while (k < nmodels && strcmp(models[k], m) != 0)
				k++;
			if (k == nmodels && nmodels < 64)
				models[nmodels++] = m;
		}
	if (nmodels <= 1)
		return NULL;
	const char *pick = NULL;
	for (unsigned k = 0; k < nmodels; k++) {
		unsigned na = 0, nb = 0;
		for (unsigned i = 0; i < a->nprocs; i++)
			na += strcmp(a->procs[i].host_cpu_model ? a->procs[i].host_cpu_model : "", models[k]) == 0;
		for (unsigned i = 0; i < b->nprocs; i++)
			nb += strcmp(b->procs[i].host_cpu_model ? b->procs[i].host_cpu_model : "", models[k]) == 0;
		if (na >= 2 && nb >= 2 && (na < nb ? na : nb) > best) {
			best = na < nb ? na : nb;
			best_a = na, best_b = nb;
			pick = models[k];
		}
	}
	if (pick)
		snprintf(note, len, "compared within one CPU model (%.120s: %u and %u processes); the processes of %u other "
			 "model%s left out", pick[0] ? pick : "unknown", best_a, best_b, nmodels - 1, nmodels > 2 ? "s" : "");
	else
		snprintf(note, len, "pooled processes of %u CPU models (no model has two processes of each cell): a "
			 "difference may be the machines'", nmodels);
	return pick;
}

static void unmeasured_entry(struct alloclab_comparison_entry *e, const struct alloclab_cell *c)
{
	e->status = c->status == ALLOCLAB_CELL_ERROR ? ALLOCLAB_ENTRY_ERROR
		    : c->status == ALLOCLAB_CELL_NOT_APPLICABLE ? ALLOCLAB_ENTRY_NOT_APPLICABLE
								 : ALLOCLAB_ENTRY_NOT_MEASURED;
	e->message = c->message;
}

/* What one comparison holds while it is built. */
struct building {
	const struct alloclab_column *cols;
	size_t ncols;
	const struct alloclab_compare_opts *o;
	struct alloclab_comparison *cmp;
	int with_plugin;  /* rows carry the plugin (whole runs compared) */
	struct column_cells *by_row; /* per column (the first's unused) */
	int other_metric; /* a latency percentile or a memory figure, not the cells' own metric */
	double *log_sum;  /* per column: the sum of the logs of its ratios, for the geometric mean */
	size_t *nrows_ratio;
};

/* A cell's values of what is compared, and its per-process ones. */
struct cell_values {
	double *v, *p;
	size_t nv, np;
};

/* The name of what is compared: the cells' own metric (time, or a count
 * under --measure), a latency percentile, or a memory figure. */
static const char *compared_metric(const struct alloclab_compare_opts *o, char *latency_metric, size_t len)
{
	if (o->measure.quantile > 0) {
		/* "latency_p99_ns" (every op) or "latency_p99_malloc_ns". */
		const char *q = "p?";
		for (unsigned k = 0; k < ALLOCLAB_LAT_NQUANTILES; k++)
			if (alloclab_lat_quantiles[k] == o->measure.quantile)
				q = alloclab_lat_quantile_names[k];
		snprintf(latency_metric, len, "latency_%s%s%s_ns", q, o->measure.op >= 0 ? "_" : "",
			 o->measure.op >= 0 ? alloclab_lat_op_names[o->measure.op] : "");
		return latency_metric;
	}
	if (o->measure.memory)
		return alloclab_memory_metric_keys[o->measure.memory];
	return ALLOCLAB_METRIC_TIME;
}

static enum alloclab_quantity quantity_of(const struct alloclab_compare_opts *o, const char *metric)
{
	switch (o->measure.memory) {
	case ALLOCLAB_MEMORY_RSS:
	case ALLOCLAB_MEMORY_HIGH_WATER:
	case ALLOCLAB_MEMORY_KEPT: return ALLOCLAB_QUANTITY_KIB;
	case ALLOCLAB_MEMORY_FRAGMENTATION: return ALLOCLAB_QUANTITY_RATIO;
	case ALLOCLAB_MEMORY_FAULTS: return ALLOCLAB_QUANTITY_FAULTS;
	default: break;
	}
	return strcmp(metric, ALLOCLAB_METRIC_INSTRUCTIONS) == 0 ? ALLOCLAB_QUANTITY_COUNTS : ALLOCLAB_QUANTITY_TIME;
}

/* Both cells of one paired run (run --paired): the ratios of their times
 * in the same processes, each process's over the base's of the same round
 * (statistics/pairs.h). 0 with *st filled, or -1 when they were
 * not measured side by side. */
static int paired_stat(const struct building *k, size_t c, const struct alloclab_cell *cell,
		       const struct alloclab_cell *other, struct alloclab_pair_stat *st)
{
	if (k->other_metric || cell->pair_design == NULL || other->pair_design == NULL ||
	    k->cols[c].results != k->cols[0].results || alloclab_pair_reference(k->cols[0].results, cell) !=
								  alloclab_pair_reference(k->cols[0].results, other))
		return -1;
	return alloclab_pair_stat_between(cell, other, st);
}

static void set_verdict(struct alloclab_comparison_entry *e)
{
	e->compared = 1;
	e->verdict = !e->reachable      ? ALLOCLAB_VERDICT_CANNOT_TELL
		     : !e->significant  ? ALLOCLAB_VERDICT_NOT_RESOLVED
		     : e->ratio < 1     ? ALLOCLAB_VERDICT_LESS
					: ALLOCLAB_VERDICT_MORE;
}

/* Adds a ratio to column c's geometric mean. */
static void count_ratio(struct building *k, size_t c, double ratio)
{
	if (ratio > 0) {
		k->log_sum[c] += log(ratio);
		k->nrows_ratio[c]++;
	}
}

/* The paired comparison of column c's cell with the base. */
static void paired_entry(struct building *k, size_t c, struct alloclab_comparison_entry *e,
			 const struct alloclab_pair_stat *st)
{
	e->ratio = st->ratio;
	e->npairs = st->n;
	e->has_interval = st->n >= 2;
	e->lo = st->lo;
	e->hi = st->hi;
	e->has_p = 1;
	e->p = st->p;
	e->p_interval = st->n >= 2 ? st->p_t : -1;
	e->statistic = 0;
	e->tested = ALLOCLAB_TESTED_PAIRED;
	e->reachable = st->n >= 2;
	e->significant = st->resolved && fabs(st->ratio - 1) * 100 >= k->o->min_speed;
	if (!e->reachable) {
		e->processes_needed = 2;
		warn(e, "one paired process has no interval: measure at least 2 (-n)");
	}
	k->cmp->paired = 1;
	count_ratio(k, c, st->ratio);
	set_verdict(e);
}

/* The range of x's values over b's: the smallest and the largest ratio
 * any two of their values give. */
static void counts_range(const struct cell_values *b, const struct cell_values *x, double *lo, double *hi)
{
	double bmin = INFINITY, bmax = 0, xmin = INFINITY, xmax = 0;
	for (size_t i = 0; i < b->nv; i++)
		bmin = fmin(bmin, b->v[i]), bmax = fmax(bmax, b->v[i]);
	for (size_t i = 0; i < x->nv; i++)
		xmin = fmin(xmin, x->v[i]), xmax = fmax(xmax, x->v[i]);
	*lo = bmax > 0 ? xmin / bmax : 0;
	*hi = bmin > 0 ? xmax / bmin : INFINITY;
}

/* The ratio of column c's cell to the base cell of its row, and the test
 * of whether they differ. */
static void test_against_base(struct building *k, size_t c, struct alloclab_comparison_entry *e,
			      const struct alloclab_cell *cell, const struct alloclab_cell *other,
			      const struct cell_values *b, const struct cell_values *x)
{
	const struct alloclab_compare_opts *o = k->o;
	struct alloclab_summary sb;
	struct alloclab_test_result t = {0, 0, 0};
	double min_p = 0, welch_p = -1;
	alloclab_summarize(b->v, b->nv, &sb);
	e->ratio = e->mean / sb.mean;
	if (!k->other_metric &&
	    (alloclab_metric_deterministic(cell->metric) || alloclab_metric_deterministic(other->metric))) {
		/* Counts, not times: the same every time, so a test would be
		 * meaningless; the ratio is the answer. */
		e->tested = ALLOCLAB_TESTED_COUNTS;
	} else if (o->test == ALLOCLAB_TEST_PYPERF) {
		alloclab_t_test(b->v, b->nv, x->v, x->nv, &t);
		e->tested = ALLOCLAB_TESTED_VALUES;
		min_p = b->nv >= 2 && x->nv >= 2 ? 0 : 1;
	} else if (b->np >= 2 && x->np >= 2) {
		alloclab_mann_whitney(b->p, b->np, x->p, x->np, &t);
		e->tested = ALLOCLAB_TESTED_PROCESSES;
		min_p = alloclab_mann_whitney_min_p(b->np, x->np);
	} else {
		/* One process: the values are all there is. */
		alloclab_mann_whitney(b->v, b->nv, x->v, x->nv, &t);
		e->tested = ALLOCLAB_TESTED_ONE_PROCESS;
		min_p = alloclab_mann_whitney_min_p(b->nv, x->nv);
	}
	e->reachable = min_p < ALLOCLAB_ALPHA;
	e->significant = e->reachable && t.p < ALLOCLAB_ALPHA && fabs(e->ratio - 1) * 100 >= o->min_speed;
	if (e->tested == ALLOCLAB_TESTED_COUNTS) {
		/* A count differs when the difference is more than either
		 * side's counts vary among themselves (mimalloc's clock-driven
		 * page retirement, a replay's background decoding move a few
		 * instructions): [lo, hi] is the ratio's range over them. */
		counts_range(b, x, &e->lo, &e->hi);
		e->has_interval = 1;
		e->significant = e->significant && (e->lo > 1 || e->hi < 1);
	} else if (e->tested == ALLOCLAB_TESTED_PROCESSES) {
		e->has_interval = alloclab_ratio_interval(b->p, b->np, x->p, x->np, &e->lo, &e->hi, &welch_p) == 0;
	}
	e->has_p = !(!k->other_metric && alloclab_metric_deterministic(cell->metric));
	e->p = t.p;
	/* The rank test decides the verdict; a series of steps is corrected on
	 * the p of the test whose interval is shown, which 5 processes a side
	 * can take below what Benjamini-Hochberg asks of a long series (the
	 * rank test's smallest p there is 0.008). */
	e->p_interval = e->tested == ALLOCLAB_TESTED_PROCESSES && e->has_interval ? welch_p : -1;
	e->statistic = t.statistic;
	if (!e->reachable) {
		int by_process = e->tested == ALLOCLAB_TESTED_PROCESSES;
		e->processes_needed = alloclab_mann_whitney_needed(ALLOCLAB_ALPHA);
		warn(e,
		     "the rank test cannot reach p < %.2f with %zu and %zu %s (smallest p %.3f): "
		     "measure at least %zu processes per side (-n)",
		     ALLOCLAB_ALPHA, by_process ? b->np : b->nv, by_process ? x->np : x->nv,
		     by_process ? "processes" : "values", min_p, alloclab_mann_whitney_needed(ALLOCLAB_ALPHA));
	}
	count_ratio(k, c, e->ratio);
	set_verdict(e);
}

/* The samples a cell gives of what is compared. */
static void cell_samples(const struct alloclab_cell *cell, const struct alloclab_cell_measure *m, struct cell_values *s)
{
	s->v = alloclab_cell_measure_values(cell, m, &s->nv);
	s->p = alloclab_cell_measure_processes(cell, m, &s->np);
}

static void free_samples(struct cell_values *s)
{
	free(s->v);
	free(s->p);
	s->v = s->p = NULL;
}

static const char *no_samples_reason(const struct alloclab_compare_opts *o)
{
	if (o->measure.memory == ALLOCLAB_MEMORY_FRAGMENTATION)
		return "the workload did not say what it held";
	if (o->measure.memory)
		return "no memory figures (a timeline and the worker's own readings: not under valgrind)";
	return "no latency measured (run with --latency)";
}

/* Times that include the kernel's work: each entry's faults per 1,000
 * operations, and past the base a warning where they differ from the
 * base's beyond their noise, with the share of the time that explains at
 * the run's fault cost. */
static void fault_entry(struct building *k, size_t c, const struct alloclab_cell *base,
			const struct alloclab_cell *other, struct alloclab_comparison_entry *e)
{
	struct alloclab_fault_difference d;
	double f = alloclab_cell_faults_per_kop(other, NULL);

	if (f < 0)
		return;
	e->has_faults = 1;
	e->faults_per_kop = f;
	if (c == 0 || alloclab_fault_difference(base, other, e->tested == ALLOCLAB_TESTED_PAIRED, &d) != 0 || !d.resolved)
		return;
	char share[160] = "", diff[32], fo[32], fb[32], lo[32], hi[32];
	double fault_ns = k->cols[c].results->facts.page_fault_ns;
	if (fault_ns > 0 && e->mean > 0 && e->ratio > 0) {
		/* What the difference costs an operation, against the time of
		 * the side that pays it (this plugin's where it faults more, the
		 * base's where it faults less): a difference below 2% of that
		 * time is no note, as no paired interval of a shared machine is
		 * narrower than that on every row (a few faults over millions of
		 * operations). */
		double ns = fabs(d.diff) / 1000 * fault_ns, payer = d.diff > 0 ? e->mean : e->mean / e->ratio,
		       part = ns / payer;
		if (part < 0.02)
			return;
		snprintf(share, sizeof share, "; at this machine's %.1f us a fault, %.3g ns an operation, %.0f%% of %s time",
			 fault_ns / 1000, ns, 100 * part, d.diff > 0 ? "its" : "the base's");
	}
	warn(e, "time includes %s page faults per 1,000 operations %s than %s's (%s against %s, the difference's 95%% "
		"interval %s .. %s)%s",
	     alloclab_format_count(fabs(d.diff), diff, sizeof diff), d.diff > 0 ? "more" : "fewer", k->cmp->columns[0],
	     alloclab_format_count(d.other, fo, sizeof fo), alloclab_format_count(d.base, fb, sizeof fb),
	     alloclab_format_count(d.lo, lo, sizeof lo), alloclab_format_count(d.hi, hi, sizeof hi), share);
}

/* Column c's entry for the row of `cell`, where its cell `other` is
 * measured: a summary of its values, with (past the first column, when the
 * base has values) the comparison with the base. */
static void measured_entry(struct building *k, size_t c, const struct alloclab_cell *cell,
			   const struct alloclab_cell *other, const struct cell_values *base,
			   struct alloclab_comparison_entry *e)
{
	const struct alloclab_compare_opts *o = k->o;
	struct cell_values x, b = *base;

	/* Shards merged from machines of several CPU models: compare within
	 * one model where both cells have processes enough. */
	struct alloclab_cell_measure within = o->measure;
	char hosts_note[400] = "";
	if (c > 0 && base->v)
		within.cpu_model = common_cpu_model(cell, other, hosts_note, sizeof hosts_note);
	if (within.cpu_model)
		cell_samples(cell, &within, &b);
	cell_samples(other, &within, &x);
	if (x.nv == 0) {
		e->status = ALLOCLAB_ENTRY_NOT_MEASURED;
		e->message = no_samples_reason(o);
	} else {
		struct alloclab_summary s;
		alloclab_summarize(x.v, x.nv, &s);
		e->status = ALLOCLAB_ENTRY_MEASURED;
		e->mean = s.mean;
		e->median = s.median;
		e->stdev = s.stdev;
		e->nvalues = x.nv;
		e->nprocesses = x.np;
		if (k->other_metric || !alloclab_metric_deterministic(other->metric))
			cell_warnings(e, x.v, x.nv);
		if (c > 0 && base->v) {
			struct alloclab_pair_stat st;
			if (hosts_note[0])
				warn(e, "%s", hosts_note);
			if (paired_stat(k, c, cell, other, &st) == 0)
				paired_entry(k, c, e, &st);
			else
				test_against_base(k, c, e, cell, other, &b, &x);
		}
		if (!k->other_metric && !alloclab_metric_deterministic(other->metric))
			fault_entry(k, c, cell, other, e);
	}
	free_samples(&x);
	if (b.v != base->v)
		free_samples(&b);
}

/* The entries of the row of `cell` (a cell of the first column), one per
 * column; 0 when no other column has anything to say of it. */
static int row_entries(struct building *k, const struct alloclab_cell *cell, const char *row_key,
		       struct alloclab_comparison_entry *entries)
{
	struct cell_values base = {NULL, NULL, 0, 0};
	int any_other = 0;

	if (alloclab_cell_measured(cell)) {
		cell_samples(cell, &k->o->measure, &base);
		if (base.nv == 0) /* measured, but not what is compared */
			free_samples(&base);
	}
	for (size_t c = 0; c < k->ncols; c++) {
		const struct alloclab_cell *other = c == 0 ? cell : find_cell(&k->by_row[c], row_key);

		if (other == NULL)
			continue; /* ALLOCLAB_ENTRY_ABSENT */
		entries[c].cell = other;
		if (alloclab_cell_measured(other))
			measured_entry(k, c, cell, other, &base, &entries[c]);
		else
			unmeasured_entry(&entries[c], other);
		any_other |= c > 0;
	}
	free_samples(&base);
	return any_other;
}

static void free_entry(struct alloclab_comparison_entry *e)
{
	for (size_t w = 0; w < e->nwarnings; w++)
		free(e->warnings[w]);
	free(e->warnings);
	free(e->owned_message);
}

/* Adds the row of `cell`, if another column has something to say of it. */
static void add_row(struct building *k, const struct alloclab_cell *cell, const char *row_key)
{
	struct alloclab_comparison *cmp = k->cmp;
	struct alloclab_comparison_entry *entries = calloc(k->ncols, sizeof *entries);

	if (entries == NULL)
		return;
	if (!row_entries(k, cell, row_key, entries)) {
		for (size_t c = 0; c < k->ncols; c++)
			free_entry(&entries[c]);
		free(entries);
		return;
	}
	cmp->rows[cmp->nrows++] = (struct alloclab_comparison_row){.cell = cell, .entries = entries};
}

/* Each row's name: what tells its cell apart from the others'. */
static void name_rows(struct alloclab_comparison *cmp, alloclab_row_namer namer, int with_plugin)
{
	const struct alloclab_cell **cells = calloc(cmp->nrows + 1, sizeof *cells);
	char **names = calloc(cmp->nrows + 1, sizeof *names);
	for (size_t r = 0; r < cmp->nrows; r++)
		cells[r] = cmp->rows[r].cell;
	namer(cells, cmp->nrows, with_plugin, names);
	for (size_t r = 0; r < cmp->nrows; r++)
		cmp->rows[r].name = names[r];
	free(names);
	free(cells);
}

static void building_end(struct building *k)
{
	free(k->log_sum);
	free(k->nrows_ratio);
	for (size_t c = 0; k->by_row && c < k->ncols; c++) {
		alloclab_text_index_free(k->by_row[c].rows);
		free(k->by_row[c].cell);
	}
	free(k->by_row);
}

/* Each other column's cells by their rows. 0, or -1 out of memory. */
static int index_columns(struct building *k)
{
	k->by_row = calloc(k->ncols, sizeof *k->by_row);
	for (size_t c = 1; k->by_row && c < k->ncols; c++)
		if (index_column(&k->cols[c], k->with_plugin, &k->by_row[c]) != 0)
			return -1;
	return k->by_row ? 0 : -1;
}

/* The rows, one per identity in the first column (a run with a cell twice
 * keeps the first). 0, or -1 out of memory. */
static int add_rows(struct building *k)
{
	const struct alloclab_column *cols = k->cols;
	struct alloclab_comparison *cmp = k->cmp;
	struct alloclab_text_index *seen = alloclab_text_index_new();
	int rc = seen ? 0 : -1;
	for (unsigned i = 0; rc == 0 && i < cols[0].results->ncells; i++) {
		const struct alloclab_cell *cell = &cols[0].results->cells[i];
		if (!column_has(&cols[0], cell))
			continue;
		char *key = alloclab_cell_row_key(cell, k->with_plugin);
		if (key == NULL)
			rc = -1;
		else if (alloclab_text_index_get(seen, key) < 0 && cell->status != ALLOCLAB_CELL_NOT_APPLICABLE) {
			size_t before = cmp->nrows;
			add_row(k, cell, key);
			if (cmp->nrows > before && !k->other_metric)
				cmp->metric = cell->metric;
			if (cmp->nrows > before && alloclab_text_index_put(seen, key, (long)i) < 0)
				rc = -1;
		}
		free(key);
	}
	alloclab_text_index_free(seen);
	return rc;
}

/* A note for each run compared with the first whose environment set the
 * allocators otherwise (each run once, however many columns it gives). */
static void run_notes(struct alloclab_comparison *cmp, const struct alloclab_column *cols, size_t ncols)
{
	char why[3000];
	cmp->notes = calloc(ncols, sizeof *cmp->notes);
	for (size_t c = 1; c < ncols; c++) {
		int seen = cols[c].results == cols[0].results;
		for (size_t k = 1; k < c && !seen; k++)
			seen = cols[k].results == cols[c].results;
		if (!seen && alloclab_results_env_difference(cols[0].results, cols[c].results, why, sizeof why))
			cmp->notes[cmp->nnotes++] = strdup(why);
	}
}

struct alloclab_comparison *alloclab_compare(const struct alloclab_column *cols, size_t ncols,
					     const struct alloclab_compare_opts *o, char *err, size_t err_len)
{
	struct alloclab_comparison *cmp = calloc(1, sizeof *cmp);
	/* Rows carry the plugin when whole runs are compared; with --plugins
	 * the plugin is the column. */
	struct building k = {.cols = cols, .ncols = ncols, .o = o, .cmp = cmp, .with_plugin = cols[0].plugin == NULL};
	k.other_metric = o->measure.quantile > 0 || o->measure.memory;
	k.log_sum = calloc(ncols, sizeof *k.log_sum);
	k.nrows_ratio = calloc(ncols, sizeof *k.nrows_ratio);
	cmp->ncols = ncols;
	cmp->columns = calloc(ncols, sizeof *cmp->columns);
	cmp->rows = calloc(cols[0].results->ncells + 1, sizeof *cmp->rows);
	cmp->geometric_mean = calloc(ncols, sizeof *cmp->geometric_mean);
	cmp->has_geometric_mean = calloc(ncols, sizeof *cmp->has_geometric_mean);
	cmp->test = o->test;
	cmp->alpha = ALLOCLAB_ALPHA;
	cmp->min_speed = o->min_speed;
	cmp->metric = compared_metric(o, cmp->metric_text, sizeof cmp->metric_text);
	for (size_t c = 0; c < ncols; c++)
		cmp->columns[c] = strdup(cols[c].name);
	if (index_columns(&k) != 0 || add_rows(&k) != 0) {
		snprintf(err, err_len, "out of memory");
		building_end(&k);
		alloclab_comparison_free(cmp);
		return NULL;
	}
	if (cmp->nrows == 0) {
		snprintf(err, err_len,
			 "%s and %s have no cells in common (compare runs of the same plugins, workloads, parameters and thread counts)",
			 cols[0].name, cols[1].name);
		building_end(&k);
		alloclab_comparison_free(cmp);
		return NULL;
	}
	name_rows(cmp, o->name_rows, k.with_plugin);
	run_notes(cmp, cols, ncols);
	for (size_t c = 1; c < ncols; c++)
		if ((cmp->has_geometric_mean[c] = k.nrows_ratio[c] > 0))
			cmp->geometric_mean[c] = exp(k.log_sum[c] / (double)k.nrows_ratio[c]);
	cmp->quantity = quantity_of(o, cmp->metric);
	cmp->deterministic = alloclab_metric_deterministic(cmp->metric);
	building_end(&k);
	return cmp;
}

void alloclab_comparison_free(struct alloclab_comparison *cmp)
{
	if (cmp == NULL)
		return;
	for (size_t r = 0; r < cmp->nrows; r++) {
		for (size_t c = 0; c < cmp->ncols; c++)
			free_entry(&cmp->rows[r].entries[c]);
		free(cmp->rows[r].entries);
		free(cmp->rows[r].name);
	}
	for (size_t c = 0; c < cmp->ncols; c++)
		free(cmp->columns[c]);
	free(cmp->columns);
	free(cmp->rows);
	free(cmp->geometric_mean);
	free(cmp->has_geometric_mean);
	for (size_t i = 0; i < cmp->nnotes; i++)
		free(cmp->notes[i]);
	free(cmp->notes);
	free(cmp);
}

struct alloclab_comparison *alloclab_compare_paired_run(const struct alloclab_results *r, alloclab_row_namer namer,
							char *err, size_t err_len)
{
	struct alloclab_compare_opts o = {ALLOCLAB_TEST_RANK, 0, {0, -1, NULL, ALLOCLAB_MEMORY_NONE}, namer};
	struct alloclab_column *cols;
	size_t ncols = 1;

	if (r->facts.npair == 0) {
		snprintf(err, err_len, "the run is not paired");
		return NULL;
	}
	if ((cols = calloc(r->ncells + 1, sizeof *cols)) == NULL) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	cols[0] = (struct alloclab_column){r->facts.pair_plugins[0], r, r->facts.pair_plugins[0]};
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct alloclab_cell *c = &r->cells[i];
		size_t k = 0;
		if (c->pair_design == NULL)
			continue;
		while (k < ncols && strcmp(cols[k].plugin, c->plugin) != 0)
			k++;
		if (k == ncols)
			cols[ncols++] = (struct alloclab_column){c->plugin, r, c->plugin};
	}
	struct alloclab_comparison *cmp = NULL;
	if (ncols < 2)
		snprintf(err, err_len, "no plugin was paired with %s", r->facts.pair_plugins[0]);
	else
		cmp = alloclab_compare(cols, ncols, &o, err, err_len);
	free(cols);
	return cmp;
}

const char *alloclab_comparison_test_text(const struct alloclab_comparison *cmp)
{
	return cmp->deterministic ? "none: deterministic counts, compared by their ratio"
	       : cmp->test == ALLOCLAB_TEST_PYPERF ? "pyperf (Student's t-test, pooled, on every value)"
						   : "Mann-Whitney U on per-process means";
}

const char *alloclab_tested_text(enum alloclab_tested tested)
{
	switch (tested) {
	case ALLOCLAB_TESTED_PAIRED:
		return "paired processes: the geometric mean of their ratios, a 95% t interval on the logarithms "
		       "(significant: it leaves 1 out), and the signed-rank test's p";
	case ALLOCLAB_TESTED_PROCESSES: return "processes";
	case ALLOCLAB_TESTED_VALUES: return "values";
	case ALLOCLAB_TESTED_ONE_PROCESS: return "values (one process: not independent)";
	case ALLOCLAB_TESTED_COUNTS: return "nothing (a deterministic count: compared by its ratio)";
	default: return "nothing";
	}
}

int alloclab_row_significant(const struct alloclab_comparison_row *row, size_t ncols)
{
	for (size_t c = 1; c < ncols; c++)
		if (row->entries[c].significant)
			return 1;
	return 0;
}

int alloclab_row_unreachable(const struct alloclab_comparison_row *row, size_t ncols)
{
	int any = 0;
	for (size_t c = 1; c < ncols; c++) {
		const struct alloclab_comparison_entry *e = &row->entries[c];
		if (e->status != ALLOCLAB_ENTRY_MEASURED)
			continue;
		if (!e->compared || e->reachable)
			return 0;
		any = 1;
	}
	return any;
}

int alloclab_row_unmeasured(const struct alloclab_comparison_row *row, size_t ncols)
{
	for (size_t c = 0; c < ncols; c++)
		if (row->entries[c].status != ALLOCLAB_ENTRY_MEASURED && row->entries[c].status != ALLOCLAB_ENTRY_ABSENT)
			return 1;
	return 0;
}
