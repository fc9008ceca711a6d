/*
 * A plugin's repository, through git: the commits of a range in order, a
 * commit checked out in a worktree of its own, and what a folder's tree
 * was built from. git runs in a supervised child with a deadline, every
 * revision a user names comes after --end-of-options (a name that looks
 * like an option is a name), and the repository's hooks and file-system
 * monitor are switched off for every call: nothing a repository holds is
 * run, only the build command the user gave (plugin_build.h).
 */
#ifndef ALLOCLAB_REVISION_H
#define ALLOCLAB_REVISION_H

#include <stddef.h>

struct alloclab_revision {
	char commit[65];   /* the full hash */
	char *subject;     /* its first line, control characters shown as '?' */
};

/* The commits of range "A..B" (A itself first, then each commit after it
 * on B's first-parent line, oldest first), or of one revision "A" (that
 * commit alone). 0 with *out (n), or -1 with err. */
int alloclab_revision_list(const char *repo, const char *range, struct alloclab_revision **out, size_t *n, char *err,
			   size_t err_len);
void alloclab_revision_list_free(struct alloclab_revision *r, size_t n);

/* One revision resolved to its commit. 0, or -1 with err. */
int alloclab_revision_resolve(const char *repo, const char *rev, char commit[65], char *err, size_t err_len);

/* A worktree of repo at commit, made in dir (which must not exist), and
 * removed again (the folder and git's record of it). 0, or -1 with err. */
int alloclab_revision_checkout(const char *repo, const char *commit, const char *dir, char *err, size_t err_len);
void alloclab_revision_remove(const char *repo, const char *dir);

/* What the folder's tree is: source "COMMIT" or "COMMIT+dirty" when it is
 * in a git work tree, else "" (unknown). */
void alloclab_revision_of_folder(const char *dir, char *source, size_t len);

#endif
