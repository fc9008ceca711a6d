/*
 * Every file alloclab writes for the user (a run's results, a recorded
 * trace, pictures, exports), under one policy, so that no command is looser than
 * another:
 *   - checked before any work starts: a missing folder is made then, and
 *     one that cannot be written to is refused then, not after a run;
 *   - what is there may be replaced only when it is a regular file of the
 *     same kind (a results file by results, a trace by a trace, a picture
 *     by a picture) or empty; never a symbolic link, a folder or a device
 *     (as root, a rename over /dev/null would replace the device), never
 *     a file of another kind;
 *   - written whole to an unnamed file in the same folder (O_TMPFILE) and
 *     only then given its name, by a rename that replaces the old file at
 *     once; a writer killed half-way, even with SIGKILL, leaves nothing
 *     (a named temporary file only where the filesystem has no O_TMPFILE).
 */
#ifndef ALLOCLAB_OUTPUT_PATH_H
#define ALLOCLAB_OUTPUT_PATH_H

#include "base/lengths.h"

#include <stddef.h>

enum alloclab_output_kind {
	ALLOCLAB_OUTPUT_RESULTS,
	ALLOCLAB_OUTPUT_TRACE,
	ALLOCLAB_OUTPUT_PICTURE,
	ALLOCLAB_OUTPUT_EXPORT, /* `alloclab export`: pyperf's JSON, or CSV with alloclab's header */
	ALLOCLAB_OUTPUT_HEAPMAP, /* `alloclab heapmap`: its frames (heapmap.h) */
	ALLOCLAB_OUTPUT_SCRIPT,  /* `alloclab slurm`: a batch script it wrote (ALLOCLAB_SCRIPT_MARK) */
	ALLOCLAB_OUTPUT_SWEEP,   /* `alloclab slurm`: its sweep.json */
	ALLOCLAB_OUTPUT_GRADE,   /* `alloclab grade`: its table, CSV, JSON, feedback and build logs */
};

/* How every text file `alloclab grade` writes begins, and the key its
 * JSON holds; its CSV's header begins with ALLOCLAB_GRADE_CSV_HEADER. */
#define ALLOCLAB_GRADE_TEXT_MARK "alloclab grade: "
#define ALLOCLAB_GRADE_JSON_MARK "\"alloclab-grade\""
#define ALLOCLAB_GRADE_CSV_HEADER "submission,path,"

/* What the second line of every script alloclab writes holds, so that
 * only such a script is ever replaced by one. */
#define ALLOCLAB_SCRIPT_MARK "(written by alloclab "

/* How an alloclab CSV export begins (its header's first columns). */
#define ALLOCLAB_EXPORT_CSV_HEADER "plugin,workload,params,threads,"

/* Whether path may be written as a file of this kind (see above); makes
 * its folder. 0, or -1 with one line in err naming the path. */
int alloclab_output_usable(const char *path, enum alloclab_output_kind kind, char *err, size_t err_len);

/* A file being written: fd open for writing (and reading); name "" while
 * unnamed, else the temporary name it has. */
struct alloclab_output_file {
	int fd;
	char name[ALLOCLAB_PATH_PLUS_LEN];
};

/* Starts writing path: checks it, then opens the file in its folder. */
int alloclab_output_begin(const char *path, enum alloclab_output_kind kind, struct alloclab_output_file *f, char *err,
			  size_t err_len);
/* Gives the written file its name (checked again, just before). Closes fd. */
int alloclab_output_commit(struct alloclab_output_file *f, const char *path, enum alloclab_output_kind kind, char *err,
			   size_t err_len);
/* Drops it: nothing of it remains. */
void alloclab_output_discard(struct alloclab_output_file *f);

/* Whether path names the same file as input (the same inode), so that
 * a command refuses to write over one of its own inputs: 1 the same,
 * else 0 (a path that does not exist is no input). */
int alloclab_output_is_input(const char *path, const char *input);

/* Copies the file at `from` (anywhere) to path under this policy. */
int alloclab_output_copy(const char *from, const char *path, enum alloclab_output_kind kind, char *err,
			 size_t err_len);

/*
 * A folder written whole for the user (`alloclab report`'s site), under
 * the same policy as a file:
 *   - the folder asked for may be missing, empty, or an earlier folder of
 *     the same kind: one whose mark file (a regular file named `mark`
 *     whose first line starts with `signature`) lists, a line each, every
 *     file and folder in it. Anything else in it (a file alloclab did not
 *     write, a symbolic link, a device), a link or a file in its place is
 *     refused, with one line naming it;
 *   - it is written whole into a new private folder beside it, and only
 *     then takes its place, in one exchange (renameat2): a writer stopped
 *     half-way leaves the earlier folder as it was (and its own, named
 *     PATH.partial-*, behind); the earlier folder's listed files are then
 *     removed, never followed through a link.
 * The writer lists what it wrote in the mark file itself, last.
 */
struct alloclab_output_folder {
	char path[ALLOCLAB_PATH_LEN];    /* the folder asked for */
	char staging[ALLOCLAB_PATH_PLUS_LEN]; /* where it is written until it takes its place */
};

/* Checks path and makes the staging folder. 0, or -1 with one line in err. */
int alloclab_output_folder_begin(const char *path, const char *mark, const char *signature,
				 struct alloclab_output_folder *f, char *err, size_t err_len);
/* Puts the written folder in place (checked again, just before). 0, or -1
 * with err; either way the staging folder is gone. */
int alloclab_output_folder_commit(struct alloclab_output_folder *f, const char *mark, const char *signature, char *err,
				  size_t err_len);
/* Drops what was written: the staging folder and everything in it. */
void alloclab_output_folder_discard(struct alloclab_output_folder *f);

/* Whether name may be a path inside such a folder: parts of [A-Za-z0-9_.-]
 * separated by single slashes, none starting with '.', at most 200 bytes. */
int alloclab_output_folder_name_ok(const char *name);

#endif
