/*
 * A file's identity by its contents: SHA-256 (Debian's nettle), as the
 * history store names a plugin build and as anything may check that two
 * files are one build.
 */
#ifndef ALLOCLAB_FILE_HASH_H
#define ALLOCLAB_FILE_HASH_H

#include <stddef.h>

#define ALLOCLAB_SHA256_HEX 65 /* 64 hex digits and the NUL */

/* The SHA-256 of a regular file's contents as 64 lower-case hex digits
 * into hex. 0, or -1 with err ("PATH: why"). */
int alloclab_file_sha256(const char *path, char hex[ALLOCLAB_SHA256_HEX], char *err, size_t err_len);

/* The SHA-256 of n bytes, as 64 lower-case hex digits. */
void alloclab_sha256_hex(const void *data, size_t n, char hex[ALLOCLAB_SHA256_HEX]);

/* Whether text is 64 lower-case hex digits. */
int alloclab_sha256_hex_valid(const char *text);

#endif
