/*
 * ticks: a test workload, added as the README says a workload is added (this
 * file, and its name in tests/meson.build's test_workload_names). Each
 * thread allocates and frees `count` blocks of `size` bytes per value, holds
 * `hold` of them live for the placement service, and reports how many bytes
 * it asked for. It has a report of its own, a row name and a picture, so
 * the test can see that every part of the interface reaches the commands.
 */
#include "figures/figure.h"
#include "results/results.h"
#include "workload/workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { P_SIZE, P_COUNT, P_HOLD, P_FAIL };

static const struct alloclab_param ticks_params[] = {
	[P_SIZE] = {.name = "size", .help = "bytes per block", .def = 24, .min = 1, .max = 4096},
	[P_COUNT] = {.name = "count", .help = "blocks per thread per value", .def = 1000, .min = 1, .max = 1 << 24},
	[P_HOLD] = {.name = "hold", .help = "blocks held live for the placement pass", .def = 64, .min = 1, .max = 4096},
	[P_FAIL] = {.name = "fail", .help = "1: thread 0's prepare fails at once", .def = 0, .min = 0, .max = 1},
};

static uint64_t process_started_ns; /* the first prepare's clock (a process measures one cell) */

static int ticks_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	if (process_started_ns == 0) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		process_started_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	if (t->params->v[P_FAIL] && t->index == 0) {
		snprintf(err, err_len, "ticks: prepare failed on purpose");
		return -1;
	}
	return 0;
}

static void ticks_run(struct alloclab_workload_thread *t)
{
	uint64_t n = t->params->v[P_COUNT], size = t->params->v[P_SIZE], i;

	for (i = 0; i < n; i++) {
		unsigned char *p = alloclab_malloc(t->alloc, size);
		if (p == NULL) {
			t->error = "ticks: malloc returned NULL";
			break;
		}
		p[0] = 1;
		alloclab_free(t->alloc, p);
	}
	t->ops = i;
	/* When the process measured: the order the runner visited cells in. */
	t->report = json_pack("{s:I,s:I}", "bytes", (json_int_t)(i * size), "process_started_ns", (json_int_t)process_started_ns);
}

static void ticks_finish(struct alloclab_workload_thread *t)
{
	size_t hold = t->params->v[P_HOLD];
	void **blocks = calloc(hold, sizeof *blocks);
	uintptr_t *addr = calloc(hold, sizeof *addr);
	size_t *size = calloc(hold, sizeof *size);
	json_t *placement;

	if (!t->last_value)
		goto out;
	for (size_t i = 0; i < hold; i++) {
		blocks[i] = alloclab_malloc(t->alloc, t->params->v[P_SIZE]);
		addr[i] = (uintptr_t)blocks[i];
		size[i] = t->params->v[P_SIZE];
	}
	placement = t->placement(t, addr, size, hold);
	if (placement)
		t->process_report = json_pack("{s:o}", "placement", placement);
	for (size_t i = 0; i < hold; i++)
		alloclab_free(t->alloc, blocks[i]);
out:
	free(blocks);
	free(addr);
	free(size);
}

static int ticks_check_report(int per_process, const json_t *report, char *err, size_t err_len)
{
	if (per_process)
		return json_is_object(json_object_get(report, "placement")) ? 0
			: (snprintf(err, err_len, "ticks process report has no placement"), -1);
	json_t *bytes = json_object_get(report, "bytes");
	if (!json_is_integer(bytes) || json_integer_value(bytes) < 0) {
		snprintf(err, err_len, "ticks report's bytes is not a non-negative whole number");
		return -1;
	}
	return 0;
}

static uint64_t cell_bytes(const struct alloclab_cell *cell)
{
	uint64_t bytes = 0;

	for (struct alloclab_report_iter it = alloclab_reports(cell, ALLOCLAB_REPORTS_PER_VALUE); alloclab_reports_next(&it);)
		bytes += (uint64_t)json_integer_value(json_object_get(it.report, "bytes"));
	return bytes;
}

static void ticks_print_cell(const struct alloclab_cell *cell, FILE *out)
{
	fprintf(out, "\nticks report: %s asked for %llu bytes in all\n", cell->plugin,
		(unsigned long long)cell_bytes(cell));
}

static void ticks_row_name(const struct alloclab_cell *cell, char *out, size_t len)
{
	snprintf(out, len, "ticks of %lld bytes", (long long)json_integer_value(json_object_get(cell->params, "size")));
}

static void ticks_figures(const struct alloclab_cell *const *cells, size_t n, struct alloclab_figure_list *out)
{
	struct alloclab_figure *f = alloclab_figure_add(out, "ticks-bytes", "ticks: bytes asked for", "cell",
							"bytes", ALLOCLAB_FIGURE_LINES);
	struct alloclab_series *s = alloclab_figure_series(f, "bytes", n);
	for (size_t i = 0; i < n; i++) {
		s->x[i] = (double)i;
		s->y[i] = (double)cell_bytes(cells[i]);
	}
}

const struct alloclab_workload alloclab_workload_ticks = {
	.name = "ticks",
	.description = "a test workload: fixed-size malloc/free pairs",
	.unit_op = "malloc+free",
	.params = ticks_params,
	.nparams = sizeof ticks_params / sizeof ticks_params[0],
	.max_threads = 2,
	.prepare = ticks_prepare,
	.run = ticks_run,
	.finish = ticks_finish,
	.check_report = ticks_check_report,
	.print_cell = ticks_print_cell,
	.row_name = ticks_row_name,
	.figures = ticks_figures,
};
