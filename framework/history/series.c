/* A repository's history as series. See series.h. */
#define _GNU_SOURCE 1
#include "history/series.h"

#include "base/hash.h"
#include "statistics/significance.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void alloclab_history_commit_label(const char *commit, char *out, size_t len)
{
	snprintf(out, len, "%.12s", commit);
}

static long commit_index(const struct alloclab_history_view *v, const char *commit)
{
	for (size_t i = 0; commit && i < v->ncommits; i++)
		if (strcmp(v->commits[i].commit, commit) == 0)
			return (long)i;
	return -1;
}

/* The series of a metric and row, made when new. */
static struct alloclab_history_series *series_of(struct alloclab_history_view *v, enum alloclab_ab_metric m,
						 const char *row, const char *machine)
{
	for (size_t i = 0; i < v->nseries; i++)
		if (v->series[i].metric == m && strcmp(v->series[i].row, row) == 0 &&
		    strcmp(v->series[i].machine, machine) == 0)
			return &v->series[i];
	struct alloclab_history_series *grown = realloc(v->series, (v->nseries + 1) * sizeof *grown);
	if (grown == NULL)
		return NULL;
	v->series = grown;
	struct alloclab_history_series *s = &v->series[v->nseries++];
	memset(s, 0, sizeof *s);
	s->metric = m;
	s->row = strdup(row);
	s->machine = strdup(machine);
	return s;
}

/* A commit's point on a series, made (unmeasured) when new. */
static struct alloclab_history_point *point_of(struct alloclab_history_series *s, size_t commit)
{
	for (size_t i = 0; i < s->npoints; i++)
		if (s->points[i].commit == commit)
			return &s->points[i];
	struct alloclab_history_point *grown = realloc(s->points, (s->npoints + 1) * sizeof *grown);
	if (grown == NULL)
		return NULL;
	s->points = grown;
	struct alloclab_history_point *p = &s->points[s->npoints++];
	memset(p, 0, sizeof *p);
	p->commit = commit;
	p->level = -1;
	p->p = -1;
	return p;
}

/* The reference's label in a time run: the group's reference when it is
 * neither build. */
static const char *reference_of(const struct alloclab_results *r, const char *base, const char *head)
{
	if (r->facts.npair == 0)
		return NULL;
	const char *ref = r->facts.pair_plugins[0];
	return strcmp(ref, base) != 0 && strcmp(ref, head) != 0 ? ref : NULL;
}

/* label's time over ref's in run r, row by row. NULL when the rows
 * cannot be compared. */
static struct alloclab_comparison *against_reference(const struct alloclab_results *r, const char *ref,
						     const char *label, alloclab_row_namer name_rows)
{
	char err[512];
	struct alloclab_column cols[2] = {{ref, r, ref}, {label, r, label}};
	struct alloclab_compare_opts o = {ALLOCLAB_TEST_RANK, 0, {0, -1, NULL, ALLOCLAB_MEMORY_NONE}, name_rows};
	return alloclab_compare(cols, 2, &o, err, sizeof err);
}

/* A paired ratio with an interval a logarithm can be taken of. */
static int usable(const struct alloclab_comparison_entry *e)
{
	return e->compared && e->tested == ALLOCLAB_TESTED_PAIRED && e->has_interval && e->lo > 0 && e->ratio > 0 &&
	       e->hi >= e->lo;
}

/* Two readings of one ratio apart, in standard errors of their
 * difference on the logarithms (each interval taken as ±1.96 of them). */
static double z_apart(double a, double alo, double ahi, double b, double blo, double bhi)
{
	double sa = log(ahi / alo) / 2 / 1.96, sb = log(bhi / blo) / 2 / 1.96, se = sqrt(sa * sa + sb * sb);
	double d = fabs(log(a) - log(b));
	return se > 0 ? d / se : d > 0 ? HUGE_VAL : 0;
}

int alloclab_history_level_moved(const struct alloclab_results *own, const struct alloclab_results *next,
				 const char *label, alloclab_row_namer name_rows, struct alloclab_history_level *worst)
{
	memset(worst, 0, sizeof *worst);
	if (own->facts.npair == 0 || next->facts.npair == 0)
		return 0;
	const char *ref = own->facts.pair_plugins[0];
	if (strcmp(ref, next->facts.pair_plugins[0]) != 0 || strcmp(ref, label) == 0)
		return 0;
	struct alloclab_comparison *a = against_reference(own, ref, label, name_rows),
				   *b = a ? against_reference(next, ref, label, name_rows) : NULL;
	for (size_t i = 0; b && i < a->nrows; i++)
		for (size_t j = 0; j < b->nrows; j++) {
			const struct alloclab_comparison_entry *e = &a->rows[i].entries[1], *f = &b->rows[j].entries[1];
			if (strcmp(a->rows[i].name, b->rows[j].name) != 0 || !usable(e) || !usable(f))
				continue;
			double z = z_apart(e->ratio, e->lo, e->hi, f->ratio, f->lo, f->hi);
			if (z <= worst->z)
				continue;
			*worst = (struct alloclab_history_level){.own = e->ratio, .own_lo = e->lo, .own_hi = e->hi,
								  .next = f->ratio, .next_lo = f->lo, .next_hi = f->hi, .z = z};
			snprintf(worst->row, sizeof worst->row, "%s", a->rows[i].name);
		}
	alloclab_comparison_free(a);
	alloclab_comparison_free(b);
	return worst->z > ALLOCLAB_LEVEL_MOVED_Z;
}

/* Each build's time against the reference, row by row, onto its point:
 * HEAD's in its own step; BASE's as its second reading (or its only one,
 * for a range's first commit). */
static void add_reference(struct alloclab_history_view *v, const struct alloclab_results *r, const char *ref,
			  const char *label, size_t commit, const char *machine, int as_base)
{
	struct alloclab_comparison *cmp = against_reference(r, ref, label, v->name_rows);
	uint64_t key = alloclab_fnv1a(ALLOCLAB_FNV_OFFSET, ref, strlen(ref));
	for (size_t i = 0; cmp && i < cmp->nrows; i++) {
		const struct alloclab_comparison_entry *e = &cmp->rows[i].entries[1];
		struct alloclab_history_series *s = series_of(v, ALLOCLAB_AB_TIME, cmp->rows[i].name, machine);
		struct alloclab_history_point *p = s ? point_of(s, commit) : NULL;
		if (p == NULL || !usable(e))
			continue;
		if (as_base && p->has_reference) {
			if (p->ref_key != key) /* another range's reference: not the same thing read twice */
				continue;
			p->has_next_reference = 1;
			p->next_ratio = e->ratio;
			p->next_lo = e->lo;
			p->next_hi = e->hi;
			p->level_moved = z_apart(p->ref_ratio, p->ref_lo, p->ref_hi, e->ratio, e->lo, e->hi) >
					 ALLOCLAB_LEVEL_MOVED_Z;
			continue;
		}
		p->has_reference = 1;
		p->ref_ratio = e->ratio;
		p->ref_lo = e->lo;
		p->ref_hi = e->hi;
		p->ref_key = key;
	}
	alloclab_comparison_free(cmp);
}

/* A step's run read as ab's rows of metric m, its builds labelled as the
 * commits head and base are (hl, bl: 16 bytes each, filled). */
static int step_rows(const struct alloclab_history_view *v, enum alloclab_ab_metric m, const struct alloclab_results *r,
		     size_t head, size_t base, char *hl, char *bl, struct alloclab_ab_result *res, char *err, size_t err_len)
{
	alloclab_history_commit_label(v->commits[head].commit, hl, 16);
	alloclab_history_commit_label(v->commits[base].commit, bl, 16);
	struct alloclab_ab_plan plan = {.base = {.label = bl}, .head = {.label = hl}, .name_rows = v->name_rows,
					.check = v->check};
	return alloclab_ab_rows_of(&plan, m, r, res, err, err_len);
}

/* One step's run of one metric: the head's point and its step, the
 * base's level where it has none yet, and for time the reference. */
static int add_step_run(struct alloclab_history_view *v, enum alloclab_ab_metric m, const struct alloclab_results *r,
			size_t head, size_t base, const char *machine, char *err, size_t err_len)
{
	char hl[16], bl[16];
	struct alloclab_ab_result res = {0};
	if (step_rows(v, m, r, head, base, hl, bl, &res, err, err_len) != 0)
		return -1;
	for (size_t i = 0; i < res.nrows; i++) {
		const struct alloclab_ab_row *row = &res.rows[i];
		if (row->status)
			continue;
		struct alloclab_history_series *s = series_of(v, m, row->name, machine);
		/* One point at a time: making the next may move the others. */
		struct alloclab_history_point *b = s ? point_of(s, base) : NULL;
		if (b && b->level < 0)
			b->level = row->base;
		struct alloclab_history_point *h = b ? point_of(s, head) : NULL;
		if (h == NULL)
			continue;
		h->level = row->head;
		h->has_step = 1;
		h->base = base;
		h->ratio = row->ratio;
		h->has_interval = row->has_interval;
		h->lo = row->lo;
		h->hi = row->hi;
		h->p = row->p;
		h->verdict = row->verdict;
	}
	alloclab_ab_result_clear(&res);
	const char *ref = m == ALLOCLAB_AB_TIME ? reference_of(r, bl, hl) : NULL;
	if (ref) {
		free(v->reference);
		v->reference = strdup(ref);
		add_reference(v, r, ref, bl, base, machine, 1);
		add_reference(v, r, ref, hl, head, machine, 0);
	}
	return 0;
}

/* A step's time in whole values (how much) onto its head's point of each
 * time series that has it. */
static int add_step_size(struct alloclab_history_view *v, const struct alloclab_results *r, size_t head, size_t base,
			 const char *machine, char *err, size_t err_len)
{
	char hl[16], bl[16];
	struct alloclab_ab_result res = {0};
	if (step_rows(v, ALLOCLAB_AB_TIME, r, head, base, hl, bl, &res, err, err_len) != 0)
		return -1;
	for (size_t i = 0; i < res.nrows; i++) {
		const struct alloclab_ab_row *row = &res.rows[i];
		struct alloclab_history_series *s = row->status || !row->has_interval
							    ? NULL
							    : series_of(v, ALLOCLAB_AB_TIME, row->name, machine);
		struct alloclab_history_point *h = s ? point_of(s, head) : NULL;
		if (h == NULL)
			continue;
		h->has_size = 1;
		h->size_ratio = row->ratio;
		h->size_lo = row->lo;
		h->size_hi = row->hi;
	}
	alloclab_ab_result_clear(&res);
	return 0;
}

/* Notes where the steps ran: one machine, or that there were several
 * (their series are kept apart). */
static void note_machine(struct alloclab_history_view *v, const char *m)
{
	if (v->machine == NULL) {
		v->machine = strdup(m);
	} else if (strcmp(v->machine, m) != 0 && strncmp(v->machine, "several: ", 9) != 0) {
		char *both = NULL;
		if (asprintf(&both, "several: %s; %s", v->machine, m) >= 0) {
			free(v->machine);
			v->machine = both;
		}
	}
}

/* Every measured commit's newest run of each metric. */
static int load_steps(struct alloclab_store *s, struct alloclab_history_view *v, char *err, size_t err_len)
{
	for (size_t c = 0; c < v->ncommits; c++) {
		if (v->commits[c].state != ALLOCLAB_COMMIT_MEASURED)
			continue;
		/* Each metric's newest run, then time's whole values (after its
		 * slices: they add to the points the slices made). */
		for (int m = 0; m <= ALLOCLAB_AB_NMETRICS; m++) {
			int size = m == ALLOCLAB_AB_NMETRICS;
			int64_t *ids;
			char **bases;
			size_t n;
			if (alloclab_store_commit_runs(s, v->repo, v->commits[c].commit,
						       size ? ALLOCLAB_AB_TIME_SIZE : alloclab_ab_metric_names[m], &ids, &bases, &n,
						       err, err_len) != 0)
				return -1;
			long base = n ? commit_index(v, bases[0]) : -1;
			int rc = 0;
			if (base >= 0) {
				char machine[1200];
				struct alloclab_results *r = alloclab_store_load_run(s, ids[0], v->check, err, err_len);
				rc = r && alloclab_store_run_machine(s, ids[0], machine, sizeof machine, err, err_len) == 0
					     ? size ? add_step_size(v, r, c, (size_t)base, machine, err, err_len)
						    : add_step_run(v, (enum alloclab_ab_metric)m, r, c, (size_t)base, machine, err,
								   err_len)
					     : -1;
				if (rc == 0)
					note_machine(v, machine);
				alloclab_results_free(r);
			}
			alloclab_store_commit_runs_free(ids, bases, n);
			if (rc != 0)
				return -1;
		}
	}
	return 0;
}

/* A measured commit with no step of its own whose plugin loads the same
 * code as the measured commit before it: on every series that has that
 * one, a step of exactly 1 at its level (commits in order, so that a run
 * of them each takes the one before). */
static void add_same_code(struct alloclab_history_view *v)
{
	long before = -1;
	for (size_t c = 0; c < v->ncommits; c++) {
		const struct alloclab_commit *k = &v->commits[c];
		if (k->state != ALLOCLAB_COMMIT_MEASURED)
			continue;
		long b = before;
		before = (long)c;
		if (b < 0 || k->code_sha256 == NULL || v->commits[b].code_sha256 == NULL ||
		    strcmp(k->code_sha256, v->commits[b].code_sha256) != 0)
			continue;
		for (size_t i = 0; i < v->nseries; i++) {
			struct alloclab_history_series *s = &v->series[i];
			const struct alloclab_history_point *base = NULL;
			for (size_t j = 0; j < s->npoints && base == NULL; j++)
				if (s->points[j].commit == (size_t)b && s->points[j].level >= 0)
					base = &s->points[j];
			if (base == NULL)
				continue;
			struct alloclab_history_point copy = *base;
			struct alloclab_history_point *h = point_of(s, c);
			if (h == NULL || h->has_step)
				continue; /* measured after all (--measure-same-code) */
			h->level = copy.level;
			h->has_step = 1;
			h->base = (size_t)b;
			h->ratio = h->lo = h->hi = 1;
			h->has_interval = 1;
			h->p = 1;
			h->verdict = ALLOCLAB_VERDICT_NOT_RESOLVED;
			h->same_code = 1;
			h->has_reference = copy.has_reference;
			h->ref_ratio = copy.ref_ratio;
			h->ref_lo = copy.ref_lo;
			h->ref_hi = copy.ref_hi;
			h->ref_key = copy.ref_key;
		}
	}
}

static int by_commit(const void *a, const void *b)
{
	size_t x = ((const struct alloclab_history_point *)a)->commit, y = ((const struct alloclab_history_point *)b)->commit;
	return (x > y) - (x < y);
}

/* The steps after `first` up to `last` multiplied, and whether the drift
 * (half-width h on the logarithm) agrees with them. Each step's interval
 * is taken as ±1.96 standard errors on the logarithm, the steps as
 * independent (separate runs). */
static void chain_steps(struct alloclab_history_series *s, const struct alloclab_history_point *first,
			const struct alloclab_history_point *last, double h)
{
	double log_chain = 0, var = 0;
	for (const struct alloclab_history_point *pt = first + 1; pt <= last; pt++) {
		if (!pt->has_step || !pt->has_interval || pt->lo <= 0 || pt->ratio <= 0)
			return;
		double se = log(pt->hi / pt->lo) / 2 / 1.96;
		log_chain += log(pt->ratio);
		var += se * se;
	}
	double half = 1.96 * sqrt(var), drift_se = h / 1.96;
	s->has_chain = 1;
	s->chain = exp(log_chain);
	s->chain_lo = exp(log_chain - half);
	s->chain_hi = exp(log_chain + half);
	s->drift_agrees = fabs(log(s->drift) - log_chain) <= 1.96 * sqrt(var + drift_se * drift_se);
}

/* The change points of a series, and its drift against the reference. */
static void find_changes(const struct alloclab_history_view *v, struct alloclab_history_series *s)
{
	qsort(s->points, s->npoints, sizeof *s->points, by_commit);
	double *p = calloc(s->npoints + 1, sizeof *p);
	int *kept = calloc(s->npoints + 1, sizeof *kept);
	for (size_t i = 0; p && kept && i < s->npoints; i++)
		p[i] = s->points[i].has_step && !s->points[i].same_code ? s->points[i].p : -1; /* same code: not a test */
	if (p && kept && s->metric != ALLOCLAB_AB_INSTRUCTIONS)
		alloclab_bh_keep(p, s->npoints, ALLOCLAB_CHANGE_FDR, kept);
	for (size_t i = 0; p && kept && i < s->npoints; i++) {
		struct alloclab_history_point *pt = &s->points[i];
		int resolved = pt->verdict == ALLOCLAB_VERDICT_LESS || pt->verdict == ALLOCLAB_VERDICT_MORE;
		pt->change = pt->has_step && resolved && (s->metric == ALLOCLAB_AB_INSTRUCTIONS || kept[i]);
	}
	free(p);
	free(kept);
	/* Drift: the last commit against the reference over the first, their
	 * intervals combined as independent (on the logarithms); the first
	 * read against the last's reference (ranges that overlap may each
	 * have had their own). */
	const struct alloclab_history_point *first = NULL, *last = NULL;
	for (size_t i = 0; i < s->npoints; i++)
		if (s->points[i].has_reference)
			last = &s->points[i];
	for (size_t i = 0; last && i < s->npoints && first == NULL; i++)
		if (s->points[i].has_reference && s->points[i].ref_key == last->ref_key)
			first = &s->points[i];
	if (first && last && first != last && first->ref_lo > 0 && last->ref_lo > 0) {
		/* A reference that is the first commit's build (history run's
		 * default): the last commit's ratio to it is the drift, measured
		 * in one run; the first's is an A/A whose noise would only widen
		 * it. Any other reference: the last over the first. */
		char own[40], label[16];
		alloclab_history_commit_label(v->commits[first->commit].commit, label, sizeof label);
		snprintf(own, sizeof own, "first-%s", label);
		int is_first = alloclab_fnv1a(ALLOCLAB_FNV_OFFSET, own, strlen(own)) == last->ref_key;
		double h1 = is_first ? 0 : log(first->ref_hi / first->ref_lo) / 2, h2 = log(last->ref_hi / last->ref_lo) / 2;
		double h = sqrt(h1 * h1 + h2 * h2);
		s->has_drift = 1;
		s->drift = is_first ? last->ref_ratio : last->ref_ratio / first->ref_ratio;
		s->drift_lo = s->drift * exp(-h);
		s->drift_hi = s->drift * exp(h);
		s->drift_resolved = s->drift_lo > 1 || s->drift_hi < 1;
		chain_steps(s, first, last, h);
	}
}

/* The repository to show: the one asked for, or the store's only one. */
static int pick_repo(struct alloclab_store *s, const char *repo, char **out, char *err, size_t err_len)
{
	char **repos;
	size_t n;
	if (alloclab_store_repos(s, &repos, &n, err, err_len) != 0)
		return -1;
	*out = NULL;
	for (size_t i = 0; i < n; i++)
		if (*out == NULL && (repo == NULL ? n == 1 : strcmp(repos[i], repo) == 0))
			*out = strdup(repos[i]);
	if (*out == NULL && repo)
		snprintf(err, err_len, "the store has no history of repository %.600s", repo);
	else if (*out == NULL)
		snprintf(err, err_len, "%s", n == 0 ? "the store has no repository's history (history run makes one; "
						     "history add keeps runs alone)"
						   : "the store holds the histories of several repositories: give --repo");
	for (size_t i = 0; i < n; i++)
		free(repos[i]);
	free(repos);
	return *out ? 0 : -1;
}

int alloclab_history_view_load(struct alloclab_store *s, const char *repo, struct alloclab_history_view *v, char *err,
			       size_t err_len)
{
	if (pick_repo(s, repo, &v->repo, err, err_len) != 0 ||
	    alloclab_store_commits(s, v->repo, &v->commits, &v->ncommits, err, err_len) != 0 ||
	    load_steps(s, v, err, err_len) != 0)
		return -1;
	add_same_code(v);
	for (size_t i = 0; i < v->nseries; i++)
		find_changes(v, &v->series[i]);
	return 0;
}

void alloclab_history_view_clear(struct alloclab_history_view *v)
{
	for (size_t i = 0; i < v->nseries; i++) {
		free(v->series[i].row);
		free(v->series[i].machine);
		free(v->series[i].points);
	}
	free(v->series);
	alloclab_store_commits_free(v->commits, v->ncommits);
	free(v->repo);
	free(v->machine);
	free(v->reference);
	v->series = NULL;
	v->nseries = 0;
	v->commits = NULL;
	v->ncommits = 0;
	v->repo = v->machine = v->reference = NULL;
}
