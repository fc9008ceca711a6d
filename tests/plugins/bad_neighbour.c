/* Not thread-safe, and every malloc writes 8 bytes just past the block it
 * returns, over the start of its neighbour in the arena (an off-by-one
 * in its size arithmetic): fails "guards" only. The contents case never
 * puts a fresh block right before a live one, so it cannot see this. */
#include <alloclab/plugin.h>

#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA (256u << 20)
#define CLASSES 256 /* 16-byte classes up to 4096 */

struct nb {
	unsigned char *base, *next;
	void *free_list[CLASSES + 1];
};

static int nb_create(const char *options, void **instance, char *err, size_t err_len)
{
	struct nb *n = calloc(1, sizeof *n);
	(void)options; (void)err; (void)err_len;
	n->base = mmap(NULL, ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (n->base == MAP_FAILED)
		return -ENOMEM;
	n->next = n->base + 16;
	*instance = n;
	return 0;
}

static void nb_destroy(void *instance)
{
	struct nb *n = instance;
	munmap(n->base, ARENA);
	free(n);
}

/* Each block is preceded by 16 bytes holding its class; a free block
 * keeps its free-list link at offset 8, out of the bug's way. */
static void *nb_malloc(void *instance, size_t size)
{
	struct nb *n = instance;
	size_t c = (size + 15) / 16, bytes = c * 16;
	unsigned char *p;

	if (size > CLASSES * 16) {
		/* Large: a mapping of its own, its length in the header. */
		size_t len = (size + 16 + 4095) & ~(size_t)4095;
		if (size > ((size_t)1 << 40))
			return NULL;
		unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		((size_t *)m)[0] = 0;
		((size_t *)m)[1] = len;
		return m + 16;
	}
	if (c == 0) {
		c = 1;
		bytes = 16;
	}
	if (n->free_list[c]) {
		p = n->free_list[c];
		n->free_list[c] = ((void **)p)[1];
	} else {
		if ((size_t)(n->next - n->base) + bytes + 16 > ARENA)
			return NULL;
		p = n->next + 16;
		n->next += bytes + 16;
	}
	((size_t *)p)[-2] = c; /* 1..CLASSES; 0 marks a large block */
	/* The bug: the next block starts bytes + 16 further on. */
	if (p + bytes + 16 + 8 <= n->base + ARENA)
		memset(p + bytes + 16, 0xee, 8);
	return p;
}

static void nb_free(void *instance, void *block)
{
	struct nb *n = instance;
	if (block == NULL)
		return;
	size_t c = ((size_t *)block)[-2];
	if (c == 0) {
		munmap((unsigned char *)block - 16, ((size_t *)block)[-1]);
		return;
	}
	((void **)block)[1] = n->free_list[c];
	n->free_list[c] = block;
}

static const struct alloclab_plugin desc = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "bad-neighbour",
	.version = "0",
	.description = "test plugin",
	.caps = 0,
	.create = nb_create,
	.destroy = nb_destroy,
	.malloc = nb_malloc,
	.free = nb_free,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
