/*
 * A plugin's repository, through git: the commits of a range in order, a
 * commit's files in a folder of their own, and what a folder's tree was
 * built from. git runs in a supervised child with a deadline, every
 * revision a user names comes after --end-of-options (a name that looks
 * like an option is a name), and nothing the repository's configuration
 * (or its .gitattributes) names is run, only the build command the user
 * gave (plugin_build.h):
 *
 * - the repository itself is only asked questions that run nothing
 *   (rev-parse, log without signatures, config --list, status), with
 *   every key that names a program set on the command line, which
 *   outranks the repository's files (revision.c lists them): hooks, the
 *   file-system monitor, pagers, gpg, every transport (and so ssh,
 *   credential helpers, a partial clone's fetch), submodules;
 * - a commit's files are written by a repository of alloclab's own made
 *   for them, which borrows the repository's objects and none of its
 *   configuration (the system's and the user's files left out too): no
 *   filter, hook or attribute driver of anyone's is defined there;
 * - a status of the user's folder switches off each filter driver its
 *   configuration defines, by name.
 *
 * The repository is never written to.
 */
#ifndef ALLOCLAB_REVISION_H
#define ALLOCLAB_REVISION_H

#include <stddef.h>

struct alloclab_revision {
	char commit[65];   /* the full hash */
	char *subject;     /* its first line, control characters shown as '?' */
	char date[32];     /* its committer date, ISO 8601 ("2026-12-06T20:26:09+00:00"); "" unknown */
	/* Its place on the last commit's first-parent line, counted from the
	 * line's first commit (0): the same for a commit whatever range
	 * lists it, so that ranges that overlap order their commits as one. */
	unsigned long depth;
};

/* The commits of range "A..B" (A itself first, then each commit after it
 * on B's first-parent line, oldest first), or of one revision "A" (that
 * commit alone). 0 with *out (n), or -1 with err. */
int alloclab_revision_list(const char *repo, const char *range, struct alloclab_revision **out, size_t *n, char *err,
			   size_t err_len);
void alloclab_revision_list_free(struct alloclab_revision *r, size_t n);

/* One revision resolved to its commit. 0, or -1 with err. */
int alloclab_revision_resolve(const char *repo, const char *rev, char commit[65], char *err, size_t err_len);

/* The files of repo's commit, made in dir (which must not exist) with a
 * repository of their own in dir/.git whose HEAD is the commit (so a
 * build that asks git what it builds is answered; no branch or tag is
 * there), and removed again, no link followed. 0, or -1 with err. */
int alloclab_revision_checkout(const char *repo, const char *commit, const char *dir, char *err, size_t err_len);
void alloclab_revision_remove(const char *dir);

/* What the folder's tree is: source "COMMIT" or "COMMIT+dirty" when it is
 * in a git work tree, else "" (unknown). */
void alloclab_revision_of_folder(const char *dir, char *source, size_t len);

#endif
