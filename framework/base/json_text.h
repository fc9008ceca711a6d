/*
 * Text from outside as JSON: a string whatever bytes it holds, so that
 * nothing from outside (a plugin's message, a file name) can make a
 * document unwritable.
 */
#ifndef ALLOCLAB_JSON_TEXT_H
#define ALLOCLAB_JSON_TEXT_H

#include <jansson.h>

/* A JSON string of s (NULL: ""): text that is not valid UTF-8 has each
 * byte past ASCII replaced by '?'. A new reference. */
json_t *alloclab_json_text(const char *s);

/* Writes obj as one line of compact JSON to fd, all of it, in one piece
 * where the descriptor takes it (a journal's row, an event a reader waits
 * for line by line). 0, or -1 with errno set. */
int alloclab_json_line(int fd, const json_t *obj);

/* The length of the UTF-8 character s starts with (1 to 4), or 0 when it
 * does not start one (a stray continuation byte, an overlong or cut
 * sequence, a surrogate, past U+10FFFF). */
size_t alloclab_utf8_char(const unsigned char *s);

/* Whether the character at s (of length n, alloclab_utf8_char) is a
 * control character: C0, DEL or C1 (a line break, an escape sequence's
 * ESC, its 8-bit CSI). */
int alloclab_control_char(const unsigned char *s, size_t n);

/* The code point of the character at s (of length n) when it is a
 * bidirectional control (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066
 * to U+2069), else 0. Such a character passes every check of UTF-8 and
 * of control characters, and reverses or reorders the text after it on a
 * terminal or a page: a label could make a line say the opposite of what
 * alloclab wrote. */
unsigned alloclab_bidi_control(const unsigned char *s, size_t n);

/* NULL when s is one line a terminal shows as it is (UTF-8, no control
 * character, no bidirectional control); else what it is not, in words
 * ("is not UTF-8", "holds a control character", "holds a bidirectional
 * control character (...)"). */
const char *alloclab_text_line_problem(const char *s);

/* Text from outside (a plugin's message) made such a line, in place:
 * every byte of what is not UTF-8, of every control character and of
 * every bidirectional control becomes '?' (in place there is no room for
 * alloclab_printable's "\u202e"; what matters is that none reaches a
 * terminal or a page to turn a line around). Returns s. */
char *alloclab_text_make_line(char *s);

#endif
