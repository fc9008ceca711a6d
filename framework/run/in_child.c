/* A run as a call, in a supervised child. See runner.h. */
#include "run/runner.h"
#include "process/child.h"
#include "base/lengths.h"

#include <stdio.h>
#include <string.h>

static int run_child(void *arg, int fd)
{
	const struct alloclab_run_config *cfg = arg;
	(void)fd;
	/* A pyperf file named by a workload is run while the plan is made:
	 * under the run's own deadline, as `alloclab run --timeout` sets it. */
	alloclab_set_plan_step_timeout(cfg->timeout_s);
	return alloclab_run(cfg);
}

/* The last line the child printed: a run's refusal is one line on stderr. */
static void last_line(const struct alloclab_child_result *res, char *out, size_t len)
{
	size_t n = strlen(res->printed);
	while (n > 0 && (res->printed[n - 1] == '\n' || res->printed[n - 1] == ' '))
		n--;
	size_t start = n;
	while (start > 0 && res->printed[start - 1] != '\n')
		start--;
	snprintf(out, len, "%.*s", (int)(n - start), res->printed + start);
}

int alloclab_run_in_child(const struct alloclab_run_config *cfg, double deadline_s, char *why, size_t why_len)
{
	struct alloclab_child_result res;
	char err[ALLOCLAB_ERR_LEN];

	why[0] = '\0';
	if (alloclab_child_run(run_child, (void *)cfg, deadline_s, &res, err, sizeof err) != 0) {
		snprintf(why, why_len, "cannot start the run: %s", err);
		return -1;
	}
	int rc = -1;
	if (res.interrupted)
		rc = ALLOCLAB_EXIT_INTERRUPTED;
	else if (res.exited && (res.exit_code == ALLOCLAB_EXIT_OK || res.exit_code == ALLOCLAB_EXIT_CELL_FAILED ||
				res.exit_code == ALLOCLAB_EXIT_USAGE || res.exit_code == ALLOCLAB_EXIT_INTERRUPTED))
		rc = res.exit_code;
	if (rc == ALLOCLAB_EXIT_USAGE || rc == ALLOCLAB_EXIT_INTERRUPTED || rc == ALLOCLAB_EXIT_CELL_FAILED)
		last_line(&res, why, why_len);
	else if (rc < 0) {
		char how[ALLOCLAB_ERR_LEN];
		alloclab_child_describe(&res, deadline_s, how, sizeof how);
		snprintf(why, why_len, "the run %s", how);
	}
	alloclab_child_result_free(&res);
	return rc;
}
