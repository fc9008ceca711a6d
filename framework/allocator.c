/*
 * Creating an instance and the fallbacks for optional ops. The fallbacks
 * need the instance's malloc/free, so they find the allocator through a
 * per-process pointer: the ABI promises one instance per process.
 */
#include "allocator.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <string.h>

static const struct alloclab_allocator *current;

static void *fallback_calloc(void *instance, size_t nmemb, size_t size)
{
	void *block;
	(void)instance;
	if (size != 0 && nmemb > SIZE_MAX / size)
		return NULL;
	block = current->ops.malloc(current->instance, nmemb * size);
	if (block)
		memset(block, 0, nmemb * size);
	return block;
}

static void fallback_free_sized(void *instance, void *block, size_t size)
{
	(void)size;
	current->ops.free(instance, block);
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
		if (why[0] == '\0')
			snprintf(why, sizeof why, "%s", strerror(rc < 0 ? -rc : rc));
		snprintf(err, err_len, "plugin '%s' (%s): %s: %s", p->desc.name, p->path,
			 rc == -EINVAL ? "bad option" : "create() failed", why);
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
	current = a;
	return 0;
}

void alloclab_allocator_destroy(struct alloclab_allocator *a)
{
	a->ops.destroy(a->instance);
	if (current == a)
		current = NULL;
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
	a->direct_malloc = NULL, a->direct_free = NULL;
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

/* ---- the global lock wrapper ---- */

static struct alloclab_plugin unlocked; /* the plugin's own ops */
static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;

static void *locked_malloc(void *instance, size_t n)
{
	pthread_mutex_lock(&global_lock);
	void *p = unlocked.malloc(instance, n);
	pthread_mutex_unlock(&global_lock);
	return p;
}

static void locked_free(void *instance, void *p)
{
	pthread_mutex_lock(&global_lock);
	unlocked.free(instance, p);
	pthread_mutex_unlock(&global_lock);
}

static void locked_free_sized(void *instance, void *p, size_t n)
{
	pthread_mutex_lock(&global_lock);
	unlocked.free_sized(instance, p, n);
	pthread_mutex_unlock(&global_lock);
}

static void *locked_calloc(void *instance, size_t nmemb, size_t size)
{
	pthread_mutex_lock(&global_lock);
	void *p = unlocked.calloc(instance, nmemb, size);
	pthread_mutex_unlock(&global_lock);
	return p;
}

static void *locked_realloc(void *instance, void *p, size_t n)
{
	pthread_mutex_lock(&global_lock);
	void *q = unlocked.realloc(instance, p, n);
	pthread_mutex_unlock(&global_lock);
	return q;
}

static void *locked_aligned_alloc(void *instance, size_t alignment, size_t n)
{
	pthread_mutex_lock(&global_lock);
	void *p = unlocked.aligned_alloc(instance, alignment, n);
	pthread_mutex_unlock(&global_lock);
	return p;
}

static size_t locked_usable_size(void *instance, void *p)
{
	pthread_mutex_lock(&global_lock);
	size_t n = unlocked.usable_size(instance, p);
	pthread_mutex_unlock(&global_lock);
	return n;
}

static int locked_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	pthread_mutex_lock(&global_lock);
	int rc = unlocked.stats(instance, emit, arg);
	pthread_mutex_unlock(&global_lock);
	return rc;
}

static int locked_attach(void *instance)
{
	pthread_mutex_lock(&global_lock);
	int rc = unlocked.thread_attach(instance);
	pthread_mutex_unlock(&global_lock);
	return rc;
}

static void locked_detach(void *instance)
{
	pthread_mutex_lock(&global_lock);
	unlocked.thread_detach(instance);
	pthread_mutex_unlock(&global_lock);
}

void alloclab_allocator_global_lock(struct alloclab_allocator *a)
{
	unlocked = a->ops;
	a->direct_malloc = NULL, a->direct_free = NULL;
	a->ops.malloc = locked_malloc;
	a->ops.free = locked_free;
	a->ops.free_sized = locked_free_sized;
	a->ops.calloc = locked_calloc;
	if (unlocked.realloc)
		a->ops.realloc = locked_realloc;
	if (unlocked.aligned_alloc)
		a->ops.aligned_alloc = locked_aligned_alloc;
	if (unlocked.usable_size)
		a->ops.usable_size = locked_usable_size;
	if (unlocked.stats)
		a->ops.stats = locked_stats;
	if (unlocked.thread_attach) {
		a->ops.thread_attach = locked_attach;
		a->ops.thread_detach = locked_detach;
	}
	if (!(a->caps & ALLOCLAB_CAP_THREAD_SAFE))
		a->caps |= ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE;
}
