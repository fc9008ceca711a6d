/*
 * Opening a file that comes from outside (a word list, a cached check
 * outcome): only a regular file is read. The open itself never blocks, so
 * that a FIFO or a device given as a file is refused instead of waited on
 * forever.
 */
#ifndef ALLOCLAB_INPUT_FILE_H
#define ALLOCLAB_INPUT_FILE_H

#include <stddef.h>
#include <stdio.h>

/* The file open for reading, or NULL with why[0..len) saying what it is
 * ("not a regular file (a FIFO)", or strerror). */
FILE *alloclab_fopen_regular(const char *path, char *why, size_t len);

#endif
