/*
 * The host's handle on one created plugin instance, as workloads see it.
 * Workloads call the inline helpers below; optional ops that the plugin
 * lacks are filled in with the documented fallbacks (allocator.c) so a
 * workload never tests for NULL on its hot path.
 */
#ifndef ALLOCLAB_ALLOCATOR_H
#define ALLOCLAB_ALLOCATOR_H

#include "plugin/loader.h"

struct alloclab_allocator {
	/* Copied from the loaded plugin; calloc and free_sized are never NULL
	 * here (fallbacks), realloc/aligned_alloc/usable_size may be, and then
	 * the workloads that need them are not applicable. */
	struct alloclab_plugin ops;
	void *instance;
	size_t min_align; /* desc.min_align, or the ABI default */
	/* ops.caps narrowed by instance_caps(): what this instance, with its
	 * options, can do. Invariant: a subset of the descriptor's caps. */
	uint64_t caps;
	/* The allocator's own malloc and free from the plugin's entry_points
	 * op, or both NULL: absent, refused, or a wrapper in between. When set
	 * they are interchangeable with ops.malloc and ops.free. Invariant:
	 * every wrapper (global_lock, cache_align, and any added later, such
	 * as a recorder) clears them, since calls through them bypass it. */
	void *(*direct_malloc)(size_t size);
	void (*direct_free)(void *block);
	/* The allocator's whole C API from the plugin's program_api op
	 * (program.malloc NULL: none), each function interchangeable with the
	 * op of its name, working on threads never attached. The same
	 * invariant: every wrapper clears it. Fields for ops the instance
	 * dropped (instance_caps) are NULL. */
	struct alloclab_program_api program;
};

/* Forgets the entry points and the program API: a wrapper now stands
 * between the host and the allocator (every wrapper calls it). */
void alloclab_allocator_no_shortcuts(struct alloclab_allocator *a);

/* Calls create(). On failure returns -1 with err saying why, prefixed
 * "bad option" when the plugin returned -EINVAL. */
int alloclab_allocator_create(struct alloclab_allocator *a, const struct alloclab_loaded_plugin *p,
			      const char *options, char *err, size_t err_len);
void alloclab_allocator_destroy(struct alloclab_allocator *a);

/*
 * Wraps the instance so that every block starts on a cache line of `line`
 * bytes, whatever the plugin does: malloc(n) asks the plugin for
 * n + line - 1 + 16 bytes and returns the first line boundary at least 16
 * bytes in; the 16 bytes below it keep the plugin's pointer and n (for free,
 * realloc and usable_size). So it costs up to line + 15 bytes per block and a
 * few instructions per call, and is part of what an aligned measurement
 * measures. aligned_alloc is withdrawn (use the plugin unwrapped for it).
 * Call after create; `line` is a power of two >= 16.
 */
void alloclab_allocator_cache_align(struct alloclab_allocator *a, size_t line);


static inline void *alloclab_malloc(const struct alloclab_allocator *a, size_t size)
{
	return a->ops.malloc(a->instance, size);
}

static inline void alloclab_free(const struct alloclab_allocator *a, void *block)
{
	a->ops.free(a->instance, block);
}

static inline void *alloclab_calloc(const struct alloclab_allocator *a, size_t nmemb, size_t size)
{
	return a->ops.calloc(a->instance, nmemb, size);
}

static inline void alloclab_free_sized(const struct alloclab_allocator *a, void *block, size_t size)
{
	a->ops.free_sized(a->instance, block, size);
}

#endif
