/*
 * The python workload's worker inside Debian's python3.11 executable:
 * alloclab-pyhost.so, everything a worker runs (the framework, the
 * workloads, the embedded interpreter's side) as one library that the
 * runner preloads into /usr/bin/python3.11, and that takes its main over.
 *
 * Why: Debian builds the python3.11 executable apart from
 * libpython3.11.so, and the executable is the faster build (9 to 34% on
 * the bundled benchmarks, docs/guides/python.md). Embedding the shared library
 * measured every plugin on the slower interpreter; inside the executable
 * alloclab runs the interpreter pyperf runs.
 *
 * How: the executable's start calls __libc_start_main, which this library
 * defines in front of glibc's; when the runner asked for it (ALLOCLAB_PYHOST
 * in the environment naming this very executable) it hands glibc the
 * worker's main instead of
 * Python's, so CPython starts only when the worker starts it, with the
 * plugin hooked first, exactly as when it is embedded. The Py* functions
 * are the executable's own (it exports them, for extension modules).
 * Anything else the library is preloaded into runs as it would: the
 * variables are removed before the worker starts, so a program the
 * benchmark runs sees the environment the runner had.
 */
#define _GNU_SOURCE 1
#include "registry.h"
#include "worker/worker.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);

static int worker_main(int argc, char **argv, char **envp)
{
	(void)envp;
	/* argv: the executable, then the cell spec (the python workload's
	 * exec_worker). */
	return alloclab_worker_main(argc == 2 ? argv[1] : NULL, alloclab_workload_find);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
		      void (*rtld_fini)(void), void *stack_end);

__attribute__((visibility("default"))) int __libc_start_main(main_fn main, int argc, char **argv,
							    void (*init)(void), void (*fini)(void),
							    void (*rtld_fini)(void), void *stack_end)
{
	start_fn real;
	*(void **)&real = dlsym(RTLD_NEXT, "__libc_start_main");
	/* Only in the executable the runner named: whatever else the library
	 * finds itself preloaded into runs its own main. */
	const char *take = getenv("ALLOCLAB_PYHOST");
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	int ours = take && n > 0 && (exe[n] = '\0', strcmp(take, exe) == 0);

	if (ours) {
		/* What the runner had preloaded before, for the worker's own
		 * children. */
		const char *was = getenv("ALLOCLAB_PYHOST_PRELOAD_WAS");
		if (was && was[0])
			setenv("LD_PRELOAD", was, 1);
		else
			unsetenv("LD_PRELOAD");
		unsetenv("ALLOCLAB_PYHOST_PRELOAD_WAS");
		unsetenv("ALLOCLAB_PYHOST");
	}
	return real(ours ? worker_main : main, argc, argv, init, fini, rtld_fini, stack_end);
}
