/*
 * tbbmalloc: oneTBB's scalable allocator (Debian's libtbbmalloc2), through
 * scalable_malloc and friends.
 *
 * Like the tcmalloc plugin, it opens the library itself (RTLD_LOCAL) and
 * needs no development package. Aligned allocation is not offered: its
 * blocks must go back through scalable_aligned_free, and the ABI has one
 * free for every block.
 */
#define _GNU_SOURCE 1
#include <alloclab/plugin.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define LIBRARY "libtbbmalloc.so.2"

static void *(*malloc_fn)(size_t);
static void (*free_fn)(void *);
static void *(*calloc_fn)(size_t, size_t);
static void *(*realloc_fn)(void *, size_t);
static size_t (*msize_fn)(void *);

static int (*command_fn)(int cmd, void *param);

static int tbbmalloc_create(const char *options, void **instance, char *err, size_t err_len)
{
	static void *handle;
	static const struct {
		const char *name;
		void **slot;
	} entries[] = {
		{"scalable_malloc", (void **)&malloc_fn},   {"scalable_free", (void **)&free_fn},
		{"scalable_calloc", (void **)&calloc_fn},   {"scalable_realloc", (void **)&realloc_fn},
		{"scalable_msize", (void **)&msize_fn},
	};

	if (options[0] != '\0') {
		snprintf(err, err_len, "takes no options (got '%s')", options);
		return -EINVAL;
	}
	if (handle == NULL && (handle = dlopen(LIBRARY, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		snprintf(err, err_len, "cannot load %s: %s (Debian package libtbbmalloc2)", LIBRARY, dlerror());
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
		if ((*entries[i].slot = dlsym(handle, entries[i].name)) == NULL) {
			snprintf(err, err_len, "%s has no %s", LIBRARY, entries[i].name);
			return -ENOENT;
		}
	void *command = dlsym(handle, "scalable_allocation_command");
	memcpy(&command_fn, &command, sizeof command);
	*instance = NULL;
	return 0;
}

/* scalable_allocation_command(TBBMALLOC_CLEAN_ALL_BUFFERS, NULL): the
 * caches of every thread and the backend's free memory returned. */
static int tbbmalloc_trim(void *instance)
{
	(void)instance;
	return command_fn && command_fn(0, NULL) == 0 ? 0 : -ENOTSUP;
}

static void tbbmalloc_destroy(void *instance) { (void)instance; }

static void *tbbmalloc_malloc(void *instance, size_t size)
{
	(void)instance;
	return malloc_fn(size);
}

static void tbbmalloc_free(void *instance, void *block)
{
	(void)instance;
	free_fn(block);
}

static void *tbbmalloc_calloc(void *instance, size_t nmemb, size_t size)
{
	(void)instance;
	return calloc_fn(nmemb, size);
}

static void *tbbmalloc_realloc(void *instance, void *block, size_t size)
{
	(void)instance;
	return realloc_fn(block, size);
}

static size_t tbbmalloc_usable_size(void *instance, void *block)
{
	(void)instance;
	return msize_fn(block);
}

/* malloc and free only pass requests on: a workload may call the
 * allocator's own entry points, as a program does. */
static int tbbmalloc_entry_points(void *instance, void *(**malloc_out)(size_t), void (**free_out)(void *))
{
	(void)instance;
	*malloc_out = malloc_fn;
	*free_out = free_fn;
	return 0;
}

/* The scalable_* API (its aligned call takes size first: not offered, so
 * the host's aligned path serves those). */
static int tbbmalloc_program_api(void *instance, struct alloclab_program_api *api)
{
	(void)instance;
	api->malloc = malloc_fn;
	api->free = free_fn;
	api->calloc = calloc_fn;
	api->realloc = realloc_fn;
	api->usable_size = msize_fn;
	return 0;
}

static const struct alloclab_plugin tbbmalloc_plugin = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "tbbmalloc",
	.version = "oneTBB scalable allocator (libtbbmalloc.so.2)",
	.description = "oneTBB's scalable allocator (libtbbmalloc2) through scalable_malloc/scalable_free",
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_USABLE_SIZE |
		ALLOCLAB_CAP_CALLOC | ALLOCLAB_CAP_REALLOC,
	/* Requests of 8 bytes or less get 8-byte alignment (measured by
	 * alloclab check): its honest minimum. */
	.min_align = 8,
	.create = tbbmalloc_create,
	.destroy = tbbmalloc_destroy,
	.malloc = tbbmalloc_malloc,
	.free = tbbmalloc_free,
	.calloc = tbbmalloc_calloc,
	.realloc = tbbmalloc_realloc,
	.usable_size = tbbmalloc_usable_size,
	.entry_points = tbbmalloc_entry_points,
	.program_api = tbbmalloc_program_api,
	.trim = tbbmalloc_trim,
};

ALLOCLAB_PLUGIN_DEFINE(tbbmalloc_plugin)
