/* Terminal progress line. See progress.h. */
#include "run/progress.h"
#include "base/clock.h"

#include <stdio.h>
#include <unistd.h>

static double started;

void alloclab_progress_start(struct alloclab_progress *p, unsigned total)
{
	p->enabled = isatty(STDERR_FILENO);
	p->done = 0;
	p->total = total;
	started = alloclab_now_s();
}

void alloclab_progress_show(struct alloclab_progress *p, const char *label)
{
	char eta[32] = "";

	if (!p->enabled)
		return;
	if (p->done > 0) {
		double left = (alloclab_now_s() - started) / p->done * (p->total - p->done);
		snprintf(eta, sizeof eta, ", ~%.0f s left", left);
	}
	fprintf(stderr, "\r\033[K[%u/%u %3.0f%%%s] %s", p->done, p->total,
		p->total ? 100.0 * p->done / p->total : 100.0, eta, label);
	fflush(stderr);
}

void alloclab_progress_step(struct alloclab_progress *p) { p->done++; }

void alloclab_progress_end(struct alloclab_progress *p)
{
	if (p->enabled) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
}
