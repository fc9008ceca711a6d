/* Cache-line placement arithmetic. See placement.h. */
#include "measure/placement.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

size_t alloclab_cache_line_size(void)
{
	long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	return line > 0 ? (size_t)line : 64;
}

struct line_owner {
	uintptr_t line;
	unsigned thread;
};

static int by_line(const void *a, const void *b)
{
	const struct line_owner *x = a, *y = b;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

int alloclab_shared_lines(const struct alloclab_block_list *lists, unsigned nthreads, size_t line,
			  uint64_t *lines_total, uint64_t *lines_shared)
{
	size_t n = 0, k = 0;
	struct line_owner *v;

	for (unsigned t = 0; t < nthreads; t++)
		for (size_t i = 0; i < lists[t].n; i++)
			if (lists[t].size[i])
				n += (lists[t].addr[i] + lists[t].size[i] - 1) / line - lists[t].addr[i] / line + 1;
	*lines_total = *lines_shared = 0;
	if (n == 0)
		return 0;
	v = malloc(n * sizeof *v);
	if (v == NULL)
		return -1;
	for (unsigned t = 0; t < nthreads; t++)
		for (size_t i = 0; i < lists[t].n; i++) {
			if (lists[t].size[i] == 0)
				continue;
			for (uintptr_t l = lists[t].addr[i] / line; l <= (lists[t].addr[i] + lists[t].size[i] - 1) / line; l++)
				v[k++] = (struct line_owner){l, t};
		}
	qsort(v, n, sizeof *v, by_line);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		int shared = 0;
		for (; j < n && v[j].line == v[i].line; j++)
			shared |= v[j].thread != v[i].thread;
		(*lines_total)++;
		*lines_shared += (uint64_t)shared;
		i = j;
	}
	free(v);
	return 0;
}

struct size_count {
	size_t size;
	uint64_t count;
};

static int by_size(const void *a, const void *b)
{
	const struct size_count *x = a, *y = b;
	return (x->size > y->size) - (x->size < y->size);
}

static int by_count_desc(const void *a, const void *b)
{
	const struct size_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->size > y->size) - (x->size < y->size);
}

/* The commonest sizes (at most ALLOCLAB_PLACEMENT_SIZES of them), so a
 * workload of random sizes does not write a histogram per process. */
static json_t *size_summary(const size_t *size, size_t n, uint64_t *distinct)
{
	struct size_count *v = malloc((n ? n : 1) * sizeof *v);
	json_t *out = json_object();
	size_t k = 0;

	*distinct = 0;
	if (v == NULL)
		return out;
	for (size_t i = 0; i < n; i++)
		v[i] = (struct size_count){size[i], 1};
	qsort(v, n, sizeof *v, by_size);
	for (size_t i = 0; i < n; i++) {
		if (k && v[k - 1].size == v[i].size)
			v[k - 1].count++;
		else
			v[k++] = v[i];
	}
	*distinct = k;
	qsort(v, k, sizeof *v, by_count_desc);
	for (size_t i = 0; i < k && i < ALLOCLAB_PLACEMENT_SIZES; i++) {
		char key[24];
		snprintf(key, sizeof key, "%zu", v[i].size);
		json_object_set_new(out, key, json_integer((json_int_t)v[i].count));
	}
	free(v);
	return out;
}

static int by_value(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
	return (x > y) - (x < y);
}

uint64_t alloclab_pages_spanned(const uintptr_t *addr, const size_t *size, size_t n)
{
	size_t total = 0, k = 0;
	uintptr_t *pages;
	uint64_t distinct = 0;

	for (size_t i = 0; i < n; i++)
		total += size[i] ? ((addr[i] + size[i] - 1) >> ALLOCLAB_PAGE_SHIFT) - (addr[i] >> ALLOCLAB_PAGE_SHIFT) + 1 : 1;
	if ((pages = malloc((total ? total : 1) * sizeof *pages)) == NULL)
		return 0;
	for (size_t i = 0; i < n; i++) {
		uintptr_t last = size[i] ? (addr[i] + size[i] - 1) >> ALLOCLAB_PAGE_SHIFT : addr[i] >> ALLOCLAB_PAGE_SHIFT;
		for (uintptr_t pg = addr[i] >> ALLOCLAB_PAGE_SHIFT; pg <= last; pg++)
			pages[k++] = pg;
	}
	qsort(pages, k, sizeof *pages, by_value);
	for (size_t i = 0; i < k; i++)
		distinct += i == 0 || pages[i] != pages[i - 1];
	free(pages);
	return distinct;
}

json_t *alloclab_placement_report(const uintptr_t *addr, const size_t *size, size_t n, size_t line,
				  int threads_counted, uint64_t lines_total, uint64_t lines_shared)
{
	json_t *offsets = json_array(), *sizes, *out;
	uint64_t straddling = 0, hist[256] = {0}, distinct;

	for (size_t i = 0; i < n; i++) {
		straddling += (uint64_t)alloclab_straddles(addr[i], size[i], line);
		if (line <= 256)
			hist[addr[i] % line]++;
	}
	sizes = size_summary(size, n, &distinct);
	for (size_t i = 0; i < line && i < 256; i++)
		json_array_append_new(offsets, json_integer((json_int_t)hist[i]));
	out = json_pack("{s:I,s:I,s:I,s:o,s:o,s:I,s:I}", "line_size", (json_int_t)line, "blocks", (json_int_t)n,
			"straddling", (json_int_t)straddling, "offsets", offsets, "sizes", sizes, "distinct_sizes",
			(json_int_t)distinct, "pages", (json_int_t)alloclab_pages_spanned(addr, size, n));
	if (threads_counted) {
		json_object_set_new(out, "lines_total", json_integer((json_int_t)lines_total));
		json_object_set_new(out, "lines_shared", json_integer((json_int_t)lines_shared));
	}
	return out;
}

static int count_field(const json_t *r, const char *key, int required, uint64_t *out, char *err, size_t err_len)
{
	json_t *v = json_object_get(r, key);
	if (v == NULL && !required)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		snprintf(err, err_len, "placement %s is missing or not a non-negative whole number", key);
		return -1;
	}
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

int alloclab_placement_check(const json_t *r, char *err, size_t err_len)
{
	uint64_t line = 0, blocks = 0, strad = 0, total = 0, shared = 0, distinct = 0, pages = 0;
	json_t *offsets = json_object_get(r, "offsets"), *sizes = json_object_get(r, "sizes"), *x;
	const char *key;
	size_t i;

	if (!json_is_object(r)) {
		snprintf(err, err_len, "placement is not an object");
		return -1;
	}
	if (count_field(r, "line_size", 1, &line, err, err_len) || count_field(r, "blocks", 1, &blocks, err, err_len) ||
	    count_field(r, "straddling", 1, &strad, err, err_len) ||
	    count_field(r, "lines_total", 0, &total, err, err_len) ||
	    count_field(r, "lines_shared", 0, &shared, err, err_len) ||
	    count_field(r, "distinct_sizes", 0, &distinct, err, err_len) ||
	    count_field(r, "pages", 0, &pages, err, err_len))
		return -1;
	if (line < 8 || line > 256 || (line & (line - 1))) {
		snprintf(err, err_len, "placement line_size %llu is not a power of two in 8..256", (unsigned long long)line);
		return -1;
	}
	if (strad > blocks || shared > total) {
		snprintf(err, err_len, "placement counts do not add up (straddling > blocks or shared > total lines)");
		return -1;
	}
	if (!json_is_array(offsets) || json_array_size(offsets) != line) {
		snprintf(err, err_len, "placement offsets is not an array of line_size entries");
		return -1;
	}
	json_array_foreach(offsets, i, x)
		if (!json_is_integer(x) || json_integer_value(x) < 0) {
			snprintf(err, err_len, "placement offsets[%zu] is not a non-negative whole number", i);
			return -1;
		}
	if (sizes != NULL) {
		if (!json_is_object(sizes) || json_object_size(sizes) > 4096) {
			snprintf(err, err_len, "placement sizes is not an object");
			return -1;
		}
		json_object_foreach(sizes, key, x)
			if (!json_is_integer(x) || json_integer_value(x) < 0) {
				snprintf(err, err_len, "placement sizes['%.32s'] is not a non-negative whole number", key);
				return -1;
			}
	}
	return 0;
}

void alloclab_placement_add(struct alloclab_placement_sum *sum, const json_t *r)
{
	json_t *x;
	size_t i;

	sum->line_size = (uint64_t)json_integer_value(json_object_get(r, "line_size"));
	sum->blocks += (uint64_t)json_integer_value(json_object_get(r, "blocks"));
	sum->straddling += (uint64_t)json_integer_value(json_object_get(r, "straddling"));
	sum->pages += (uint64_t)json_integer_value(json_object_get(r, "pages"));
	if (json_object_get(r, "lines_total")) {
		sum->threads_counted = 1;
		sum->lines_total += (uint64_t)json_integer_value(json_object_get(r, "lines_total"));
		sum->lines_shared += (uint64_t)json_integer_value(json_object_get(r, "lines_shared"));
	}
	json_array_foreach(json_object_get(r, "offsets"), i, x)
		if (i < 256)
			sum->offsets[i] += (uint64_t)json_integer_value(x);
}

int alloclab_placement_check_report(int per_process, const json_t *report, char *err, size_t err_len)
{
	if (!per_process) {
		snprintf(err, err_len, "this workload makes no per-value reports");
		return -1;
	}
	return alloclab_placement_check(json_object_get(report, "placement"), err, err_len);
}
