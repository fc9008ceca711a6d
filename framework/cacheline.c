/* Cache-line placement arithmetic. See cacheline.h. */
#include "cacheline.h"

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
