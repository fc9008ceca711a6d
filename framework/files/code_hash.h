/*
 * What a plugin's file loads, by its contents: the SHA-256 of its
 * loadable segments (their bytes and where they go), which is what runs.
 * Two builds of one source in two folders, or of commits that change a
 * comment, differ as files (debugging information names the folder, and
 * the build ID is a hash of the whole file) yet load the same bytes: they
 * cannot differ in time or memory but by chance, so history run measures
 * the second as the first (docs/guides/plugin-history.md).
 *
 * What is hashed: every PT_LOAD program header's type, flags, address,
 * sizes and alignment, and its bytes from the file, with the descriptor
 * of a GNU build-ID note (NT_GNU_BUILD_ID) and the ELF header's fields
 * that place the section headers (e_shoff, e_shnum, e_shstrndx: the
 * loader never reads them) zeroed. Sections that are not loaded
 * (.debug_*, .symtab, .comment) are not hashed. The file is
 * untrusted: read through libelf, every range checked against its size.
 * A build-ID note is found by the section table, which is not hashed: a
 * note crafted to look like one hides what it holds (ab, which counts
 * instructions, sees counts that differ and does not trust the hash).
 */
#ifndef ALLOCLAB_CODE_HASH_H
#define ALLOCLAB_CODE_HASH_H

#include "files/file_hash.h"

#include <stddef.h>

/* The hash of what the ELF file at path loads, as 64 lower-case hex
 * digits. 0, or -1 with err ("PATH: why": not ELF, a segment beyond the
 * file's end, no loadable segment). */
int alloclab_plugin_code_sha256(const char *path, char hex[ALLOCLAB_SHA256_HEX], char *err, size_t err_len);

#endif
