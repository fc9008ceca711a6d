/*
 * counting: the example plugin for plugin authors, built out of tree:
 *
 *     cc -O2 -shared -fPIC $(pkg-config --cflags alloclab-plugin) counting.c -o counting.so
 *     alloclab run --plugin ./counting.so:fill=0xa5
 *
 * It wraps the C library's malloc and counts what passes through it, which
 * shows every part of the ABI a real allocator needs: options parsed and
 * refused in create(), required ops, an optional op with its capability
 * bit, thread-safety promises kept with atomics, and statistics.
 */
#include <alloclab/plugin.h>
#include <alloclab/plugin_options.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct counting {
	atomic_ullong mallocs, frees;
	int fill;         /* byte written over new blocks, or -1 for none */
};

static int counting_create(const char *options, void **instance, char *err, size_t err_len)
{
	const char *cursor = options;
	struct alloclab_option opt;
	struct counting *c;
	uint64_t fill = 256;
	int rc;

	while ((rc = alloclab_option_next(&cursor, &opt)) > 0) {
		if (!alloclab_option_is(&opt, "fill"))
			return alloclab_option_unknown(&opt, err, err_len);
		if (opt.value_len > 2 && opt.value[0] == '0' && opt.value[1] == 'x')
			fill = strtoull(opt.value, NULL, 16);
		else if (alloclab_option_u64(&opt, &fill) != 0)
			fill = 256;
		if (fill > 255)
			return alloclab_option_bad_value(&opt, "a byte, 0..255 or 0x00..0xff", err, err_len);
	}
	if (rc < 0)
		return alloclab_option_malformed(cursor, err, err_len);
	c = calloc(1, sizeof *c);
	if (c == NULL)
		return -ENOMEM;
	c->fill = fill <= 255 ? (int)fill : -1;
	*instance = c;
	return 0;
}

static void counting_destroy(void *instance) { free(instance); }

static void *counting_malloc(void *instance, size_t size)
{
	struct counting *c = instance;
	void *block = malloc(size);

	if (block) {
		atomic_fetch_add_explicit(&c->mallocs, 1, memory_order_relaxed);
		if (c->fill >= 0)
			memset(block, c->fill, size);
	}
	return block;
}

static void counting_free(void *instance, void *block)
{
	struct counting *c = instance;

	if (block)
		atomic_fetch_add_explicit(&c->frees, 1, memory_order_relaxed);
	free(block);
}

static int counting_stats(void *instance, alloclab_stat_fn emit, void *arg)
{
	struct counting *c = instance;

	emit(arg, "mallocs", atomic_load(&c->mallocs));
	emit(arg, "frees", atomic_load(&c->frees));
	return 0;
}

static const struct alloclab_plugin counting_plugin = {
	.abi_version = ALLOCLAB_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(struct alloclab_plugin),
	.name = "counting",
	.version = "1.0",
	.description = "example: glibc malloc with counters",
	.options_help = "fill=BYTE: write BYTE over every new block (default: no fill)",
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_CROSS_THREAD_FREE | ALLOCLAB_CAP_STATS,
	.min_align = 16,
	.create = counting_create,
	.destroy = counting_destroy,
	.malloc = counting_malloc,
	.free = counting_free,
	.stats = counting_stats,
};

ALLOCLAB_PLUGIN_DEFINE(counting_plugin)
