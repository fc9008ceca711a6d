/* A repository's history measured. See history.h. */
#define _GNU_SOURCE 1
#include "history/history.h"

#include "base/shell_word.h"

#include "base/clock.h"
#include "base/hash.h"
#include "files/file_hash.h"
#include "history/revision.h"
#include "history/series.h"
#include "files/code_hash.h"
#include "process/child.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A commit's build, kept in the run's folder: made once, read again. */
static int commit_build(const struct alloclab_history_plan *p, const char *commit, struct alloclab_built *b, char *err,
			size_t err_len)
{
	char dir[PATH_MAX], builds[PATH_MAX];
	struct stat st;
	/* The run's folder is at most ALLOCLAB_HISTORY_DIR_MAX long
	 * (alloclab_history_run refuses a longer one). */
	snprintf(builds, sizeof builds, "%.3000s/builds", p->dir);
	snprintf(dir, sizeof dir, "%.3100s/%.64s", builds, commit);
	if (mkdir(builds, 0777) != 0 && errno != EEXIST) {
		snprintf(err, err_len, "%.600s: %s", builds, strerror(errno));
		return -1;
	}
	memset(b, 0, sizeof *b);
	snprintf(b->plugin, sizeof b->plugin, "%.3200s/plugin.so", dir);
	snprintf(b->log, sizeof b->log, "%.3200s/build.log", dir);
	snprintf(b->source, sizeof b->source, "%s", commit);
	if (stat(b->plugin, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		return 0;
	if (p->progress)
		fprintf(stderr, "alloclab history: building %.12s\n", commit);
	return alloclab_build_commit(&p->build, commit, dir, b, err, err_len);
}

/* The step's runs into the store, linked to the commit, and the commit
 * marked measured. */
static int keep_step(struct alloclab_store *s, const char *repo, const char *commit, const char *base,
		     const struct alloclab_ab_result *res, const char *sha256, const char *code, char *err, size_t err_len)
{
	/* Each metric's file, and time's whole values beside its slices. */
	const char *files[ALLOCLAB_AB_NMETRICS + 1], *kinds[ALLOCLAB_AB_NMETRICS + 1];
	int64_t ids[ALLOCLAB_AB_NMETRICS + 1] = {0};
	for (int m = 0; m < ALLOCLAB_AB_NMETRICS; m++) {
		files[m] = res->files[m];
		kinds[m] = alloclab_ab_metric_names[m];
	}
	files[ALLOCLAB_AB_NMETRICS] = res->size_file;
	kinds[ALLOCLAB_AB_NMETRICS] = ALLOCLAB_AB_TIME_SIZE;
	for (int m = 0; m <= ALLOCLAB_AB_NMETRICS; m++) {
		if (!files[m][0])
			continue;
		struct alloclab_results *r = alloclab_results_load(files[m], NULL, err, err_len);
		enum alloclab_store_added what;
		int rc = r ? alloclab_store_add_run(s, r, &what, &ids[m], err, err_len) : -1;
		alloclab_results_free(r);
		if (rc != 0)
			return -1;
	}
	for (int m = 0; m <= ALLOCLAB_AB_NMETRICS; m++)
		if (files[m][0] && alloclab_store_link_run(s, repo, commit, ids[m], kinds[m], base, err, err_len) != 0)
			return -1;
	return alloclab_store_set_commit(s, repo, commit, ALLOCLAB_COMMIT_MEASURED, NULL, sha256, code, err, err_len);
}

/* A step's folder (steps/COMMIT-KEY) in *dir, steps/ in *steps: its
 * commit, its base and everything asked, so that a run with another
 * suite, base or design measures anew rather than reading what another
 * plan left; a step measured again has a folder of its own. */
static void step_dir(const struct alloclab_history_plan *p, const char *base_commit, const char *commit,
		     const char *first_commit, int again, char *steps, size_t steps_len, char *dir, size_t dir_len)
{
	uint64_t key = alloclab_fnv1a(ALLOCLAB_FNV_OFFSET, base_commit, strlen(base_commit) + 1);
	const char *identity = p->ab.identity ? p->ab.identity : "";
	key = alloclab_fnv1a(key, identity, strlen(identity));
	if (p->reference_first)
		key = alloclab_fnv1a(key, first_commit, strlen(first_commit) + 1);
	if (again)
		key = alloclab_fnv1a(key, "again", 6);
	snprintf(steps, steps_len, "%.3000s/steps", p->dir);
	snprintf(dir, dir_len, "%.3100s/%.64s-%016llx", steps, commit, (unsigned long long)key);
}

/* One step: this commit's build against the previous one's, measured (or
 * its files read again: *read_back, where not NULL) in its folder; kept
 * when there is a store. 0; 1 when HEAD's build failed (recorded as
 * broken); measured again, 1 when either failed (nothing recorded: the
 * first measurement stands); -1 with err (BASE's build failed: named). */
static int measure_step(struct alloclab_store *s, const struct alloclab_history_plan *p, const char *repo,
			const char *base_commit, const struct alloclab_built *base, const char *commit,
			const struct alloclab_built *head, const char *code, const char *first_commit,
			const struct alloclab_built *first, int again, int *read_back, char *err, size_t err_len)
{
	char steps[PATH_MAX], dir[PATH_MAX], bl[16], hl[16], rl[24], sha[ALLOCLAB_SHA256_HEX];
	step_dir(p, base_commit, commit, first_commit, again, steps, sizeof steps, dir, sizeof dir);
	if ((mkdir(steps, 0777) != 0 && errno != EEXIST) || (mkdir(dir, 0777) != 0 && errno != EEXIST)) {
		snprintf(err, err_len, "%.600s: %s", dir, strerror(errno));
		return -1;
	}
	alloclab_history_commit_label(base_commit, bl, sizeof bl);
	alloclab_history_commit_label(commit, hl, sizeof hl);
	struct alloclab_ab_plan ab = p->ab;
	ab.base = (struct alloclab_ab_build){bl, base->plugin, "", base->source};
	ab.head = (struct alloclab_ab_build){hl, head->plugin, "", head->source};
	ab.dir = dir;
	ab.reuse = 1;
	if (again) /* the other metrics do not move with the machine */
		ab.metrics &= 1u << ALLOCLAB_AB_TIME;
	if (p->reference_first) {
		char fl[16];
		alloclab_history_commit_label(first_commit, fl, sizeof fl);
		snprintf(rl, sizeof rl, "first-%s", fl);
		ab.reference = first->plugin;
		ab.reference_label = rl;
	}
	int reused = alloclab_ab_reused(&ab);
	if (read_back)
		*read_back = reused;
	if (p->progress && !(again && reused))
		fprintf(stderr, "alloclab history: measuring %.12s against %.12s%s\n", commit, base_commit,
			again ? " again, in time" : "");
	struct alloclab_ab_result res;
	int rc = alloclab_ab_measure(&ab, &res, err, err_len);
	if (rc != 0 && again && !alloclab_interrupted()) {
		/* Its first measurement stands; the caller says what failed. */
		alloclab_ab_result_clear(&res);
		return 1;
	}
	if (rc == 0 && s && alloclab_file_sha256(head->plugin, sha, err, err_len) == 0)
		rc = keep_step(s, repo, commit, base_commit, &res, sha, code[0] ? code : NULL, err, err_len);
	else if (rc == 0 && s)
		rc = -1;
	if (rc != 0 && strcmp(res.failed_side, "BASE") == 0 && !alloclab_interrupted()) {
		/* The base measured fine before (as a HEAD, or as the range's
		 * first) and fails now: a build that fails only sometimes, or
		 * a machine that changed. Nothing is recorded of either: which
		 * is at fault is not known, and falling back to an earlier base
		 * would condemn good commits one by one. */
		char why[1400];
		snprintf(why, sizeof why, "%s", err);
		snprintf(err, err_len, "its base %.12s, measured before, fails now (nothing recorded): %.1200s", base_commit,
			 why);
		rc = -1;
	} else if (rc != 0 && strcmp(res.failed_side, "HEAD") == 0 && !alloclab_interrupted()) {
		/* A build that crashes is that commit's fault when it is
		 * HEAD's: recorded as broken, and the history goes on. */
		char why[1400];
		snprintf(why, sizeof why, "%s", err);
		rc = s && alloclab_store_set_commit(s, repo, commit, ALLOCLAB_COMMIT_BROKEN, why, NULL, NULL, err, err_len) != 0
			     ? -1
			     : 1;
		if (rc == 1)
			snprintf(err, err_len, "%s", why);
	}
	alloclab_ab_result_clear(&res);
	return rc;
}

/* Records every commit of the range in the store, in order. */
static int record_commits(struct alloclab_store *s, const char *repo, const struct alloclab_revision *revs, size_t n,
			  char *err, size_t err_len)
{
	for (size_t i = 0; i < n; i++) {
		struct alloclab_commit c = {.commit = (char *)revs[i].commit, .subject = revs[i].subject,
					    .date = (char *)revs[i].date, .ordinal = (unsigned)revs[i].depth};
		if (alloclab_store_put_commit(s, repo, &c, err, err_len) != 0)
			return -1;
	}
	return 0;
}

/* What the store has of a commit; NULL when nothing (or no store). */
static const struct alloclab_commit *known_of(const struct alloclab_commit *known, size_t nknown, const char *commit)
{
	for (size_t i = 0; i < nknown; i++)
		if (strcmp(known[i].commit, commit) == 0)
			return &known[i];
	return NULL;
}

/* Whether a measured commit has a step of its own in the store (a run
 * linked to it): a range's first commit, and one that loaded the code of
 * the commit before it, have none. 1, 0, or -1 with err. */
static int has_step(struct alloclab_store *s, const char *repo, const char *commit, char *err, size_t err_len)
{
	int found = 0;
	for (int m = 0; m < ALLOCLAB_AB_NMETRICS && !found; m++) {
		int64_t *ids;
		char **bases;
		size_t n;
		if (alloclab_store_commit_runs(s, repo, commit, alloclab_ab_metric_names[m], &ids, &bases, &n, err, err_len) !=
		    0)
			return -1;
		found = n > 0;
		alloclab_store_commit_runs_free(ids, bases, n);
	}
	return found;
}

/* Whether --steps visits commit i of n: every N-th, the first and the
 * last. */
static int visited(const struct alloclab_history_plan *p, size_t i, size_t n)
{
	return p->every <= 1 || i % p->every == 0 || i + 1 == n;
}

/* One line after a step: which, how long the steps took, about how long
 * the rest will take at that pace. */
static void say_progress(const struct alloclab_history_plan *p, const struct alloclab_revision *revs, size_t n,
			 size_t i, const struct alloclab_history_outcome *out)
{
	size_t left = 0;
	for (size_t k = i + 1; k < n; k++)
		left += visited(p, k, n);
	double mean = out->steps_timed ? out->step_seconds / (double)out->steps_timed : 0;
	fprintf(stderr, "alloclab history: %.12s measured (%zu of %zu commits done, %.0f s a step); about %.0f min left\n",
		revs[i].commit, i + 1, n, mean, mean * (double)left / 60);
}

/* The newest time run of commit's own step in the store (*r), where it
 * ran and its base. 1; 0 none; -1 with err. */
static int own_time_run(struct alloclab_store *s, const struct alloclab_history_plan *p, const char *repo,
			const char *commit, char *base, size_t base_len, char *machine, size_t machine_len,
			struct alloclab_results **r, char *err, size_t err_len)
{
	int64_t *ids;
	char **bases;
	size_t n;
	*r = NULL;
	if (alloclab_store_commit_runs(s, repo, commit, alloclab_ab_metric_names[ALLOCLAB_AB_TIME], &ids, &bases, &n, err,
				       err_len) != 0)
		return -1;
	int rc = 0;
	if (n > 0 && bases[0]) {
		snprintf(base, base_len, "%s", bases[0]);
		rc = alloclab_store_run_machine(s, ids[0], machine, machine_len, err, err_len) == 0 &&
			     (*r = alloclab_store_load_run(s, ids[0], p->ab.check, err, err_len)) != NULL
			     ? 1
			     : -1;
	}
	alloclab_store_commit_runs_free(ids, bases, n);
	return rc;
}

/* This machine, as the store names a run's (alloclab_store_run_machine). */
static void this_machine(char *out, size_t len)
{
	json_t *m = alloclab_metadata(0, NULL);
	const char *host = json_string_value(json_object_get(m, "host")),
		   *cpu = json_string_value(json_object_get(m, "cpu_model")),
		   *kernel = json_string_value(json_object_get(m, "kernel"));
	snprintf(out, len, "%s, %s, %d CPUs, %s", host ? host : "unknown", cpu ? cpu : "unknown",
		 (int)json_integer_value(json_object_get(m, "cpus_allowed")), kernel ? kernel : "unknown");
	json_decref(m);
}

/* Whether commit prev read apart against the reference in its own step
 * and in the step of commit i (its next), both measured on this machine
 * (a step measured again here would not stand for one of another: the
 * shards' steps are left as they are) and against `reference` where not
 * NULL; *lv the row that differs most, and prev's step's base. 1, 0, -1
 * err. */
static int level_moved(struct alloclab_store *s, const struct alloclab_history_plan *p, const char *repo,
		       const char *prev, const char *commit, const char *reference, char *base, size_t base_len,
		       struct alloclab_history_level *lv, char *err, size_t err_len)
{
	char m_own[1200], m_next[1200], here[1200], unused[256], label[16];
	struct alloclab_results *own = NULL, *next = NULL;
	int rc = own_time_run(s, p, repo, prev, base, base_len, m_own, sizeof m_own, &own, err, err_len);
	if (rc == 1)
		rc = own_time_run(s, p, repo, commit, unused, sizeof unused, m_next, sizeof m_next, &next, err, err_len);
	alloclab_history_commit_label(prev, label, sizeof label);
	this_machine(here, sizeof here);
	/* Measured again, a step takes this run's reference: readings
	 * against another (an overlapping range's first commit) are left. */
	if (rc == 1)
		rc = strcmp(m_own, here) == 0 && strcmp(m_next, here) == 0 &&
		     (reference == NULL || (own->facts.npair && strcmp(own->facts.pair_plugins[0], reference) == 0)) &&
		     alloclab_history_level_moved(own, next, label, p->ab.name_rows, lv);
	alloclab_results_free(own);
	alloclab_results_free(next);
	return rc;
}

/* After the step of commit i (base prev), measured now or before: prev
 * read against the reference in this step as in its own? One build and
 * one reference read alike unless the machine changed between the two
 * steps (beside two busy loops one footprint change read 1.098 in its
 * step and 1.052 in the next, and 1.050 to 1.056 in six runs after), and
 * then a step measured something besides the builds, and the steps
 * multiplied miss the drift. So prev's step is measured again (in time);
 * where the two still read apart, this step too. Each into a folder of
 * its own, once: a later run reads the finished files back (into its
 * store, silently), and finishes what an interrupt left. A build that
 * fails when measured again keeps its first measurement; the run says so
 * and ends with status 1. */
static int recheck(struct alloclab_store *s, const struct alloclab_history_plan *p, const char *repo,
		   const struct alloclab_revision *revs, size_t n, size_t i, long prev, long first,
		   const struct alloclab_built *built, const char (*codes)[ALLOCLAB_SHA256_HEX],
		   struct alloclab_history_outcome *out, char *err, size_t err_len)
{
	if (s == NULL || p->shard_count || !(p->ab.metrics & (1u << ALLOCLAB_AB_TIME)) ||
	    (!p->reference_first && !p->ab.reference))
		return 0;
	char reference[40] = "";
	if (p->reference_first) {
		char fl[16];
		alloclab_history_commit_label(revs[first].commit, fl, sizeof fl);
		snprintf(reference, sizeof reference, "first-%s", fl);
	}
	int tried_prev = 0;
	for (int tries = 0; tries < 2; tries++) {
		char base[256];
		struct alloclab_history_level lv;
		int rc = level_moved(s, p, repo, revs[prev].commit, revs[i].commit, reference[0] ? reference : NULL, base,
				     sizeof base, &lv, err, err_len);
		if (rc <= 0)
			return rc;
		long b = -1;
		for (size_t k = 0; k < n && b < 0; k++)
			if (strcmp(revs[k].commit, base) == 0 && built[k].plugin[0])
				b = (long)k;
		/* prev's step where its base is at hand, else (or then) this one. */
		long who = b >= 0 && !tried_prev ? prev : (long)i, whose = who == prev ? b : prev;
		tried_prev |= who == prev;
		char row[ALLOCLAB_PRINTED_LEN], why[1400];
		alloclab_printable(lv.row, row, sizeof row);
		int read_back = 0;
		rc = measure_step(s, p, repo, revs[whose].commit, &built[whose], revs[who].commit, &built[who], codes[who],
				  revs[first].commit, &built[first], 1, &read_back, why, sizeof why);
		if (rc == 0 && !read_back) {
			out->again++;
			if (p->progress)
				alloclab_say("alloclab history: %.12s read %.4f [%.4f .. %.4f] against the reference in its "
					     "own step and %.4f [%.4f .. %.4f] in the next (%s): the machine changed between "
					     "them; %.12s's step measured again",
					     revs[prev].commit, lv.own, lv.own_lo, lv.own_hi, lv.next, lv.next_lo, lv.next_hi, row,
					     revs[who].commit);
		}
		if (rc == 1) {
			out->failed_again++;
			if (p->progress)
				alloclab_say("alloclab history: %.12s's step failed when measured again (its first "
					     "measurement is kept): %s",
					     revs[who].commit, why);
			return 0;
		}
		if (rc != 0) {
			snprintf(err, err_len, "%s", why);
			return -1;
		}
		if (who == (long)i)
			return 0;
	}
	return 0;
}

/* One commit of the range: built, and measured against prev (the last
 * commit that built; -1 none). *prev moves to it when it built. */
static int one_commit(struct alloclab_store *s, const struct alloclab_history_plan *p, const char *repo,
		      const struct alloclab_revision *revs, size_t n, size_t i, const struct alloclab_commit *k, long *prev,
		      long *first, struct alloclab_built *built, char (*codes)[ALLOCLAB_SHA256_HEX], size_t *step,
		      struct alloclab_history_outcome *out, char *err, size_t err_len)
{
	const char *commit = revs[i].commit;
	enum alloclab_commit_state state = k ? k->state : ALLOCLAB_COMMIT_PENDING;
	char why[1400];
	if (state == ALLOCLAB_COMMIT_BROKEN) {
		out->broken++;
		return 0;
	}
	if (commit_build(p, commit, &built[i], why, sizeof why) != 0) {
		/* A build cut short by an interrupt says nothing of the commit:
		 * not recorded, it is built again next time. */
		if (alloclab_interrupted())
			return 0;
		out->broken++;
		if (p->progress)
			alloclab_say("alloclab history: %.12s does not build: %s", commit, why);
		return s ? alloclab_store_set_commit(s, repo, commit, ALLOCLAB_COMMIT_BROKEN, why, NULL, NULL, err, err_len)
			 : 0;
	}
	/* Unknown (""): a file libelf cannot read is measured, and its
	 * loading tells what is wrong with it. */
	if (alloclab_plugin_code_sha256(built[i].plugin, codes[i], why, sizeof why) != 0)
		codes[i][0] = '\0';
	/* Measured before the store kept what a build loads (schema 5): a
	 * later commit that loads its code needs it to be shown so. */
	if (s && state == ALLOCLAB_COMMIT_MEASURED && k->code_sha256 == NULL && codes[i][0] &&
	    alloclab_store_set_commit(s, repo, commit, ALLOCLAB_COMMIT_MEASURED, NULL, k->sha256, codes[i], err, err_len) != 0)
		return -1;
	if (*prev >= 0 && !p->measure_same_code && codes[i][0] && strcmp(codes[i], codes[*prev]) == 0) {
		/* The same code as the commit before it: measured as that one
		 * (the next step is against that one's build). */
		char sha[ALLOCLAB_SHA256_HEX];
		out->same++;
		if (p->progress)
			fprintf(stderr, "alloclab history: %.12s loads the same code as %.12s: not measured\n", commit,
				revs[*prev].commit);
		if (s && state != ALLOCLAB_COMMIT_MEASURED &&
		    (alloclab_file_sha256(built[i].plugin, sha, err, err_len) != 0 ||
		     alloclab_store_set_commit(s, repo, commit, ALLOCLAB_COMMIT_MEASURED, NULL, sha, codes[i], err, err_len) !=
			     0))
			return -1;
		return 0;
	}
	if (*first < 0)
		*first = (long)i;
	/* Measured before, with a step of its own: read again. Measured
	 * only as a range's first commit, or as the same code as another
	 * commit (another range, --steps, --measure-same-code asked now):
	 * its step from this commit's base is not known, and is measured. */
	int known = state == ALLOCLAB_COMMIT_MEASURED && *prev >= 0 ? has_step(s, repo, commit, err, err_len) : 0;
	if (known < 0)
		return -1;
	if (*prev < 0 || known) {
		/* The first commit is the others' base: measured in the step
		 * of the commit after it. */
		char sha[ALLOCLAB_SHA256_HEX];
		if (*prev >= 0)
			out->known++;
		/* Measured before, perhaps with a step measured again left
		 * unfinished, or by a version that did not compare. */
		int rc = *prev >= 0 ? recheck(s, p, repo, revs, n, i, *prev, *first, built,
					      (const char(*)[ALLOCLAB_SHA256_HEX])codes, out, why, sizeof why)
				    : 0;
		if (rc != 0 && alloclab_interrupted())
			return 0;
		if (rc != 0) {
			snprintf(err, err_len, "%.12s: %s", commit, why);
			return -1;
		}
		if (*prev < 0 && s && state != ALLOCLAB_COMMIT_MEASURED &&
		    (alloclab_file_sha256(built[i].plugin, sha, err, err_len) != 0 ||
		     alloclab_store_set_commit(s, repo, commit, ALLOCLAB_COMMIT_MEASURED, NULL, sha,
					       codes[i][0] ? codes[i] : NULL, err, err_len) != 0))
			return -1;
		*prev = (long)i;
		return 0;
	}
	size_t nth = (*step)++;
	if (p->shard_count && nth % p->shard_count != p->shard_index - 1) {
		out->elsewhere++;
		*prev = (long)i;
		return 0;
	}
	double started = alloclab_now_s();
	int rc = measure_step(s, p, repo, revs[*prev].commit, &built[*prev], commit, &built[i], codes[i],
			      revs[*first].commit, &built[*first], 0, NULL, why, sizeof why);
	out->step_seconds += alloclab_now_s() - started;
	out->steps_timed++;
	if (rc != 0 && alloclab_interrupted())
		return 0; /* nothing recorded: measured again next time */
	if (rc == 1) {
		out->broken++;
		if (p->progress)
			alloclab_say("alloclab history: %.12s fails: %s", commit, why);
		return 0;
	}
	if (rc != 0) {
		snprintf(err, err_len, "%.12s: %s", commit, why);
		return -1;
	}
	out->measured++;
	rc = recheck(s, p, repo, revs, n, i, *prev, *first, built, (const char(*)[ALLOCLAB_SHA256_HEX])codes, out, why,
		     sizeof why);
	if (rc != 0 && alloclab_interrupted())
		return 0;
	if (rc != 0) {
		snprintf(err, err_len, "%.12s: %s", commit, why);
		return -1;
	}
	*prev = (long)i;
	if (p->progress)
		say_progress(p, revs, n, i, out);
	return 0;
}

int alloclab_history_run(struct alloclab_store *s, const struct alloclab_history_plan *p,
			 struct alloclab_history_outcome *out, char *err, size_t err_len)
{
	struct alloclab_revision *revs = NULL;
	struct alloclab_commit *known = NULL;
	size_t n = 0, nknown = 0, step = 0;
	char repo[PATH_MAX];
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (strlen(p->dir) > ALLOCLAB_HISTORY_DIR_MAX) {
		snprintf(err, err_len, "the run's folder's path is longer than %d bytes", ALLOCLAB_HISTORY_DIR_MAX);
		return -1;
	}
	if (realpath(p->build.repo, repo) == NULL) {
		snprintf(err, err_len, "%.600s: %s", p->build.repo, strerror(errno));
		return -1;
	}
	if (mkdir(p->dir, 0777) != 0 && errno != EEXIST) {
		snprintf(err, err_len, "%.600s: %s", p->dir, strerror(errno));
		return -1;
	}
	if (alloclab_revision_list(repo, p->range, &revs, &n, err, err_len) != 0)
		return -1;
	out->commits = n;
	struct alloclab_built *built = calloc(n, sizeof *built);
	char(*codes)[ALLOCLAB_SHA256_HEX] = calloc(n ? n : 1, sizeof *codes);
	if (built == NULL || codes == NULL || (s && (record_commits(s, repo, revs, n, err, err_len) != 0 ||
				    alloclab_store_commits(s, repo, &known, &nknown, err, err_len) != 0)))
		goto done;
	long prev = -1, first = -1;
	rc = 0;
	for (size_t i = 0; i < n && rc == 0 && !alloclab_interrupted(); i++)
		if (visited(p, i, n))
			rc = one_commit(s, p, repo, revs, n, i, known_of(known, nknown, revs[i].commit), &prev, &first, built,
					codes, &step, out, err, err_len);
	if (rc == 0 && alloclab_interrupted()) {
		snprintf(err, err_len, "interrupted: what was measured is kept; the same command goes on from there");
		rc = -1;
	}
done:
	free(built);
	free(codes);
	alloclab_store_commits_free(known, nknown);
	alloclab_revision_list_free(revs, n);
	return rc;
}
