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

#endif
