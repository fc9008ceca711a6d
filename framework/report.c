/* The run table. See report.h. */
#include "report.h"

#include "cells.h"
#include "summary.h"
#include "workload.h"

#include <stdlib.h>
#include <string.h>

static long peak_rss_kib(const json_t *cell)
{
	json_t *run;
	size_t i;
	long peak = 0;

	json_array_foreach(json_object_get(cell, "runs"), i, run)
	{
		long r = (long)json_integer_value(json_object_get(run, "peak_rss_kib"));
		if (r > peak)
			peak = r;
	}
	return peak;
}

static void param_text(const json_t *cell, char *out, size_t len)
{
	const char *key;
	json_t *value;
	size_t used = 0;

	out[0] = '\0';
	json_object_foreach((json_t *)json_object_get(cell, "params"), key, value)
	{
		if (used >= len)
			break;
		if (json_is_string(value))
			used += (size_t)snprintf(out + used, len - used, "%s%s=%s", used ? "," : "", key,
						 json_string_value(value));
		else
			used += (size_t)snprintf(out + used, len - used, "%s%s=%lld", used ? "," : "", key,
						 (long long)json_integer_value(value));
	}
}

static double cell_median(const json_t *cell)
{
	size_t n;
	double *values = alloclab_cell_values(cell, &n);
	struct alloclab_summary s;

	alloclab_summarize(values, n, &s);
	free(values);
	return s.median;
}

static void print_harness_share(const json_t *doc, FILE *out)
{
	json_t *cells = json_object_get(doc, "cells"), *noop, *other;
	size_t i, k;
	int header = 0;

	json_array_foreach(cells, i, noop)
	{
		if (strcmp(json_string_value(json_object_get(noop, "plugin")), "noop") != 0 ||
		    json_array_size(json_object_get(noop, "runs")) == 0)
			continue;
		json_array_foreach(cells, k, other)
		{
			if (other == noop || strcmp(json_string_value(json_object_get(other, "plugin")), "noop") == 0 ||
			    json_array_size(json_object_get(other, "runs")) == 0 ||
			    !json_equal(json_object_get(other, "params"), json_object_get(noop, "params")) ||
			    strcmp(json_string_value(json_object_get(other, "workload")),
				   json_string_value(json_object_get(noop, "workload"))) != 0 ||
			    json_integer_value(json_object_get(other, "threads")) !=
				    json_integer_value(json_object_get(noop, "threads")))
				continue;
			if (!header) {
				fprintf(out, "\nharness cost (noop plugin's ns/op as a share of each plugin's, same run):\n");
				header = 1;
			}
			double h = cell_median(noop), p = cell_median(other);
			char label[256];
			alloclab_cell_label(other, label, sizeof label);
			fprintf(out, "  %s threads=%lld: noop %.2f ns/op = %.1f%% of %s (%.2f ns/op)\n",
				json_string_value(json_object_get(other, "workload")),
				(long long)json_integer_value(json_object_get(other, "threads")), h, 100.0 * h / p, label, p);
		}
	}
}

static double cell_median(const json_t *cell);

/* With --cache-align both: each plugin's aligned cell against its unaligned
 * twin (same workload, parameters, threads). */
static void print_alignment_effect(const json_t *doc, FILE *out)
{
	json_t *cells = json_object_get(doc, "cells"), *a, *u;
	size_t i, k;
	int header = 0;

	json_array_foreach(cells, i, a)
	{
		if (!json_is_true(json_object_get(a, "cache_aligned")) || json_array_size(json_object_get(a, "runs")) == 0)
			continue;
		json_array_foreach(cells, k, u)
		{
			if (json_is_true(json_object_get(u, "cache_aligned")) ||
			    json_array_size(json_object_get(u, "runs")) == 0 ||
			    json_integer_value(json_object_get(u, "plugin_index")) !=
				    json_integer_value(json_object_get(a, "plugin_index")) ||
			    !json_equal(json_object_get(u, "params"), json_object_get(a, "params")) ||
			    strcmp(json_string_value(json_object_get(u, "workload")),
				   json_string_value(json_object_get(a, "workload"))) != 0 ||
			    json_integer_value(json_object_get(u, "threads")) != json_integer_value(json_object_get(a, "threads")))
				continue;
			if (!header) {
				fprintf(out, "\ncache-line alignment (aligned ns/op / unaligned ns/op, same run; < 1: aligned is faster):\n");
				header = 1;
			}
			char label[256];
			double ra = cell_median(a), ru = cell_median(u);
			alloclab_cell_label(u, label, sizeof label);
			fprintf(out, "  %-32s %-8s threads=%lld: %.2f / %.2f = %.3f\n", label,
				json_string_value(json_object_get(a, "workload")),
				(long long)json_integer_value(json_object_get(a, "threads")), ra, ru, ra / ru);
		}
	}
}

void alloclab_report_print(const json_t *doc, FILE *out, int workload_reports)
{
	json_t *cell;
	size_t i;
	int pw = 6, ww = 8;

	json_array_foreach(json_object_get(doc, "cells"), i, cell)
	{
		char label[256];
		alloclab_cell_label(cell, label, sizeof label);
		if ((int)strlen(label) > pw)
			pw = (int)strlen(label);
		if ((int)strlen(json_string_value(json_object_get(cell, "workload"))) > ww)
			ww = (int)strlen(json_string_value(json_object_get(cell, "workload")));
	}
	fprintf(out, "%-*s  %-*s %7s %10s %7s %9s %10s  %s\n", pw, "plugin", ww, "workload", "threads", "ns/op", "±%",
		"Mops/s", "peak RSS", "parameters / status");
	json_array_foreach(json_object_get(doc, "cells"), i, cell)
	{
		const char *status = json_string_value(json_object_get(cell, "status"));
		const char *workload = json_string_value(json_object_get(cell, "workload"));
		long long threads = (long long)json_integer_value(json_object_get(cell, "threads"));
		char params[256], label[256];
		size_t n;
		double *values = alloclab_cell_values(cell, &n);
		struct alloclab_summary s;

		alloclab_cell_label(cell, label, sizeof label);
		param_text(cell, params, sizeof params);
		alloclab_summarize(values, n, &s);
		free(values);
		fprintf(out, "%-*s  %-*s %7lld ", pw, label, ww, workload, threads);
		if (strcmp(status, "error") == 0)
			fprintf(out, "%10s %7s %9s %10s  error: %s\n", "-", "-", "-", "-",
				json_string_value(json_object_get(cell, "error")));
		else if (strcmp(status, "not applicable") == 0)
			fprintf(out, "%10s %7s %9s %10s  not applicable: %s\n", "-", "-", "-", "-",
				json_string_value(json_object_get(cell, "reason")));
		else if (n == 0)
			fprintf(out, "%10s %7s %9s %10s  not measured (interrupted)\n", "-", "-", "-", "-");
		else if (n < 2)
			/* One value has no spread: "-", not a reassuring 0%. */
			fprintf(out, "%10.2f %7s %9.1f %6.1f MiB  %s%s\n", s.median, "-",
				s.median > 0 ? 1000.0 * (double)threads / s.median : 0.0,
				(double)peak_rss_kib(cell) / 1024.0, params,
				strcmp(status, "ok") == 0 ? "" : " (partial: interrupted)");
		else
			fprintf(out, "%10.2f %6.1f%% %9.1f %6.1f MiB  %s%s\n", s.median,
				s.mean > 0 ? 100.0 * s.stdev / s.mean : 0.0,
				s.median > 0 ? 1000.0 * (double)threads / s.median : 0.0,
				(double)peak_rss_kib(cell) / 1024.0, params,
				strcmp(status, "ok") == 0 ? "" : " (partial: interrupted)");
	}
	print_harness_share(doc, out);
	print_alignment_effect(doc, out);
	/* Workloads with a report of their own (unicode: the seed's lines). */
	json_array_foreach(json_object_get(doc, "cells"), i, cell)
	{
		if (!workload_reports)
			break;
		const struct alloclab_workload *w =
			alloclab_workload_find(json_string_value(json_object_get(cell, "workload")));
		if (w && w->print_cell && json_array_size(json_object_get(cell, "runs")) > 0)
			w->print_cell(cell, out);
	}
}
