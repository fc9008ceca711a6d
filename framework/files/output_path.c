/* See output_path.h. */
#define _GNU_SOURCE 1
#include "files/output_path.h"

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
