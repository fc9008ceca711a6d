/* A plugin's repository, through git. See revision.h. */
#define _GNU_SOURCE 1
#include "history/revision.h"

#include "process/program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* git answers a local question in well under a second; a worktree of a
 * large repository takes longer. */
#define GIT_TIMEOUT_S 120
#define GIT_OUTPUT_MAX (16u << 20)

/* Runs git in repo with the words given after the safety options; its
 * standard output into *out (malloc'd). 0, or -1 with err. */
static int git(const char *repo, const char *const *words, char **out, char *err, size_t err_len)
{
	char *argv[32], why[600], said[600];
	int n = 0;
	argv[n++] = "git";
	/* Nothing the repository holds is run: no hook (a post-checkout
	 * hook runs on worktree add), no file-system monitor. */
	argv[n++] = "-c";
	argv[n++] = "core.hooksPath=/dev/null";
	argv[n++] = "-c";
	argv[n++] = "core.fsmonitor=false";
	argv[n++] = "-C";
	argv[n++] = (char *)repo;
	for (int k = 0; words[k] && n < 31; k++)
		argv[n++] = (char *)words[k];
	argv[n] = NULL;
	char *text = NULL;
	int rc = alloclab_capture(argv, NULL, GIT_TIMEOUT_S, GIT_OUTPUT_MAX, &text, why, sizeof why, said, sizeof said);
	if (rc != 0) {
		snprintf(err, err_len, "%.600s: git %s: %s", repo, words[0], rc < 0 ? why : said[0] ? said : "failed");
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
	char *spec = NULL, *out = NULL;
	if (rev_ok(rev, err, err_len) != 0 || asprintf(&spec, "%s^{commit}", rev) < 0)
		return -1;
	const char *words[] = {"rev-parse", "--verify", "--quiet", "--end-of-options", spec, NULL};
	int rc = git(repo, words, &out, err, err_len);
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

/* Each "HASH\037SUBJECT\036" record of git log's output, appended. */
static void parse_log(const char *text, struct alloclab_revision **out, size_t *n)
{
	const char *p = text;
	while (*p) {
		while (*p == '\n')
			p++;
		const char *us = strchr(p, '\037'), *rs = us ? strchr(us, '\036') : NULL;
		if (us == NULL || rs == NULL || us - p < 40 || us - p > 64)
			break;
		*out = realloc(*out, (*n + 1) * sizeof **out);
		struct alloclab_revision *r = &(*out)[(*n)++];
		memcpy(r->commit, p, (size_t)(us - p));
		r->commit[us - p] = '\0';
		r->subject = clean_subject(us + 1, (size_t)(rs - us - 1));
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
	const char *one[] = {"log", "-1", "--format=%H%x1f%s%x1e", "--end-of-options", first, NULL};
	const char *all[] = {"log", "--reverse", "--first-parent", "--format=%H%x1f%s%x1e", "--end-of-options", span,
			     NULL};
	if (git(repo, one, &text, err, err_len) == 0)
		parse_log(text, out, n);
	free(text);
	text = NULL;
	if (*n == 1 && b && git(repo, all, &text, err, err_len) == 0)
		parse_log(text, out, n);
	free(text);
	free(span);
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

int alloclab_revision_checkout(const char *repo, const char *commit, const char *dir, char *err, size_t err_len)
{
	const char *words[] = {"worktree", "add", "--detach", "--force", "--quiet", "--", dir, commit, NULL};
	return git(repo, words, NULL, err, err_len);
}

void alloclab_revision_remove(const char *repo, const char *dir)
{
	char err[256];
	const char *words[] = {"worktree", "remove", "--force", "--", dir, NULL};
	if (git(repo, words, NULL, err, sizeof err) != 0) {
		const char *prune[] = {"worktree", "prune", NULL};
		git(repo, prune, NULL, err, sizeof err);
	}
}

void alloclab_revision_of_folder(const char *dir, char *source, size_t len)
{
	char *head = NULL, *status = NULL, err[256];
	const char *rev[] = {"rev-parse", "--verify", "--quiet", "HEAD", NULL};
	const char *st[] = {"status", "--porcelain", "--untracked-files=no", NULL};
	source[0] = '\0';
	if (git(dir, rev, &head, err, sizeof err) == 0 && git(dir, st, &status, err, sizeof err) == 0) {
		size_t k = strspn(head, "0123456789abcdef");
		if (k >= 40 && k <= 64)
			snprintf(source, len, "%.*s%s", (int)k, head, status[0] ? "+dirty" : "");
	}
	free(head);
	free(status);
}
