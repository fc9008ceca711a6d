/*
 * The options of `alloclab run`, in one table: `run` parses its command
 * line and prints its help from it, `slurm` refuses in a sweep's run
 * arguments the options each shard sets itself, and `merge` and `slurm
 * status` print the command that measures a shard again, without the
 * options the shard set for itself. Adding an option is one entry here
 * and its case in cmd_run.c.
 */
#ifndef ALLOCLAB_RUN_OPTIONS_H
#define ALLOCLAB_RUN_OPTIONS_H

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>

enum alloclab_run_option_flags {
	/* A shard of a sweep sets it itself: refused in the run arguments
	 * given to `alloclab slurm`, dropped from a shard's command line when
	 * it is printed again (with --shard and -o of its own). */
	ALLOCLAB_RUN_OPTION_SHARD_OWNS = 1u << 0,
};

struct alloclab_run_option {
	int key;               /* what getopt_long returns: the short letter, or a letter of its own */
	char short_name;       /* 'p' for -p, or 0 */
	const char *name;      /* "plugin" for --plugin */
	const char *value;     /* the value's name in the help ("NAME[:k=v,...]"), NULL: takes none */
	const char *label;     /* the help's left column when not "-p, --plugin VALUE" */
	const char *help;      /* lines, '\n' between; NULL: said with the entry before */
	unsigned flags;
};

/* The table, ended by an entry whose name is NULL. */
extern const struct alloclab_run_option alloclab_run_options[];

/* getopt_long's tables from it: longopts (room for every entry and the
 * end) and the short options ("+:" style, with ':' for values). */
void alloclab_run_options_getopt(struct option *longopts, char *shortopts, size_t shortopts_len);
#define ALLOCLAB_RUN_OPTIONS_MAX 64

/* The options part of `run --help`. */
void alloclab_run_options_help(FILE *out);

/* The option an argument word sets ("-o", "-oFILE", "--output",
 * "--output=FILE"), or NULL; *value_follows says whether its value is the
 * next word. */
const struct alloclab_run_option *alloclab_run_option_of(const char *word, int *value_follows);

/* Every run option a word sets, as getopt would take it: a long option
 * only by its whole name ("--dry" is no option here, although getopt
 * would take it for --dry-run), short ones bundled ("-qo FILE" sets -q and
 * -o). Up to max into out; *value_follows when the last takes its value
 * from the next word. The count, or -1 for a word that starts with "--"
 * and names no option whole (run refuses it: a check of the run's
 * options by name must not be got round by an abbreviation). */
int alloclab_run_options_in(const char *word, const struct alloclab_run_option **out, int max, int *value_follows);

/* Writes, as shell words, the command that measures shard k of n again:
 * `alloclab` (this executable), the run's recorded command (a results
 * file's metadata.command: alloclab, run, its arguments) without the
 * options a shard sets itself, then --shard k/n -o output. Whole, however
 * long. */
void alloclab_shard_command(FILE *out, const json_t *command, unsigned k, unsigned n, const char *output);

#endif
