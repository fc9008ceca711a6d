/*
 * Paired comparisons in a run (run --paired, --pair A,B,...): the group,
 * its slots, and a slot's round. See internal.h; the worker's side is
 * worker/paired.c, the statistics statistics/pairs.c.
 *
 * A slot's round is one worker process holding every plugin of the slot
 * when they can share one (the ratio then cancels what the process and
 * the moment did to all of them); else, for a workload whose process has
 * one allocator for its life (python, exec) or plugins that cannot be
 * loaded together, the slot's plugins run in processes of their own, back
 * to back, in an order that alternates from round to round, and the ratio
 * is taken within the round.
 */
#define _GNU_SOURCE 1
#include "run/internal.h"
#include "base/shell_word.h"
#include "base/rng.h"
#include "statistics/pairs.h"
#include "process/child.h"
#include "plugin/loader.h"
#include "worker/worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int label_index(const struct alloclab_results *r, const char *label)
{
	for (unsigned i = 0; i < r->nplugins; i++)
		if (strcmp(r->plugins[i].label, label) == 0)
			return (int)i;
	return -1;
}

/* The group's plugins as a worker gets them: each instance of a plugin
 * file that the group loads more than once from a private copy of its
 * own, the first too. Beside the originals, their copies read 0.4 to 3.4%
 * slower, resolved, on six of an A/A's 42 rows (what differs: the
 * original's code is the page cache's, the same pages in every process;
 * a copy's are new); with every instance a copy, none. "One file" is the
 * loader's: the same device and inode, whatever paths lead there (a link,
 * a hard link, a linked folder), never the paths' text. */
static void group_members(const struct alloclab_run *run, struct alloclab_pair_member *m)
{
	const struct alloclab_results *r = run->results;
	for (unsigned k = 0; k < run->ngroup; k++) {
		unsigned i = run->group[k];
		m[k] = (struct alloclab_pair_member){run->cfg->plugins[i].spec, run->cfg->plugins[i].options, 0, 0,
						     r->plugins[i].label};
		for (unsigned j = 0; j < run->ngroup; j++)
			m[k].private_copy |= j != k && alloclab_plugin_same_file(r->plugins[run->group[j]].path, r->plugins[i].path);
	}
}

struct probe_arg {
	struct alloclab_pair_member m[ALLOCLAB_MAX_PAIR];
	unsigned n;
};

static int probe_child(void *arg, int fd)
{
	struct probe_arg *a = arg;
	char err[ALLOCLAB_ERR_LEN];
	if (alloclab_pair_probe(a->m, a->n, err, sizeof err) != 0)
		return alloclab_child_send_json(fd, json_pack("{s:s}", "error", err));
	return alloclab_child_send_json(fd, json_pack("{s:b}", "shared", 1));
}

/* Whether the group's plugins can share a worker process: loaded and
 * created together in a child. 1, or 0 with why. */
static int group_can_share(const struct alloclab_run *run, char *why, size_t why_len)
{
	struct probe_arg a = {.n = run->ngroup};
	struct alloclab_child_result res;
	int na = 0;

	group_members(run, a.m);
	if (alloclab_child_run(probe_child, &a, run->cfg->timeout_s, &res, why, why_len) != 0)
		return 0;
	/* The member whose step ended the probe, named (never another). */
	const char *culprit =
		res.member >= 1 && (unsigned)res.member <= a.n ? alloclab_pair_member_name(&a.m[res.member - 1]) : NULL;
	json_t *obj = alloclab_child_answer(&res, culprit, run->cfg->timeout_s, &na, why, why_len);
	int shared = obj != NULL;
	json_decref(obj);
	alloclab_child_result_free(&res);
	return shared;
}

static int declares(const struct alloclab_plugin_info *p, const char *cap)
{
	size_t i;
	json_t *x;
	json_array_foreach(p->caps, i, x)
	if (json_is_string(x) && strcmp(json_string_value(x), cap) == 0)
		return 1;
	return 0;
}

/* Whether two of the group load one plugin file with different options
 * when the plugin's allocator is not its own (no own-state): the copies
 * would share one allocator, set up twice. 1 with why, or 0. */
static int copies_share_an_allocator(const struct alloclab_run *run, char *why, size_t why_len)
{
	const struct alloclab_results *r = run->results;
	for (unsigned k = 0; k < run->ngroup; k++)
		for (unsigned j = 0; j < k; j++) {
			const struct alloclab_plugin_info *a = &r->plugins[run->group[j]], *b = &r->plugins[run->group[k]];
			if (alloclab_plugin_same_file(a->path, b->path) && !declares(b, "own-state") &&
			    strcmp(run->cfg->plugins[run->group[j]].options, run->cfg->plugins[run->group[k]].options) != 0) {
				snprintf(why, why_len, "'%s' and '%s' are one plugin whose allocator is the process's, not its "
						       "file's (it does not declare own-state): two settings of it would be one "
						       "allocator",
					 a->label, b->label);
				return 1;
			}
		}
	return 0;
}

int alloclab_run_pair_group(struct alloclab_run *run)
{
	const struct alloclab_run_config *cfg = run->cfg;
	const struct alloclab_results *r = run->results;

	if (!cfg->paired)
		return 0;
	run->ngroup = 0;
	if (cfg->npair == 0) {
		if (r->nplugins < 2 || r->nplugins > ALLOCLAB_MAX_PAIR) {
			alloclab_say("alloclab: --paired compares %s plugins side by side; this run has %u",
				r->nplugins < 2 ? "two or more" : "at most 16", r->nplugins);
			return -1;
		}
		for (unsigned i = 0; i < r->nplugins; i++)
			run->group[run->ngroup++] = i;
	}
	for (unsigned k = 0; k < cfg->npair; k++) {
		int i = label_index(r, cfg->pair[k]);
		if (i < 0) {
			alloclab_say("alloclab: --pair: '%s' is not a plugin of this run (see its labels with --dry-run)",
				cfg->pair[k]);
			return -1;
		}
		run->group[run->ngroup++] = (unsigned)i;
	}
	for (unsigned k = 0; k < run->ngroup; k++)
		if (cfg->plugins[run->group[k]].gil) {
			alloclab_say("alloclab: --paired: plugin '%s' asks for gil=1, a lock around the whole process: it "
					"cannot be paired", r->plugins[run->group[k]].label);
			return -1;
		}
	if (cfg->pair_apart) {
		run->group_shares = 0;
		snprintf(run->group_why, sizeof run->group_why,
			 "asked for: no plugin's code runs in a process that measures another's");
		return 0;
	}
	run->group_shares = !copies_share_an_allocator(run, run->group_why, sizeof run->group_why) &&
			    group_can_share(run, run->group_why, sizeof run->group_why);
	if (!run->group_shares)
		alloclab_say("alloclab: the paired plugins cannot share one process (%s): each is measured in a "
				"process of its own, back to back, and the ratio taken within each round",
			run->group_why);
	return 0;
}

static int same_cell(const struct planned_cell *a, const struct planned_cell *b)
{
	return a->spec.workload == b->spec.workload && a->spec.threads == b->spec.threads &&
	       a->spec.cache_align == b->spec.cache_align && memcmp(&a->spec.params, &b->spec.params, sizeof a->spec.params) == 0;
}

/* The slot that starts at the reference's cell c, when two or more of the
 * group's cells there can be measured. */
static int add_slot(struct alloclab_run *run, unsigned c)
{
	struct alloclab_results *r = run->results;
	struct pair_slot *s = &run->slots[run->nslots];
	struct alloclab_pair_member m[ALLOCLAB_MAX_PAIR];

	memset(s, 0, sizeof *s);
	group_members(run, m);
	for (unsigned k = 0; k < run->ngroup; k++)
		for (unsigned i = 0; i < r->ncells; i++)
			if (r->cells[i].plugin_index == run->group[k] && same_cell(&run->cells[i], &run->cells[c]) &&
			    r->cells[i].status == ALLOCLAB_CELL_PENDING) {
				s->spec.pair[s->ncells] = m[k];
				s->cell[s->ncells++] = i;
				break;
			}
	if (s->ncells < 2 || s->cell[0] != c)
		return -1;
	const struct alloclab_workload *w = run->cells[c].spec.workload;
	s->design = (w->flags & ALLOCLAB_WORKLOAD_ONE_ALLOCATOR) || !run->group_shares ? ALLOCLAB_PAIR_PROCESSES
		    : alloclab_workload_slices(w, run->cells[c].spec.threads) && run->cfg->slice_ops ? ALLOCLAB_PAIR_SLICES
										: ALLOCLAB_PAIR_VALUES;
	if (w->flags & ALLOCLAB_WORKLOAD_ONE_ALLOCATOR)
		s->why = "a process of this workload has one allocator for its life";
	else if (!run->group_shares)
		s->why = run->group_why;
	struct alloclab_pair_member own[ALLOCLAB_MAX_PAIR];
	memcpy(own, s->spec.pair, sizeof own);
	s->spec = run->cells[c].spec;
	memcpy(s->spec.pair, own, sizeof own);
	s->spec.npair = s->ncells;
	s->spec.slice_ops = run->cfg->slice_ops;
	s->spec.slice_warm = run->cfg->slice_warm;
	s->spec.pair_seed = alloclab_thread_seed(run->order_seed, 1000000 + run->nslots) >> 1; /* JSON keeps 63 bits */
	s->spec.sample_ms = 0; /* one process holds every plugin's memory: no figure is one plugin's */
	return 0;
}

void alloclab_run_pair_slots(struct alloclab_run *run)
{
	struct alloclab_results *r = run->results;

	for (unsigned i = 0; i < r->ncells; i++)
		run->cells[i].slot = -1;
	if (run->ngroup < 2)
		return;
	run->slots = calloc(r->ncells + 1, sizeof *run->slots);
	for (unsigned c = 0; c < r->ncells; c++) {
		if (r->cells[c].plugin_index != run->group[0] || add_slot(run, c) != 0)
			continue;
		struct pair_slot *s = &run->slots[run->nslots];
		for (unsigned k = 0; k < s->ncells; k++) {
			struct alloclab_cell *cell = &r->cells[s->cell[k]];
			run->cells[s->cell[k]].slot = (int)run->nslots;
			free(cell->pair_design);
			cell->pair_design = strdup(s->design);
			cell->pair_why = s->why ? strdup(s->why) : NULL;
		}
		/* In one worker: one process a round for the whole slot. */
		if (strcmp(s->design, ALLOCLAB_PAIR_PROCESSES) != 0)
			run->total_workers -= (s->ncells - 1) * r->cells[c].planned;
		run->nslots++;
	}
	const char *labels[ALLOCLAB_MAX_PAIR];
	for (unsigned k = 0; k < run->ngroup; k++)
		labels[k] = r->plugins[run->group[k]].label;
	alloclab_results_set_paired(r, labels, run->ngroup, run->cfg->slice_ops, run->cfg->slice_warm);
}

/* ---- a round ---- */

/* A slot's failure, said: a worker's, or a paired worker's with what its
 * members did alone (find_block_writer). */
#define PAIR_WHY_LEN (3 * ALLOCLAB_ERR_LEN)

/* Whether the slot has all it needs after this round: every process the
 * plan asks for, or with -n auto at least the least and an interval of
 * every plugin's ratio within --ci. */
static int slot_done(const struct alloclab_run *run, const struct pair_slot *s, unsigned round)
{
	const struct alloclab_run_config *cfg = run->cfg;
	const struct planned_cell *ref = &run->cells[s->cell[0]];
	const struct alloclab_cell *refc = &run->results->cells[s->cell[0]];

	if (cfg->shard_count ? refc->nprocs == refc->planned : round + 1 == ref->processes)
		return 1;
	if (!cfg->processes_auto || refc->nprocs < ref->min_processes)
		return 0;
	for (unsigned k = 1; k < s->ncells; k++) {
		struct alloclab_pair_stat st;
		if (alloclab_pair_stat(&run->results->cells[s->cell[k]], &st) != 0 || st.half_percent > cfg->ci_percent)
			return 0;
	}
	return 1;
}

/* Every cell of the slot failed (or is not applicable) with why. The
 * failure is the culprit's (the member whose step was running, -1 when
 * none is known): its cell says what it did, the others that they were
 * lost with it. */
static int slot_failed(struct alloclab_run *run, struct pair_slot *s, unsigned round, int na, const char *why,
		       int culprit, struct alloclab_memory_timeline *memory, char *err, size_t err_len)
{
	char line[PAIR_WHY_LEN + 32], lost[PAIR_WHY_LEN + ALLOCLAB_ERR_LEN];
	snprintf(line, sizeof line, "process %u: %s", round + 1, why);
	if (culprit >= 0)
		snprintf(lost, sizeof lost, "process %u: " ALLOCLAB_LOST_WITH_PAIR " '%s' failed: %s", round + 1,
			 run->results->cells[s->cell[culprit]].plugin, why);
	unsigned keeper = culprit >= 0 ? (unsigned)culprit : 0; /* the failed worker's memory */
	for (unsigned k = 0; k < s->ncells; k++) {
		struct alloclab_cell *cell = &run->results->cells[s->cell[k]];
		enum alloclab_cell_status st = na ? ALLOCLAB_CELL_NOT_APPLICABLE : ALLOCLAB_CELL_ERROR;
		const char *mine = na ? why : culprit < 0 || (unsigned)culprit == k ? line : lost;
		alloclab_cell_set_status(cell, st, mine);
		if (k == keeper && !na) {
			alloclab_memory_timeline_free(cell->failed_memory);
			cell->failed_memory = memory;
			memory = NULL;
		}
		run->cells[s->cell[k]].done = 1;
		if (alloclab_journal_append(run->journal, s->cell[k], cell->threads, cell->metric, NULL, st, mine,
					    k == keeper ? cell->failed_memory : NULL, err, err_len) != 0) {
			alloclab_memory_timeline_free(memory);
			return -1;
		}
	}
	alloclab_memory_timeline_free(memory);
	s->done = 1;
	if (!na)
		run->failed++;
	return 0;
}

/* The round's processes into their cells, their ratios against the
 * reference's, one journal line for them all. */
static int slot_measured(struct alloclab_run *run, struct pair_slot *s, unsigned round, struct alloclab_process *procs,
			 char *err, size_t err_len)
{
	const struct alloclab_cell *cells[ALLOCLAB_MAX_PAIR];
	const struct alloclab_process *added[ALLOCLAB_MAX_PAIR];

	for (unsigned k = 0; k < s->ncells; k++) {
		procs[k].index = round;
		procs[k].pair_ratio = k == 0 ? 1 : alloclab_pair_ratio(&procs[k], &procs[0]);
	}
	for (unsigned k = 0; k < s->ncells; k++)
		alloclab_cell_add_process(&run->results->cells[s->cell[k]], &procs[k]);
	s->done = slot_done(run, s, round);
	for (unsigned k = 0; k < s->ncells; k++) {
		struct alloclab_cell *cell = &run->results->cells[s->cell[k]];
		if (s->done) {
			alloclab_cell_set_status(cell, ALLOCLAB_CELL_OK, NULL);
			run->cells[s->cell[k]].done = 1;
			if (run->cfg->processes_auto)
				cell->planned = cell->nprocs;
		}
		cells[k] = cell;
		added[k] = &cell->procs[cell->nprocs - 1];
	}
	return alloclab_journal_append_group(run->journal, s->ncells, s->cell, cells, added, err, err_len);
}

/* The slot's plugins in processes of their own, back to back: the order a
 * permutation drawn from the slot's seed, reversed every other round. */
static int processes_round(struct alloclab_run *run, struct pair_slot *s, unsigned round, struct alloclab_progress *pg,
			   struct alloclab_process *procs, int *interrupted, int *culprit, char *why, size_t why_len)
{
	unsigned order[ALLOCLAB_MAX_PAIR];
	struct alloclab_rng rng = {s->spec.pair_seed};
	for (unsigned k = 0; k < s->ncells; k++)
		order[k] = k;
	for (unsigned k = s->ncells; k > 1; k--) {
		unsigned j = (unsigned)(alloclab_rng_next(&rng) % k), t = order[k - 1];
		order[k - 1] = order[j];
		order[j] = t;
	}
	for (unsigned j = 0; j < s->ncells; j++) {
		unsigned k = order[round % 2 ? s->ncells - 1 - j : j];
		struct planned_cell *c = &run->cells[s->cell[k]];
		char label[512];
		snprintf(label, sizeof label, "%s %s threads=%u process %u/%u (paired)", run->results->cells[s->cell[k]].plugin,
			 c->spec.workload->name, c->spec.threads, round + 1, c->processes);
		alloclab_progress_show(pg, label);
		run->workers_run++;
		int rc = alloclab_measure_isolated(&c->spec, run->cfg->timeout_s, &procs[k], interrupted, why, why_len);
		alloclab_progress_step(pg);
		if (rc != 0) {
			*culprit = (int)k;
			for (unsigned i = 0; i < j; i++)
				alloclab_process_clear(&procs[order[round % 2 ? s->ncells - 1 - i : i]]);
			return rc;
		}
	}
	return 0;
}

/*
 * A paired worker found a member's blocks changed and could not tell
 * which plugin changed them: two plugins built on one malloc (the C
 * library's) share the memory beneath them, and one's write into a block
 * it freed lands in a block the other holds by then. Each member is then
 * measured once alone, in a process of its own whose blocks are checked
 * as every unpaired worker's are: a plugin that changes blocks alone too
 * is the one that wrote (1, *culprit and why say so, with what it did
 * alone). When none does alone, the writes were into another member's
 * memory while the writer ran, and why says that (0). This costs the run
 * nothing measured: it happens only once the slot has failed, with every
 * process it measured kept as it was. *interrupted as the runner's.
 */
static int find_block_writer(struct alloclab_run *run, struct pair_slot *s, struct alloclab_progress *pg,
			     int *interrupted, int *culprit, char *why, size_t why_len)
{
	char paired[ALLOCLAB_ERR_LEN];
	_Static_assert(PAIR_WHY_LEN >= 2 * ALLOCLAB_ERR_LEN + 200, "room for both failures and the words between");
	snprintf(paired, sizeof paired, "%.*s", (int)sizeof paired - 1, why);
	for (unsigned k = 0; k < s->ncells; k++) {
		struct planned_cell *c = &run->cells[s->cell[k]];
		struct alloclab_process proc;
		char alone[ALLOCLAB_ERR_LEN], label[600];
		const char *name = run->results->cells[s->cell[k]].plugin;
		snprintf(label, sizeof label, "%s alone %s threads=%u: which plugin changed the pair's blocks", name,
			 c->spec.workload->name, c->spec.threads);
		alloclab_progress_show(pg, label);
		int rc = alloclab_measure_isolated(&c->spec, run->cfg->timeout_s, &proc, interrupted, alone, sizeof alone);
		alloclab_process_clear(&proc);
		if (*interrupted)
			return 0;
		if (rc == -1) {
			*culprit = (int)k;
			snprintf(why, why_len, "plugin '%s' changes blocks it handed out or freed: measured alone, %s; "
				 "paired, %s", name, alone, paired);
			return 1;
		}
	}
	snprintf(why, why_len, "%s, while it was not their holder's turn: measured alone, no plugin of the pair "
		 "changed its blocks, so one wrote into another's memory (which one, pairing cannot tell)", paired);
	return 0;
}

int alloclab_run_pair_round(struct alloclab_run *run, unsigned si, unsigned round, struct alloclab_progress *pg,
			    int *interrupted, char *err, size_t err_len)
{
	struct pair_slot *s = &run->slots[si];
	struct alloclab_process procs[ALLOCLAB_MAX_PAIR];
	char why[PAIR_WHY_LEN];
	int rc, culprit = -1;

	*interrupted = 0;
	memset(procs, 0, sizeof procs);
	if (strcmp(s->design, ALLOCLAB_PAIR_PROCESSES) == 0) {
		rc = processes_round(run, s, round, pg, procs, interrupted, &culprit, why, sizeof why);
	} else {
		/* Every process its own orders (of the slices, of setting the
		 * plugins up), drawn from the slot's seed and the round: one
		 * order for all would put any luck of an order in every process. */
		struct alloclab_cell_spec spec = s->spec;
		char label[512];
		spec.pair_seed = alloclab_thread_seed(s->spec.pair_seed, round) >> 1; /* JSON keeps 63 bits */
		snprintf(label, sizeof label, "%u plugins paired %s threads=%u process %u/%u", s->ncells,
			 s->spec.workload->name, s->spec.threads, round + 1, run->cells[s->cell[0]].processes);
		alloclab_progress_show(pg, label);
		run->workers_run++;
		rc = alloclab_measure_isolated_blame(&spec, run->cfg->timeout_s, procs, interrupted, &culprit, why,
						     sizeof why);
		alloclab_progress_step(pg);
	}
	if (*interrupted)
		return 0;
	if (rc == -1 && culprit < 0 && strcmp(s->design, ALLOCLAB_PAIR_PROCESSES) != 0 &&
	    strncmp(why, ALLOCLAB_PAIR_BLOCKS_CHANGED, strlen(ALLOCLAB_PAIR_BLOCKS_CHANGED)) == 0) {
		find_block_writer(run, s, pg, interrupted, &culprit, why, sizeof why);
		if (*interrupted)
			return 0;
	}
	if (rc != 0) {
		int na = rc == -2 && run->results->cells[s->cell[0]].nprocs == 0;
		/* The failed worker's samples, wherever they were left (the
		 * paired worker's in the first process, a process of its own
		 * in its plugin's). */
		struct alloclab_memory_timeline *memory = NULL;
		for (unsigned k = 0; k < s->ncells; k++) {
			if (memory == NULL)
				memory = procs[k].memory, procs[k].memory = NULL;
			alloclab_process_clear(&procs[k]);
		}
		return slot_failed(run, s, round, na, why, rc == -2 ? -1 : culprit, memory, err, err_len);
	}
	return slot_measured(run, s, round, procs, err, err_len);
}
