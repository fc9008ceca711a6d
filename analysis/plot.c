/*
 * Pictures of a run, drawn by gnuplot (Debian's gnuplot-nox): for every
 * workload, the plugins side by side normalised to a baseline with error
 * bars; thread scaling when the run has several thread counts; and the
 * cache-line offset histogram when the run recorded block placement. Each
 * picture is written as PNG and SVG, with a title, axis labels and units.
 */
#define _GNU_SOURCE 1
#include "plot.h"

#include "cells.h"
#include "summary.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void cell_summary(const json_t *cell, struct alloclab_summary *s)
{
	size_t n;
	double *values = alloclab_cell_values(cell, &n);
	alloclab_summarize(values, n, s);
	free(values);
}

/* gnuplot strings are single-quoted; a quote inside is doubled. */
static void gp_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

/* Runs gnuplot on a script twice, once per terminal. */
static int run_gnuplot(const char *script, const char *data_dir, const char *out_base, char *err, size_t err_len)
{
	static const char *const terms[][2] = {
		{"pngcairo size 1100,650 font 'sans,10'", "png"},
		{"svg size 1100,650 dynamic font 'sans,10'", "svg"},
	};
	for (size_t t = 0; t < 2; t++) {
		char cmd[8192];
		FILE *p;
		snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot 2>&1", data_dir);
		p = popen(cmd, "w");
		if (p == NULL) {
			snprintf(err, err_len, "cannot run gnuplot: %s", strerror(errno));
			return -1;
		}
		fprintf(p, "set terminal %s\nset output ", terms[t][0]);
		char out[4200];
		snprintf(out, sizeof out, "%s.%s", out_base, terms[t][1]);
		gp_quote(p, out);
		fprintf(p, "\n%s\nset output\n", script);
		int status = pclose(p);
		if (status != 0) {
			snprintf(err, err_len, "gnuplot failed drawing %s (status %d)", out, status);
			return -1;
		}
	}
	return 0;
}

int alloclab_plot_available(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* Distinct values of a string field (or a computed key) in cells. */
struct names {
	char items[128][1100];
	size_t n;
};

static size_t name_index(struct names *s, const char *v)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->items[i], v) == 0)
			return i;
	if (s->n < 128)
		snprintf(s->items[s->n++], sizeof s->items[0], "%s", v);
	return s->n - 1;
}

static int plot_workload(const json_t *doc, const char *workload, const char *baseline, const char *dir,
			 const char *tmp, char *err, size_t err_len)
{
	struct names xs = {.n = 0}, threads = {.n = 0};
	json_t *cell, *mine = json_array(), *varying;
	size_t i;
	static double mean[128][16], sd[128][16];
	int have[128][16];
	char path[4200], script[16384], title[512];
	FILE *f;

	memset(have, 0, sizeof have);
	json_array_foreach(json_object_get(doc, "cells"), i, cell)
	{
		if (strcmp(json_string_value(json_object_get(cell, "workload")), workload) != 0 ||
		    json_array_size(json_object_get(cell, "runs")) == 0)
			continue;
		json_array_append(mine, cell);
	}
	varying = alloclab_varying_params(mine);
	json_decref(mine);
	json_array_foreach(json_object_get(doc, "cells"), i, cell)
	{
		char x[1024], t[32];
		struct alloclab_summary s;
		if (strcmp(json_string_value(json_object_get(cell, "workload")), workload) != 0 ||
		    json_array_size(json_object_get(cell, "runs")) == 0)
			continue;
		alloclab_cell_label(cell, x, sizeof x);
		alloclab_append_params(json_object_get(cell, "params"), varying, x, sizeof x);
		snprintf(t, sizeof t, "%lld", (long long)json_integer_value(json_object_get(cell, "threads")));
		size_t xi = name_index(&xs, x), ti = name_index(&threads, t);
		if (xi >= 128 || ti >= 16)
			continue;
		cell_summary(cell, &s);
		mean[xi][ti] = s.mean;
		sd[xi][ti] = s.stdev;
		have[xi][ti] = 1;
	}
	json_decref(varying);
	if (xs.n == 0)
		return 0;

	/* The baseline: the named plugin, or the first. */
	size_t base = 0;
	for (size_t k = 0; baseline && k < xs.n; k++)
		if (strncmp(xs.items[k], baseline, strlen(baseline)) == 0 &&
		    (xs.items[k][strlen(baseline)] == '\0' || xs.items[k][strlen(baseline)] == ' ')) {
			base = k;
			break;
		}

	/* 1. Plugins side by side, normalised to the baseline (lower is faster). */
	snprintf(path, sizeof path, "%s/%s-plugins.dat", tmp, workload);
	f = fopen(path, "w");
	if (f == NULL) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	for (size_t k = 0; k < xs.n; k++) {
		fputc('"', f);
		for (const char *c = xs.items[k]; *c; c++)
			fputc(*c == '"' ? '\'' : *c, f);
		fputc('"', f);
		for (size_t t = 0; t < threads.n; t++) {
			if (have[k][t] && have[base][t] && mean[base][t] > 0)
				fprintf(f, " %.6f %.6f", mean[k][t] / mean[base][t], sd[k][t] / mean[base][t]);
			else
				fprintf(f, " NaN NaN");
		}
		fputc('\n', f);
	}
	fclose(f);
	snprintf(title, sizeof title, "%s: time per operation relative to %s (lower is faster)", workload, xs.items[base]);
	size_t used = (size_t)snprintf(script, sizeof script,
		"set title '%s'\n"
		"set ylabel 'ns per operation / %s (ratio)'\n"
		"set xlabel 'plugin'\n"
		"set style data histogram\n"
		"set style histogram errorbars gap 2 lw 1\n"
		"set style fill solid 0.6 border -1\n"
		"set yrange [0:*]\n"
		"set grid ytics\n"
		"set xtics rotate by -25 noenhanced\n"
		"set key top left noenhanced\n"
		"set bmargin 8\n"
		"plot ",
		title, xs.items[base]);
	for (size_t t = 0; t < threads.n && used < sizeof script; t++)
		used += (size_t)snprintf(script + used, sizeof script - used,
					 "%s'%s-plugins.dat' using %zu:%zu%s title '%s thread%s'", t ? ", " : "",
					 workload, 2 + 2 * t, 3 + 2 * t, t == 0 ? ":xtic(1)" : "", threads.items[t],
					 strcmp(threads.items[t], "1") ? "s" : "");
	snprintf(path, sizeof path, "%s/%s-plugins", dir, workload);
	if (run_gnuplot(script, tmp, path, err, err_len) != 0)
		return -1;

	/* 2. Thread scaling: aggregate throughput against threads. */
	if (threads.n >= 2) {
		snprintf(path, sizeof path, "%s/%s-scaling.dat", tmp, workload);
		f = fopen(path, "w");
		if (f == NULL) {
			snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
			return -1;
		}
		for (size_t k = 0; k < xs.n; k++) {
			for (size_t t = 0; t < threads.n; t++)
				if (have[k][t])
					fprintf(f, "%s %.6f\n", threads.items[t], 1000.0 * atof(threads.items[t]) / mean[k][t]);
			fputs("\n\n", f);
		}
		fclose(f);
		used = (size_t)snprintf(script, sizeof script,
			"set title '%s: thread scaling (higher is better)'\n"
			"set xlabel 'threads'\n"
			"set ylabel 'throughput (million operations per second, all threads)'\n"
			"set grid\n"
			"set key top left noenhanced\n"
			"set yrange [0:*]\n"
			"set xtics 1\n"
			"set autoscale xfix\n"
			"set offsets 0.15, 0.15, 0, 0\n"
			"plot ",
			workload);
		for (size_t k = 0; k < xs.n && used < sizeof script; k++) {
			used += (size_t)snprintf(script + used, sizeof script - used, "%s'%s-scaling.dat' index %zu using 1:2 with linespoints title ",
						 k ? ", " : "", workload, k);
			char q[1100];
			size_t qn = 0;
			q[qn++] = '\'';
			for (const char *c = xs.items[k]; *c && qn < sizeof q - 3; c++) {
				if (*c == '\'')
					q[qn++] = '\'';
				q[qn++] = *c;
			}
			q[qn++] = '\'';
			q[qn] = '\0';
			used += (size_t)snprintf(script + used, sizeof script - used, "%s", q);
		}
		snprintf(path, sizeof path, "%s/%s-scaling", dir, workload);
		if (run_gnuplot(script, tmp, path, err, err_len) != 0)
			return -1;
	}
	return 0;
}

/* 3. Cache-line offsets of every block the unicode workload placed, summed
 * over its lines, one curve per plugin (first thread count seen). */
static int plot_offsets(const json_t *doc, const char *dir, const char *tmp, char *err, size_t err_len)
{
	json_t *cell;
	size_t i, curves = 0, line_size = 64;
	char path[4200], script[16384];
	FILE *f;
	size_t used;

	snprintf(path, sizeof path, "%s/offsets.dat", tmp);
	f = fopen(path, "w");
	if (f == NULL) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	used = (size_t)snprintf(script, sizeof script,
		"set title 'Where blocks start within a cache line'\n"
		"set xlabel 'offset of the block start within its cache line (bytes)'\n"
		"set ylabel 'share of blocks (%%)'\n"
		"set grid\n"
		"set key top right noenhanced\n"
		"set style data linespoints\n"
		"plot ");
	json_array_foreach(json_object_get(doc, "cells"), i, cell)
	{
		json_t *run = json_array_get(json_object_get(cell, "runs"), 0);
		json_t *rep = json_array_get(json_object_get(json_array_get(json_object_get(run, "values"), 0), "thread_reports"), 0);
		json_t *lines = json_object_get(rep, "lines"), *line;
		double hist[256] = {0}, total = 0;
		size_t k;
		char label[600];

		if (!json_is_array(lines) || curves >= 32)
			continue;
		json_array_foreach(lines, k, line)
		{
			json_t *p = json_object_get(line, "placement"), *o;
			size_t b;
			if (p == NULL)
				continue;
			line_size = (size_t)json_integer_value(json_object_get(p, "line_size"));
			json_array_foreach(json_object_get(p, "offsets"), b, o)
				if (b < 256) {
					hist[b] += (double)json_integer_value(o);
					total += (double)json_integer_value(o);
				}
		}
		if (total == 0)
			continue;
		for (size_t b = 0; b < line_size && b < 256; b++)
			fprintf(f, "%zu %.4f\n", b, 100.0 * hist[b] / total);
		fputs("\n\n", f);
		alloclab_cell_label(cell, label, sizeof label);
		snprintf(label + strlen(label), sizeof label - strlen(label), ", %s %s t=%lld",
			 json_string_value(json_object_get(json_object_get(cell, "params"), "layout")),
			 json_string_value(json_object_get(json_object_get(cell, "params"), "variant")),
			 (long long)json_integer_value(json_object_get(cell, "threads")));
		used += (size_t)snprintf(script + used, sizeof script - used, "%s'offsets.dat' index %zu using 1:2 title ",
					 curves ? ", " : "", curves);
		for (const char *c = label; *c && used + 4 < sizeof script; c++) {
			if (c == label)
				script[used++] = '\'';
			if (*c == '\'')
				script[used++] = '\'';
			script[used++] = *c;
		}
		script[used++] = '\'';
		script[used] = '\0';
		curves++;
	}
	fclose(f);
	if (curves == 0)
		return 0;
	snprintf(script + used, sizeof script - used, "\n");
	{
		char extra[64];
		snprintf(extra, sizeof extra, "set xrange [0:%zu]\n", line_size - 1);
		char full[16500];
		snprintf(full, sizeof full, "%s%s", extra, script);
		snprintf(path, sizeof path, "%s/unicode-offsets", dir);
		return run_gnuplot(full, tmp, path, err, err_len);
	}
}

int alloclab_plot(const json_t *doc, const char *out_dir, const char *baseline, char *err, size_t err_len)
{
	struct names workloads = {.n = 0};
	char tmp[] = "/tmp/alloclab-plot-XXXXXX", dir[4096];
	json_t *cell;
	size_t i;
	int rc = 0;

	if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
		snprintf(err, err_len, "cannot create %s: %s", out_dir, strerror(errno));
		return -1;
	}
	/* gnuplot runs in the data folder: the pictures' folder must be absolute. */
	if (realpath(out_dir, dir) == NULL) {
		snprintf(err, err_len, "cannot resolve %s: %s", out_dir, strerror(errno));
		return -1;
	}
	if (mkdtemp(tmp) == NULL) {
		snprintf(err, err_len, "cannot create a temporary folder: %s", strerror(errno));
		return -1;
	}
	json_array_foreach(json_object_get(doc, "cells"), i, cell)
		if (json_array_size(json_object_get(cell, "runs")) > 0)
			name_index(&workloads, json_string_value(json_object_get(cell, "workload")));
	if (workloads.n == 0) {
		snprintf(err, err_len, "the run has no measured cell to draw");
		rc = -1;
	}
	for (size_t w = 0; w < workloads.n && rc == 0; w++)
		rc = plot_workload(doc, workloads.items[w], baseline, dir, tmp, err, err_len);
	if (rc == 0)
		rc = plot_offsets(doc, dir, tmp, err, err_len);
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	if (system(cmd) != 0) {
		/* A leftover temporary folder is not worth failing for. */
	}
	return rc;
}
