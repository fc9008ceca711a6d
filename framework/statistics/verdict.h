/*
 * What a comparison concludes of a difference, one word the statistics
 * give and every presentation words its own way (the run table's "1.7x
 * faster", compare's "1.02x slower (+2%)", ab's, the report pages').
 */
#ifndef ALLOCLAB_VERDICT_H
#define ALLOCLAB_VERDICT_H

/* How a ratio compares with 1. Invariant: LESS and MORE only when
 * significant, and then LESS iff ratio < 1. */
enum alloclab_verdict {
	ALLOCLAB_VERDICT_NONE,         /* the base itself, or nothing to compare with */
	ALLOCLAB_VERDICT_LESS,         /* faster, fewer, smaller */
	ALLOCLAB_VERDICT_MORE,         /* slower, more, larger */
	ALLOCLAB_VERDICT_NOT_RESOLVED, /* the difference is inside the noise */
	ALLOCLAB_VERDICT_CANNOT_TELL,  /* too few samples for the test ever to decide */
};

#endif
