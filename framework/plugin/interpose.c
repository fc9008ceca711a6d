/*
 * Interposition. See interpose.h.
 */
#include "plugin/interpose.h"

#include <pthread.h>

static struct alloclab_plugin inner; /* the plugin's own ops, captured once */
static int captured;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static alloclab_call_observer observer;

static void seen(const struct alloclab_call *call)
{
	if (observer)
		observer(call);
}

static void *i_malloc(void *instance, size_t n)
{
	pthread_mutex_lock(&lock);
	void *p = inner.malloc(instance, n);
	if (p)
		seen(&(struct alloclab_call){.op = ALLOCLAB_CALL_MALLOC, .block = p, .size = n});
	pthread_mutex_unlock(&lock);
	return p;
}

static void *i_calloc(void *instance, size_t nmemb, size_t n)
{
	pthread_mutex_lock(&lock);
	void *p = inner.calloc(instance, nmemb, n);
	if (p)
		seen(&(struct alloclab_call){.op = ALLOCLAB_CALL_CALLOC, .block = p, .size = n, .arg = nmemb});
	pthread_mutex_unlock(&lock);
	return p;
}

static void *i_aligned_alloc(void *instance, size_t alignment, size_t n)
{
	pthread_mutex_lock(&lock);
	void *p = inner.aligned_alloc(instance, alignment, n);
	if (p)
		seen(&(struct alloclab_call){.op = ALLOCLAB_CALL_ALIGNED_ALLOC, .block = p, .size = n, .arg = alignment});
	pthread_mutex_unlock(&lock);
	return p;
}

static void *i_realloc(void *instance, void *p, size_t n)
{
	pthread_mutex_lock(&lock);
	void *q = inner.realloc(instance, p, n);
	if (q)
		seen(&(struct alloclab_call){.op = ALLOCLAB_CALL_REALLOC, .block = q, .old = p, .size = n});
	pthread_mutex_unlock(&lock);
	return q;
}

static void i_free(void *instance, void *p)
{
	pthread_mutex_lock(&lock);
	inner.free(instance, p);
	if (p)
		seen(&(struct alloclab_call){.op = ALLOCLAB_CALL_FREE, .block = p});
	pthread_mutex_unlock(&lock);
}

static void i_free_sized(void *instance, void *p, size_t n)
{
	pthread_mutex_lock(&lock);
	inner.free_sized(instance, p, n);
	if (p)
		seen(&(struct alloclab_call){.op = ALLOCLAB_CALL_FREE_SIZED, .block = p, .size = n});
	pthread_mutex_unlock(&lock);
}

static size_t i_usable_size(void *instance, void *p)
{
	pthread_mutex_lock(&lock);
	size_t n = inner.usable_size(instance, p);
	pthread_mutex_unlock(&lock);
	return n;
}

static int i_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	pthread_mutex_lock(&lock);
	int rc = inner.stats(instance, emit, arg);
	pthread_mutex_unlock(&lock);
	return rc;
}

static int i_thread_attach(void *instance)
{
	pthread_mutex_lock(&lock);
	int rc = inner.thread_attach(instance);
	pthread_mutex_unlock(&lock);
	return rc;
}

static void i_thread_detach(void *instance)
{
	pthread_mutex_lock(&lock);
	inner.thread_detach(instance);
	pthread_mutex_unlock(&lock);
}

/* Every allocation op and free: what both kinds of interposition wrap. */
static void wrap_allocation(struct alloclab_allocator *a)
{
	if (!captured) {
		inner = a->ops;
		captured = 1;
	}
	alloclab_allocator_no_shortcuts(a);
	a->ops.malloc = i_malloc;
	a->ops.calloc = i_calloc;
	a->ops.free = i_free;
	a->ops.free_sized = i_free_sized;
	if (inner.realloc)
		a->ops.realloc = i_realloc;
	if (inner.aligned_alloc)
		a->ops.aligned_alloc = i_aligned_alloc;
}

void alloclab_interpose_lock(struct alloclab_allocator *a)
{
	wrap_allocation(a);
	if (inner.usable_size)
		a->ops.usable_size = i_usable_size;
	if (inner.stats)
		a->ops.stats = i_stats;
	if (inner.thread_attach) {
		a->ops.thread_attach = i_thread_attach;
		a->ops.thread_detach = i_thread_detach;
	}
}

void alloclab_interpose_observe(struct alloclab_allocator *a, alloclab_call_observer fn)
{
	wrap_allocation(a);
	observer = fn;
}

void alloclab_interpose_acquire(void)
{
	pthread_mutex_lock(&lock);
}

void alloclab_interpose_release(void)
{
	pthread_mutex_unlock(&lock);
}

void alloclab_interpose_after_fork(void)
{
	pthread_mutex_init(&lock, NULL);
}

void alloclab_allocator_global_lock(struct alloclab_allocator *a)
{
	alloclab_interpose_lock(a);
	if (!(a->caps & ALLOCLAB_CAP_THREAD_SAFE))
		a->caps |= ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE;
}
