/*
 * Test helpers: run the alloclab command as a user would and capture what
 * it printed; locate the build's test plugins; make scratch folders.
 */
#ifndef ALLOCLAB_TEST_HELPERS_H
#define ALLOCLAB_TEST_HELPERS_H

#include <stddef.h>

struct cmd_result {
	int status;     /* exit status, or 128 + signal */
	char *out;      /* stdout, NUL-terminated */
	char *err;      /* stderr, NUL-terminated */
};

/* Runs the alloclab command with the given arguments (NULL-terminated) in
 * `cwd` (NULL: current folder). */
struct cmd_result run_alloclab(const char *cwd, const char *const *args);
/* The same with more of the environment ("NAME=value", NULL-terminated).
 * Every test starts without the variables that set an allocator
 * (MALLOC_PERTURB_, which meson sets at random, among them). */
struct cmd_result run_alloclab_env(const char *cwd, const char *const *args, const char *const *env);
void cmd_result_free(struct cmd_result *r);

/* Lines in text (a last line without '\n' counts). */
int count_lines(const char *text);

/* Path of a test plugin in build/tests/plugins ("crash_nth" -> .../crash_nth.so),
 * in a static buffer per call slot (up to 8 live at once). */
const char *test_plugin(const char *name);
/* Skips the calling test unless valgrind can count alloclab here (it is
 * installed, and alloclab is not already under valgrind or a sanitizer). */
void skip_unless_valgrind_counts(void);

/* A fresh empty folder under /tmp; the path is malloc'd. It is removed,
 * with everything in it, when the test process exits. */
char *scratch_dir(void);

/* dir/name, malloc'd (freed at exit is fine: tests are short). */
char *path_in(const char *dir, const char *name);

/* Reads a whole file; NULL if missing. */
char *read_file(const char *path);
/* dir/name's text (the test fails when it is missing); the caller's to free. */
char *file_in(const char *dir, const char *name);

struct alloclab_results;
struct alloclab_cell;

/* Loads dir/name through the results reader (workload reports checked);
 * fails the test with the reader's message if it does not load. */
struct alloclab_results *load_results(const char *dir, const char *name);

/* The cell of that plugin label and thread count (first one), or NULL. */
const struct alloclab_cell *cell_of(const struct alloclab_results *r, const char *plugin, unsigned threads);

/* Adds to cell a process of round `index` holding one value of `threads`
 * threads, 100 operations each, at per_op, its peak RSS 1000 KiB (a
 * results file made by hand, through the model's builders). */
void add_one_value_process(struct alloclab_cell *cell, unsigned index, unsigned threads, double per_op);

/* Files under dir, its subfolders' included (0 when it is missing). */
int count_files(const char *dir);

/* The command is refused as bad input should be: exit status 2, one line on
 * stderr holding `text`, and no dir/refused.json written. */
void assert_run_refused(const char *dir, const char *const *args, const char *text);

/* Whether process pid exists and is not a zombie. */
int alive(long pid);

/* Runs a shell command (paths in tests are scratch folders: no quoting
 * needed); fails the test when it fails. */
void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A git repository of the history fixture (tests/fixtures/history/plugin.c)
 * at repo: six commits, the third adding instructions, the fourth not
 * building, the fifth building again; and the command each commit builds
 * with (history run's --build: the C compiler and the SDK's headers). */
void make_history_repo(const char *repo);
void history_build_command(char *out, size_t len);

#endif
