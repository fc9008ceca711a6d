/*
 * Text as one word of a POSIX shell: what every command line alloclab
 * prints for a person to paste (the re-run of a missing shard) and every
 * script it writes (the Slurm batch scripts) goes through here, so that
 * no file name, option or argument from outside becomes shell code. One
 * quoter for the whole project.
 */
#ifndef ALLOCLAB_SHELL_WORD_H
#define ALLOCLAB_SHELL_WORD_H

#include <stddef.h>
#include <stdio.h>

/* Writes s as one shell word: as it is when it holds only characters
 * no shell treats specially, else in single quotes (a quote inside as
 * '\''). An empty s is ''. A newline stays inside the quotes, where the
 * shell keeps it as text; where a line break is not allowed at all (an
 * #SBATCH line) the caller refuses it (alloclab_shell_word_one_line). */
void alloclab_shell_word(FILE *out, const char *s);

/* 1 when s holds no newline, carriage return or other control character
 * but a tab: it can stand on one line of a script. */
int alloclab_shell_word_one_line(const char *s);

/* s as it may be shown on a terminal, into out (len bytes, cut there):
 * every control character (an escape sequence's ESC, a newline) as '?',
 * so that text from outside can neither move the cursor nor forge a line
 * of alloclab's own. */
void alloclab_printable(const char *s, char *out, size_t len);

#endif
