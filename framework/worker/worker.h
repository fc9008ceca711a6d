/*
 * The measuring side of a run: what one worker process does for one cell
 * (plugin x workload x thread count). It loads the plugin, creates an
 * instance, starts the threads, runs warm-ups and then values, each value
 * timed per thread between a barrier and the end of run(), and reports
 * everything as one JSON object. Only ever called in a child process.
 */
#ifndef ALLOCLAB_WORKER_H
#define ALLOCLAB_WORKER_H

#include "worker/cell_spec.h"

#include <jansson.h>

struct alloclab_process;

/*
 * Measures the cell in this process. On success fills *out (warm-ups,
 * values with ns per op, the plugin's statistics at the end of the last
 * value with the working sets live and after finish, the workload's
 * reports, the worker's own peak RSS) and returns 0; otherwise -1 with one
 * line in err (the plugin or the workload failed), or -2 when the workload
 * said the cell is not applicable (err: why).
 */
int alloclab_worker_measure(const struct alloclab_cell_spec *cell, struct alloclab_process *out, char *err,
			    size_t err_len);

/* In a child: whether these plugins can share one process, each loaded
 * (a private copy where asked) and created, then destroyed. 0, or -1 with
 * err naming the plugin that cannot. */
int alloclab_pair_probe(const struct alloclab_pair_member *members, unsigned n, char *err, size_t err_len);

/* The same for a paired cell (npair >= 2): out[k] is pair[k]'s process,
 * its values the times of its own slices. A failure of any plugin fails
 * the whole pair: -1 with err naming the plugin, -2 not applicable. */
int alloclab_worker_measure_paired(const struct alloclab_cell_spec *cell, struct alloclab_process *out, char *err,
				   size_t err_len);

/* A worker's answer on its result pipe: the process object, or
 * {"error": "..."}. Sends it on fd 3 and returns the exit status. */
int alloclab_worker_send(const struct alloclab_cell_spec *cell, int fd);


/*
 * Measures one cell in one freshly executed worker process with a deadline.
 * 0 with *out filled (elapsed_s and plugin_output set here), or -1 with
 * err saying how the worker failed (crash, timeout, flood, the plugin's
 * own message). *interrupted is set when SIGINT/SIGTERM/SIGHUP arrived.
 * -2: the workload said the cell is not applicable, err the reason.
 * A paired spec (npair >= 2) fills out[0 .. npair), one process a plugin.
 */
int alloclab_measure_isolated(const struct alloclab_cell_spec *spec, double timeout_s, struct alloclab_process *out,
			      int *interrupted, char *err, size_t err_len);
/* The same, and on a failure (-1) whose it was: for a paired spec the
 * index of the member that was running when the worker failed (err names
 * it), else -1 (a failure of the worker's own, or of an unpaired one). */
int alloclab_measure_isolated_blame(const struct alloclab_cell_spec *spec, double timeout_s,
				    struct alloclab_process *out, int *interrupted, int *culprit, char *err,
				    size_t err_len);

/* How a paired worker's failure begins when a member's blocks changed
 * and the worker cannot tell which plugin of the pair changed them (no
 * culprit): the runner then measures each member alone to find it
 * (run/pair_slots.c). */
#define ALLOCLAB_PAIR_BLOCKS_CHANGED "the blocks plugin '"

/* The file descriptor a worker writes its answer on (alloclab_worker_send). */
#define ALLOCLAB_WORKER_RESULT_FD 3

/*
 * A worker process's entry, whatever program it runs in (alloclab's
 * `__worker`, or the python workload's host inside the python
 * executable): checks the cell spec (JSON; the runner's own output, but a
 * command line all the same), finds its workload with `find`, measures,
 * and writes the answer on ALLOCLAB_WORKER_RESULT_FD. The exit status.
 */
int alloclab_worker_main(const char *spec_json, const struct alloclab_workload *(*find)(const char *name));

#endif
