/* Forks in create and lets both copies go on: a live twin of the worker
 * that runs the workload beside the measured process. The supervisor must
 * find it, kill it and refuse the measurement. */
#include "test_plugin_common.h"
#include <unistd.h>
static int twin_create(const char *options, void **instance, char *err, size_t err_len)
{
	(void)options; (void)err; (void)err_len;
	if (fork() == 0) {
		/* The twin: burns CPU beside the worker, then goes on as it. */
		for (volatile unsigned long i = 0; i < 400000000ul; i++)
			;
	}
	*instance = NULL;
	return 0;
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("fork_twin"),
	.create = twin_create,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
