/*
 * Pictures of the heap (`alloclab heapmap`): what the worker does for one,
 * and the one owner of its frames' format.
 *
 * In the worker, a wrapper around the instance's ops (installed only for a
 * heap map, last, like every wrapper it forgets the shortcuts) keeps a
 * table of the live blocks: address and requested size, for every block
 * handed out through the framework and not yet freed. Each call holds the
 * wrapper's one lock across the plugin's op and the table's update, so the
 * table is always the heap's true live set and, while a frame is taken
 * under the same lock, no op runs: a heap map serialises the allocator (it
 * is a picture, never a timing).
 *
 * A frame, taken at the end of each value (with the working sets live) and
 * every `every`-th call when asked, is the plugin's regions (the regions op:
 * arenas, pools, pages, spans, with size class and occupancy in the
 * plugin's own account), each live block placed in the innermost region
 * that holds it, and the plugin's standard statistics of the same moment.
 * Per innermost region it records the tracked blocks and bytes, and the
 * region cut into ALLOCLAB_HEAPMAP_BINS equal bins (for a 16 KiB pool, one
 * per 64-byte line) with the share of each bin's bytes that live blocks
 * cover; and the placement faults of live blocks: a block of at most a
 * cache line that spans two lines ("split line"), of at most a page that
 * spans two pages ("split page"), with the bins where such blocks start.
 *
 * The frames file is JSON lines, one frame an object per line, written
 * whole by one write each:
 *   {"format":"alloclab-heapmap","version":1,"frame":K,"value":V,"at_call":N|null,
 *    "line_size":64,"page_size":4096,"bins":256,
 *    "tracked":{"blocks","bytes","outside_blocks","outside_bytes","split_lines","split_pages"},
 *    "stats":{std.* names the plugin gave},
 *    "regions_total":R,
 *    "regions":[{"kind":"arena|pool|page|span","address":"0x...","bytes","block_size",
 *                "bytes_in_use","blocks_in_use","blocks","inner":bool,
 *                and for inner regions "tracked_blocks","tracked_bytes","split_lines",
 *                "split_pages","occupancy":BINS hex digits (0 empty .. f full),
 *                "splits":BINS/4 hex digits (a bit per bin, bin 0 the top bit of
 *                the first digit: a block split over two lines or two pages
 *                starts in it), "page_splits": the same for the blocks split
 *                over two pages alone (a subset of splits; absent in frames
 *                written before it was added)}]}
 * regions_total counts what the plugin reported; at most
 * ALLOCLAB_HEAPMAP_MAX_REGIONS of them are kept, in address order.
 */
#ifndef ALLOCLAB_HEAPMAP_H
#define ALLOCLAB_HEAPMAP_H

#include "plugin/allocator.h"

#include <stddef.h>
#include <stdint.h>

#define ALLOCLAB_HEAPMAP_FORMAT "alloclab-heapmap"
#define ALLOCLAB_HEAPMAP_VERSION 1
#define ALLOCLAB_HEAPMAP_BINS 256
#define ALLOCLAB_HEAPMAP_MAX_REGIONS 65536
#define ALLOCLAB_HEAPMAP_MAX_FRAMES 10000
/* The largest region drawn: 2^48 bytes, the x86-64 address space. */
#define ALLOCLAB_REGION_MAX_BYTES (1ull << 48)
/* The largest every-k of --every. */
#define ALLOCLAB_HEAPMAP_MAX_EVERY 1000000000u

/* ---- the worker's side ---- */

/* Wraps a's ops with the live-block table, frames going to a new file at
 * path (in the caller's scratch folder); a frame every `every` calls too
 * (0: only at the end of each value). 0, or -1 with err set (the plugin
 * has no regions op: err says it does not offer one). */
int alloclab_heapmap_install(struct alloclab_allocator *a, const char *path, unsigned every, char *err,
			     size_t err_len);

/* The value the next calls belong to (1-based; 0 in a warm-up, when no
 * frame is taken). */
void alloclab_heapmap_value(unsigned value);

/* Takes a frame now. Call when no other thread is in an op. 0, or -1 with
 * err set (the plugin's regions op failed or gave nonsense, or the file
 * could not be written). */
int alloclab_heapmap_frame(char *err, size_t err_len);

/* The first error of a frame taken every k calls (where no caller can be
 * told), or NULL. */
const char *alloclab_heapmap_error(void);

/* ---- a plugin's regions, taken and checked (heapmap, alloclab check) ---- */

struct alloclab_region_set {
	struct alloclab_region *r; /* in address order, an outer region before those inside it */
	size_t n;
	uint64_t total;            /* as many as the plugin gave (more than n past the limit) */
	size_t *inner;             /* indices of the innermost regions, in order */
	size_t ninner;
};

/* Calls the regions op and checks what it gives (kinds, ranges, counts).
 * 0, or -1 with one line in err naming the region. */
int alloclab_region_set_take(int (*regions)(void *, alloclab_region_fn, void *), void *instance,
			     struct alloclab_region_set *set, char *err, size_t err_len);
/* The index into set->inner of the innermost region holding addr, or -1. */
long alloclab_region_set_find(const struct alloclab_region_set *set, uintptr_t addr);
void alloclab_region_set_clear(struct alloclab_region_set *set);

/* ---- the reader's side ---- */

struct alloclab_heap_region {
	uint32_t kind; /* enum alloclab_region_kind */
	int inner;
	uint64_t address, bytes, block_size, bytes_in_use, blocks_in_use, blocks;
	uint64_t tracked_blocks, tracked_bytes, split_lines, split_pages; /* inner only */
	uint8_t occupancy[ALLOCLAB_HEAPMAP_BINS]; /* 0 .. 15 */
	uint8_t splits[ALLOCLAB_HEAPMAP_BINS];    /* 0 or 1: a split line or page starts here */
	/* 0 or 1: a split page starts here (a subset of splits); all 0 with
	 * page_splits_known 0 in frames that did not tell them apart. */
	uint8_t page_splits[ALLOCLAB_HEAPMAP_BINS];
	int page_splits_known;
};

struct alloclab_heap_frame {
	unsigned frame, value;
	int64_t at_call; /* -1: at the end of the value */
	uint64_t line_size, page_size;
	uint64_t tracked_blocks, tracked_bytes, outside_blocks, outside_bytes, split_lines, split_pages;
	/* The plugin's standard statistics, in alloclab_standard_stats order
	 * (results.h); bit i of stats_given set when the plugin gave the i-th. */
	uint64_t stats[6];
	unsigned stats_given;
	uint64_t regions_total;
	size_t nregions;
	struct alloclab_heap_region *regions;
};

struct alloclab_heapmap {
	size_t n;
	struct alloclab_heap_frame *frames;
};

/* The name of a region kind ("arena", ...), NULL for none. */
const char *alloclab_region_kind_name(uint32_t kind);

/* Reads and checks a frames file. 0, or -1 with one line in err naming the
 * file, the line and the field. */
int alloclab_heapmap_read(const char *path, struct alloclab_heapmap *out, char *err, size_t err_len);
void alloclab_heapmap_clear(struct alloclab_heapmap *h);

/* Sums over a frame's inner regions. */
struct alloclab_heap_sums {
	uint64_t inner, outer, bytes_in_use, blocks_in_use, tracked_blocks, tracked_bytes;
};
void alloclab_heap_frame_sums(const struct alloclab_heap_frame *f, struct alloclab_heap_sums *s);

#endif
