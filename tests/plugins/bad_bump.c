/* A bump allocator that never reuses what is freed: correct in every other
 * way (aligned, disjoint, contents kept), so only "footprint" fails. */
#include <alloclab/plugin.h>

#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/mman.h>

#define ARENA (1ull << 34) /* reserved, never all touched */

struct bump {
	unsigned char *base, *next;
};

static int bump_create(const char *options, void **instance, char *err, size_t err_len)
{
	struct bump *b = calloc(1, sizeof *b);
	(void)options; (void)err; (void)err_len;
	b->base = mmap(NULL, ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (b->base == MAP_FAILED)
		return -ENOMEM;
	b->next = b->base;
	*instance = b;
	return 0;
}

static void bump_destroy(void *instance)
{
	struct bump *b = instance;
	munmap(b->base, ARENA);
	free(b);
}

static void *bump_malloc(void *instance, size_t size)
{
	struct bump *b = instance;
	size_t bytes = (size + 15) & ~(size_t)15;
	if (size > ARENA / 4 || (size_t)(b->next - b->base) + bytes + 16 > ARENA)
		return NULL;
	unsigned char *p = b->next;
	b->next += bytes ? bytes : 16;
	return p;
}

static void bump_free(void *instance, void *block)
{
	(void)instance;
	(void)block;
}

static const struct alloclab_plugin desc = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "bad-bump",
	.version = "0",
	.description = "test plugin",
	.caps = 0,
	.create = bump_create,
	.destroy = bump_destroy,
	.malloc = bump_malloc,
	.free = bump_free,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
