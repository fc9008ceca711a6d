/*
 * A callgrind dump as instructions per function, each function's own (not
 * its callees'): what `alloclab explain` reads of each plugin's value. The
 * dump's format is read here and only here.
 */
#ifndef ALLOCLAB_PROFILE_H
#define ALLOCLAB_PROFILE_H

#include <stddef.h>
#include <stdint.h>

struct alloclab_profile_entry {
	char *function;   /* "name [object]" (the object's base name) */
	uint64_t ir;      /* instructions executed in it (its own, not its callees') */
};

struct alloclab_profile {
	struct alloclab_profile_entry *e;
	size_t n;
	uint64_t total;   /* the dump's total, which the entries sum to */
};

/* Reads a callgrind dump. 0, or -1 with one line in err. */
int alloclab_profile_read(const char *dump, struct alloclab_profile *out, char *err, size_t err_len);

/* Parses a dump's text. */
int alloclab_profile_parse(const char *text, struct alloclab_profile *out, char *err, size_t err_len);

void alloclab_profile_clear(struct alloclab_profile *p);

/* The instructions of `function` in p (0 when absent). */
uint64_t alloclab_profile_ir(const struct alloclab_profile *p, const char *function);

/* The highest numbered dump (cg.PID.N) in dir: a worker's last value's.
 * 0 with its path in out, or -1 when there is none. */
int alloclab_profile_last_dump(const char *dir, char *out, size_t len);

/* Names the functions of object `from` (a file's base name) as of object
 * `to`: two builds of one plugin, loaded from files of other names, then
 * name each function alike. */
void alloclab_profile_rename_object(struct alloclab_profile *p, const char *from, const char *to);

/* A function's instructions per op on each side. */
struct alloclab_function_change {
	const char *function; /* points into a profile */
	double a, b;
};

/* Every function of either profile, with its instructions per op on each
 * side (a's counts over a_ops, b's over b_ops; 0 where a side has none),
 * the largest differences first. *rows is malloc'd (the caller frees it;
 * its names live as long as the profiles). 0, or -1 out of memory. */
int alloclab_profile_diff(const struct alloclab_profile *a, double a_ops, const struct alloclab_profile *b, double b_ops,
			  struct alloclab_function_change **rows, size_t *nrows);

#endif
