/* Hands every thread the next 8 bytes of one line-aligned arena (an
 * atomic bump, nothing ever reused): two threads' objects side by side on
 * one cache line, the worst case for false sharing. line=1 gives every
 * block a 64-byte line of its own instead. For the placement tests. */
#include <alloclab/plugin.h>

#include <errno.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#define ARENA (64u << 20)
struct bump {
	unsigned char *base;
	atomic_size_t next;
	size_t step;
};
static int bs_create(const char *options, void **instance, char *err, size_t err_len)
{
	struct bump *b = calloc(1, sizeof *b);
	(void)err;
	(void)err_len;
	b->step = options && strcmp(options, "line=1") == 0 ? 64 : 8;
	b->base = mmap(NULL, ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (b->base == MAP_FAILED)
		return -ENOMEM;
	*instance = b;
	return 0;
}
static void bs_destroy(void *instance)
{
	struct bump *b = instance;
	munmap(b->base, ARENA);
	free(b);
}
static void *bs_malloc(void *instance, size_t size)
{
	struct bump *b = instance;
	size_t n = size <= b->step ? b->step : (size + 63) & ~(size_t)63;
	size_t at = atomic_fetch_add(&b->next, n);
	if (size > ARENA || at + n > ARENA)
		return NULL;
	return b->base + at;
}
static void bs_free(void *instance, void *block)
{
	(void)instance;
	(void)block;
}
static const struct alloclab_plugin desc = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "bump-shared",
	.version = "0",
	.description = "test plugin",
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE,
	.min_align = 8,
	.create = bs_create,
	.destroy = bs_destroy,
	.malloc = bs_malloc,
	.free = bs_free,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
