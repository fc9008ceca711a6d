/* What a submission argument is, and its row's name. See submission.h. */
#define _GNU_SOURCE 1
#include "grade/submission.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The argument without "./" parts and repeated or trailing slashes. */
static void normalize(const char *arg, char *out, size_t len)
{
	size_t n = 0;
	const char *p = arg;
	if (*p == '/' && n + 1 < len)
		out[n++] = '/';
	while (*p) {
		while (*p == '/')
			p++;
		size_t w = strcspn(p, "/");
		if (w == 0)
			break;
		if (!(w == 1 && p[0] == '.')) {
			if (n && out[n - 1] != '/' && n + 1 < len)
				out[n++] = '/';
			if (n + w < len) {
				memcpy(out + n, p, w);
				n += w;
			}
		}
		p += w;
	}
	if (n == 0 && len > 1)
		out[n++] = '.';
	out[n] = '\0';
}

int alloclab_submissions_repeated(char *const *args, size_t n, size_t *first, size_t *second)
{
	char a[ALLOCLAB_PATH_LEN], b[ALLOCLAB_PATH_LEN];
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < i; k++) {
			normalize(args[i], a, sizeof a);
			normalize(args[k], b, sizeof b);
			if (strcmp(a, b) == 0) {
				*first = k;
				*second = i;
				return 1;
			}
		}
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && strcmp(s + n - k, suffix) == 0;
}

/* Whether the file at path starts as an ELF file does (read without
 * blocking: a FIFO is no plugin). */
static int is_elf(const char *path)
{
	unsigned char head[4] = {0};
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	int elf = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read(fd, head, 4) == 4 &&
		  memcmp(head, "\x7f" "ELF", 4) == 0;
	if (fd >= 0)
		close(fd);
	return elf;
}

static int add_file(struct alloclab_submission *s, const struct stat *st, const char *name)
{
	if (s->nfiles >= ALLOCLAB_SUBMISSION_MAX_FILES)
		return 0;
	if (s->files == NULL && (s->files = calloc(ALLOCLAB_SUBMISSION_MAX_FILES, sizeof *s->files)) == NULL)
		return -1;
	struct alloclab_submission_file *f = &s->files[s->nfiles++];
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	snprintf(f->name, sizeof f->name, "%.63s", name);
	return 0;
}

/* Whether the file at path (rel within the submission) is reached
 * through a symbolic link inside the submission: its real path is not
 * where its name puts it. Noted in the last file added. -1 out of
 * memory. */
static int note_link(struct alloclab_submission *s, const char *path, const char *rel)
{
	char real[ALLOCLAB_PATH_LEN], here[ALLOCLAB_PATH_PLUS2_LEN];
	struct stat lst;
	struct alloclab_submission_file *f = &s->files[s->nfiles - 1];
	snprintf(here, sizeof here, "%s/%s", s->path, rel);
	if (realpath(path, real) == NULL || strcmp(real, here) == 0 || f->target)
		return 0;
	f->link_itself = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
	return (f->target = strdup(real)) ? 0 : -1;
}

/* Looks through one folder of a submission (sub: "" or "build"): notes
 * every regular file (links followed) for the shared-file notes, and
 * what it holds. */
static int scan(struct alloclab_submission *s, const char *sub, int *has_meson, int *has_c, char *so, size_t so_len)
{
	char dir[ALLOCLAB_PATH_PLUS_LEN];
	snprintf(dir, sizeof dir, "%s%s%s", s->path, sub[0] ? "/" : "", sub);
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *e = names[i]->d_name;
		char path[ALLOCLAB_PATH_PLUS2_LEN], rel[300];
		struct stat st, lst;
		snprintf(path, sizeof path, "%s/%s", dir, e);
		snprintf(rel, sizeof rel, "%s%s%s", sub, sub[0] ? "/" : "", e);
		if (e[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			size_t had = s->nfiles;
			if (add_file(s, &st, rel) != 0 || (s->nfiles > had && note_link(s, path, rel) != 0))
				n = -1;
			int plain = lstat(path, &lst) == 0 && S_ISREG(lst.st_mode);
			if (!sub[0] && strcmp(e, "meson.build") == 0)
				*has_meson = 1;
			else if (!sub[0] && ends_with(e, ".c") && plain)
				*has_c = 1;
			else if (!so[0] && ends_with(e, ".so") && strlen(rel) < so_len)
				snprintf(so, so_len, "%s", rel);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return n < 0 && errno == ENOMEM ? -1 : 0;
}

/* What one argument is. -1 only out of memory. */
static int resolve_one(struct alloclab_submission *s)
{
	struct stat st;
	snprintf(s->kind, sizeof s->kind, "none");
	if (stat(s->arg, &st) != 0 || realpath(s->arg, s->path) == NULL) {
		s->path[0] = '\0';
		snprintf(s->problem, sizeof s->problem, "no such file or folder (%s)", strerror(errno));
		return 0;
	}
	if (add_file(s, &st, "") != 0)
		return -1;
	if (S_ISREG(st.st_mode)) {
		const char *base = strrchr(s->path, '/') + 1;
		snprintf(s->plugin, sizeof s->plugin, "%s", base);
		if (ends_with(base, ".c"))
			snprintf(s->kind, sizeof s->kind, "c-file");
		else if (is_elf(s->path))
			snprintf(s->kind, sizeof s->kind, "plugin");
		else
			snprintf(s->problem, sizeof s->problem,
				 "neither a plugin (an ELF shared object), a C source (.c) nor a folder");
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(s->problem, sizeof s->problem, "not a regular file or a folder");
		return 0;
	}
	int meson = 0, c = 0;
	char so[256] = "";
	if (scan(s, "", &meson, &c, so, sizeof so) != 0 || scan(s, "build", &meson, &c, so, sizeof so) != 0)
		return -1;
	/* A built plugin in build/ is preferred to one beside the sources. */
	char built[256] = "";
	for (size_t i = 0; i < s->nfiles; i++)
		if (strncmp(s->files[i].name, "build/", 6) == 0 && ends_with(s->files[i].name, ".so") && !built[0])
			snprintf(built, sizeof built, "%s", s->files[i].name);
	if (meson)
		snprintf(s->kind, sizeof s->kind, "meson");
	else if (c)
		snprintf(s->kind, sizeof s->kind, "sources");
	else if (built[0] || so[0]) {
		snprintf(s->kind, sizeof s->kind, "built");
		snprintf(s->plugin, sizeof s->plugin, "%s", built[0] ? built : so);
	} else
		snprintf(s->problem, sizeof s->problem,
			 "nothing to build or grade: no meson.build, no .c file and no plugin (.so) in it or its build/");
	return 0;
}

/* Each row's name: the fewest last parts of its path that no other row
 * ends with too. */
static void name_rows(struct alloclab_submission *s, size_t n)
{
	char (*norm)[ALLOCLAB_PATH_LEN] = malloc(n * sizeof *norm);
	if (norm == NULL) {
		for (size_t i = 0; i < n; i++)
			snprintf(s[i].name, sizeof s[i].name, "%s", s[i].arg);
		return;
	}
	for (size_t i = 0; i < n; i++)
		normalize(s[i].arg, norm[i], sizeof norm[i]);
	for (size_t i = 0; i < n; i++) {
		const char *tail = norm[i] + strlen(norm[i]);
		for (;;) {
			/* one more part */
			while (tail > norm[i] && tail[-1] == '/')
				tail--;
			while (tail > norm[i] && tail[-1] != '/')
				tail--;
			size_t k = strlen(tail);
			int clash = 0;
			for (size_t j = 0; j < n && !clash; j++) {
				size_t m = strlen(norm[j]);
				clash = j != i && m >= k && strcmp(norm[j] + m - k, tail) == 0 &&
					(m == k || norm[j][m - k - 1] == '/');
			}
			if (!clash || tail == norm[i])
				break;
		}
		snprintf(s[i].name, sizeof s[i].name, "%s", tail);
	}
	free(norm);
}

/* Appends "; " and one more note on a file of s shared with row's
 * theirs, as much as fits: "build/x.so is a symbolic link to PATH (ROW's
 * build/y.so)" where s reaches it through a link, else "build/x.so is
 * the same file as ROW's build/y.so". */
static void append_note(struct alloclab_submission *s, const struct alloclab_submission_file *mine, const char *row,
			const char *theirs)
{
	size_t used = strlen(s->note);
	char *at = s->note + used;
	size_t left = sizeof s->note - used;
	if (mine->target)
		snprintf(at, left, "%s%s %s %s (%s%s%s%s)", used ? "; " : "", mine->name,
			 mine->link_itself ? "is a symbolic link to" : "lies, through a symbolic link, at", mine->target,
			 theirs[0] ? "" : "the submission ", row, theirs[0] ? "'s " : "", theirs);
	else
		snprintf(at, left, "%s%s%sthe same file as %s%s%s", used ? "; " : "", mine->name, mine->name[0] ? " is " : "",
			 row, theirs[0] ? "'s " : "", theirs);
}

/* Notes on mine's row the first file it shares with theirs (row): in
 * pass 0 a file that theirs holds as its own (a link of mine to it, or
 * the same file in both: a hard link, one file given twice); in pass 1 a
 * link of mine that no row's own file explained, to where a link of
 * theirs leads too. A link of theirs to a file of mine is theirs to be
 * told of, not mine. said: mine's files noted already. */
static void note_pair(struct alloclab_submission *mine, const struct alloclab_submission *theirs, int pass,
		      unsigned char *said)
{
	for (size_t a = 0; a < mine->nfiles; a++)
		for (size_t b = 0; b < theirs->nfiles; b++) {
			const struct alloclab_submission_file *x = &mine->files[a], *y = &theirs->files[b];
			if (x->dev != y->dev || x->ino != y->ino || (y->target != NULL) != pass || (x->target && said[a]) ||
			    (!x->target && y->target))
				continue;
			append_note(mine, x, theirs->name, y->name);
			said[a] = 1;
			return;
		}
}

static void note_shared(struct alloclab_submission *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char *said = calloc(s[i].nfiles + 1, 1);
		for (int pass = 0; pass < 2 && said; pass++)
			for (size_t j = 0; j < n; j++)
				if (j != i)
					note_pair(&s[i], &s[j], pass, said);
		free(said);
	}
}

int alloclab_submissions_resolve(char *const *args, size_t n, struct alloclab_submission *out)
{
	for (size_t i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof out[i]);
		out[i].arg = args[i];
		if (resolve_one(&out[i]) != 0)
			return -1;
	}
	name_rows(out, n);
	note_shared(out, n);
	return 0;
}

void alloclab_submissions_free(struct alloclab_submission *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t f = 0; f < s[i].nfiles; f++)
			free(s[i].files[f].target);
		free(s[i].files);
		s[i].files = NULL;
	}
}
