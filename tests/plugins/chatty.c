/* Prints on stdout when created and on stderr at its first malloc, and
 * otherwise works: its chatter must never reach alloclab's own output
 * (check --json stays JSON, the run table stays a table), but is kept and
 * flagged. */
#include "test_plugin_common.h"
#include <stdatomic.h>
static atomic_int said;
static int chatty_create(const char *options, void **instance, char *err, size_t err_len)
{
	(void)options; (void)err; (void)err_len;
	printf("hello from chatty\n");
	fflush(stdout);
	*instance = NULL;
	return 0;
}
static void *chatty_malloc(void *instance, size_t size)
{
	(void)instance;
	if (atomic_exchange(&said, 1) == 0)
		fprintf(stderr, "chatty: first malloc\n");
	return malloc(size);
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("chatty"),
	.create = chatty_create,
	.malloc = chatty_malloc,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
