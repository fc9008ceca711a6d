/* Finding the commit where a metric changed. See history.h. */
#define _GNU_SOURCE 1
#include "history/history.h"

#include "history/revision.h"
#include "history/series.h"
#include "files/code_hash.h"
#include "process/child.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What a build loads (files/code_hash.h); "" unknown (then measured). */
static void code_of(const struct alloclab_built *b, char code[ALLOCLAB_SHA256_HEX])
{
	char why[1200];
	if (alloclab_plugin_code_sha256(b->plugin, code, why, sizeof why) != 0)
		code[0] = '\0';
}

/* What good's and bad's builds load, and bad's change: a probe that loads
 * either's code is that one, unmeasured. */
struct ends {
	char good[ALLOCLAB_SHA256_HEX], bad[ALLOCLAB_SHA256_HEX];
	struct alloclab_ab_row change;
};

/* probe's build against good's, for the plan's metric: the row's ratio
 * (row: its name; "" the first row, whose name is then copied there); its
 * code into code. 0 (*same: 1 good's code, 2 bad's, not measured; else
 * 0), 1 when probe does not build (or crashes), -1 with err. */
static int probe(const struct alloclab_history_plan *p, enum alloclab_ab_metric metric, const char *good_commit,
		 const struct alloclab_built *good, const char *commit, const struct ends *ends, char row[200],
		 struct alloclab_ab_row *out, int *same, char code[ALLOCLAB_SHA256_HEX], size_t *builds, char *err,
		 size_t err_len)
{
	char dir[PATH_MAX], bl[16], hl[16], why[1400];
	struct alloclab_built head;
	*same = 0;
	snprintf(dir, sizeof dir, "%s/bisect/%s", p->dir, commit);
	if (alloclab_build_commit(&p->build, commit, dir, &head, why, sizeof why) != 0)
		return 1;
	(*builds)++;
	code_of(&head, code);
	if (code[0] && (strcmp(code, ends->good) == 0 || strcmp(code, ends->bad) == 0)) {
		*same = strcmp(code, ends->good) == 0 ? 1 : 2;
		memset(out, 0, sizeof *out);
		if (*same == 2) {
			*out = ends->change;
		} else {
			out->ratio = out->lo = out->hi = 1;
			out->has_interval = 1;
			out->verdict = ALLOCLAB_VERDICT_NOT_RESOLVED;
		}
		return 0;
	}
	alloclab_history_commit_label(good_commit, bl, sizeof bl);
	alloclab_history_commit_label(commit, hl, sizeof hl);
	struct alloclab_ab_plan ab = p->ab;
	ab.base = (struct alloclab_ab_build){bl, good->plugin, "", good->source};
	ab.head = (struct alloclab_ab_build){hl, head.plugin, "", head.source};
	ab.dir = dir;
	ab.metrics = 1u << metric;
	if (p->progress)
		fprintf(stderr, "alloclab history bisect: measuring %.12s against %.12s\n", commit, good_commit);
	struct alloclab_ab_result res;
	int rc = alloclab_ab_measure(&ab, &res, err, err_len);
	if (rc != 0) {
		rc = strcmp(res.failed_side, "HEAD") == 0 ? 1 : -1;
	} else {
		rc = -1;
		for (size_t i = 0; i < res.nrows && rc != 0; i++)
			if (!res.rows[i].status && (row[0] == '\0' || strcmp(res.rows[i].name, row) == 0)) {
				*out = res.rows[i];
				if (row[0] == '\0')
					snprintf(row, 200, "%s", res.rows[i].name);
				out->name = NULL;
				rc = 0;
			}
		if (rc != 0)
			snprintf(err, err_len, "%.12s: no row %.200s in its measurement", commit, row);
	}
	alloclab_ab_result_clear(&res);
	return rc;
}

static void add_step(struct alloclab_bisect_outcome *o, const char *commit, const struct alloclab_ab_row *r, int bad,
		     int broken, int same)
{
	struct alloclab_bisect_step *grown = realloc(o->steps, (o->nsteps + 1) * sizeof *grown);
	if (grown == NULL)
		return;
	o->steps = grown;
	struct alloclab_bisect_step *s = &o->steps[o->nsteps++];
	memset(s, 0, sizeof *s);
	snprintf(s->commit, sizeof s->commit, "%s", commit);
	s->bad = bad;
	s->broken = broken;
	s->same_code = same;
	if (r) {
		s->ratio = r->ratio;
		s->has_interval = r->has_interval;
		s->lo = r->lo;
		s->hi = r->hi;
	}
}

/* Whether a probe's change is bad's: resolved, and nearer (on the
 * logarithms) to bad's change than to no change at all. */
static int like_bad(const struct alloclab_ab_row *r, double change)
{
	int resolved = r->verdict == ALLOCLAB_VERDICT_LESS || r->verdict == ALLOCLAB_VERDICT_MORE;
	return resolved && fabs(log(r->ratio) - log(change)) < fabs(log(r->ratio));
}

/* The first row whose change good..bad resolves: its name and change
 * (into ends). 0, 1 when good and bad do not differ (or load the same
 * code), -1 with err. */
static int the_change(const struct alloclab_history_plan *p, enum alloclab_ab_metric metric,
		      const struct alloclab_revision *revs, size_t n, const struct alloclab_built *good, struct ends *ends,
		      struct alloclab_bisect_outcome *out, char *err, size_t err_len)
{
	struct alloclab_ab_row r;
	char code[ALLOCLAB_SHA256_HEX];
	int same;
	int rc = probe(p, metric, revs[0].commit, good, revs[n - 1].commit, ends, out->row, &r, &same, code,
		       &out->builds, err, err_len);
	if (rc == 1)
		snprintf(err, err_len, "the bad commit %.12s does not build or crashes", revs[n - 1].commit);
	if (rc != 0)
		return -1;
	if (same) {
		out->same_code = 1;
		return 1;
	}
	ends->change = r;
	memcpy(ends->bad, code, sizeof code);
	/* One row a bisection: the first of the suite's (give one -w to
	 * choose). */
	out->change = r.ratio;
	out->change_lo = r.lo;
	out->change_hi = r.hi;
	add_step(out, revs[n - 1].commit, &r, 1, 0, 0);
	return r.verdict == ALLOCLAB_VERDICT_LESS || r.verdict == ALLOCLAB_VERDICT_MORE ? 0 : 1;
}

int alloclab_history_bisect(const struct alloclab_history_plan *p, const char *good, const char *bad,
			    enum alloclab_ab_metric metric, struct alloclab_bisect_outcome *out, char *err,
			    size_t err_len)
{
	struct alloclab_revision *revs = NULL;
	size_t n = 0;
	char range[600], dir[PATH_MAX];
	struct alloclab_built good_build;

	memset(out, 0, sizeof *out);
	snprintf(range, sizeof range, "%s..%s", good, bad);
	snprintf(dir, sizeof dir, "%s/bisect", p->dir);
	if ((mkdir(p->dir, 0777) != 0 && errno != EEXIST) || (mkdir(dir, 0777) != 0 && errno != EEXIST)) {
		snprintf(err, err_len, "%.600s: %s", dir, strerror(errno));
		return -1;
	}
	if (alloclab_revision_list(p->build.repo, range, &revs, &n, err, err_len) != 0)
		return -1;
	int rc = -1;
	if (n < 2) {
		snprintf(err, err_len, "%.200s holds no commit after the good one", range);
		goto done;
	}
	snprintf(dir, sizeof dir, "%s/bisect/%s", p->dir, revs[0].commit);
	if (alloclab_build_commit(&p->build, revs[0].commit, dir, &good_build, err, err_len) != 0)
		goto done;
	out->builds = 1;
	/* bad's code is known once the_change has built it. */
	struct ends ends = {.bad = ""};
	code_of(&good_build, ends.good);
	int differ = the_change(p, metric, revs, n, &good_build, &ends, out, err, err_len);
	if (differ != 0) {
		rc = differ < 0 ? -1 : 0; /* 0 with first_bad "": no change to find */
		goto done;
	}
	size_t lo = 0, hi = n - 1;
	while (hi - lo > 1 && !alloclab_interrupted()) {
		size_t mid = lo + (hi - lo) / 2, at = mid;
		struct alloclab_ab_row r;
		char code[ALLOCLAB_SHA256_HEX];
		int got = 1, same = 0;
		/* A commit that does not build: its neighbours, outward. */
		for (size_t d = 0; got == 1 && d < hi - lo; d++) {
			size_t tries[2] = {mid + d, mid - d};
			for (int k = 0; k < 2 && got == 1; k++) {
				if (tries[k] <= lo || tries[k] >= hi || (k == 1 && d == 0))
					continue;
				at = tries[k];
				got = probe(p, metric, revs[0].commit, &good_build, revs[at].commit, &ends, out->row, &r,
					    &same, code, &out->builds, err, err_len);
				if (got == 1)
					add_step(out, revs[at].commit, NULL, 0, 1, 0);
			}
		}
		if (got < 0)
			goto done;
		if (got == 1)
			break; /* every commit between lo and hi is broken: hi is as near as it gets */
		int is_bad = same ? same == 2 : like_bad(&r, out->change);
		add_step(out, revs[at].commit, &r, is_bad, 0, same);
		if (is_bad)
			hi = at;
		else
			lo = at;
	}
	snprintf(out->first_bad, sizeof out->first_bad, "%s", revs[hi].commit);
	rc = 0;
done:
	alloclab_revision_list_free(revs, n);
	return rc;
}

void alloclab_bisect_outcome_clear(struct alloclab_bisect_outcome *o)
{
	free(o->steps);
	memset(o, 0, sizeof *o);
}
