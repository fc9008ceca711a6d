/*
 * noop: an allocator that does no allocating. Every malloc returns the same
 * static buffer and free does nothing, so a workload run against it costs
 * only the harness: the random numbers, the slot bookkeeping, the writes that
 * touch each block and the indirect calls. That is the figure to subtract
 * (or compare against) when reading another plugin's ns per operation.
 *
 * Each thread gets its own buffer (at thread_attach): one buffer shared by
 * all threads would put every thread's writes on the same cache lines and
 * measure false sharing instead of the harness.
 *
 * It is not a real allocator: blocks alias one another, so it only suits
 * workloads that write to blocks without checking them (not `alloclab
 * check`). It is not in the default suite.
 */
#include <alloclab/plugin.h>
#include <alloclab/plugin_options.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* Large enough for every size the bundled workloads request by default;
 * bigger requests get NULL, as an exhausted allocator would. */
#define NOOP_BUFFER_SIZE (1u << 20)

/* The main thread's buffer (used before any attach), and each attached
 * thread's. initial-exec TLS: one %fs-relative load, no __tls_get_addr call
 * on the path being measured (alloclab reserves static TLS for plugins). */
static _Alignas(64) unsigned char noop_main_buffer[NOOP_BUFFER_SIZE];
static __thread unsigned char *noop_buffer __attribute__((tls_model("initial-exec")));

static int noop_create(const char *options, void **instance, char *err, size_t err_len)
{
	if (options[0] != '\0') {
		snprintf(err, err_len, "takes no options (got '%s')", options);
		return -EINVAL;
	}
	*instance = NULL;
	return 0;
}

static void noop_destroy(void *instance) { (void)instance; }

static void *noop_malloc(void *instance, size_t size)
{
	(void)instance;
	if (size > NOOP_BUFFER_SIZE)
		return NULL;
	return noop_buffer ? noop_buffer : noop_main_buffer;
}

static void noop_free(void *instance, void *block)
{
	(void)instance;
	(void)block;
}

static int noop_thread_attach(void *instance)
{
	(void)instance;
	noop_buffer = aligned_alloc(64, NOOP_BUFFER_SIZE);
	return noop_buffer ? 0 : -ENOMEM;
}

static void noop_thread_detach(void *instance)
{
	(void)instance;
	free(noop_buffer);
	noop_buffer = NULL;
}

static const struct alloclab_plugin noop_plugin = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "noop",
	.version = "1.0",
	.description = "returns one static buffer for every request: measures the harness's own cost",
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_THREAD_HOOKS,
	.min_align = 64,
	.create = noop_create,
	.destroy = noop_destroy,
	.malloc = noop_malloc,
	.free = noop_free,
	.thread_attach = noop_thread_attach,
	.thread_detach = noop_thread_detach,
};

ALLOCLAB_PLUGIN_DEFINE(noop_plugin)
