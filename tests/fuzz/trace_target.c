/*
 * The fuzz target of the trace reader: any bytes as a trace file. What the
 * reader accepts is then validated and every thread's events decoded, as a
 * replay would. Built as a libFuzzer target with clang (tests/meson.build,
 * the 'fuzz' setup) and, with any compiler, as a replay of the seed corpus
 * and of every crash ever found (replay.c).
 */
#define _GNU_SOURCE 1
#include "trace/trace.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct alloclab_trace_event *events;
	char err[1024];
	struct alloclab_trace *t;
	int fd = memfd_create("fuzz.trace", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	if ((t = alloclab_trace_open_fd(fd, "fuzz.trace", err, sizeof err)) == NULL)
		return 0;
	if (events == NULL && (events = malloc(ALLOCLAB_TRACE_CHUNK_EVENTS * sizeof *events)) == NULL)
		abort();
	alloclab_trace_validate(t, NULL, err, sizeof err);
	for (unsigned i = 0; i < alloclab_trace_threads(t); i++) {
		struct alloclab_trace_cursor *c = alloclab_trace_cursor_new(t, i);
		size_t n;
		if (c == NULL)
			abort();
		while (alloclab_trace_next_chunk(c, events, &n, err, sizeof err) == 1)
			for (size_t k = 0; k < n; k++)
				if (events[k].op >= ALLOCLAB_TRACE_NOPS)
					abort(); /* the reader's invariant broken */
		alloclab_trace_cursor_free(c);
	}
	alloclab_trace_close(t);
	return 0;
}
