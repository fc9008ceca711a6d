/*
 * A process and everything it started, as the supervisor sees them from
 * /proc: their resident memory summed (the memory limit) and their count
 * (a worker must leave nothing running behind it). Read from outside the
 * measured process, so it adds nothing to the measured threads' path.
 */
#ifndef ALLOCLAB_PROCESS_TREE_H
#define ALLOCLAB_PROCESS_TREE_H

#include <stdint.h>
#include <sys/types.h>

/* Resident KiB of pid and its descendants (each counted once, to a depth
 * of 16 and 4096 processes); 0 when pid is gone. `count`, if not NULL,
 * gets how many processes were found. */
uint64_t alloclab_tree_resident_kib(pid_t pid, unsigned *count);
/* The same, with (if anon_kib is not NULL) their anonymous resident KiB
 * from the same reading of statm: resident less shared (file-backed and
 * shared memory), the heap and not the code. */
uint64_t alloclab_tree_statm_kib(pid_t pid, unsigned *count, uint64_t *anon_kib);

/* Anonymous and AnonHugePages of pid and its descendants, from their
 * smaps_rollup (which costs far more to read than statm). 0, or -1 when
 * none could be read. */
int alloclab_tree_rollup_kib(pid_t pid, uint64_t *anon_kib, uint64_t *huge_kib);

/* Kills pid and its descendants with SIGKILL, and reaps pid's own
 * children among them where they are ours. */
void alloclab_tree_kill(pid_t pid);

/* Kills and reaps every child this process still has: once what it ran
 * has ended, whatever is left is something that was started and abandoned
 * (orphans reparent to a subreaper: PR_SET_CHILD_SUBREAPER). Returns how
 * many there were. */
unsigned alloclab_kill_children(void);

/*
 * The memory limit every supervised child is held to (bytes; 0: none):
 * past it the child and its group are killed and the measurement fails
 * with one line saying so. The default keeps the machine usable: three
 * quarters of the memory available when alloclab started.
 */
uint64_t alloclab_memory_limit(void);
void alloclab_set_memory_limit(uint64_t bytes);
uint64_t alloclab_default_memory_limit(void);

#endif
