/*
 * Putting the shards of one plan (`alloclab run --shard K/N`) together into
 * one results file (`alloclab merge`).
 *
 * Shards are results files read by the one reader (an interrupted shard's
 * journal folded in). They must carry the same plan identity, shard count
 * and alloclab version, and lay out the same cells; each index may come
 * once. Every process keeps its round (process index) and gets the host,
 * CPU model and kernel of the shard that measured it, so that a merge
 * across machines says where each process ran. A cell is:
 *   - an error, or not applicable, when any shard found it so (the
 *     message names the shard);
 *   - ok when every shard is present and measured its part;
 *   - pending otherwise (shards missing or interrupted): a rerun of the
 *     missing shard and a new merge complete it.
 */
#ifndef ALLOCLAB_MERGE_H
#define ALLOCLAB_MERGE_H

#include "results/results.h"

struct alloclab_merge_report {
	unsigned count;          /* N, the plan's shards */
	unsigned *missing;       /* indices (from 1) of shards not given */
	unsigned nmissing;
	unsigned *incomplete;    /* indices of shards that did not measure all of their part */
	unsigned nincomplete;
	unsigned hosts;          /* distinct host names */
	int mixed_cpu_models, mixed_kernels;
};

/*
 * Merges shards[0..n) (read from files[0..n)). Returns the merged results
 * (its metadata the first shard's, without "shard", with "shards": one
 * entry per shard given, and "merged": what was found), with rep filled;
 * or NULL with one line in err naming the shard and the difference
 * (another plan, another alloclab, another count, a duplicate index,
 * other cells). Free rep with alloclab_merge_report_clear.
 */
struct alloclab_results *alloclab_merge(struct alloclab_results *const *shards, const char *const *files, unsigned n,
					struct alloclab_merge_report *rep, char *err, size_t err_len);

void alloclab_merge_report_clear(struct alloclab_merge_report *rep);



#endif
