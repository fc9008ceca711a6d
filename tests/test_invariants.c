/*
 * The invariants the headers state, each with its checker: a healthy
 * structure passes, and each breach the header names is caught. (The
 * checkers run by themselves in debug builds and with -Dinvariants=true,
 * where the whole suite exercises them; here they are called directly, so
 * they are tested in every build.)
 */
#include "helpers.h"
#include "aborts.h"
#include "base/invariant.h"
#include "measure/latency_hist.h"
#include "memory/block_map.h"
#include "process/memory_timeline.h"
#include "results/results.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static struct alloclab_lat_hist hist(unsigned n, const unsigned *index, const uint64_t *counts)
{
	struct alloclab_lat_hist h = {0};
	h.index = malloc((n + 1) * sizeof *h.index);
	h.counts = malloc((n + 1) * sizeof *h.counts);
	for (unsigned i = 0; i < n; i++) {
		h.index[i] = index[i];
		h.counts[i] = counts[i];
		h.count += counts[i];
	}
	h.n = n;
	h.max_units = n ? alloclab_lat_bucket_low(index[n - 1]) : 0;
	return h;
}

Test(invariants, latency_histograms)
{
	unsigned idx[] = {3, 40, 200};
	uint64_t cnt[] = {5, 1, 2};
	struct alloclab_lat_hist h = hist(3, idx, cnt);
	cr_expect(alloclab_lat_hist_valid(&h));
	h.index[1] = 3; /* not strictly increasing */
	cr_expect_not(alloclab_lat_hist_valid(&h));
	h.index[1] = 40;
	h.count++; /* counts no longer sum to the total */
	cr_expect_not(alloclab_lat_hist_valid(&h));
	h.count--;
	h.max_units = 0; /* the largest call below its bucket */
	cr_expect_not(alloclab_lat_hist_valid(&h));
	h.max_units = alloclab_lat_bucket_low(200);
	h.over_1us = 1, h.over_100us = 2; /* more over 100 us than over 1 us */
	cr_expect_not(alloclab_lat_hist_valid(&h));
	alloclab_lat_hist_clear(&h);

	/* A merge keeps them, and the slowest calls stay slowest first. */
	struct alloclab_latency *l = alloclab_latency_new(1, 0), *m = alloclab_latency_new(1, 0);
	struct alloclab_lat_dense d;
	memset(&d, 0, sizeof d);
	d.b[7] = 3, d.b[90] = 1, d.max_units = alloclab_lat_bucket_low(90);
	alloclab_latency_add_dense(l, 0, &d);
	alloclab_latency_add_dense(m, 0, &d);
	for (uint64_t u = 1; u < 40; u++)
		alloclab_latency_offer_slow(l, &(struct alloclab_lat_slow){0, u * 7 % 31, 8, 0, -1});
	alloclab_latency_merge(m, l);
	cr_expect(alloclab_latency_valid(m));
	cr_expect_eq(m->op[0].count, 8);
	m->slow[0].units = 0; /* out of order */
	cr_expect_not(alloclab_latency_valid(m));
	alloclab_latency_free(l);
	alloclab_latency_free(m);
}

Test(invariants, block_map)
{
	struct alloclab_block_map m;
	cr_assert_eq(alloclab_block_map_init(&m), 0);
	cr_expect(alloclab_block_map_valid(&m));
	/* Through a rebuild or two, with tombstones and a foreign free. */
	for (uintptr_t i = 1; i <= 100000; i++) {
		alloclab_block_map_alloc(&m, (void *)(i * 16), i % 100);
		if (i % 3 == 0)
			alloclab_block_map_release(&m, (void *)((i - 1) * 16));
	}
	alloclab_block_map_release(&m, (void *)8);
	cr_expect(alloclab_block_map_valid(&m));
	cr_expect_eq(m.foreign_frees, 1);
	m.live_bytes += 1; /* the sum no longer matches the entries */
	cr_expect_not(alloclab_block_map_valid(&m));
	m.live_bytes -= 1;
	m.used = m.cap; /* no empty slot left to end a probe */
	cr_expect_not(alloclab_block_map_valid(&m));
	alloclab_block_map_free(&m);
}

Test(invariants, memory_timeline)
{
	char *phases[] = {"load", "run 1"};
	struct alloclab_memory_sample s[] = {{0, 100, 50, -1, -1, 0}, {5, 200, 150, 0, 10, 1}};
	struct alloclab_memory_timeline t = {10, 10, phases, 2, s, 2};
	char why[200];
	cr_expect_eq(alloclab_memory_timeline_valid(&t, why, sizeof why), 0, "%s", why);
	s[1].t_ms = -1; /* going back in time */
	cr_expect_neq(alloclab_memory_timeline_valid(&t, why, sizeof why), 0);
	cr_expect(strstr(why, "samples[1]"), "%s", why);
	s[1].t_ms = 5;
	s[1].phase = 2; /* no such phase */
	cr_expect_neq(alloclab_memory_timeline_valid(&t, why, sizeof why), 0);
	s[1].phase = 1;
	t.interval_ms = 5; /* an interval under the one asked for */
	cr_expect_neq(alloclab_memory_timeline_valid(&t, why, sizeof why), 0);
}

/* The results model: one made as the runner makes it passes; each breach
 * of what results.h states is named. */
Test(invariants, results_model)
{
	struct alloclab_results *r = alloclab_results_new(0, NULL, NULL);
	struct alloclab_plugin_info info = {.label = "system", .spec = "system", .name = "system"};
	alloclab_results_add_plugin(r, &info);
	struct alloclab_cell tmpl = {.plugin = "system", .workload = "churn", .threads = 1,
				     .metric = ALLOCLAB_METRIC_TIME};
	struct alloclab_cell *c = alloclab_results_add_cell(r, &tmpl);
	char why[200] = "";
	cr_expect(alloclab_results_consistent(r, why, sizeof why), "%s", why);
	alloclab_cell_set_status(c, ALLOCLAB_CELL_OK, NULL); /* ok with no measurement */
	cr_expect_not(alloclab_results_consistent(r, why, sizeof why));
	cr_expect(strstr(why, "cell 0"), "%s", why);

	struct alloclab_process p = {0};
	p.values = calloc(1, sizeof *p.values);
	p.nvalues = 1;
	p.values[0].thread_ns = calloc(1, sizeof(uint64_t));
	p.values[0].thread_ops = calloc(1, sizeof(uint64_t));
	p.values[0].per_op = 12.5;
	alloclab_cell_add_process(c, &p);
	cr_expect(alloclab_results_consistent(r, why, sizeof why), "%s", why);
	c->procs[0].values[0].per_op = 0; /* a value that took no time */
	cr_expect_not(alloclab_results_consistent(r, why, sizeof why));
	c->procs[0].values[0].per_op = 12.5;
	alloclab_cell_set_status(c, ALLOCLAB_CELL_ERROR, NULL); /* a failure that does not say why */
	cr_expect_not(alloclab_results_consistent(r, why, sizeof why));
	alloclab_cell_set_status(c, ALLOCLAB_CELL_NOT_APPLICABLE, "no"); /* not applicable, yet measured */
	cr_expect_not(alloclab_results_consistent(r, why, sizeof why));
	alloclab_cell_set_status(c, ALLOCLAB_CELL_OK, NULL);
	c->plugin_index = 3; /* names no plugin */
	cr_expect_not(alloclab_results_consistent(r, why, sizeof why));
	alloclab_results_free(r);
}

static void write_a_broken_model(void)
{
	struct alloclab_results *r = alloclab_results_new(0, NULL, NULL);
	struct alloclab_cell tmpl = {.plugin = "system", .workload = "churn", .threads = 1,
				     .metric = ALLOCLAB_METRIC_TIME};
	struct alloclab_cell *c = alloclab_results_add_cell(r, &tmpl);
	alloclab_cell_set_status(c, ALLOCLAB_CELL_OK, NULL);
	json_decref(alloclab_results_to_json(r));
}

/* In a build that checks invariants, the writer refuses to write a model
 * that breaks them: a bug of alloclab's stops where it is made. */
Test(invariants, the_writer_checks_the_model)
{
	if (!ALLOCLAB_INVARIANTS_CHECKED)
		cr_skip_test("a release build does not check invariants as it runs (-Dinvariants=true does)");
	cr_expect(aborts(write_a_broken_model), "the writer wrote an ok cell with no measurement");
}
