/*
 * The fuzz target of what a plugin file loads, hashed (files/code_hash.h):
 * any bytes as a plugin's file, read as history run reads every commit's
 * build. Built as a libFuzzer target with clang (tests/meson.build, the
 * 'fuzz' setup) and, with any compiler, as a replay of the seed corpus (a
 * small shared object with a build ID) and of every crash found
 * (replay.c).
 */
#define _GNU_SOURCE 1
#include "files/code_hash.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1400], path[64], hex[ALLOCLAB_SHA256_HEX];
	int fd = memfd_create("fuzz.so", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	alloclab_plugin_code_sha256(path, hex, err, sizeof err);
	close(fd);
	return 0;
}
