/*
 * The fuzz target of the results reader: any bytes as a results file. A
 * document the reader accepts must then be safe for everything downstream
 * (the run table and every workload's report, a comparison with itself,
 * the figures), so those run on it too. Built as a libFuzzer target with
 * clang (tests/meson.build, the 'fuzz' setup) and, with any compiler, as a
 * replay of the corpus and of every crash ever found (replay.c).
 */
#include "cells.h"
#include "formats.h"
#include "statistics/comparison.h"
#include "export.h"
#include "figures/figure.h"
#include "plot.h"
#include "registry.h"
#include "report.h"
#include "results/results.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	char err[1024];
	json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	struct alloclab_results *r;

	if (doc == NULL)
		return 0;
	r = alloclab_results_from_json(doc, "fuzz.json", alloclab_workload_check_report, err, sizeof err);
	json_decref(doc);
	if (r == NULL)
		return 0;
	if (sink == NULL)
		sink = fopen("/dev/null", "w");
	alloclab_report_print(r, sink, 1);
	{
		struct alloclab_column cols[2] = {{"a", r, NULL}, {"b", r, NULL}};
		struct alloclab_compare_opts o = {ALLOCLAB_TEST_RANK, 1.0, {0, -1, NULL, ALLOCLAB_MEMORY_NONE},
						  alloclab_row_names};
		/* Every format of it, from the one struct. */
		struct alloclab_comparison *cmp = alloclab_compare(cols, 2, &o, err, sizeof err);
		for (const struct alloclab_output_format *f = alloclab_output_formats; cmp && f->name; f++)
			if (f->compare)
				f->compare(cmp, sink);
		alloclab_comparison_free(cmp);
		/* A latency percentile, of every op and of one. */
		o.measure.quantile = 0.99;
		alloclab_comparison_free(alloclab_compare(cols, 2, &o, err, sizeof err));
		o.measure.op = 0;
		o.measure.quantile = 1;
		alloclab_comparison_free(alloclab_compare(cols, 2, &o, err, sizeof err));
	}
	{
		/* The exports, of every plugin and of one. */
		unsigned skipped;
		json_decref(alloclab_export_pyperf(r, NULL, &skipped, err, sizeof err));
		if (r->ncells)
			json_decref(alloclab_export_pyperf(r, r->cells[0].plugin, &skipped, err, sizeof err));
		alloclab_export_csv(r, NULL, sink, &skipped, err, sizeof err);
	}
	{
		struct alloclab_figure_list figures = {0};
		alloclab_plot_figures(r, NULL, &figures);
		alloclab_figure_list_free(&figures);
	}
	alloclab_results_free(r);
	return 0;
}
