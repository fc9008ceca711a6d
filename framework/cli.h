/* The alloclab command's subcommands; each returns an exit status. */
#ifndef ALLOCLAB_CLI_H
#define ALLOCLAB_CLI_H

int alloclab_cmd_run(int argc, char **argv);
int alloclab_cmd_list(int argc, char **argv);
int alloclab_cmd_stats(int argc, char **argv);
int alloclab_cmd_show(int argc, char **argv);
int alloclab_cmd_compare(int argc, char **argv);
int alloclab_cmd_plot(int argc, char **argv);
int alloclab_cmd_check(int argc, char **argv);

/* Prints "alloclab: <message>" and a hint to stderr; returns 2. */
int alloclab_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
