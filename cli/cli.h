/*
 * The alloclab command: one file per subcommand (cmd_*.c), main.c to
 * dispatch, and common.c for what they share (usage errors, numbers,
 * loading results files). Every bad input ends in one line on stderr
 * naming what is wrong, and exit status 2.
 */
#ifndef ALLOCLAB_CLI_H
#define ALLOCLAB_CLI_H

#include "results/results.h"

int alloclab_cmd_run(int argc, char **argv);
int alloclab_cmd_list(int argc, char **argv);
int alloclab_cmd_stats(int argc, char **argv);
int alloclab_cmd_record(int argc, char **argv);
int alloclab_cmd_exec(int argc, char **argv);
int alloclab_cmd_show(int argc, char **argv);
int alloclab_cmd_compare(int argc, char **argv);
int alloclab_cmd_plot(int argc, char **argv);
int alloclab_cmd_report(int argc, char **argv);
int alloclab_cmd_check(int argc, char **argv);
int alloclab_cmd_merge(int argc, char **argv);
int alloclab_cmd_export(int argc, char **argv);
int alloclab_cmd_slurm(int argc, char **argv);
int alloclab_cmd_new(int argc, char **argv);
int alloclab_cmd_explain(int argc, char **argv);
int alloclab_cmd_heapmap(int argc, char **argv);
int alloclab_cmd_grade(int argc, char **argv);
int alloclab_cmd_ab(int argc, char **argv);
int alloclab_cmd_history(int argc, char **argv);
/* `history run` and `history bisect` (cmd_history_run.c). */
int alloclab_cmd_history_run(int argc, char **argv);
int alloclab_cmd_history_bisect(int argc, char **argv);
/* What the grader runs inside a submission's sandbox. */
int alloclab_cmd_grade_inside(int argc, char **argv);
/* `alloclab __worker SPEC`: the runner's freshly executed worker. */
int alloclab_cmd_worker(int argc, char **argv);

/* Prints "alloclab: <message> (see 'alloclab COMMAND --help')" to stderr;
 * returns 2. */
int alloclab_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A whole number option in [min, max]: 0, or the usage error's status. */
int alloclab_parse_whole(const char *command, const char *what, const char *text, uint64_t min, uint64_t max,
			 uint64_t *out);
int alloclab_parse_count(const char *command, const char *what, const char *text, unsigned long min,
			 unsigned long max, unsigned *out);

/* --timeout SECONDS: a finite number in (0, max]. */
int alloclab_parse_timeout(const char *command, const char *text, double max, double *out);

/* The command as it was typed, its first word "alloclab": kept by main,
 * recorded as the command of the results files a command makes through
 * the runner (ab, history). */
void alloclab_command_keep(int argc, char **argv);
void alloclab_command_words(int *argc, char ***argv);

/* --threads LIST: "1,2,4", each in 1..ALLOCLAB_MAX_THREADS, none twice,
 * at most max, into out[0 .. *n). 0, or the usage error's status. */
int alloclab_parse_thread_list(const char *command, const char *text, unsigned *out, unsigned max, unsigned *n);

/* --memory-limit SIZE|none (process_tree.h): sets it; 0, or the usage
 * error's status. */
int alloclab_parse_memory_limit(const char *command, const char *text);
#define ALLOCLAB_MEMORY_LIMIT_HELP                                                                                  \
	"      --memory-limit SIZE|none      kill a worker (with what it started) whose resident memory passes\n"      \
	"                                    SIZE (K, M, G, T); default three quarters of the memory available\n"

/* Loads a results file with every check, the workloads' reports included;
 * NULL after printing the one-line error. */
struct alloclab_results *alloclab_cli_load(const char *path);

#endif
