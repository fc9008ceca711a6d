/*
 * A one-line progress display for long runs: on a terminal it rewrites one
 * line of stderr; when stderr is not a terminal (CI, pipes, files) it prints
 * nothing, so logs stay clean.
 */
#ifndef ALLOCLAB_PROGRESS_H
#define ALLOCLAB_PROGRESS_H

struct alloclab_progress {
	int enabled;
	unsigned done, total;
};

void alloclab_progress_start(struct alloclab_progress *p, unsigned total);
/* Shows "[done/total] label" with a percentage and the time left. */
void alloclab_progress_show(struct alloclab_progress *p, const char *label);
void alloclab_progress_step(struct alloclab_progress *p);
/* Clears the line so that normal output follows cleanly. */
void alloclab_progress_end(struct alloclab_progress *p);

#endif
