/* Closes its process's descriptors (the answer pipe and the output among
 * them) in create, then takes 16 MiB more every 10 ms, touched, up to
 * 1 GiB, and waits: with its pipes closed, its supervisor must still hold
 * it to the memory limit. */
#include "test_plugin_common.h"
#include <string.h>
#include <unistd.h>
/* Kept where the compiler must assume they are read: a block written and
 * never read may be left out altogether (clang does). */
static char *volatile held[64];

static int hog_create(const char *options, void **instance, char *err, size_t err_len)
{
	(void)options, (void)err, (void)err_len;
	for (int fd = 0; fd <= 20; fd++)
		close(fd);
	for (int i = 0; i < 64; i++) {
		char *p = malloc(16u << 20);
		if (p)
			memset(p, 1, 16u << 20);
		held[i] = p;
		usleep(10000);
	}
	for (;;)
		pause();
	*instance = NULL;
	return 0;
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("hog"),
	.create = hog_create,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
