/* A run configuration as a caller fills it. See runner.h. */
#define _GNU_SOURCE 1
#include "run/runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void alloclab_run_config_init(struct alloclab_run_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->processes = 5;
	cfg->ci_percent = 2;
	cfg->max_processes = 40;
	cfg->values = 3;
	cfg->warmups = 1;
	cfg->sample_ms = 10;
	cfg->timeout_s = 120;
	/* Paired mode alternates whole values by default. Slices of 2,000
	 * operations made an A/A pair ten times tighter, but a real pair's ratio
	 * wrong: the plugins' memory leaves the caches between slices, and a
	 * cache-bound workload then measures each plugin cold. On churn,
	 * mimalloc over glibc read 0.44 in slices against 0.40 in whole values
	 * (0.38 measured apart); in the default suite's group of eight, 0.58
	 * against 0.41, and obmalloc-radix 0.69 against 0.81
	 * (docs/measurements/paired.md, benchmarks/paired-slices.sh). An
	 * untimed part before each slice took back less than half of it. */
	cfg->slice_ops = 0;
	cfg->slice_warm = 0;
}

int alloclab_run_config_add_plugin(struct alloclab_run_config *cfg, const char *plugin, const char *options,
				   const char *label, const char *source, char *err, size_t err_len)
{
	if (cfg->nplugins == ALLOCLAB_MAX_MATRIX) {
		snprintf(err, err_len, "more than %d plugins", ALLOCLAB_MAX_MATRIX);
		return -1;
	}
	if (plugin == NULL || plugin[0] == '\0') {
		snprintf(err, err_len, "a plugin needs a name or a path");
		return -1;
	}
	/* The options' own words (gil=, as=, source=) are taken as a -p's
	 * are; the plugin is named whole, so a path may hold ':' or ".so:". */
	char *text = NULL;
	if (asprintf(&text, ":%s", options ? options : "") < 0) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	struct alloclab_plugin_arg *arg = &cfg->plugins[cfg->nplugins];
	alloclab_plugin_arg_parse(text, arg);
	free(text);
	free(arg->spec);
	arg->spec = strdup(plugin);
	if (label) {
		free(arg->as);
		arg->as = strdup(label);
	}
	if (source) {
		free(arg->source);
		arg->source = strdup(source);
	}
	cfg->nplugins++;
	return 0;
}

int alloclab_run_config_add_workload(struct alloclab_run_config *cfg, const struct alloclab_workload_spec *spec,
				     unsigned max_threads, char *err, size_t err_len)
{
	if (cfg->nworkloads == ALLOCLAB_MAX_MATRIX) {
		snprintf(err, err_len, "more than %d workloads", ALLOCLAB_MAX_MATRIX);
		return -1;
	}
	if (spec == NULL || spec->workload == NULL) {
		snprintf(err, err_len, "a workload spec names no workload");
		return -1;
	}
	cfg->workloads[cfg->nworkloads] = *spec;
	cfg->workload_max_threads[cfg->nworkloads++] = max_threads;
	return 0;
}

int alloclab_run_config_threads(struct alloclab_run_config *cfg, const unsigned *threads, unsigned n, char *err,
				size_t err_len)
{
	if (n == 0 || n > ALLOCLAB_MAX_MATRIX) {
		snprintf(err, err_len, "a run needs 1 to %d thread counts, not %u", ALLOCLAB_MAX_MATRIX, n);
		return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		if (threads[i] < 1 || threads[i] > ALLOCLAB_MAX_THREADS) {
			snprintf(err, err_len, "thread count %u is not in 1..%d", threads[i], ALLOCLAB_MAX_THREADS);
			return -1;
		}
		for (unsigned k = 0; k < i; k++)
			if (threads[k] == threads[i]) {
				snprintf(err, err_len, "thread count %u given twice", threads[i]);
				return -1;
			}
		cfg->threads[i] = threads[i];
	}
	cfg->nthreads = n;
	return 0;
}

void alloclab_run_config_clear(struct alloclab_run_config *cfg)
{
	for (unsigned i = 0; i < cfg->npair; i++)
		free((char *)cfg->pair[i]);
	cfg->npair = 0;
	for (unsigned i = 0; i < cfg->nplugins; i++)
		alloclab_plugin_arg_clear(&cfg->plugins[i]);
	cfg->nplugins = 0;
}
