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

/* Writes one line and syncs it. 0, or -1 with err. */
static int write_line(struct alloclab_journal *j, json_t *line, char *err, size_t err_len)
{
	char *text = json_dumps(line, JSON_COMPACT | JSON_REAL_PRECISION(17));
	size_t len = strlen(text), off = 0;

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

int alloclab_journal_append(struct alloclab_journal *j, unsigned cell, unsigned threads, const char *metric,
			    const struct alloclab_process *p, enum alloclab_cell_status status, const char *message,
			    const struct alloclab_memory_timeline *failed_memory, char *err, size_t err_len)
{
	json_t *line = json_pack("{s:i,s:s}", K_CELL, (int)cell, K_STATUS, alloclab_results_status_name(status));

	if (p)
		json_object_set_new(line, K_PROCESS, alloclab_process_to_json(p, threads, metric));
	if (message)
		json_object_set_new(line, K_ERROR, alloclab_json_text(message));
	if (failed_memory)
		json_object_set_new(line, K_FAILED_MEMORY, alloclab_results_timeline_json(failed_memory));
	int rc = write_line(j, line, err, err_len);
	json_decref(line);
	return rc;
}

int alloclab_journal_append_group(struct alloclab_journal *j, unsigned n, const unsigned *cells,
				  const struct alloclab_cell *const *cell_of, const struct alloclab_process *const *procs,
				  char *err, size_t err_len)
{
	json_t *group = json_array();
	for (unsigned k = 0; k < n; k++) {
		const struct alloclab_cell *c = cell_of[k];
		json_array_append_new(group, json_pack("{s:i,s:s,s:o}", K_CELL, (int)cells[k], K_STATUS,
						       alloclab_results_status_name(c->status), K_PROCESS,
						       alloclab_process_to_json(procs[k], c->threads, c->metric)));
	}
	json_t *line = json_pack("{s:o}", K_GROUP, group);
	int rc = write_line(j, line, err, err_len);
	json_decref(line);
	return rc;
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


/* One cell's change as a journal line gives it, read and checked but not
 * yet applied. */
struct entry {
	struct alloclab_cell *cell;
	enum alloclab_cell_status status;
	char *message;
	int has_process;
	struct alloclab_process process;
	struct alloclab_memory_timeline *failed_memory;
};

static void entry_clear(struct entry *e)
{
	free(e->message);
	if (e->has_process)
		alloclab_process_clear(&e->process);
	alloclab_memory_timeline_free(e->failed_memory);
	memset(e, 0, sizeof *e);
}

/* Reads one {cell, status, [error], [process], [failed_memory]} object.
 * A line the runner cannot have written is refused as a cut one is: a
 * failure or "not applicable" says why, a cell that is not applicable has
 * no measurement and one that is ok has one; the others carry no message.
 * 0, or -1. */
static int read_entry(struct alloclab_results *r, const struct alloclab_results_reader *jr, const json_t *obj,
		      struct entry *e)
{
	uint64_t cell = 0;
	char *status = NULL;
	const char *where = "line";

	memset(e, 0, sizeof *e);
	if (!json_is_object(obj) || r->ncells == 0 ||
	    alloclab_results_get_uint(jr, obj, where, K_CELL, 1, 0, r->ncells - 1, &cell) != 0 ||
	    alloclab_results_get_string(jr, obj, where, K_STATUS, 1, &status) != 0 ||
	    alloclab_results_parse_status(status, &e->status) != 0 ||
	    alloclab_results_get_string(jr, obj, where, K_ERROR, 0, &e->message) != 0) {
		free(status);
		return -1;
	}
	free(status);
	e->cell = &r->cells[cell];
	const json_t *proc = json_object_get(obj, K_PROCESS);
	int says_why = e->status == ALLOCLAB_CELL_ERROR || e->status == ALLOCLAB_CELL_NOT_APPLICABLE;
	if ((says_why && e->message == NULL) ||
	    (e->status == ALLOCLAB_CELL_NOT_APPLICABLE && (proc || e->cell->nprocs)) ||
	    (e->status == ALLOCLAB_CELL_OK && proc == NULL && e->cell->nprocs == 0) ||
	    (json_object_get(obj, K_FAILED_MEMORY) && e->status != ALLOCLAB_CELL_ERROR))
		return -1;
	if (!says_why) {
		free(e->message);
		e->message = NULL;
	}
	if (proc) {
		e->has_process = 1;
		if (alloclab_results_read_process(jr, proc, where, e->cell->workload, e->cell->threads, e->cell->metric,
						  &e->process) != 0)
			return -1;
	}
	return alloclab_results_read_timeline(jr, obj, where, K_FAILED_MEMORY, &e->failed_memory);
}

static void apply_entry(struct entry *e)
{
	if (e->has_process) {
		alloclab_cell_add_process(e->cell, &e->process);
		e->has_process = 0;
	}
	if (e->failed_memory) {
		alloclab_memory_timeline_free(e->cell->failed_memory);
		e->cell->failed_memory = e->failed_memory;
		e->failed_memory = NULL;
	}
	alloclab_cell_set_status(e->cell, e->status, e->message);
}

/* One line: a cell's change, or a paired worker's ({"group": [...]}),
 * whose changes are applied all together or not at all. 0, or -1: the
 * fold ends here. */
static int fold_line(struct alloclab_results *r, const struct alloclab_results_reader *jr, const json_t *obj)
{
	const json_t *group = json_object_get(obj, K_GROUP);
	struct entry e[16];
	size_t n = group ? json_array_size(group) : 1;
	int rc = 0;

	if (group && (!json_is_array(group) || n < 2 || n > 16))
		return -1;
	for (size_t k = 0; k < n; k++)
		if (read_entry(r, jr, group ? json_array_get(group, k) : obj, &e[k]) != 0) {
			for (size_t i = 0; i <= k; i++)
				entry_clear(&e[i]);
			return -1;
		}
	for (size_t k = 0; k < n; k++) {
		apply_entry(&e[k]);
		entry_clear(&e[k]);
	}
	return rc;
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
		json_t *obj = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
		struct alloclab_results_reader jr = {path, rd->check, rd->err, rd->err_len, rd->version};
		int stop = obj == NULL || fold_line(r, &jr, obj) != 0;
		json_decref(obj);
		if (stop)
			break;
	}
	rd->err[0] = '\0';
	free(line);
	fclose(f);
	r->interrupted = 1; /* the run never wrote its final document */
}
