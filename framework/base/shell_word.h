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

/* s as one shell word for a person to read and paste (a command printed
 * on a terminal or in a feedback file): as alloclab_shell_word writes it
 * when it is plain text, else in bash's $'...' quotes, each byte of a
 * control character, a bidirectional control or what is not UTF-8 as
 * \xHH. The same word to bash, zsh and ksh, and nothing in it that a
 * terminal acts on. Scripts alloclab writes for /bin/sh use
 * alloclab_shell_word. */
void alloclab_shell_word_shown(FILE *out, const char *s);

/* 1 when s holds no newline, carriage return or other control character
 * but a tab: it can stand on one line of a script. */
int alloclab_shell_word_one_line(const char *s);

/* s as it may be shown on a terminal, into out (len bytes, cut there at
 * the end of a character); returns out. Every control character (C0, DEL
 * and C1: an escape sequence's ESC, a newline, an 8-bit CSI) and every
 * byte that is not UTF-8 as '?', and every bidirectional control as its
 * escape ("\u202e"), so that text from outside can neither move the
 * cursor, forge a line of alloclab's own, nor turn the rest of a line
 * around. The one function every command prints outside text through. */
char *alloclab_printable(const char *s, char *out, size_t len);
/* One line to stderr, made whole from fmt and then shown as
 * alloclab_printable shows it: every line that may hold text from
 * outside (a file name, a label, a plugin's or a reader's message, which
 * quote either) goes through here, so that no caller can forget a part
 * of it ("alloclab: %s", err). A line break in it shows as '?'. */
void alloclab_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same line to stdout: a command's own output that quotes outside
 * text (a file's name, a plugin's label or description). */
void alloclab_tell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Room for one text of a line as printed: a store's machine line (1200
 * bytes), a row's name, with escapes' room to grow. */
#define ALLOCLAB_PRINTED_LEN 2048

#endif
