/*
 * Debian's libjemalloc.so.2 uses initial-exec TLS (about 2.6 KiB), more than
 * glibc reserves for libraries loaded later: dlopen of it, or of a plugin
 * linked to it, fails with "cannot allocate memory in static TLS block".
 * glibc only honours a larger reserve (glibc.rtld.optional_static_tls) when
 * it is in GLIBC_TUNABLES as the process starts, so the alloclab command
 * re-executes itself once with the tunable added. Users never meet the trap.
 */
#ifndef ALLOCLAB_STATIC_TLS_H
#define ALLOCLAB_STATIC_TLS_H

/* Bytes of optional static TLS requested; ample for jemalloc plus mimalloc
 * plus user plugins. */
#define ALLOCLAB_STATIC_TLS_BYTES 16384

/* Re-executes the program with the tunable set, unless it already is (or a
 * previous attempt failed: then it returns and the loader explains). */
void alloclab_ensure_static_tls(char **argv);

#endif
