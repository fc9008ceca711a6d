/*
 * The run room's own: a run's plan and state, shared by the runner
 * (runner.c) and its paired comparisons (pair_slots.c). Nothing outside the
 * room uses it.
 */
#ifndef ALLOCLAB_RUN_INTERNAL_H
#define ALLOCLAB_RUN_INTERNAL_H

#include "run/runner.h"
#include "measure/cpu_share.h"
#include "base/lengths.h"
#include "run/progress.h"

/* One cell's plan: what a worker gets, and how many workers. */
struct planned_cell {
	struct alloclab_cell_spec spec;
	unsigned processes;       /* at most (-n auto: max_processes) */
	unsigned min_processes;   /* -n auto: at least this many */
	int done;                 /* failed, not applicable, or every process measured */
	int slot;                 /* its paired slot (run->slots), or -1 */
	char *dumps;              /* cfg->dumps_dir: its callgrind dumps' folder (malloc'd), or NULL */
};

/*
 * A paired slot: the cells of the comparison group at one workload,
 * parameters, thread count and alignment that can be measured (the
 * group's plugins whose cell is applicable, the reference among them),
 * measured together round by round. Invariant: ncells >= 2, cell[0] the
 * reference's cell; every cell[k]'s planned_cell.slot is this slot.
 */
struct pair_slot {
	unsigned ncells;
	unsigned cell[ALLOCLAB_MAX_PAIR];
	const char *design;        /* ALLOCLAB_PAIR_SLICES, _VALUES or _PROCESSES */
	const char *why;           /* why processes of their own, or NULL */
	struct alloclab_cell_spec spec; /* in one worker: the reference's spec with every plugin */
	int done;
};

struct alloclab_run {
	const struct alloclab_run_config *cfg;
	struct alloclab_results *results;
	struct planned_cell *cells;   /* parallel to results->cells */
	char callgrind_dir[ALLOCLAB_PATH_LEN];     /* --measure instructions: the dumps' folder, or "" */
	uint64_t order_seed;          /* the cells' order in each round (alloclab_run_order) */
	uint64_t *caps;               /* per plugin */
	struct alloclab_journal *journal;
	char output[ALLOCLAB_PATH_LEN];
	unsigned max_processes, total_workers, failed, workers_run;
	/* --paired: the group (plugin indices, the reference first), whether
	 * its plugins can share a process (and why not), and the slots. */
	unsigned group[ALLOCLAB_MAX_PAIR], ngroup;
	int group_shares;
	char group_why[ALLOCLAB_ERR_LEN];
	struct pair_slot *slots;
	unsigned nslots;
	/* What other processes took of the CPUs while the run ran. */
	struct alloclab_cpu_share others;
};

/* ---- pair_slots.c ---- */

/* The group from --paired / --pair, checked against the run's labelled
 * plugins and refused in one line (0, or -1 after printing it); then
 * whether its plugins can share one worker process, found by a probe of
 * them all in one child. */
int alloclab_run_pair_group(struct alloclab_run *run);

/* The slots, once the cells are laid out; the config's paired facts. */
void alloclab_run_pair_slots(struct alloclab_run *run);

/* Measures round `round` of slot s, its processes added to its cells and
 * journalled as one line. 0; -1 when the journal could not be written
 * (err); *interrupted when the run was interrupted. */
int alloclab_run_pair_round(struct alloclab_run *run, unsigned s, unsigned round, struct alloclab_progress *progress,
			    int *interrupted, char *err, size_t err_len);

#endif
