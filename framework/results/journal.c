/* The journal of a run in progress. See results.h. */
#define _GNU_SOURCE 1
#include "results/results.h"
#include "results/internal.h"
#include "results/results_keys.h"
#include "base/lengths.h"
#include "files/input_file.h"
#include "files/output_path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct alloclab_journal {
	int fd;
	char *path;
};

static void journal_path(const char *results_path, char *out, size_t len)
{
	snprintf(out, len, "%s.journal", results_path);
}

struct alloclab_journal *alloclab_journal_open(const char *results_path, char *err, size_t err_len)
{
	char path[ALLOCLAB_PATH_PLUS_LEN];
	struct alloclab_journal *j;
	int fd;

	journal_path(results_path, path, sizeof path);
	err[0] = '\0';
	/* The results path under the output policy (which makes its folder);
	 * the journal beside it is only ever a regular file of ours. */
	if (alloclab_output_usable(results_path, ALLOCLAB_OUTPUT_RESULTS, err, err_len) != 0)
		return NULL;
	struct stat st;
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, err_len, "%s is not a regular file: alloclab replaces only its own files", path);
		return NULL;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		return NULL;
	}
	/* One writer per results file: a second run on the same output would
	 * silently replace the first one's cells. */
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		snprintf(err, err_len, "%s is being written by another alloclab run (%s is locked)", results_path, path);
		close(fd);
		return NULL;
	}
	if (ftruncate(fd, 0) != 0) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	j = calloc(1, sizeof *j);
	j->fd = fd;
	j->path = strdup(path);
	return j;
}

int alloclab_journal_append(struct alloclab_journal *j, unsigned cell, unsigned threads, const char *metric,
			    const struct alloclab_process *p, enum alloclab_cell_status status, const char *message,
			    const struct alloclab_memory_timeline *failed_memory, char *err, size_t err_len)
{
	json_t *line = json_pack("{s:i,s:s}", K_CELL, (int)cell, K_STATUS, alloclab_results_status_name(status));
	char *text;
	size_t len, off = 0;

	if (p)
		json_object_set_new(line, K_PROCESS, alloclab_process_to_json(p, threads, metric));
	if (message)
		json_object_set_new(line, K_ERROR, alloclab_json_text(message));
	if (failed_memory)
		json_object_set_new(line, K_FAILED_MEMORY, alloclab_results_timeline_json(failed_memory));
	text = json_dumps(line, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(line);
	len = strlen(text);
	text = realloc(text, len + 2);
	text[len++] = '\n';
	while (off < len) {
		ssize_t n = write(j->fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, err_len, "cannot write %s: %s", j->path, strerror(n < 0 ? errno : ENOSPC));
			free(text);
			return -1;
		}
		off += (size_t)n;
	}
	free(text);
	if (fdatasync(j->fd) != 0 && errno != EINVAL) {
		snprintf(err, err_len, "cannot write %s: %s", j->path, strerror(errno));
		return -1;
	}
	return 0;
}

void alloclab_journal_close(struct alloclab_journal *j, int remove)
{
	if (j == NULL)
		return;
	close(j->fd);
	if (remove)
		unlink(j->path);
	free(j->path);
	free(j);
}


/* Applies PATH.journal's lines to an incomplete document. A line that does
 * not read (the last one, cut by a kill) ends the fold: everything before
 * it was finished. */
void alloclab_results_fold_journal(struct alloclab_results *r, const struct alloclab_results_reader *rd)
{
	char path[ALLOCLAB_PATH_PLUS_LEN], *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (rd->name == NULL)
		return;
	journal_path(rd->name, path, sizeof path);
	char why[128];
	/* Never waited on: a FIFO planted as the journal is no journal. */
	f = alloclab_fopen_regular(path, why, sizeof why);
	if (f == NULL)
		return;
	while (getline(&line, &cap, f) > 0) {
		json_t *obj = json_loads(line, JSON_REJECT_DUPLICATES, NULL), *proc;
		uint64_t cell = 0;
		char *status = NULL, *message = NULL, where[64];
		enum alloclab_cell_status st;
		struct alloclab_results_reader jr = {path, rd->check, rd->err, rd->err_len, rd->version};

		snprintf(where, sizeof where, "line");
		if (obj == NULL || alloclab_results_get_uint(&jr, obj, where, K_CELL, 1, 0, r->ncells ? r->ncells - 1 : 0, &cell) != 0 ||
		    r->ncells == 0 || alloclab_results_get_string(&jr, obj, where, K_STATUS, 1, &status) != 0 ||
		    alloclab_results_parse_status(status, &st) != 0 || alloclab_results_get_string(&jr, obj, where, K_ERROR, 0, &message) != 0) {
			free(status);
			json_decref(obj);
			break;
		}
		struct alloclab_cell *c = &r->cells[cell];
		proc = json_object_get(obj, K_PROCESS);
		/* A line the runner cannot have written ends the fold as a cut
		 * one does: a failure or "not applicable" says why, a cell that
		 * is not applicable has no measurement and one that is ok has
		 * one; the others carry no message. */
		int says_why = st == ALLOCLAB_CELL_ERROR || st == ALLOCLAB_CELL_NOT_APPLICABLE;
		if ((says_why && message == NULL) || (st == ALLOCLAB_CELL_NOT_APPLICABLE && (proc || c->nprocs)) ||
		    (st == ALLOCLAB_CELL_OK && proc == NULL && c->nprocs == 0)) {
			free(status);
			free(message);
			json_decref(obj);
			break;
		}
		if (!says_why) {
			free(message);
			message = NULL;
		}
		if (proc) {
			struct alloclab_process p;
			if (alloclab_results_read_process(&jr, proc, where, c->workload, c->threads, c->metric, &p) != 0) {
				alloclab_process_clear(&p);
				free(status);
				free(message);
				json_decref(obj);
				break;
			}
			alloclab_cell_add_process(c, &p);
		}
		struct alloclab_memory_timeline *fm = NULL;
		if ((json_object_get(obj, K_FAILED_MEMORY) && st != ALLOCLAB_CELL_ERROR) ||
		    alloclab_results_read_timeline(&jr, obj, where, K_FAILED_MEMORY, &fm) != 0) {
			free(status);
			free(message);
			json_decref(obj);
			break;
		}
		if (fm) {
			alloclab_memory_timeline_free(c->failed_memory);
			c->failed_memory = fm;
		}
		alloclab_cell_set_status(c, st, message);
		free(status);
		free(message);
		json_decref(obj);
	}
	rd->err[0] = '\0';
	free(line);
	fclose(f);
	r->interrupted = 1; /* the run never wrote its final document */
}
