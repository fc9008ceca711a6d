/* Pictures of the heap: the worker's live-block table and frames, and the
 * frames file's reader. See heapmap.h. */
#define _GNU_SOURCE 1
#include "measure/heapmap.h"
#include "files/input_file.h"
#include "plugin/stats.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- the live-block table ----
 *
 * Open addressing with linear probing; deletion shifts the entries after
 * the hole back, so there are no tombstones. Invariant: count * 2 <= cap,
 * cap a power of two, and every live block's entry lies between its home
 * slot and the first empty slot after it. Mapped memory, not the C
 * library's heap: a plugin may fall back on malloc itself. */

struct live_block {
	uintptr_t addr; /* 0: empty */
	uint64_t size;
};

static struct {
	pthread_mutex_t lock;
	struct alloclab_plugin inner; /* the plugin's own ops */
	void *instance;
	struct live_block *table;
	size_t cap, count;
	unsigned shift;  /* 64 - log2(cap) */
	int fd;          /* the frames file */
	unsigned every;  /* a frame every this many calls; 0 none */
	unsigned value;  /* 0: a warm-up */
	uint64_t calls;  /* in values, since install */
	unsigned frames; /* written so far */
	char error[512]; /* the first failure of a frame taken inside a call */
} hm = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

static size_t home(uintptr_t addr)
{
	return (size_t)(((uint64_t)addr * 0x9e3779b97f4a7c15ull) >> hm.shift);
}

static int table_grow(void)
{
	size_t cap = hm.cap ? hm.cap * 2 : 1 << 12;
	struct live_block *t = mmap(NULL, cap * sizeof *t, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return -1;
	struct live_block *old = hm.table;
	size_t oldcap = hm.cap;
	hm.table = t;
	hm.cap = cap;
	hm.shift = 64 - (unsigned)__builtin_ctzll(cap);
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].addr) {
			size_t k = home(old[i].addr);
			while (t[k].addr)
				k = (k + 1) & (cap - 1);
			t[k] = old[i];
		}
	if (old)
		munmap(old, oldcap * sizeof *old);
	return 0;
}

static void table_add(void *p, size_t size)
{
	if (p == NULL)
		return;
	if ((hm.count + 1) * 2 > hm.cap && table_grow() != 0) {
		if (hm.error[0] == '\0')
			snprintf(hm.error, sizeof hm.error, "out of memory for the table of live blocks");
		return;
	}
	size_t k = home((uintptr_t)p);
	while (hm.table[k].addr && hm.table[k].addr != (uintptr_t)p)
		k = (k + 1) & (hm.cap - 1);
	if (hm.table[k].addr == 0)
		hm.count++;
	hm.table[k].addr = (uintptr_t)p;
	hm.table[k].size = size;
}

static void table_remove(void *p)
{
	if (p == NULL || hm.cap == 0)
		return;
	size_t mask = hm.cap - 1, k = home((uintptr_t)p);
	while (hm.table[k].addr != (uintptr_t)p) {
		if (hm.table[k].addr == 0)
			return; /* not ours: a block from before the wrapper */
		k = (k + 1) & mask;
	}
	hm.count--;
	/* Shift back every entry after the hole that its home allows. */
	for (size_t j = (k + 1) & mask;; j = (j + 1) & mask) {
		if (hm.table[j].addr == 0)
			break;
		size_t h = home(hm.table[j].addr);
		/* j's entry may move to k when k lies cyclically in [h, j). */
		if (((j - h) & mask) >= ((j - k) & mask)) {
			hm.table[k] = hm.table[j];
			k = j;
		}
	}
	hm.table[k].addr = 0;
}

/* ---- the wrapper ---- */

static int frame_at(int64_t at_call, char *err, size_t err_len);

static void counted_call(void)
{
	if (hm.value && hm.every && ++hm.calls % hm.every == 0 && hm.error[0] == '\0') {
		char err[sizeof hm.error];
		int64_t at = (int64_t)hm.calls;
		pthread_mutex_unlock(&hm.lock);
		/* Taken again inside: a frame holds the lock for itself. */
		if (frame_at(at, err, sizeof err) != 0 && hm.error[0] == '\0')
			snprintf(hm.error, sizeof hm.error, "%s", err);
		pthread_mutex_lock(&hm.lock);
	}
}

/* Each op holds the lock across the plugin's call and the table's update:
 * a block freed by one thread and handed out again to another is then
 * never seen in the wrong order. The frame a k-th call takes comes after
 * the update, between two calls. */
#define CALL(expr)                          \
	pthread_mutex_lock(&hm.lock);       \
	expr;                               \
	counted_call();                     \
	pthread_mutex_unlock(&hm.lock)

static void *hm_malloc(void *instance, size_t n)
{
	void *p;
	CALL(p = hm.inner.malloc(instance, n); table_add(p, n));
	return p;
}

static void *hm_calloc(void *instance, size_t nmemb, size_t size)
{
	void *p;
	CALL(p = hm.inner.calloc(instance, nmemb, size); table_add(p, nmemb * size));
	return p;
}

static void hm_free(void *instance, void *p)
{
	CALL(table_remove(p); hm.inner.free(instance, p));
}

static void hm_free_sized(void *instance, void *p, size_t n)
{
	CALL(table_remove(p); hm.inner.free_sized(instance, p, n));
}

static void *hm_realloc(void *instance, void *p, size_t n)
{
	void *q;
	CALL(q = hm.inner.realloc(instance, p, n); if (q || n == 0) table_remove(p); table_add(q, n));
	return q;
}

static void *hm_aligned_alloc(void *instance, size_t alignment, size_t n)
{
	void *p;
	CALL(p = hm.inner.aligned_alloc(instance, alignment, n); table_add(p, n));
	return p;
}

int alloclab_heapmap_install(struct alloclab_allocator *a, const char *path, unsigned every, char *err,
			     size_t err_len)
{
	if (a->ops.regions == NULL) {
		snprintf(err, err_len, "the plugin does not offer the regions op, so its heap cannot be drawn");
		return -1;
	}
	hm.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (hm.fd < 0) {
		snprintf(err, err_len, "cannot write the heap map's frames to %s: %s", path, strerror(errno));
		return -1;
	}
	if (table_grow() != 0) {
		snprintf(err, err_len, "out of memory for the table of live blocks");
		return -1;
	}
	hm.inner = a->ops;
	hm.instance = a->instance;
	hm.every = every;
	alloclab_allocator_no_shortcuts(a);
	a->ops.malloc = hm_malloc;
	a->ops.calloc = hm_calloc;
	a->ops.free = hm_free;
	a->ops.free_sized = hm_free_sized;
	if (a->ops.realloc)
		a->ops.realloc = hm_realloc;
	if (a->ops.aligned_alloc)
		a->ops.aligned_alloc = hm_aligned_alloc;
	return 0;
}

void alloclab_heapmap_value(unsigned value)
{
	pthread_mutex_lock(&hm.lock);
	hm.value = value;
	pthread_mutex_unlock(&hm.lock);
}

const char *alloclab_heapmap_error(void)
{
	return hm.error[0] ? hm.error : NULL;
}

/* ---- taking a frame ---- */

struct region_list {
	struct alloclab_region *r;
	size_t n, cap;
	uint64_t total;
	int bad; /* a region too small to be one */
};

static void collect_region(void *arg, const struct alloclab_region *region)
{
	struct region_list *l = arg;
	struct alloclab_region r = {0};
	if (region == NULL || region->size < offsetof(struct alloclab_region, blocks)) {
		l->bad = 1;
		return;
	}
	/* Only the fields the plugin's struct has. */
	memcpy(&r, region, region->size < sizeof r ? region->size : sizeof r);
	l->total++;
	if (l->n == l->cap) {
		if (l->cap >= ALLOCLAB_HEAPMAP_MAX_REGIONS * 4)
			return; /* sorted and cut to the limit afterwards */
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct alloclab_region *p = realloc(l->r, cap * sizeof *p);
		if (p == NULL)
			return;
		l->r = p;
		l->cap = cap;
	}
	l->r[l->n++] = r;
}

static int by_address(const void *x, const void *y)
{
	const struct alloclab_region *a = x, *b = y;
	if (a->address != b->address)
		return a->address < b->address ? -1 : 1;
	return (a->bytes < b->bytes) - (a->bytes > b->bytes); /* the larger, outer one first */
}

/* Why a region the plugin gave is nonsense, or NULL. */
static const char *region_problem(const struct alloclab_region *r)
{
	if (alloclab_region_kind_name(r->kind) == NULL)
		return "kind is none of arena, pool, page, span";
	if (r->bytes == 0 || r->bytes > ALLOCLAB_REGION_MAX_BYTES || r->address == 0 || r->address + r->bytes < r->address)
		return "address and bytes are not a range of memory (at most 2^48 bytes)";
	if (r->bytes_in_use > r->bytes)
		return "bytes_in_use exceeds its bytes";
	if (r->blocks && r->blocks_in_use > r->blocks)
		return "blocks_in_use exceeds its blocks";
	if (r->block_size && r->blocks_in_use && r->bytes_in_use / r->blocks_in_use > r->bytes)
		return "its blocks in use are larger than it";
	/* A block is at least a byte: more blocks than bytes is a count gone
	 * wrong (a sum of them would wrap). */
	if (r->blocks_in_use > r->bytes)
		return "it counts more blocks in use than it has bytes";
	return NULL;
}

/* Where bin b starts: floor(bytes * b / BINS), without overflow. */
static uint64_t bin_start(uint64_t bytes, unsigned b)
{
	return bytes / ALLOCLAB_HEAPMAP_BINS * b + bytes % ALLOCLAB_HEAPMAP_BINS * b / ALLOCLAB_HEAPMAP_BINS;
}

struct inner_acc {
	uint64_t tracked_blocks, tracked_bytes, split_lines, split_pages;
	uint64_t bin_bytes[ALLOCLAB_HEAPMAP_BINS];
	uint8_t splits[ALLOCLAB_HEAPMAP_BINS], page_splits[ALLOCLAB_HEAPMAP_BINS];
};

static void hex_digits(char *out, const uint8_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = "0123456789abcdef"[v[i] & 15];
	out[n] = '\0';
}

static void place_block(const struct alloclab_region *r, struct inner_acc *a, uintptr_t addr, uint64_t size,
			uint64_t line, uint64_t page)
{
	uint64_t off = addr - r->address, end = size > r->bytes - off ? r->bytes : off + size;
	a->tracked_blocks++;
	a->tracked_bytes += size;
	int split_line = size > 1 && size <= line && addr / line != (addr + size - 1) / line;
	int split_page = size > 1 && size <= page && addr / page != (addr + size - 1) / page;
	a->split_lines += (uint64_t)split_line;
	a->split_pages += (uint64_t)split_page;
	/* Bin b covers [bin_start(b), bin_start(b + 1)); off * BINS cannot
	 * overflow, a region being at most 2^48 bytes. */
	unsigned first = (unsigned)(off * ALLOCLAB_HEAPMAP_BINS / r->bytes);
	if (split_line || split_page)
		a->splits[first] = 1;
	if (split_page)
		a->page_splits[first] = 1;
	for (unsigned b = first; b < ALLOCLAB_HEAPMAP_BINS; b++) {
		uint64_t lo = bin_start(r->bytes, b), hi = bin_start(r->bytes, b + 1);
		if (lo >= end)
			break;
		uint64_t from = off > lo ? off : lo, to = end < hi ? end : hi;
		if (to > from)
			a->bin_bytes[b] += to - from;
	}
}

static void emit_stat(void *arg, const char *name, uint64_t value)
{
	for (unsigned i = 0; i < ALLOCLAB_NSTANDARD_STATS; i++)
		if (name && strcmp(name, alloclab_standard_stats[i]) == 0)
			json_object_set_new(arg, name, alloclab_stat_json(value));
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t k = write(fd, s, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

int alloclab_region_set_take(int (*regions)(void *, alloclab_region_fn, void *), void *instance,
			     struct alloclab_region_set *set, char *err, size_t err_len)
{
	struct region_list l = {0};

	memset(set, 0, sizeof *set);
	int op = regions(instance, collect_region, &l);
	if (op != 0) {
		snprintf(err, err_len, "the plugin's regions op failed: %s", strerror(op < 0 ? -op : op));
		goto bad;
	}
	if (l.bad) {
		snprintf(err, err_len, "the plugin's regions op gave a NULL region, or one whose size field is too small");
		goto bad;
	}
	qsort(l.r, l.n, sizeof *l.r, by_address);
	if (l.n > ALLOCLAB_HEAPMAP_MAX_REGIONS)
		l.n = ALLOCLAB_HEAPMAP_MAX_REGIONS;
	for (size_t i = 0; i < l.n; i++) {
		const char *why = region_problem(&l.r[i]);
		if (why) {
			snprintf(err, err_len, "the plugin's region at 0x%" PRIx64 " (%" PRIu64 " bytes): %s",
				 l.r[i].address, l.r[i].bytes, why);
			goto bad;
		}
	}
	/* Regions nest (an arena holds its pools, a pool its pages) or are
	 * apart: one that starts inside another and ends past it is no
	 * allocator's layout, and would be drawn twice. In address order,
	 * outer first, the regions still open form a stack. */
	size_t *open = calloc(l.n + 1, sizeof *open), nopen = 0;
	if (open == NULL) {
		snprintf(err, err_len, "out of memory for %zu regions", l.n);
		goto bad;
	}
	for (size_t i = 0; i < l.n; i++) {
		const struct alloclab_region *r = &l.r[i];
		while (nopen && l.r[open[nopen - 1]].address + l.r[open[nopen - 1]].bytes <= r->address)
			nopen--;
		if (nopen && r->address + r->bytes > l.r[open[nopen - 1]].address + l.r[open[nopen - 1]].bytes) {
			const struct alloclab_region *o = &l.r[open[nopen - 1]];
			snprintf(err, err_len,
				 "the plugin's region at 0x%" PRIx64 " (%" PRIu64 " bytes) overlaps the one at 0x%" PRIx64
				 " (%" PRIu64 " bytes) without nesting in it",
				 r->address, r->bytes, o->address, o->bytes);
			free(open);
			goto bad;
		}
		open[nopen++] = i;
	}
	free(open);
	/* Inner: no region starts inside it. In address order (outer first
	 * at one address) that is the next one. */
	set->inner = calloc(l.n + 1, sizeof *set->inner);
	if (set->inner == NULL) {
		snprintf(err, err_len, "out of memory for %zu regions", l.n);
		goto bad;
	}
	for (size_t i = 0; i < l.n; i++)
		if (i + 1 == l.n || l.r[i + 1].address >= l.r[i].address + l.r[i].bytes)
			set->inner[set->ninner++] = i;
	set->r = l.r;
	set->n = l.n;
	set->total = l.total;
	return 0;
bad:
	free(l.r);
	return -1;
}

long alloclab_region_set_find(const struct alloclab_region_set *set, uintptr_t addr)
{
	/* The last inner region starting at or below it. */
	size_t lo = 0, hi = set->ninner;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (set->r[set->inner[mid]].address <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct alloclab_region *r = lo ? &set->r[set->inner[lo - 1]] : NULL;
	return r && addr - r->address < r->bytes ? (long)(lo - 1) : -1;
}

void alloclab_region_set_clear(struct alloclab_region_set *set)
{
	free(set->r);
	free(set->inner);
	memset(set, 0, sizeof *set);
}

/* An inner region's own figures in its frame object: what the tracked
 * blocks in it hold, and its occupancy and split lines and pages per bin,
 * as hex digits. */
static void inner_figures(json_t *o, const struct alloclab_region *r, const struct inner_acc *a)
{
	uint8_t occ[ALLOCLAB_HEAPMAP_BINS], bits[ALLOCLAB_HEAPMAP_BINS / 4], page_bits[ALLOCLAB_HEAPMAP_BINS / 4];
	char occ_text[ALLOCLAB_HEAPMAP_BINS + 1], bits_text[ALLOCLAB_HEAPMAP_BINS / 4 + 1],
		page_text[ALLOCLAB_HEAPMAP_BINS / 4 + 1];
	for (unsigned b = 0; b < ALLOCLAB_HEAPMAP_BINS; b++) {
		uint64_t width = bin_start(r->bytes, b + 1) - bin_start(r->bytes, b);
		uint64_t v = width ? (a->bin_bytes[b] * 15 + width - 1) / width : 0;
		occ[b] = (uint8_t)(v > 15 ? 15 : v);
	}
	memset(bits, 0, sizeof bits);
	memset(page_bits, 0, sizeof page_bits);
	for (unsigned b = 0; b < ALLOCLAB_HEAPMAP_BINS; b++) {
		if (a->splits[b])
			bits[b / 4] |= (uint8_t)(8 >> (b % 4));
		if (a->page_splits[b])
			page_bits[b / 4] |= (uint8_t)(8 >> (b % 4));
	}
	hex_digits(occ_text, occ, sizeof occ);
	hex_digits(bits_text, bits, sizeof bits);
	hex_digits(page_text, page_bits, sizeof page_bits);
	json_object_set_new(o, "tracked_blocks", alloclab_stat_json(a->tracked_blocks));
	json_object_set_new(o, "tracked_bytes", alloclab_stat_json(a->tracked_bytes));
	json_object_set_new(o, "split_lines", alloclab_stat_json(a->split_lines));
	json_object_set_new(o, "split_pages", alloclab_stat_json(a->split_pages));
	json_object_set_new(o, "occupancy", json_string(occ_text));
	json_object_set_new(o, "splits", json_string(bits_text));
	json_object_set_new(o, "page_splits", json_string(page_text));
}

/* The frame as one line of the heap map's file. 0, or -1 with err. */
static int write_frame(const json_t *frame, size_t nregions, char *err, size_t err_len)
{
	char *text = frame ? json_dumps(frame, JSON_COMPACT) : NULL;
	if (text == NULL) {
		snprintf(err, err_len, "out of memory for a frame of %zu regions", nregions);
		return -1;
	}
	size_t n = strlen(text);
	text[n] = '\n'; /* the NUL becomes the line's end */
	if (write_all(hm.fd, text, n + 1) != 0) {
		snprintf(err, err_len, "cannot write the heap map's frames: %s", strerror(errno));
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

static int frame_locked(int64_t at_call, char *err, size_t err_len)
{
	const uint64_t line = 64, page = 4096;
	struct region_list l = {0};
	json_t *frame = NULL, *regions = NULL;
	struct inner_acc *acc = NULL;
	size_t *inner = NULL, ninner = 0;
	uint64_t outside_blocks = 0, outside_bytes = 0, tracked_bytes = 0, split_lines = 0, split_pages = 0;
	int rc = -1;

	struct alloclab_region_set set;
	if (alloclab_region_set_take(hm.inner.regions, hm.instance, &set, err, err_len) != 0)
		goto out;
	l.r = set.r;
	l.n = set.n;
	l.total = set.total;
	inner = set.inner;
	ninner = set.ninner;
	acc = calloc(l.n + 1, sizeof *acc);
	if (acc == NULL) {
		snprintf(err, err_len, "out of memory for a frame of %zu regions", l.n);
		goto out;
	}
	for (size_t k = 0; k < hm.cap; k++) {
		uintptr_t addr = hm.table[k].addr;
		uint64_t size = hm.table[k].size;
		if (addr == 0)
			continue;
		tracked_bytes += size;
		long at = alloclab_region_set_find(&set, addr);
		if (at >= 0) {
			place_block(&l.r[inner[at]], &acc[at], addr, size, line, page);
		} else {
			outside_blocks++;
			outside_bytes += size;
		}
	}
	regions = json_array();
	for (size_t i = 0, k = 0; i < l.n; i++) {
		const struct alloclab_region *r = &l.r[i];
		char address[24];
		snprintf(address, sizeof address, "0x%" PRIx64, r->address);
		json_t *o = json_pack("{s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:b}", "kind", alloclab_region_kind_name(r->kind),
				      "address", address, "bytes", alloclab_stat_json(r->bytes), "block_size",
				      alloclab_stat_json(r->block_size), "bytes_in_use", alloclab_stat_json(r->bytes_in_use),
				      "blocks_in_use", alloclab_stat_json(r->blocks_in_use), "blocks",
				      alloclab_stat_json(r->blocks), "inner", k < ninner && inner[k] == i);
		if (k < ninner && inner[k] == i) {
			const struct inner_acc *a = &acc[k++];
			inner_figures(o, r, a);
			split_lines += a->split_lines;
			split_pages += a->split_pages;
		}
		json_array_append_new(regions, o);
	}
	json_t *stats = json_object();
	if (hm.inner.stats)
		hm.inner.stats(hm.instance, emit_stat, stats);
	frame = json_pack("{s:s,s:i,s:I,s:I,s:o,s:I,s:I,s:i,s:{s:o,s:o,s:o,s:o,s:o,s:o},s:o,s:o,s:o}", "format",
			  ALLOCLAB_HEAPMAP_FORMAT, "version", ALLOCLAB_HEAPMAP_VERSION, "frame",
			  (json_int_t)hm.frames + 1, "value", (json_int_t)hm.value, "at_call",
			  at_call > 0 ? json_integer((json_int_t)at_call) : json_null(),
			  "line_size", (json_int_t)line, "page_size", (json_int_t)page, "bins", ALLOCLAB_HEAPMAP_BINS,
			  "tracked", "blocks", alloclab_stat_json(hm.count), "bytes", alloclab_stat_json(tracked_bytes),
			  "outside_blocks", alloclab_stat_json(outside_blocks), "outside_bytes",
			  alloclab_stat_json(outside_bytes), "split_lines", alloclab_stat_json(split_lines), "split_pages",
			  alloclab_stat_json(split_pages), "stats", stats, "regions_total", alloclab_stat_json(l.total),
			  "regions", regions);
	regions = NULL;
	if (write_frame(frame, l.n, err, err_len) != 0)
		goto out;
	hm.frames++;
	rc = 0;
out:
	json_decref(frame);
	json_decref(regions);
	free(l.r);
	free(inner);
	free(acc);
	return rc;
}

static int frame_at(int64_t at_call, char *err, size_t err_len)
{
	pthread_mutex_lock(&hm.lock);
	int rc;
	if (hm.frames >= ALLOCLAB_HEAPMAP_MAX_FRAMES) {
		snprintf(err, err_len, "more than %d frames: give a larger --every", ALLOCLAB_HEAPMAP_MAX_FRAMES);
		rc = -1;
	} else {
		rc = frame_locked(at_call, err, err_len);
	}
	pthread_mutex_unlock(&hm.lock);
	return rc;
}

int alloclab_heapmap_frame(char *err, size_t err_len)
{
	return frame_at(-1, err, err_len);
}

/* ---- the reader ---- */

const char *alloclab_region_kind_name(uint32_t kind)
{
	switch (kind) {
	case ALLOCLAB_REGION_ARENA: return "arena";
	case ALLOCLAB_REGION_POOL: return "pool";
	case ALLOCLAB_REGION_PAGE: return "page";
	case ALLOCLAB_REGION_SPAN: return "span";
	}
	return NULL;
}

static uint32_t kind_of(const char *name)
{
	for (uint32_t k = ALLOCLAB_REGION_ARENA; k <= ALLOCLAB_REGION_SPAN; k++)
		if (strcmp(name, alloclab_region_kind_name(k)) == 0)
			return k;
	return 0;
}

/* A count field: an integer >= 0 or alloclab_stat_json's digits. */
static int count_of(const json_t *o, const char *key, uint64_t *v)
{
	const json_t *x = json_object_get(o, key);
	if (x == NULL || !(json_is_integer(x) || json_is_string(x)))
		return -1;
	if (json_is_integer(x) && json_integer_value(x) < 0)
		return -1;
	*v = alloclab_stat_value(x);
	return json_is_string(x) && *v == 0 ? -1 : 0;
}

static int hex_field(const json_t *o, const char *key, uint8_t *out, size_t n, int bits)
{
	const char *s = json_string_value(json_object_get(o, key));
	if (s == NULL || strlen(s) != (bits ? n / 4 : n))
		return -1;
	for (size_t i = 0; s[i]; i++) {
		const char *d = strchr("0123456789abcdef", s[i]);
		if (d == NULL || s[i] == '\0')
			return -1;
		unsigned v = (unsigned)(d - "0123456789abcdef");
		if (bits)
			for (unsigned b = 0; b < 4; b++)
				out[i * 4 + b] = (uint8_t)((v >> (3 - b)) & 1);
		else
			out[i] = (uint8_t)v;
	}
	return 0;
}

#define BAD(...)                                                          \
	do {                                                              \
		snprintf(why, sizeof why, __VA_ARGS__);                   \
		goto bad;                                                 \
	} while (0)

static int read_region(const json_t *o, struct alloclab_heap_region *r, char *why, size_t why_len)
{
	const char *kind = json_string_value(json_object_get(o, "kind"));
	const char *address = json_string_value(json_object_get(o, "address"));
	const json_t *inner = json_object_get(o, "inner");
	static const char *const counts[] = {"bytes", "block_size", "bytes_in_use", "blocks_in_use", "blocks"};
	uint64_t *fields[] = {&r->bytes, &r->block_size, &r->bytes_in_use, &r->blocks_in_use, &r->blocks};
	char *end;

	if (!json_is_object(o)) {
		snprintf(why, why_len, "a region is not an object");
		return -1;
	}
	if (kind == NULL || (r->kind = kind_of(kind)) == 0) {
		snprintf(why, why_len, "field 'kind': not one of arena, pool, page, span");
		return -1;
	}
	errno = 0;
	if (address == NULL || strncmp(address, "0x", 2) != 0 || address[2] == '\0' ||
	    (r->address = strtoull(address + 2, &end, 16), *end != '\0' || errno != 0)) {
		snprintf(why, why_len, "field 'address': not a 0x hexadecimal address");
		return -1;
	}
	for (size_t i = 0; i < 5; i++)
		if (count_of(o, counts[i], fields[i]) != 0) {
			snprintf(why, why_len, "field '%s': not a count", counts[i]);
			return -1;
		}
	if (!json_is_boolean(inner)) {
		snprintf(why, why_len, "field 'inner': not true or false");
		return -1;
	}
	r->inner = json_is_true(inner);
	if (r->bytes == 0 || r->bytes > ALLOCLAB_REGION_MAX_BYTES || r->address + r->bytes < r->address ||
	    r->bytes_in_use > r->bytes || r->blocks_in_use > r->bytes ||
	    (r->blocks && r->blocks_in_use > r->blocks)) {
		snprintf(why, why_len, "its counts are not a region's (in use past its size)");
		return -1;
	}
	if (!r->inner)
		return 0;
	static const char *const tracked[] = {"tracked_blocks", "tracked_bytes", "split_lines", "split_pages"};
	uint64_t *tf[] = {&r->tracked_blocks, &r->tracked_bytes, &r->split_lines, &r->split_pages};
	for (size_t i = 0; i < 4; i++)
		if (count_of(o, tracked[i], tf[i]) != 0) {
			snprintf(why, why_len, "field '%s': not a count", tracked[i]);
			return -1;
		}
	if (r->split_lines > r->tracked_blocks || r->split_pages > r->tracked_blocks) {
		snprintf(why, why_len, "more split blocks than blocks");
		return -1;
	}
	if (hex_field(o, "occupancy", r->occupancy, ALLOCLAB_HEAPMAP_BINS, 0) != 0) {
		snprintf(why, why_len, "field 'occupancy': not %d hexadecimal digits", ALLOCLAB_HEAPMAP_BINS);
		return -1;
	}
	if (hex_field(o, "splits", r->splits, ALLOCLAB_HEAPMAP_BINS, 1) != 0) {
		snprintf(why, why_len, "field 'splits': not %d hexadecimal digits", ALLOCLAB_HEAPMAP_BINS / 4);
		return -1;
	}
	/* Absent in frames written before page splits were told apart: every
	 * split is then drawn as a split line. */
	r->page_splits_known = json_object_get(o, "page_splits") != NULL;
	if (r->page_splits_known) {
		if (hex_field(o, "page_splits", r->page_splits, ALLOCLAB_HEAPMAP_BINS, 1) != 0) {
			snprintf(why, why_len, "field 'page_splits': not %d hexadecimal digits", ALLOCLAB_HEAPMAP_BINS / 4);
			return -1;
		}
		for (unsigned b = 0; b < ALLOCLAB_HEAPMAP_BINS; b++)
			if (r->page_splits[b] && !r->splits[b]) {
				snprintf(why, why_len, "field 'page_splits': bin %u is marked but not in 'splits'", b);
				return -1;
			}
		if (r->split_pages == 0 && memchr(r->page_splits, 1, ALLOCLAB_HEAPMAP_BINS)) {
			snprintf(why, why_len, "field 'page_splits': bins marked where split_pages is 0");
			return -1;
		}
	}
	return 0;
}

static int read_frame(const json_t *j, struct alloclab_heap_frame *f, char *why, size_t why_len)
{
	const json_t *tracked = json_object_get(j, "tracked"), *stats = json_object_get(j, "stats"),
		     *regions = json_object_get(j, "regions"), *at = json_object_get(j, "at_call");
	uint64_t frame, value, bins, version;

	if (!json_is_object(j) || !json_is_string(json_object_get(j, "format")) ||
	    strcmp(json_string_value(json_object_get(j, "format")), ALLOCLAB_HEAPMAP_FORMAT) != 0) {
		snprintf(why, why_len, "not a frame of an alloclab heap map");
		return -1;
	}
	if (count_of(j, "version", &version) != 0 || version != ALLOCLAB_HEAPMAP_VERSION) {
		snprintf(why, why_len, "field 'version': this alloclab reads version %d", ALLOCLAB_HEAPMAP_VERSION);
		return -1;
	}
	if (count_of(j, "frame", &frame) != 0 || frame == 0 || frame > ALLOCLAB_HEAPMAP_MAX_FRAMES ||
	    count_of(j, "value", &value) != 0 || value > 1000000) {
		snprintf(why, why_len, "field 'frame' or 'value': not a frame's number");
		return -1;
	}
	f->frame = (unsigned)frame;
	f->value = (unsigned)value;
	if (at == NULL || json_is_null(at))
		f->at_call = -1;
	else if (json_is_integer(at) && json_integer_value(at) > 0)
		f->at_call = json_integer_value(at);
	else {
		snprintf(why, why_len, "field 'at_call': not a call's number or null");
		return -1;
	}
	if (count_of(j, "line_size", &f->line_size) != 0 || f->line_size == 0 || (f->line_size & (f->line_size - 1)) ||
	    count_of(j, "page_size", &f->page_size) != 0 || f->page_size == 0 || (f->page_size & (f->page_size - 1))) {
		snprintf(why, why_len, "field 'line_size' or 'page_size': not a power of two");
		return -1;
	}
	if (count_of(j, "bins", &bins) != 0 || bins != ALLOCLAB_HEAPMAP_BINS) {
		snprintf(why, why_len, "field 'bins': this alloclab draws %d bins a region", ALLOCLAB_HEAPMAP_BINS);
		return -1;
	}
	static const char *const tk[] = {"blocks", "bytes", "outside_blocks", "outside_bytes", "split_lines",
					 "split_pages"};
	uint64_t *tf[] = {&f->tracked_blocks, &f->tracked_bytes, &f->outside_blocks, &f->outside_bytes,
			  &f->split_lines, &f->split_pages};
	if (!json_is_object(tracked)) {
		snprintf(why, why_len, "field 'tracked': not an object");
		return -1;
	}
	for (size_t i = 0; i < 6; i++)
		if (count_of(tracked, tk[i], tf[i]) != 0) {
			snprintf(why, why_len, "field 'tracked.%s': not a count", tk[i]);
			return -1;
		}
	if (f->outside_blocks > f->tracked_blocks || f->outside_bytes > f->tracked_bytes) {
		snprintf(why, why_len, "field 'tracked': more blocks outside the regions than blocks");
		return -1;
	}
	if (!json_is_object(stats)) {
		snprintf(why, why_len, "field 'stats': not an object");
		return -1;
	}
	for (unsigned i = 0; i < ALLOCLAB_NSTANDARD_STATS; i++)
		if (json_object_get(stats, alloclab_standard_stats[i])) {
			if (count_of(stats, alloclab_standard_stats[i], &f->stats[i]) != 0) {
				snprintf(why, why_len, "field 'stats.%s': not a count", alloclab_standard_stats[i]);
				return -1;
			}
			f->stats_given |= 1u << i;
		}
	if (count_of(j, "regions_total", &f->regions_total) != 0 || !json_is_array(regions) ||
	    json_array_size(regions) > ALLOCLAB_HEAPMAP_MAX_REGIONS || json_array_size(regions) > f->regions_total) {
		snprintf(why, why_len, "field 'regions': not an array of at most %d regions (and regions_total)",
			 ALLOCLAB_HEAPMAP_MAX_REGIONS);
		return -1;
	}
	f->nregions = json_array_size(regions);
	f->regions = calloc(f->nregions + 1, sizeof *f->regions);
	if (f->regions == NULL) {
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	uint64_t placed = 0;
	for (size_t i = 0; i < f->nregions; i++) {
		char rwhy[256];
		if (read_region(json_array_get(regions, i), &f->regions[i], rwhy, sizeof rwhy) != 0) {
			snprintf(why, why_len, "region %zu: %s", i + 1, rwhy);
			return -1;
		}
		if (i && f->regions[i].address < f->regions[i - 1].address) {
			snprintf(why, why_len, "region %zu: not in address order", i + 1);
			return -1;
		}
		placed += f->regions[i].tracked_blocks;
	}
	if (f->regions_total == f->nregions && placed + f->outside_blocks != f->tracked_blocks) {
		snprintf(why, why_len, "the regions' tracked blocks and those outside them do not add up to 'tracked.blocks'");
		return -1;
	}
	return 0;
}

int alloclab_heapmap_read(const char *path, struct alloclab_heapmap *out, char *err, size_t err_len)
{
	char why[512];
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t n;

	memset(out, 0, sizeof *out);
	if (f == NULL) {
		snprintf(err, err_len, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (out->n >= ALLOCLAB_HEAPMAP_MAX_FRAMES)
			BAD("more than %d frames", ALLOCLAB_HEAPMAP_MAX_FRAMES);
		json_error_t je;
		json_t *j = json_loadb(line, (size_t)n, JSON_REJECT_DUPLICATES, &je);
		if (j == NULL)
			BAD("not JSON: %s", je.text);
		struct alloclab_heap_frame *fr = realloc(out->frames, (out->n + 1) * sizeof *fr);
		if (fr == NULL) {
			json_decref(j);
			BAD("out of memory");
		}
		out->frames = fr;
		memset(&fr[out->n], 0, sizeof *fr);
		int rc = read_frame(j, &fr[out->n++], why, sizeof why);
		json_decref(j);
		if (rc != 0)
			goto bad_why;
		if (fr[out->n - 1].frame != out->n)
			BAD("field 'frame': %u where frame %zu was due", fr[out->n - 1].frame, out->n);
	}
	if (ferror(f))
		BAD("cannot read: %s", strerror(errno));
	if (out->n == 0) {
		snprintf(why, sizeof why, "no frames");
		lineno = 0;
		goto bad_why;
	}
	free(line);
	fclose(f);
	return 0;
bad:
bad_why:
	if (lineno)
		snprintf(err, err_len, "%s: line %zu: %s", path, lineno, why);
	else
		snprintf(err, err_len, "%s: %s", path, why);
	free(line);
	fclose(f);
	alloclab_heapmap_clear(out);
	return -1;
}

void alloclab_heapmap_clear(struct alloclab_heapmap *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->frames[i].regions);
	free(h->frames);
	memset(h, 0, sizeof *h);
}

void alloclab_heap_frame_sums(const struct alloclab_heap_frame *f, struct alloclab_heap_sums *s)
{
	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < f->nregions; i++) {
		const struct alloclab_heap_region *r = &f->regions[i];
		if (!r->inner) {
			s->outer++;
			continue;
		}
		s->inner++;
		s->bytes_in_use += r->bytes_in_use;
		s->blocks_in_use += r->blocks_in_use;
		s->tracked_blocks += r->tracked_blocks;
		s->tracked_bytes += r->tracked_bytes;
	}
}
