/*
 * The results file: one JSON document per run, written atomically.
 *
 * Layout (format "alloclab-run", format_version 1):
 *   metadata   what is needed to reproduce: machine, kernel, libc, compiler,
 *              alloclab version, command line, date
 *   config     processes, values, warmups, timeout_s, pin
 *   plugins    [{spec, options, name, version, description, caps, path, ...}]
 *   cells      [{plugin, plugin_index, workload, params, threads, status,
 *                error | reason, metric, runs: [{process, peak_rss_kib,
 *                elapsed_s, warmups: [V], values: [V], stats}]}]
 *              V = {wall_ns, thread_ns: [], thread_ops: [], ns_per_op}
 *              status: "ok", "error", "not applicable", "pending"
 *   interrupted  true when the run was stopped before every cell finished
 */
#ifndef ALLOCLAB_RESULTS_H
#define ALLOCLAB_RESULTS_H

#include <jansson.h>
#include <stddef.h>

#define ALLOCLAB_RESULTS_FORMAT "alloclab-run"
#define ALLOCLAB_RESULTS_VERSION 1

/* Metadata of this machine and build; `argv` is recorded as the command. */
json_t *alloclab_metadata(int argc, char **argv);

/* Writes doc to path through a temporary file in the same folder and a
 * rename, so a reader never sees a half-written file. Creates the folder if
 * needed. 0, or -1 with err set. */
int alloclab_results_write(const json_t *doc, const char *path, char *err, size_t err_len);

/* Reads and checks a results file: valid JSON, the right format and
 * version, cells with the documented fields. NULL with err set otherwise. */
json_t *alloclab_results_load(const char *path, char *err, size_t err_len);

#endif
