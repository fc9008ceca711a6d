/* A plugin's repository, through git. See revision.h. */
#define _GNU_SOURCE 1
#include "history/revision.h"

#include "files/scratch.h"
#include "process/program.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* git answers a local question in well under a second; a checkout of a
 * large repository takes longer. */
#define GIT_TIMEOUT_S 120
#define GIT_OUTPUT_MAX (16u << 20)
/* A folder's filter drivers neutralised one by one (four keys each): more
 * than this many is no repository of a plugin. */
#define MAX_FILTERS 64

/* Where a call runs, and whose configuration it reads. */
struct git_place {
	const char *dir;     /* git -C DIR (NULL: the current folder) */
	/* The repository is alloclab's own (a revision's copy): the system's
	 * and the user's configuration files are left out too, so that its
	 * whole configuration is what alloclab wrote. */
	int own;
	char **filters;      /* GIT_CONFIG_KEY_n/VALUE_n words, or NULL */
};

/* The keys that name a program git would run on its own in the calls
 * alloclab makes (rev-parse, log, config and status in the repository or
 * folder; init, update-ref and read-tree in its own), set on the command
 * line, which outranks every file (a repository's .git/config and what
 * it includes among them). protocol.allow=never stops every transport,
 * and with it what runs only behind one: a partial clone's lazy fetch,
 * ssh and core.sshCommand, ext:: and remote helpers, credential helpers
 * and askpass. No call shows a diff or merges, so no textconv, diff or
 * merge driver is asked for; none in the repository writes to it, so
 * none runs a hook there (hooks that newer gits read from the
 * configuration included). Filters are per name: see folder_filters. */
static const char *const fixed_config[] = {
	"core.hooksPath=/dev/null", "core.fsmonitor=false", "core.pager=cat", "log.showSignature=false",
	"gpg.program=/dev/null", "gpg.openpgp.program=/dev/null", "gpg.x509.program=/dev/null",
	"gpg.ssh.program=/dev/null", "gpg.ssh.defaultKeyCommand=", "protocol.allow=never", "credential.helper=",
	"core.askPass=", "submodule.recurse=false", "gc.auto=0", "maintenance.auto=false", NULL,
};

/* Runs git with the words given, as struct git_place says; its standard
 * output into *out (malloc'd). 0, or -1 with err. */
static int git(const struct git_place *at, const char *const *words, char **out, char *err, size_t err_len)
{
	/* The caller's environment may place git elsewhere (a hook that
	 * runs alloclab has GIT_DIR set): only -C says where. An empty
	 * GIT_ALLOW_PROTOCOL allows no transport; GIT_NO_LAZY_FETCH says so
	 * again to the gits that know it. Without optional locks, status
	 * leaves the index unwritten (the repository is never written to);
	 * without replace objects a commit is built from its own tree, not
	 * from one the repository substitutes. */
	static const char *const env[] = {
		"env", "-u", "GIT_DIR", "-u", "GIT_WORK_TREE", "-u", "GIT_INDEX_FILE", "-u", "GIT_COMMON_DIR",
		"-u", "GIT_OBJECT_DIRECTORY", "-u", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "-u", "GIT_NAMESPACE",
		"GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "GIT_ALLOW_PROTOCOL=", "GIT_NO_LAZY_FETCH=1",
		"GIT_NO_REPLACE_OBJECTS=1", "GIT_OPTIONAL_LOCKS=0", NULL,
	};
	static const char *const own[] = {"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_ATTR_NOSYSTEM=1",
					  NULL};
	size_t cap = 128, n = 0;
	for (size_t k = 0; at->filters && at->filters[k]; k++)
		cap++;
	for (size_t k = 0; words[k]; k++)
		cap++;
	char **argv = calloc(cap, sizeof *argv), why[600], said[600];
	if (argv == NULL) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	for (size_t k = 0; env[k]; k++)
		argv[n++] = (char *)env[k];
	for (size_t k = 0; at->own && own[k]; k++)
		argv[n++] = (char *)own[k];
	for (size_t k = 0; at->filters && at->filters[k]; k++)
		argv[n++] = at->filters[k];
	argv[n++] = "git";
	argv[n++] = "--no-pager";
	for (size_t k = 0; fixed_config[k]; k++) {
		argv[n++] = "-c";
		argv[n++] = (char *)fixed_config[k];
	}
	if (at->dir) {
		argv[n++] = "-C";
		argv[n++] = (char *)at->dir;
	}
	for (size_t k = 0; words[k]; k++)
		argv[n++] = (char *)words[k];
	char *text = NULL;
	int rc = alloclab_capture(argv, NULL, GIT_TIMEOUT_S, GIT_OUTPUT_MAX, &text, why, sizeof why, said, sizeof said);
	free(argv);
	if (rc != 0) {
		snprintf(err, err_len, "%.600s: git %s: %s", at->dir ? at->dir : ".", words[0],
			 rc < 0 ? why : said[0] ? said : "failed");
		free(text);
		return -1;
	}
	if (out)
		*out = text;
	else
		free(text);
	return 0;
}

/* A revision as the user wrote it: one line, not empty. */
static int rev_ok(const char *rev, char *err, size_t err_len)
{
	for (const char *c = rev; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			snprintf(err, err_len, "a revision holds a control character (a newline?): not one git could name");
			return -1;
		}
	if (rev[0] == '\0') {
		snprintf(err, err_len, "an empty revision");
		return -1;
	}
	return 0;
}

int alloclab_revision_resolve(const char *repo, const char *rev, char commit[65], char *err, size_t err_len)
{
	struct git_place at = {repo, 0, NULL};
	char *spec = NULL, *out = NULL;
	if (rev_ok(rev, err, err_len) != 0 || asprintf(&spec, "%s^{commit}", rev) < 0)
		return -1;
	const char *words[] = {"rev-parse", "--verify", "--quiet", "--end-of-options", spec, NULL};
	int rc = git(&at, words, &out, err, err_len);
	free(spec);
	if (rc != 0) {
		snprintf(err, err_len, "%.600s: no commit '%.200s' there", repo, rev);
		return -1;
	}
	size_t k = strspn(out, "0123456789abcdef");
	if (k < 40 || k > 64) {
		snprintf(err, err_len, "%.600s: git rev-parse gave no commit for '%.200s'", repo, rev);
		free(out);
		return -1;
	}
	memcpy(commit, out, k);
	commit[k] = '\0';
	free(out);
	return 0;
}
/* A subject as shown: one line, control characters as '?'. */
static char *clean_subject(const char *s, size_t n)
{
	char *t = strndup(s, n);
	for (char *c = t; c && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return t;
}

/* Each "HASH\037DATE\037SUBJECT\036" record of git log's output,
 * appended. */
static void parse_log(const char *text, struct alloclab_revision **out, size_t *n)
{
	const char *p = text;
	while (*p) {
		while (*p == '\n')
			p++;
		const char *us = strchr(p, '\037'), *ds = us ? strchr(us + 1, '\037') : NULL;
		const char *rs = ds ? strchr(ds, '\036') : NULL;
		if (us == NULL || ds == NULL || rs == NULL || us - p < 40 || us - p > 64)
			break;
		*out = realloc(*out, (*n + 1) * sizeof **out);
		struct alloclab_revision *r = &(*out)[(*n)++];
		memcpy(r->commit, p, (size_t)(us - p));
		r->commit[us - p] = '\0';
		/* git's own %cI: digits, '-', ':', 'T', '+'; anything else is
		 * not a date git wrote, and is left out. */
		size_t dn = (size_t)(ds - us - 1);
		r->date[0] = '\0';
		if (dn < sizeof r->date && strspn(us + 1, "0123456789-:T+Z") >= dn) {
			memcpy(r->date, us + 1, dn);
			r->date[dn] = '\0';
		}
		r->subject = clean_subject(ds + 1, (size_t)(rs - ds - 1));
		p = rs + 1;
	}
}

int alloclab_revision_list(const char *repo, const char *range, struct alloclab_revision **out, size_t *n, char *err,
			   size_t err_len)
{
	char first[65], last[65], *text = NULL, *dots = strstr(range, "..");
	*out = NULL;
	*n = 0;
	if (rev_ok(range, err, err_len) != 0)
		return -1;
	char *a = dots ? strndup(range, (size_t)(dots - range)) : strdup(range);
	const char *b = dots ? dots + 2 : NULL;
	int rc = alloclab_revision_resolve(repo, a, first, err, err_len);
	if (rc == 0 && b)
		rc = alloclab_revision_resolve(repo, b[0] ? b : "HEAD", last, err, err_len);
	free(a);
	if (rc != 0)
		return -1;
	char *span = NULL;
	if (b && asprintf(&span, "%s..%s", first, last) < 0)
		return -1;
	/* A signature is never checked: checking runs gpg.program. */
	const char *one[] = {"log", "-1", "--no-show-signature", "--format=%H%x1f%cI%x1f%s%x1e", "--end-of-options", first, NULL};
	const char *all[] = {"log", "--reverse", "--first-parent", "--no-show-signature", "--format=%H%x1f%cI%x1f%s%x1e",
			     "--end-of-options", span, NULL};
	struct git_place at = {repo, 0, NULL};
	if (git(&at, one, &text, err, err_len) == 0)
		parse_log(text, out, n);
	free(text);
	text = NULL;
	if (*n == 1 && b && git(&at, all, &text, err, err_len) == 0)
		parse_log(text, out, n);
	free(text);
	free(span);
	/* Each commit's depth from the last one's: how many commits its
	 * first-parent line holds. */
	const char *count[] = {"rev-list", "--first-parent", "--count", "--end-of-options", b ? last : first, NULL};
	text = NULL;
	if (*n > 0 && git(&at, count, &text, err, err_len) == 0) {
		unsigned long total = strtoul(text, NULL, 10);
		for (size_t i = 0; i < *n; i++)
			(*out)[i].depth = total >= *n - i ? total - (*n - i) : 0;
	}
	free(text);
	if (*n == 0) {
		snprintf(err, err_len, "%.600s: no commits in '%.200s'", repo, range);
		return -1;
	}
	return 0;
}

void alloclab_revision_list_free(struct alloclab_revision *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(r[i].subject);
	free(r);
}

/* Where the repository keeps its objects, and their hash ("sha1",
 * "sha256"), asked of the repository. 0, or -1 with err. */
static int objects_of(const char *repo, char *objects, size_t len, char format[16], char *err, size_t err_len)
{
	struct git_place at = {repo, 0, NULL};
	const char *ask[] = {"rev-parse", "--path-format=absolute", "--git-common-dir", "--show-object-format", NULL};
	char *text = NULL;
	if (git(&at, ask, &text, err, err_len) != 0)
		return -1;
	size_t k = strlen(text);
	while (k && text[k - 1] == '\n')
		text[--k] = '\0';
	char *nl = strrchr(text, '\n');
	int rc = -1;
	/* The alternates file is a line a path: one that holds a line break
	 * or starts with a quote would be read as something else. */
	if (nl == NULL || text[0] != '/' || memchr(text, '\n', (size_t)(nl - text)) || strlen(nl + 1) >= 16)
		snprintf(err, err_len, "%.600s: git rev-parse gave no repository folder a line could name", repo);
	else if ((size_t)snprintf(objects, len, "%.*s/objects", (int)(nl - text), text) >= len)
		snprintf(err, err_len, "%.600s: the repository's path is too long", repo);
	else {
		snprintf(format, 16, "%s", nl + 1);
		rc = 0;
	}
	free(text);
	return rc;
}

/* dir/.git/objects/info/alternates naming objects: the repository's
 * objects read where they are, none copied. 0, or -1 with err. */
static int borrow_objects(const char *dir, const char *objects, char *err, size_t err_len)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/.git/objects/info", dir);
	if (mkdir(path, 0777) != 0 && errno != EEXIST) {
		snprintf(err, err_len, "%.600s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof path, "%s/.git/objects/info/alternates", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	size_t n = strlen(objects);
	int ok = fd >= 0 && write(fd, objects, n) == (ssize_t)n && write(fd, "\n", 1) == 1;
	if (!ok)
		snprintf(err, err_len, "%.600s: %s", path, strerror(errno));
	if (fd >= 0 && close(fd) != 0 && ok) {
		snprintf(err, err_len, "%.600s: %s", path, strerror(errno));
		ok = 0;
	}
	return ok ? 0 : -1;
}

int alloclab_revision_checkout(const char *repo, const char *commit, const char *dir, char *err, size_t err_len)
{
	char objects[PATH_MAX], format[16], format_opt[48];
	if (objects_of(repo, objects, sizeof objects, format, err, err_len) != 0)
		return -1;
	/* A folder made now: a repository left there (by the build of an
	 * earlier run, which may have rewritten its configuration) is never
	 * initialised again and used. */
	if (mkdir(dir, 0777) != 0) {
		snprintf(err, err_len, "%.600s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(format_opt, sizeof format_opt, "--object-format=%s", format);
	struct git_place at = {dir, 1, NULL};
	const char *init[] = {"init", "--quiet", "--template=", "--initial-branch=alloclab", format_opt, NULL};
	const char *head[] = {"update-ref", "--no-deref", "HEAD", commit, NULL};
	const char *files[] = {"read-tree", "--reset", "-u", "HEAD", NULL};
	if (git(&at, init, NULL, err, err_len) != 0 || borrow_objects(dir, objects, err, err_len) != 0 ||
	    git(&at, head, NULL, err, err_len) != 0 || git(&at, files, NULL, err, err_len) != 0) {
		alloclab_scratch_remove(dir);
		return -1;
	}
	return 0;
}

void alloclab_revision_remove(const char *dir)
{
	alloclab_scratch_remove(dir);
}

/* The GIT_CONFIG_COUNT, _KEY_n and _VALUE_n words that switch off every
 * filter driver the folder's configuration defines: its smudge, clean
 * and process commands empty (git runs none then) and it not required.
 * A driver's name is whatever the configuration and .gitattributes say,
 * so no fixed key can reach it: each one found is overridden by its own
 * name, in the folder's own reading (its includes, conditional ones too,
 * resolve there as they will for the call that follows). NULL-terminated,
 * malloc'd; NULL when the list cannot be read or holds too many. */
static char **folder_filters(const char *dir)
{
	static const char *const keys[][2] = {
		{".smudge", ""}, {".clean", ""}, {".process", ""}, {".required", "false"}};
	struct git_place at = {dir, 0, NULL};
	const char *list[] = {"config", "--name-only", "--list", NULL};
	char *text = NULL, err[256];
	if (git(&at, list, &text, err, sizeof err) != 0)
		return NULL;
	char **words = calloc(2 * 4 * MAX_FILTERS + 2, sizeof *words);
	size_t n = 0, count = 0;
	int ok = words != NULL;
	for (char *line = text, *next; ok && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		size_t k = strlen(line);
		for (size_t i = 0; ok && strncmp(line, "filter.", 7) == 0 && i < 4; i++) {
			size_t kl = strlen(keys[i][0]);
			if (k <= 7 + kl || strcmp(line + k - kl, keys[i][0]) != 0)
				continue;
			char *key = NULL, *value = NULL;
			if (count == 4 * MAX_FILTERS || asprintf(&key, "GIT_CONFIG_KEY_%zu=%s", count, line) < 0 ||
			    asprintf(&value, "GIT_CONFIG_VALUE_%zu=%s", count, keys[i][1]) < 0) {
				ok = 0;
				break;
			}
			words[1 + n++] = key;
			words[1 + n++] = value;
			count++;
		}
	}
	free(text);
	if (ok && asprintf(&words[0], "GIT_CONFIG_COUNT=%zu", count) >= 0)
		return words;
	for (size_t i = 1; words && i < n + 1; i++)
		free(words[i]);
	free(words);
	return NULL;
}

static void free_words(char **w)
{
	for (size_t i = 0; w && w[i]; i++)
		free(w[i]);
	free(w);
}

void alloclab_revision_of_folder(const char *dir, char *source, size_t len)
{
	struct git_place at = {dir, 0, NULL};
	char *head = NULL, *status = NULL, err[256];
	const char *rev[] = {"rev-parse", "--verify", "--quiet", "HEAD", NULL};
	/* A submodule's status is a git of its own, in its own
	 * configuration, whose filters nobody switched off. */
	const char *st[] = {"status", "--porcelain", "--untracked-files=no", "--ignore-submodules=all", NULL};
	source[0] = '\0';
	if (git(&at, rev, &head, err, sizeof err) == 0 && (at.filters = folder_filters(dir)) != NULL &&
	    git(&at, st, &status, err, sizeof err) == 0) {
		size_t k = strspn(head, "0123456789abcdef");
		if (k >= 40 && k <= 64)
			snprintf(source, len, "%.*s%s", (int)k, head, status[0] ? "+dirty" : "");
	}
	free_words(at.filters);
	free(head);
	free(status);
}
