/*
 * Misbehaves only in a measuring worker (`alloclab __worker`), never in
 * the probes before it, so that a paired run loads it beside another
 * plugin and finds out only there. One option, do=:
 *   exit   exit(0) in create;
 *   close  closes descriptors 3 to 20 at its 5000th malloc (a churn
 *          value's run, after its prepare's 4096);
 *   uaf    writes a byte into the block it freed 64 frees before, after
 *          freeing it: memory the C library may have handed to another
 *          plugin of a pair by then. Each block has a 32-byte header, so
 *          the write falls past what the C library keeps in a free block
 *          (with blocks of one size, which it never merges or splits).
 * Anything else (or nothing): a well-behaved allocator with the same
 * header, so that two of it compare like for like.
 */
#include "test_plugin_common.h"

#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

enum { WELL, EXIT, CLOSE, UAF };
static int what, in_worker = -1;
static atomic_ulong mallocs;
static unsigned char *freed[64];
static unsigned next_freed;

static int is_worker(void)
{
	if (in_worker < 0) {
		char buf[4096];
		FILE *f = fopen("/proc/self/cmdline", "r");
		size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
		if (f)
			fclose(f);
		in_worker = 0;
		buf[n] = '\0';
		for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
			if (strcmp(buf + i, "__worker") == 0)
				in_worker = 1;
		}
	}
	return in_worker;
}

static int iw_create(const char *options, void **instance, char *err, size_t err_len)
{
	what = strcmp(options, "do=exit") == 0 ? EXIT : strcmp(options, "do=close") == 0 ? CLOSE
		: strcmp(options, "do=uaf") == 0 ? UAF : WELL;
	if (what == WELL && options[0]) {
		snprintf(err, err_len, "in_worker: do=exit, do=close or do=uaf");
		return -EINVAL;
	}
	if (what == EXIT && is_worker())
		exit(0);
	*instance = NULL;
	return 0;
}

static void *iw_malloc(void *instance, size_t size)
{
	(void)instance;
	if (what == CLOSE && atomic_fetch_add(&mallocs, 1) + 1 == 5000 && is_worker())
		for (int fd = 3; fd <= 20; fd++)
			close(fd);
	unsigned char *b = malloc(size + 32);
	return b ? b + 32 : NULL;
}

static void iw_free(void *instance, void *block)
{
	(void)instance;
	if (block == NULL)
		return;
	free((unsigned char *)block - 32);
	if (what == UAF && is_worker()) {
		unsigned char *old = freed[next_freed];
		freed[next_freed] = block;
		next_freed = (next_freed + 1) % 64;
		if (old)
			old[0] = 0x5a;
	}
}

static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("in-worker"),
	.caps = ALLOCLAB_CAP_THREAD_SAFE | ALLOCLAB_CAP_OWN_STATE,
	.create = iw_create,
	.malloc = iw_malloc,
	.free = iw_free,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
