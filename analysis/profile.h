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

#endif
