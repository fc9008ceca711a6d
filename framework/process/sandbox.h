/*
 * A sandbox for code alloclab has no reason to trust with the user's
 * rights (a student's build, plugin and measurement: `alloclab grade`),
 * made by bubblewrap (Debian's `bwrap`), a well-kept tool for the job, and
 * run as a supervised child (child.h: a deadline on all of it, its process
 * group killed whole, dying with alloclab). What it guarantees, as root
 * and as a user alike:
 *   - no network (a network namespace of its own: loopback only, down),
 *     no other process in sight (a pid namespace: it can signal only what
 *     it started), no System V IPC, a host name of its own, no further
 *     user namespace, a new session (it cannot push keys into a terminal);
 *   - the system's folders (/usr and the usual links to it) read-only, of
 *     /etc only what programs need to run (not shadow, not the host's
 *     keys), /proc of its own namespace, a /dev of the harmless devices,
 *     read-only but for a small /dev/shm;
 *   - the binds asked for, read-only but for those asked writable (a
 *     build's own folder), and nothing else of the machine's files: no home, no /tmp, no /root, nothing under `hide` even where a
 *     bind holds it; one writable folder, `work`, in memory and of a
 *     bounded size, that goes with the sandbox; /tmp and /dev/shm
 *     likewise, small (64 MiB);
 *   - limits on every process in it: address space, file size, CPU time,
 *     no core files, and processes (threads included) counted for the
 *     user it runs as;
 *   - as root, it runs as an unprivileged user of its own (one per
 *     alloclab process, so one per grading: alloclab_sandbox_uid) with no
 *     supplementary groups, dropped before bwrap starts: bwrap's own --uid
 *     would only rename root inside a user namespace, and root outside it
 *     could still read what root reads. As another user it runs as that
 *     user, in a user namespace (it reads, of what it is shown, what that
 *     user may read);
 *   - no descriptor of alloclab's but its standard ones reaches it;
 *   - as root, the binds are shown wherever they lie (a folder above them
 *     of mode 0700 stops nothing: they are staged in a mount namespace of
 *     the sandbox's own before the drop), with their own permissions;
 *   - nothing in the environment but what `env` gives, and nothing of
 *     alloclab's environment anywhere inside: bwrap itself starts with an
 *     empty one, and the command is the namespace's first process (no
 *     process of bwrap's is there to be read, attached or stopped; none
 *     inside can kill it).
 * It does not: bound the memory it may hold beyond the supervisor's
 * limit (child.h) and the tmpfs sizes, keep it from using the CPU until
 * its deadline, hide the kernel (a kernel bug is a way out of any such
 * sandbox), or hide the system folders' contents from it.
 */
#ifndef ALLOCLAB_SANDBOX_H
#define ALLOCLAB_SANDBOX_H

#include "base/lengths.h"
#include "process/child.h"

#include <stddef.h>
#include <stdint.h>

/* A host path shown inside at dest: read-only, or with writable a
 * folder the command may write (a build's files and build folder). As
 * root, every file of a writable folder is the sandbox user's while it
 * runs, and after it what that user owns there is alloclab's again
 * (its effective user and group), without set-id or sticky bits or
 * writing by group and others; a file of the sandbox user's still there
 * then fails the run. The walks are coreutils' (links not followed, no
 * depth too deep). So the folder must be one alloclab made for the run,
 * never a user's own, and what alloclab keeps of the run (its log, the
 * plugin it copies out) must lie outside it, where the command cannot
 * plant a link or a FIFO. */
struct alloclab_sandbox_bind {
	const char *src;
	const char *dest;
	int writable;
};

struct alloclab_sandbox {
	const struct alloclab_sandbox_bind *binds;
	size_t nbinds;
	/* Host paths never shown, even where a bind holds them (another
	 * submission, alloclab's own output): covered by an empty folder or
	 * file. */
	const char *const *hide;
	size_t nhide;
	/* The writable folder, in memory, made empty for each run, of at most
	 * work_bytes; the command starts there. */
	const char *work;
	uint64_t work_bytes;
	/* The whole environment, "NAME=value", NULL-terminated. */
	const char *const *env;
	unsigned processes;      /* processes and threads beyond what its user runs already */
	uint64_t address_space;  /* bytes, per process */
	uint64_t file_size;      /* bytes, the largest file it may write */
	unsigned cpu_s;          /* CPU seconds, per process */
};

/* The user a sandbox runs as: when alloclab runs as root, a uid of this
 * process's own (0x7ff00000 plus its id, in no user database), so that
 * two gradings at once never share a process limit; else alloclab's own
 * user, whose limit two gradings then share. */
unsigned alloclab_sandbox_uid(void);

/* What alloclab itself must show inside for a build against its SDK or
 * a run of its own executable: its build tree (or, installed, its prefix,
 * plugins and SDK), each read-only at its own path, into b (room for 4),
 * their paths kept in paths. The number of binds made. */
size_t alloclab_sandbox_own_binds(struct alloclab_sandbox_bind *b, char (*paths)[ALLOCLAB_PATH_LEN]);

/* Whether sandboxes can be made here: bwrap on PATH and one sandbox run
 * (`true` inside). 0, or -1 with one line saying what is missing. */
int alloclab_sandbox_usable(char *why, size_t why_len);

/* Runs argv (an absolute path, seen inside) in a sandbox, as a supervised
 * child with a deadline of timeout_s over all of it: what it writes on
 * stdout is res->output (at most ALLOCLAB_CHILD_MAX_RESULT), its stderr
 * res->printed. 0 once it was started and has ended (whatever its fate;
 * res says how), -1 with err when it could not be started. */
int alloclab_sandbox_run(const struct alloclab_sandbox *sb, char *const *argv, double timeout_s,
			 struct alloclab_child_result *res, char *err, size_t err_len);

#endif
