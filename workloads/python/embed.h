/*
 * Between the python workload (workloads/python.c, in every alloclab) and
 * the embedded interpreter (embed.c, built as alloclab-python.so against
 * Debian's libpython3.11 and opened only in the workers that run Python, so
 * no other measurement has libpython mapped). Internal: both sides are built
 * together, and the version guards against a stale module.
 */
#ifndef ALLOCLAB_PYTHON_EMBED_H
#define ALLOCLAB_PYTHON_EMBED_H

#include "workload/workload.h"

#define ALLOCLAB_PYTHON_EMBED_VERSION 2

enum alloclab_python_kind {
	ALLOCLAB_PY_BUNDLED, /* one of workloads/python/bench/NAME.py */
	ALLOCLAB_PY_SCRIPT,  /* a user's file defining bench(loops) */
	ALLOCLAB_PY_PYPERF,  /* a benchmark file written for pyperf */
	ALLOCLAB_PY_STARTUP, /* interpreter initialisation and finalisation */
};

/* One cell's Python, the same in every thread. Strings live as long as the
 * worker. */
struct alloclab_python_config {
	enum alloclab_python_kind kind;
	const char *file;        /* the benchmark's file (not STARTUP) */
	const char *lib_dir;     /* the harness and the pyperf-compatible module */
	const char *program;     /* Debian's interpreter: where its stdlib is found */
	int hook;                /* 0: the cpython plugin, CPython's own obmalloc untouched */
	int hook_raw;            /* the raw domain to the plugin too */
	int debug_hooks;         /* PyMem_SetupDebugHooks around the allocator */
	int profile;             /* the untimed allocation-profile pass */
	int census;              /* count what the interpreter holds in the warm-ups */
	uint64_t loops;          /* 0: calibrate to value_ms */
	uint64_t value_ms;
	double scale;            /* the benchmark's size, 1.0 as written */
	uint64_t hash_seed;      /* 0: random per process, as CPython's; else PYTHONHASHSEED */
	/* PYPERF: the file's own command line ("" none; split at spaces), the
	 * benchmark it registers that is measured (from 1), and the name it
	 * was planned under ("" unchecked). */
	const char *args;
	uint64_t task;
	const char *name;
	/* PYPERF: the environment a bench_command's program runs in, with the
	 * plugin as its malloc ("NAME=value"; NULL entries skipped). */
	const char *command_env[4];
};

struct alloclab_python_embed {
	unsigned version; /* ALLOCLAB_PYTHON_EMBED_VERSION */
	/* The workload's prepare/run/finish (workload.h), with the cell's
	 * config; prepare's first call in a process starts the interpreter. */
	int (*prepare)(struct alloclab_workload_thread *t, const struct alloclab_python_config *cfg, char *err,
		       size_t err_len);
	void (*run)(struct alloclab_workload_thread *t);
	void (*finish)(struct alloclab_workload_thread *t);
};

/* The module's one exported symbol. */
const struct alloclab_python_embed *alloclab_python_embed(void);

#endif
