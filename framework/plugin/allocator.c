/*
 * Creating an instance, the fallbacks for optional ops and the wrappers.
 * The fallbacks need the plugin's malloc and free, so they find them
 * through per-process pointers: the ABI promises one instance per process.
 */
#include "plugin/allocator.h"
#include "base/json_text.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The plugin's own malloc and free, for the fallbacks. Not the instance's
 * current ops: a wrapper calls a fallback with its lock held, and the
 * fallback must not go through the wrapper again. */
static void *(*plugin_malloc)(void *instance, size_t size);
static void (*plugin_free)(void *instance, void *block);

static void *fallback_calloc(void *instance, size_t nmemb, size_t size)
{
	void *block;
	if (size != 0 && nmemb > SIZE_MAX / size)
		return NULL;
	block = plugin_malloc(instance, nmemb * size);
	if (block)
		memset(block, 0, nmemb * size);
	return block;
}

static void fallback_free_sized(void *instance, void *block, size_t size)
{
	(void)size;
	plugin_free(instance, block);
}

int alloclab_allocator_create(struct alloclab_allocator *a, const struct alloclab_loaded_plugin *p,
			      const char *options, char *err, size_t err_len)
{
	char why[ALLOCLAB_ERR_LEN] = "";
	int rc;

	memset(a, 0, sizeof *a);
	a->ops = p->desc;
	a->min_align = p->desc.min_align ? p->desc.min_align : ALLOCLAB_DEFAULT_MIN_ALIGN;
	if (a->ops.calloc == NULL)
		a->ops.calloc = fallback_calloc;
	if (a->ops.free_sized == NULL)
		a->ops.free_sized = fallback_free_sized;
	rc = p->desc.create(options ? options : "", &a->instance, why, sizeof why);
	if (rc != 0) {
		/* The plugin's words, made one line a terminal shows as it is
		 * (they may be unterminated, not UTF-8, hold line breaks or an
		 * escape sequence). */
		why[sizeof why - 1] = '\0';
		if (why[0] == '\0')
			snprintf(why, sizeof why, "%s", strerror(rc < 0 ? -rc : rc));
		snprintf(err, err_len, "plugin '%s' (%s): %s: %s", p->desc.name, p->path,
			 rc == -EINVAL ? "bad option" : "create() failed", why);
		alloclab_text_make_line(err);
		return -1;
	}
	a->caps = p->desc.caps;
	if (p->desc.instance_caps) {
		a->caps &= p->desc.instance_caps(a->instance);
		/* An op whose capability the instance dropped is absent. */
		if (!(a->caps & ALLOCLAB_CAP_REALLOC))
			a->ops.realloc = NULL;
		if (!(a->caps & ALLOCLAB_CAP_ALIGNED_ALLOC))
			a->ops.aligned_alloc = NULL;
		if (!(a->caps & ALLOCLAB_CAP_USABLE_SIZE))
			a->ops.usable_size = NULL;
		if (!(a->caps & ALLOCLAB_CAP_STATS))
			a->ops.stats = NULL;
		if (!(a->caps & ALLOCLAB_CAP_THREAD_HOOKS))
			a->ops.thread_attach = NULL, a->ops.thread_detach = NULL;
	}
	if (p->desc.entry_points &&
	    (p->desc.entry_points(a->instance, &a->direct_malloc, &a->direct_free) != 0 || a->direct_malloc == NULL ||
	     a->direct_free == NULL))
		a->direct_malloc = NULL, a->direct_free = NULL;
	memset(&a->program, 0, sizeof a->program);
	a->program.size = sizeof a->program;
	if (p->desc.program_api == NULL || p->desc.program_api(a->instance, &a->program) != 0 ||
	    a->program.size != sizeof a->program || a->program.malloc == NULL || a->program.free == NULL) {
		memset(&a->program, 0, sizeof a->program);
	} else {
		if (!(a->caps & ALLOCLAB_CAP_REALLOC))
			a->program.realloc = NULL;
		if (!(a->caps & ALLOCLAB_CAP_ALIGNED_ALLOC))
			a->program.aligned_alloc = NULL;
		if (!(a->caps & ALLOCLAB_CAP_USABLE_SIZE))
			a->program.usable_size = NULL;
	}
	plugin_malloc = p->desc.malloc;
	plugin_free = p->desc.free;
	return 0;
}

void alloclab_allocator_no_shortcuts(struct alloclab_allocator *a)
{
	a->direct_malloc = NULL, a->direct_free = NULL;
	memset(&a->program, 0, sizeof a->program);
}

void alloclab_allocator_destroy(struct alloclab_allocator *a)
{
	a->ops.destroy(a->instance);
}

/* ---- the cache-line alignment wrapper ---- */

#define ALIGN_HEADER 16

static struct alloclab_plugin inner; /* the plugin's own ops */
static size_t align_line;

struct align_header {
	void *block; /* what the plugin returned */
	size_t size; /* what the caller asked for */
};

static inline struct align_header *header_of(void *p) { return (struct align_header *)p - 1; }

static void *aligned_malloc(void *instance, size_t n)
{
	uintptr_t raw, p;

	if (n > SIZE_MAX - align_line - ALIGN_HEADER)
		return NULL;
	raw = (uintptr_t)inner.malloc(instance, n + align_line - 1 + ALIGN_HEADER);
	if (raw == 0)
		return NULL;
	p = (raw + ALIGN_HEADER + align_line - 1) & ~(uintptr_t)(align_line - 1);
	header_of((void *)p)->block = (void *)raw;
	header_of((void *)p)->size = n;
	return (void *)p;
}

static void aligned_free(void *instance, void *p)
{
	if (p)
		inner.free(instance, header_of(p)->block);
}

static void aligned_free_sized(void *instance, void *p, size_t n)
{
	(void)n;
	aligned_free(instance, p);
}

static void *aligned_calloc(void *instance, size_t nmemb, size_t size)
{
	void *p;
	if (size != 0 && nmemb > SIZE_MAX / size)
		return NULL;
	p = aligned_malloc(instance, nmemb * size);
	if (p)
		memset(p, 0, nmemb * size);
	return p;
}

static void *aligned_realloc(void *instance, void *p, size_t n)
{
	void *q;
	if (p == NULL)
		return aligned_malloc(instance, n);
	q = aligned_malloc(instance, n);
	if (q == NULL)
		return NULL;
	memcpy(q, p, header_of(p)->size < n ? header_of(p)->size : n);
	aligned_free(instance, p);
	return q;
}

static size_t aligned_usable_size(void *instance, void *p)
{
	(void)instance;
	return header_of(p)->size;
}

void alloclab_allocator_cache_align(struct alloclab_allocator *a, size_t line)
{
	inner = a->ops;
	align_line = line;
	alloclab_allocator_no_shortcuts(a);
	a->ops.malloc = aligned_malloc;
	a->ops.free = aligned_free;
	a->ops.free_sized = aligned_free_sized;
	a->ops.calloc = aligned_calloc;
	a->ops.realloc = aligned_realloc;
	a->ops.usable_size = aligned_usable_size;
	a->ops.aligned_alloc = NULL;
	a->caps |= ALLOCLAB_CAP_REALLOC | ALLOCLAB_CAP_USABLE_SIZE;
	a->caps &= ~(uint64_t)ALLOCLAB_CAP_ALIGNED_ALLOC;
	a->min_align = line;
}
