/*
 * The results room's own: what its files (model, facts, writer, reader,
 * read_fields, read_process, journal) share and nothing outside it uses.
 * The reader checks every field of a file from outside and says what is
 * wrong in one line naming the file, the field and the problem.
 */
#ifndef ALLOCLAB_RESULTS_INTERNAL_H
#define ALLOCLAB_RESULTS_INTERNAL_H

#include "results/results.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct alloclab_results_reader {
	const char *name;          /* the file, in messages */
	alloclab_report_checker check;
	char *err;
	size_t err_len;
	int version;               /* the file's format_version, once read */
};

/* One line "FILE: WHERE.FIELD: WHAT" in rd->err; returns -1. */
int alloclab_results_bad(const struct alloclab_results_reader *rd, const char *where, const char *field,
			 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* "an object", "a string", ... for messages. */
const char *alloclab_json_type_name(const json_t *v);

/* Optional and required fields of an object, checked (see read_fields.c):
 * 0, or -1 with the one line. */
int alloclab_results_get_number(const struct alloclab_results_reader *rd, const json_t *obj, const char *where,
				const char *key, double min, double max, double *out);
int alloclab_results_get_string(const struct alloclab_results_reader *rd, const json_t *obj, const char *where,
				const char *key, int required, char **out);
int alloclab_results_get_uint(const struct alloclab_results_reader *rd, const json_t *obj, const char *where,
			      const char *key, int required, uint64_t min, uint64_t max, uint64_t *out);
int alloclab_results_get_bool(const struct alloclab_results_reader *rd, const json_t *obj, const char *where,
			      const char *key, int *out);
int alloclab_results_get_array(const struct alloclab_results_reader *rd, const json_t *obj, const char *where,
			       const char *key, int required, size_t max, json_t **out);

/* A cell's status as written, and back (0, or -1 for no status). */
const char *alloclab_results_status_name(enum alloclab_cell_status s);
int alloclab_results_parse_status(const char *s, enum alloclab_cell_status *out);

/* The typed facts of metadata and config, and metadata.shard once the
 * cells are read (facts.c). */
int alloclab_results_read_facts(const struct alloclab_results_reader *rd, struct alloclab_results *r);
int alloclab_results_read_shard(const struct alloclab_results_reader *rd, struct alloclab_results *r);

/* A process object of a cell of `threads` threads (read_process.c). */
int alloclab_results_read_process(const struct alloclab_results_reader *rd, const json_t *obj, const char *where,
				  const char *workload, unsigned threads, const char *metric,
				  struct alloclab_process *p);

/*
 * A memory timeline's JSON form (a process's "memory", a failed cell's
 * "failed_memory"):
 *   {"requested_ms": R, "interval_ms": I, "phases": ["load", ...],
 *    "samples": [[t_ms, rss_kib, anon_kib, huge_kib, phase, live_kib], ...]}
 * written by writer.c, read by read_process.c into the model (checked
 * field by field, then against the model's invariants).
 */
json_t *alloclab_results_timeline_json(const struct alloclab_memory_timeline *t);
int alloclab_results_read_timeline(const struct alloclab_results_reader *rd, const json_t *obj, const char *where,
				   const char *field, struct alloclab_memory_timeline **out);

/* Applies PATH.journal's lines to an incomplete document (run_journal.c). */
void alloclab_results_fold_journal(struct alloclab_results *r, const struct alloclab_results_reader *rd);

#endif
