/* See output_path.h. */
#define _GNU_SOURCE 1
#include "files/output_path.h"

#include "files/scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const kind_names[] = {"results file", "trace", "picture", "export", "heap map", "batch script",
					 "sweep record", "grading's file"};
static const char *const kind_described[] = {"an alloclab results file", "an alloclab trace", "a PNG, GIF or SVG picture",
					     "a pyperf JSON file or an alloclab CSV export",
					     "an alloclab heap map's frames", "a batch script written by alloclab",
					     "an alloclab sweep record", "a file written by alloclab grade"};

/* Whether the regular file at fd is of this kind, by its first bytes. */
static int is_kind(int fd, enum alloclab_output_kind kind)
{
	char head[256];
	ssize_t n = pread(fd, head, sizeof head - 1, 0);
	if (n <= 0)
		return n == 0; /* empty: nothing to lose */
	head[n] = '\0';
	switch (kind) {
	case ALLOCLAB_OUTPUT_RESULTS: return head[0] == '{' && strstr(head, "\"alloclab-run\"") != NULL;
	case ALLOCLAB_OUTPUT_TRACE: return n >= 8 && memcmp(head, "ALCTRACE", 8) == 0;
	case ALLOCLAB_OUTPUT_PICTURE:
		return (n >= 8 && memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0) || (n >= 4 && memcmp(head, "GIF8", 4) == 0) ||
		       strstr(head, "<svg") != NULL ||
		       strncmp(head, "<?xml", 5) == 0;
	case ALLOCLAB_OUTPUT_EXPORT:
		return (head[0] == '{' && strstr(head, "\"benchmarks\"") != NULL) ||
		       strncmp(head, ALLOCLAB_EXPORT_CSV_HEADER, strlen(ALLOCLAB_EXPORT_CSV_HEADER)) == 0;
	case ALLOCLAB_OUTPUT_HEAPMAP: return head[0] == '{' && strstr(head, "\"alloclab-heapmap\"") != NULL;
	case ALLOCLAB_OUTPUT_SCRIPT: {
		const char *second = strchr(head, '\n');
		return strncmp(head, "#!/bin/sh\n", 10) == 0 && second && strncmp(second + 1, "# ", 2) == 0 &&
		       strstr(second, ALLOCLAB_SCRIPT_MARK) != NULL;
	}
	case ALLOCLAB_OUTPUT_SWEEP: return head[0] == '{' && strstr(head, "\"alloclab-sweep\"") != NULL;
	case ALLOCLAB_OUTPUT_GRADE:
		return (head[0] == '{' && strstr(head, ALLOCLAB_GRADE_JSON_MARK) != NULL) ||
		       strncmp(head, ALLOCLAB_GRADE_TEXT_MARK, strlen(ALLOCLAB_GRADE_TEXT_MARK)) == 0 ||
		       strncmp(head, ALLOCLAB_GRADE_CSV_HEADER, strlen(ALLOCLAB_GRADE_CSV_HEADER)) == 0;
	}
	return 0;
}

static int mkdir_p(const char *dir)
{
	char buf[ALLOCLAB_PATH_LEN];
	snprintf(buf, sizeof buf, "%s", dir);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0777) != 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static void folder_of(const char *path, char *out, size_t len)
{
	char buf[ALLOCLAB_PATH_LEN];
	snprintf(buf, sizeof buf, "%s", path);
	snprintf(out, len, "%s", dirname(buf));
}

int alloclab_output_usable(const char *path, enum alloclab_output_kind kind, char *err, size_t err_len)
{
	char dir[ALLOCLAB_PATH_LEN];
	struct stat st;

	if (path[0] == '\0' || path[strlen(path) - 1] == '/') {
		snprintf(err, err_len, "'%s' names no file to write the %s to", path, kind_names[kind]);
		return -1;
	}
	if (strlen(path) >= ALLOCLAB_PATH_LEN - 32) {
		snprintf(err, err_len, "'%.64s...' is too long a path", path);
		return -1;
	}
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode)) {
			snprintf(err, err_len, "%s is a symbolic link: give the file itself as the output", path);
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(err, err_len, "%s is not a regular file (%s): alloclab replaces only its own files", path,
				 S_ISDIR(st.st_mode) ? "a folder"
				 : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
									      : "special");
			return -1;
		}
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		int same = fd >= 0 && is_kind(fd, kind);
		if (fd >= 0)
			close(fd);
		if (fd < 0 && errno != EACCES) {
			snprintf(err, err_len, "cannot use %s: %s", path, strerror(errno));
			return -1;
		}
		if (fd >= 0 && !same) {
			snprintf(err, err_len, "%s exists and is not %s: alloclab replaces only a file of the kind it writes",
				 path, kind_described[kind]);
			return -1;
		}
	} else if (errno != ENOENT) {
		snprintf(err, err_len, "cannot use %s: %s", path, strerror(errno));
		return -1;
	}
	folder_of(path, dir, sizeof dir);
	if (mkdir_p(dir) != 0) {
		snprintf(err, err_len, "cannot create folder %s: %s", dir, strerror(errno));
		return -1;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		snprintf(err, err_len, "cannot write in folder %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

int alloclab_output_begin(const char *path, enum alloclab_output_kind kind, struct alloclab_output_file *f, char *err,
			  size_t err_len)
{
	char dir[ALLOCLAB_PATH_LEN];

	f->fd = -1;
	f->name[0] = '\0';
	if (alloclab_output_usable(path, kind, err, err_len) != 0)
		return -1;
	folder_of(path, dir, sizeof dir);
	f->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	if (f->fd < 0) {
		/* No O_TMPFILE here: a named file, removed on every failure
		 * this process sees. */
		snprintf(f->name, sizeof f->name, "%s.tmp-XXXXXX", path);
		f->fd = mkostemp(f->name, O_CLOEXEC);
		if (f->fd < 0) {
			snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
			f->name[0] = '\0';
			return -1;
		}
	}
	fchmod(f->fd, 0644);
	return 0;
}

int alloclab_output_commit(struct alloclab_output_file *f, const char *path, enum alloclab_output_kind kind, char *err,
			   size_t err_len)
{
	char proc[64];

	if (fsync(f->fd) != 0) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		alloclab_output_discard(f);
		return -1;
	}
	/* Checked again just before: the path may have changed meanwhile. */
	if (alloclab_output_usable(path, kind, err, err_len) != 0) {
		alloclab_output_discard(f);
		return -1;
	}
	if (f->name[0] == '\0') {
		/* A name of its own first, then the rename that replaces at once. */
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", f->fd);
		for (unsigned n = 0; n < 100; n++) {
			snprintf(f->name, sizeof f->name, "%s.tmp-%ld-%u", path, (long)getpid(), n);
			if (linkat(AT_FDCWD, proc, AT_FDCWD, f->name, AT_SYMLINK_FOLLOW) == 0)
				break;
			if (errno != EEXIST) {
				snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
				f->name[0] = '\0';
				alloclab_output_discard(f);
				return -1;
			}
			f->name[0] = '\0';
		}
	}
	if (f->name[0] == '\0' || rename(f->name, path) != 0) {
		snprintf(err, err_len, "cannot rename to %s: %s", path, strerror(errno));
		alloclab_output_discard(f);
		return -1;
	}
	f->name[0] = '\0';
	close(f->fd);
	f->fd = -1;
	return 0;
}

void alloclab_output_discard(struct alloclab_output_file *f)
{
	if (f->name[0])
		unlink(f->name);
	f->name[0] = '\0';
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

int alloclab_output_is_input(const char *path, const char *input)
{
	struct stat a, b;
	return stat(path, &a) == 0 && stat(input, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int alloclab_output_copy(const char *from, const char *path, enum alloclab_output_kind kind, char *err,
			 size_t err_len)
{
	struct alloclab_output_file f;
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY | O_CLOEXEC);

	if (in < 0) {
		snprintf(err, err_len, "cannot read %s: %s", from, strerror(errno));
		return -1;
	}
	if (alloclab_output_begin(path, kind, &f, err, err_len) != 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(f.fd, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (n < 0) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		alloclab_output_discard(&f);
		return -1;
	}
	return alloclab_output_commit(&f, path, kind, err, err_len);
}

/* ---- folders ---- */

int alloclab_output_folder_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > 200)
		return 0;
	for (const char *part = name; part;) {
		const char *end = strchr(part, '/');
		size_t len = end ? (size_t)(end - part) : strlen(part);
		if (len == 0 || part[0] == '.')
			return 0;
		for (size_t i = 0; i < len; i++) {
			char c = part[i];
			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
			      c == '.' || c == '-'))
				return 0;
		}
		part = end ? end + 1 : NULL;
	}
	return 1;
}

/* The names a mark file lists (after its first line), one a line, each
 * checked; NULL when it is no mark of this kind. */
struct listing {
	char **names;
	size_t n;
};

static void listing_free(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	l->names = NULL;
	l->n = 0;
}

static int listing_has(const struct listing *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->names[i], name) == 0)
			return 1;
	return 0;
}

/* A mark this size is no mark: a listing of every file of a big site is
 * far smaller. */
#define MARK_MAX (16u << 20)

/* Reads dirfd's mark into l: 1 it is one of this kind, 0 it is not (or
 * missing), -1 it cannot be read. */
static int read_mark(int dirfd, const char *mark, const char *signature, struct listing *l)
{
	struct stat st;
	int fd = openat(dirfd, mark, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT || errno == ELOOP ? 0 : -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)MARK_MAX) {
		close(fd);
		return 0;
	}
	FILE *f = fdopen(fd, "r");
	if (f == NULL) {
		close(fd);
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ok = getline(&line, &cap, f) > 0 && strncmp(line, signature, strlen(signature)) == 0;
	while (ok && (n = getline(&line, &cap, f)) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!alloclab_output_folder_name_ok(line)) {
			ok = 0;
			break;
		}
		char **grown = realloc(l->names, (l->n + 1) * sizeof *grown);
		if (grown == NULL) {
			ok = 0;
			break;
		}
		l->names = grown;
		l->names[l->n++] = strdup(line);
	}
	free(line);
	fclose(f);
	if (!ok)
		listing_free(l);
	return ok;
}

/* Every entry under dirfd (at prefix) is a listed file or a folder, never
 * a link or anything else: 0, or -1 with the first other one in bad. */
static int only_listed(int fd, const char *prefix, const struct listing *l, const char *mark, char *bad,
		       size_t bad_len, unsigned depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int rc = 0;
	if (d == NULL) {
		close(fd);
		snprintf(bad, bad_len, "%.400s (cannot be read)", prefix[0] ? prefix : ".");
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		/* A name longer than a listed one can be (200 bytes) is cut
		 * and then matches none. */
		char rel[520];
		struct stat st;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(rel, sizeof rel, "%.255s%s%.255s", prefix, prefix[0] ? "/" : "", e->d_name);
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    (S_ISREG(st.st_mode) && !listing_has(l, rel) && !(depth == 0 && strcmp(rel, mark) == 0)) ||
		    (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) || (S_ISDIR(st.st_mode) && depth >= 8)) {
			snprintf(bad, bad_len, "%.400s%s", rel, S_ISLNK(st.st_mode) ? " (a symbolic link)" : "");
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			rc = sub < 0 ? (snprintf(bad, bad_len, "%.400s (cannot be read)", rel), -1)
				     : only_listed(sub, rel, l, mark, bad, bad_len, depth + 1);
		}
	}
	closedir(d);
	return rc;
}

/* What is at path may be replaced by the folder (see output_path.h):
 * 0 (*exists set), or -1 with err. l gets the earlier folder's listing. */
static int folder_replaceable(const char *path, const char *mark, const char *signature, int *exists,
			      struct listing *l, char *err, size_t err_len)
{
	struct stat st;
	*exists = 0;
	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, err_len, "cannot use %s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode)) {
		snprintf(err, err_len, "%s is %s: give a new folder, an empty one or an earlier report's", path,
			 S_ISLNK(st.st_mode) ? "a symbolic link" : "not a folder");
		return -1;
	}
	*exists = 1;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, err_len, "cannot read folder %s: %s", path, strerror(errno));
		return -1;
	}
	int marked = read_mark(fd, mark, signature, l);
	char bad[ALLOCLAB_PATH_LEN];
	if (only_listed(fd, "", l, marked > 0 ? mark : "", bad, sizeof bad, 0) == 0)
		return 0; /* empty, or only what its mark lists */
	if (marked > 0)
		snprintf(err, err_len, "%s holds %.400s, which alloclab did not write there: give a new folder", path, bad);
	else
		snprintf(err, err_len, "%s is a folder that is not empty and holds no earlier report (%.400s is in it): "
			 "give a new folder, an empty one or an earlier report's", path, bad);
	listing_free(l);
	return -1;
}

int alloclab_output_folder_begin(const char *path, const char *mark, const char *signature,
				 struct alloclab_output_folder *f, char *err, size_t err_len)
{
	struct listing l = {0};
	int exists;
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n == 0 || n >= ALLOCLAB_PATH_LEN - 64 || (n == 1 && path[0] == '/')) {
		snprintf(err, err_len, "'%.64s' names no folder to write to", path);
		return -1;
	}
	snprintf(f->path, sizeof f->path, "%.*s", (int)n, path);
	f->staging[0] = '\0';
	if (folder_replaceable(f->path, mark, signature, &exists, &l, err, err_len) != 0)
		return -1;
	listing_free(&l);
	char parent[ALLOCLAB_PATH_LEN];
	folder_of(f->path, parent, sizeof parent);
	if (mkdir_p(parent) != 0) {
		snprintf(err, err_len, "cannot create folder %s: %s", parent, strerror(errno));
		return -1;
	}
	snprintf(f->staging, sizeof f->staging, "%s.partial-XXXXXX", f->path);
	if (mkdtemp(f->staging) == NULL) {
		snprintf(err, err_len, "cannot write in folder %s: %s", parent, strerror(errno));
		f->staging[0] = '\0';
		return -1;
	}
	return 0;
}

static int by_length_down(const void *a, const void *b)
{
	size_t x = strlen(*(char *const *)a), y = strlen(*(char *const *)b);
	return (x < y) - (x > y);
}

/* The earlier folder, moved aside to `at`: its listed files, then its
 * folders once empty; anything else stays (and so does `at`). */
static void remove_listed(const char *at, const char *mark, const struct listing *l)
{
	char path[ALLOCLAB_PATH_PLUS2_LEN];
	struct stat st;
	for (size_t i = 0; i < l->n; i++) {
		snprintf(path, sizeof path, "%s/%s", at, l->names[i]);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			unlink(path);
	}
	snprintf(path, sizeof path, "%s/%s", at, mark);
	unlink(path);
	/* Folders, deepest first: every prefix of a listed name. */
	char **dirs = calloc(l->n * 8 + 1, sizeof *dirs);
	size_t nd = 0;
	for (size_t i = 0; dirs && i < l->n; i++)
		for (const char *slash = strchr(l->names[i], '/'); slash && nd < l->n * 8; slash = strchr(slash + 1, '/'))
			dirs[nd++] = strndup(l->names[i], (size_t)(slash - l->names[i]));
	if (dirs)
		qsort(dirs, nd, sizeof *dirs, by_length_down);
	for (size_t i = 0; i < nd; i++) {
		snprintf(path, sizeof path, "%s/%s", at, dirs[i] ? dirs[i] : "");
		if (dirs[i] && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			rmdir(path);
		free(dirs[i]);
	}
	free(dirs);
	rmdir(at);
}

void alloclab_output_folder_discard(struct alloclab_output_folder *f)
{
	if (f->staging[0])
		alloclab_scratch_remove(f->staging);
	f->staging[0] = '\0';
}

int alloclab_output_folder_commit(struct alloclab_output_folder *f, const char *mark, const char *signature, char *err,
				  size_t err_len)
{
	struct listing l = {0};
	int exists;
	/* Checked again just before: the folder may have changed meanwhile. */
	if (folder_replaceable(f->path, mark, signature, &exists, &l, err, err_len) != 0) {
		alloclab_output_folder_discard(f);
		return -1;
	}
	mode_t mask = umask(0);
	umask(mask);
	chmod(f->staging, 0777 & ~mask);
	int rc = exists ? renameat2(AT_FDCWD, f->staging, AT_FDCWD, f->path, RENAME_EXCHANGE) : rename(f->staging, f->path);
	if (rc != 0 && exists && (errno == EINVAL || errno == ENOSYS)) {
		/* A filesystem without the exchange: the earlier folder is
		 * moved aside first, then the new one takes its place. */
		char aside[ALLOCLAB_PATH_PLUS_LEN];
		snprintf(aside, sizeof aside, "%s.earlier-XXXXXX", f->path);
		rc = mkdtemp(aside) && rename(f->path, aside) == 0 ? rename(f->staging, f->path) : -1;
		if (rc == 0)
			snprintf(f->staging, sizeof f->staging, "%s", aside);
	}
	if (rc != 0) {
		snprintf(err, err_len, "cannot put the folder in place at %s: %s", f->path, strerror(errno));
		listing_free(&l);
		alloclab_output_folder_discard(f);
		return -1;
	}
	if (exists)
		remove_listed(f->staging, mark, &l); /* the earlier folder, now where the new one was written */
	listing_free(&l);
	f->staging[0] = '\0';
	return 0;
}
