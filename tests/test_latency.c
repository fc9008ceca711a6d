/*
 * --latency: the histograms' precision and merging, their reader, and the
 * figures end to end (a plugin that spins a known time on chosen calls,
 * the replay's event index, python, exec, compare, show, plot).
 */
#include "figures/cell_values.h"
#include "helpers.h"
#include "measure/latency_hist.h"
#include "results/results.h"
#include "trace/trace.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 88172645463325252ull;

static uint64_t xorshift(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* n times from 10 ns to 10 s, uniform in their logarithm, in units. */
static uint64_t *raw_times(size_t n)
{
	uint64_t *t = malloc(n * sizeof *t);
	double lo = log(10.0 * ALLOCLAB_LAT_UNITS_PER_NS), hi = log(1e10 * ALLOCLAB_LAT_UNITS_PER_NS);
	for (size_t i = 0; i < n; i++)
		t[i] = (uint64_t)exp(lo + (hi - lo) * (double)(xorshift() >> 11) / 9007199254740992.0);
	return t;
}

static void count_into(struct alloclab_lat_dense *d, const uint64_t *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		d->count++;
		d->sum_units += t[i];
		if (t[i] > d->max_units)
			d->max_units = t[i];
		d->b[alloclab_lat_bucket(t[i])]++;
		d->over_1us += t[i] >= ALLOCLAB_LAT_1US;
		d->over_100us += t[i] >= ALLOCLAB_LAT_100US;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

Test(latency, buckets_cover_every_time_within_a_sixty_fourth)
{
	for (uint64_t u = 0; u < (1ull << 42); u = u < 4096 ? u + 1 : u + u / 37 + 1) {
		unsigned b = alloclab_lat_bucket(u);
		cr_assert_lt(b, ALLOCLAB_LAT_BUCKETS);
		uint64_t lo = alloclab_lat_bucket_low(b), w = alloclab_lat_bucket_width(b);
		if (b < ALLOCLAB_LAT_BUCKETS - 1)
			cr_assert(lo <= u && u < lo + w, "%llu in bucket %u [%llu, +%llu)", (unsigned long long)u, b,
				  (unsigned long long)lo, (unsigned long long)w);
		if (u >= ALLOCLAB_LAT_EXACT)
			cr_assert_leq((double)w / (double)lo, 1.0 / 64 + 1e-12);
	}
	/* Buckets are contiguous: each starts where the one below it ends. */
	for (unsigned b = 1; b < ALLOCLAB_LAT_BUCKETS; b++)
		cr_assert_eq(alloclab_lat_bucket_low(b), alloclab_lat_bucket_low(b - 1) + alloclab_lat_bucket_width(b - 1));
}

Test(latency, quantiles_agree_with_the_sorted_times_within_two_percent)
{
	const size_t n = 300000;
	uint64_t *t = raw_times(n);
	struct alloclab_lat_dense *d = calloc(1, sizeof *d);
	struct alloclab_latency *l = alloclab_latency_new(1, 0);

	count_into(d, t, n);
	alloclab_latency_add_dense(l, ALLOCLAB_LAT_MALLOC, d);
	qsort(t, n, sizeof *t, cmp_u64);
	for (unsigned k = 0; k < ALLOCLAB_LAT_NQUANTILES; k++) {
		double q = alloclab_lat_quantiles[k];
		size_t rank = (size_t)ceil(q * (double)n);
		double exact = (double)t[rank - 1] / ALLOCLAB_LAT_UNITS_PER_NS;
		double got = alloclab_lat_quantile(&l->op[ALLOCLAB_LAT_MALLOC], q);
		cr_expect_leq(fabs(got - exact) / exact, 0.02, "%s: %g ns from the histogram, %g ns sorted",
			      alloclab_lat_quantile_names[k], got, exact);
	}
	cr_expect_eq(alloclab_lat_quantile(&l->op[ALLOCLAB_LAT_MALLOC], 1.0), (double)t[n - 1] / ALLOCLAB_LAT_UNITS_PER_NS);
	cr_expect_eq(l->op[ALLOCLAB_LAT_MALLOC].count, n);
	alloclab_latency_free(l);
	free(d);
	free(t);
}

Test(latency, merged_thread_histograms_equal_one_of_all_calls)
{
	const size_t n = 100000, threads = 4;
	uint64_t *t = raw_times(n);
	struct alloclab_lat_dense *d = calloc(1, sizeof *d);
	struct alloclab_latency *all = alloclab_latency_new(1, 0), *merged = alloclab_latency_new(1, 0);

	count_into(d, t, n);
	alloclab_latency_add_dense(all, ALLOCLAB_LAT_FREE, d);
	for (size_t k = 0; k < threads; k++) {
		struct alloclab_latency *part = alloclab_latency_new(1, 0);
		memset(d, 0, sizeof *d);
		count_into(d, t + k * (n / threads), n / threads);
		alloclab_latency_add_dense(part, ALLOCLAB_LAT_FREE, d);
		for (size_t i = k * (n / threads); i < (k + 1) * (n / threads); i++)
			alloclab_latency_offer_slow(part, &(struct alloclab_lat_slow){ALLOCLAB_LAT_FREE, t[i], 0, (int)k, -1});
		alloclab_latency_merge(merged, part);
		alloclab_latency_free(part);
	}
	const struct alloclab_lat_hist *a = &all->op[ALLOCLAB_LAT_FREE], *m = &merged->op[ALLOCLAB_LAT_FREE];
	cr_assert_eq(a->n, m->n);
	for (unsigned i = 0; i < a->n; i++) {
		cr_assert_eq(a->index[i], m->index[i]);
		cr_assert_eq(a->counts[i], m->counts[i], "bucket %u", a->index[i]);
	}
	cr_expect_eq(a->count, m->count);
	cr_expect_eq(a->max_units, m->max_units);
	cr_expect_eq(a->over_1us, m->over_1us);
	cr_expect_eq(a->over_100us, m->over_100us);
	for (unsigned k = 0; k < ALLOCLAB_LAT_NQUANTILES; k++)
		cr_expect_eq(alloclab_lat_quantile(a, alloclab_lat_quantiles[k]), alloclab_lat_quantile(m, alloclab_lat_quantiles[k]));
	/* The slowest kept across threads are the slowest of all. */
	qsort(t, n, sizeof *t, cmp_u64);
	cr_assert_eq(merged->nslow, ALLOCLAB_LAT_SLOWEST);
	for (unsigned i = 0; i < ALLOCLAB_LAT_SLOWEST; i++)
		cr_expect_eq(merged->slow[i].units, t[n - 1 - i]);
	alloclab_latency_free(all);
	alloclab_latency_free(merged);
	free(d);
	free(t);
}

/* A latency object with one field changed must be refused naming it. */
static void assert_refused_json(const char *text, const char *field)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);
	struct alloclab_latency *l = NULL;
	char why[256] = "";
	cr_assert(j, "test JSON: %s", e.text);
	cr_expect_eq(alloclab_latency_from_json(j, 2, &l, why, sizeof why), -1, "accepted: %s", text);
	cr_expect(strstr(why, field), "'%s' does not name %s", why, field);
	cr_expect_null(l);
	json_decref(j);
}

#define HEAD "{\"units_per_ns\":16,\"sub_bucket_bits\":6,\"every\":1,\"overhead_ns\":10.0,\"empty_mean_ns\":30.0,"

Test(latency, the_reader_refuses_what_cannot_be)
{
	/* Good: one op, one slow call. */
	const char *good = HEAD "\"ops\":{\"malloc\":{\"count\":3,\"sum_ns\":9.0,\"max_units\":200,\"over_1us\":0,"
				"\"over_100us\":0,\"buckets\":[[100,2],[164,1]]}},\"slowest\":[{\"op\":\"malloc\","
				"\"units\":200,\"size\":8,\"thread\":1,\"event\":null}]}";
	json_t *j = json_loads(good, 0, NULL);
	struct alloclab_latency *l = NULL;
	char why[256] = "";
	cr_assert_eq(alloclab_latency_from_json(j, 2, &l, why, sizeof why), 0, "%s", why);
	json_t *again = alloclab_latency_to_json(l);
	cr_expect(json_equal(j, again), "%s", json_dumps(again, 0));
	json_decref(again);
	json_decref(j);
	alloclab_latency_free(l);

	assert_refused_json(HEAD "\"ops\":{\"malloc\":{\"count\":4,\"sum_ns\":9,\"max_units\":200,\"over_1us\":0,"
			    "\"over_100us\":0,\"buckets\":[[100,2],[164,1]]}},\"slowest\":[]}",
			    "latency.ops.malloc.count");
	assert_refused_json(HEAD "\"ops\":{\"malloc\":{\"count\":3,\"sum_ns\":9,\"max_units\":200,\"over_1us\":0,"
			    "\"over_100us\":0,\"buckets\":[[164,2],[100,1]]}},\"slowest\":[]}",
			    "out of order");
	assert_refused_json(HEAD "\"ops\":{\"malloc\":{\"count\":3,\"sum_ns\":9,\"max_units\":900,\"over_1us\":0,"
			    "\"over_100us\":0,\"buckets\":[[100,2],[164,1]]}},\"slowest\":[]}",
			    "max_units");
	assert_refused_json(HEAD "\"ops\":{\"malloc\":{\"count\":3,\"sum_ns\":9,\"max_units\":200,\"over_1us\":0,"
			    "\"over_100us\":0,\"buckets\":[[100,2],[9999,1]]}},\"slowest\":[]}",
			    "buckets[1]");
	assert_refused_json(HEAD "\"ops\":{\"malloc\":{\"count\":3,\"sum_ns\":9,\"max_units\":200,\"over_1us\":1,"
			    "\"over_100us\":2,\"buckets\":[[100,2],[164,1]]}},\"slowest\":[]}",
			    "over_100us");
	assert_refused_json(HEAD "\"ops\":{\"mmap\":{}},\"slowest\":[]}", "'mmap' is not an op");
	assert_refused_json(HEAD "\"ops\":{\"malloc\":{\"count\":3,\"sum_ns\":9,\"max_units\":200,\"over_1us\":0,"
			    "\"over_100us\":0,\"buckets\":[[100,2],[164,1]]}},\"slowest\":[{\"op\":\"malloc\","
			    "\"units\":200,\"size\":8,\"thread\":2,\"event\":null}]}",
			    "slowest[0].thread");
	assert_refused_json(HEAD "\"ops\":{\"malloc\":{\"count\":3,\"sum_ns\":9,\"max_units\":200,\"over_1us\":0,"
			    "\"over_100us\":0,\"buckets\":[[100,2],[164,1]]}},\"slowest\":[{\"op\":\"free\","
			    "\"units\":200,\"size\":8,\"thread\":0,\"event\":null}]}",
			    "slower than the slowest free");
	assert_refused_json("{\"units_per_ns\":16,\"sub_bucket_bits\":6,\"every\":1,\"overhead_ns\":10.0,"
			    "\"empty_mean_ns\":-1,\"ops\":{},\"slowest\":[]}",
			    "empty_mean_ns");
	assert_refused_json("{\"units_per_ns\":1000,\"sub_bucket_bits\":6,\"every\":1,\"overhead_ns\":1,\"ops\":{},"
			    "\"slowest\":[]}",
			    "this alloclab reads 16");
	assert_refused_json(HEAD "\"ops\":[],\"slowest\":[]}", "latency.ops");
}

/* ---- end to end ---- */

static char *spec_of(const char *plugin, const char *options)
{
	char *s = malloc(4400);
	snprintf(s, 4400, "%s:%s", test_plugin(plugin), options);
	return s;
}

static const struct alloclab_cell *only_cell(const struct alloclab_results *r)
{
	cr_assert_geq(r->ncells, 1);
	cr_assert_eq(r->cells[0].status, ALLOCLAB_CELL_OK, "%s", r->cells[0].message ? r->cells[0].message : "");
	return &r->cells[0];
}

Test(latency, a_known_spin_shows_at_p999_and_max_with_its_size, .timeout = 120)
{
	char *dir = scratch_dir(), *spin = spec_of("spin", "every=500,us=200");
	/* 200,000 mallocs of 64 bytes, every 500th of them 200 us: 0.2% of
	 * the mallocs, so p99.9 is a spin and p99 is not. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", spin, "-w",
								      "churn:ops=200000,min_size=64,max_size=64", "-t", "1",
								      "-n", "1", "-v", "1", "--warmups", "0", "--latency",
								      "--no-check", "-o", "r.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	struct alloclab_results *res = load_results(dir, "r.json");
	const struct alloclab_cell *c = only_cell(res);
	const struct alloclab_latency *l = c->procs[0].values[0].latency;
	cr_assert(l, "no latency recorded");
	const struct alloclab_lat_hist *m = &l->op[ALLOCLAB_LAT_MALLOC], *f = &l->op[ALLOCLAB_LAT_FREE];
	cr_expect_eq(m->count, 200000);
	cr_expect_eq(f->count, 200000);
	cr_expect_geq(alloclab_lat_quantile(m, 0.999), 195000, "p99.9 %g ns", alloclab_lat_quantile(m, 0.999));
	cr_expect_lt(alloclab_lat_quantile(m, 0.99), 20000, "p99 %g ns", alloclab_lat_quantile(m, 0.99));
	cr_expect_geq(alloclab_lat_quantile(m, 1), 199000);
	cr_expect_lt(alloclab_lat_quantile(m, 1), 100e6);
	/* The spins (one may fall either side of the value's edges, which
	 * prepare's mallocs move) are 100 us or more, and few others: a page
	 * fault or a preemption on a busy machine, a sanitizer's malloc. */
	cr_expect(m->over_100us >= 399 && m->over_100us <= 440, "%llu mallocs of 100 us or more",
		  (unsigned long long)m->over_100us);
	cr_expect_eq(l->nslow, ALLOCLAB_LAT_SLOWEST);
	/* The slowest calls are the spins, named with their op, size and
	 * thread; on a busy machine (the test suite's own tests run side by
	 * side on two cores) a preempted call of either op can take a few
	 * places among them: three of eight were seen. */
	unsigned spins = 0;
	for (unsigned i = 0; i < l->nslow; i++) {
		cr_expect_eq(l->slow[i].thread, 0);
		cr_expect_geq(l->slow[i].units, 100000ull * ALLOCLAB_LAT_UNITS_PER_NS);
		spins += l->slow[i].op == ALLOCLAB_LAT_MALLOC && l->slow[i].size == 64 &&
			 l->slow[i].units >= 199000ull * ALLOCLAB_LAT_UNITS_PER_NS;
	}
	cr_expect_geq(spins, ALLOCLAB_LAT_SLOWEST / 2, "%u of the %u slowest calls are the spins", spins, l->nslow);
	cr_expect_gt(l->overhead_ns, 0);
	cr_expect_eq(json_integer_value(json_object_get(res->config, "latency_every")), 1);
	alloclab_results_free(res);
	cmd_result_free(&r);

	/* show prints the percentiles and the slowest calls. */
	r = run_alloclab(dir, (const char *const[]){"show", "r.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "latency of the calls timed") && strstr(r.out, "p99.9") && strstr(r.out, "malloc(64)"),
		  "%s", r.out);
	cmd_result_free(&r);
}

Test(latency, every_kth_call_is_timed, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn:ops=100000",
								      "-t", "1,2", "-n", "1", "-v", "1", "--latency-every",
								      "10", "-o", "r.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	struct alloclab_results *res = load_results(dir, "r.json");
	for (unsigned i = 0; i < res->ncells; i++) {
		const struct alloclab_cell *c = &res->cells[i];
		struct alloclab_latency *l = alloclab_cell_latency(c, -1);
		struct alloclab_lat_hist all;
		cr_assert(l);
		alloclab_latency_all_ops(l, &all);
		/* 2 calls an op, every 10th of each thread's timed. */
		uint64_t calls = 2ull * 100000 * c->threads / 10;
		cr_expect(all.count >= calls - 2 * c->threads && all.count <= calls + 2 * c->threads + 200,
			  "%llu calls timed of %llu", (unsigned long long)all.count, (unsigned long long)calls * 10);
		cr_expect_eq(l->every, 10);
		alloclab_lat_hist_clear(&all);
		alloclab_latency_free(l);
	}
	alloclab_results_free(res);
	cmd_result_free(&r);
}

Test(latency, a_replay_names_its_slowest_event, .timeout = 60)
{
	char *dir = scratch_dir(), *path = path_in(dir, "one-slow.trace"), err[512], spec[4400];
	struct alloclab_trace_writer *w = alloclab_trace_writer_open(path, json_pack("{s:s}", "test", "latency"), err,
								     sizeof err);
	cr_assert(w, "%s", err);
	/* 300 mallocs, the 58th (event 57) of 777 bytes, then their frees. */
	for (uint32_t i = 0; i < 300; i++) {
		struct alloclab_trace_event e = {.op = ALLOCLAB_TRACE_MALLOC, .size = i == 57 ? 777 : 32, .slot = i};
		cr_assert_eq(alloclab_trace_write(w, 0, &e), 0);
	}
	for (uint32_t i = 0; i < 300; i++) {
		struct alloclab_trace_event e = {.op = ALLOCLAB_TRACE_FREE, .old_slot = i};
		cr_assert_eq(alloclab_trace_write(w, 0, &e), 0);
	}
	cr_assert_eq(alloclab_trace_writer_close(w, NULL, err, sizeof err), 0, "%s", err);
	snprintf(spec, sizeof spec, "trace:file=%s,loops=1", path);
	char *spin = spec_of("spin", "size=777,us=300");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", spin, "-w", spec, "-t", "1", "-n", "1",
								      "-v", "1", "--latency", "--no-check", "-o", "r.json",
								      NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	struct alloclab_results *res = load_results(dir, "r.json");
	const struct alloclab_latency *l = only_cell(res)->procs[0].values[0].latency;
	cr_assert(l && l->nslow > 0);
	cr_expect_eq(l->slow[0].event, 57, "the slowest call is event %lld", (long long)l->slow[0].event);
	cr_expect_eq(l->slow[0].size, 777);
	cr_expect_eq(l->op[ALLOCLAB_LAT_MALLOC].count, 300);
	cr_expect_eq(l->op[ALLOCLAB_LAT_FREE].count, 300);
	alloclab_results_free(res);
	cmd_result_free(&r);
}

Test(latency, python_and_exec_are_timed, .timeout = 300)
{
	if (getenv("ALLOCLAB_UNDER_SANITIZER") || getenv("ALLOCLAB_UNDER_VALGRIND"))
		cr_skip_test("the preload library is for uninstrumented programs, outside valgrind");
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w",
								      "python:bench=richards,value_ms=10", "-w",
								      "exec:program=alloc-loop", "-t", "1", "-n", "1", "-v", "1",
								      "--warmups", "0", "--latency", "-o", "r.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	struct alloclab_results *res = load_results(dir, "r.json");
	cr_assert_eq(res->ncells, 2);
	for (unsigned i = 0; i < 2; i++) {
		const struct alloclab_cell *c = &res->cells[i];
		cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s: %s", c->workload, c->message ? c->message : "");
		const struct alloclab_latency *l = c->procs[0].values[0].latency;
		cr_assert(l, "%s: no latency", c->workload);
		/* richards allocates thousands of objects an iteration;
		 * alloc-loop makes millions of blocks. */
		cr_expect_gt(l->op[ALLOCLAB_LAT_MALLOC].count, strcmp(c->workload, "exec") == 0 ? 1000000 : 1000,
			     "%s: %llu mallocs", c->workload, (unsigned long long)l->op[ALLOCLAB_LAT_MALLOC].count);
		cr_expect_gt(l->op[ALLOCLAB_LAT_FREE].count, 1000, "%s", c->workload);
	}
	alloclab_results_free(res);
	cmd_result_free(&r);
}

Test(latency, compare_and_plot_use_the_percentiles, .timeout = 120)
{
	char *dir = scratch_dir(), *spin = spec_of("spin", "every=200,us=100,as=spin");
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-p", spin, "-w",
								      "churn:ops=50000", "-t", "1", "-n", "4", "-v", "1",
								      "--latency", "--no-check", "-o", "r.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"compare", "r.json", "--plugins", "system,spin", "--metric", "p999",
						    "--op", "malloc", "-f", "json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	json_t *cmp = json_loads(r.out, 0, NULL);
	cr_assert(cmp, "%s", r.out);
	cr_expect_str_eq(json_string_value(json_object_get(cmp, "metric")), "latency_p999_malloc_ns");
	json_t *e = json_array_get(json_object_get(json_array_get(json_object_get(cmp, "rows"), 0), "columns"), 1);
	/* Every 200th malloc spins 100 us: the spin plugin's p99.9 is one
	 * of them, far above system's. */
	cr_expect_gt(json_number_value(json_object_get(e, "mean")), 95000, "%s", r.out);
	cr_expect_gt(json_number_value(json_object_get(e, "ratio")), 2, "%s", r.out);
	cr_expect(json_is_true(json_object_get(e, "significant")), "%s", r.out);
	json_decref(cmp);
	cmd_result_free(&r);

	r = run_alloclab(dir, (const char *const[]){"compare", "r.json", "--plugins", "system,spin", "--metric", "p42", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "--metric takes p50"), "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"compare", "r.json", "--plugins", "system,spin", "--op", "free", NULL});
	cr_expect_eq(r.status, 2);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", "churn", "--latency", "--measure",
						    "instructions", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "--latency"), "%s", r.err);
	cmd_result_free(&r);

	r = run_alloclab(dir, (const char *const[]){"plot", "r.json", "-o", "pictures", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	static const char *const names[] = {"latency-cdf-churn", "latency-tail-churn", "latency-percentiles-churn"};
	for (unsigned i = 0; i < 3; i++) {
		char *png = malloc(strlen(dir) + 64);
		sprintf(png, "%s/pictures/%s.svg", dir, names[i]);
		char *text = read_file(png);
		cr_expect(text && strstr(text, "</svg>") && strstr(text, "spin"), "%s", png);
		free(text);
		free(png);
	}
	cmd_result_free(&r);
}

Test(latency, compare_says_when_a_run_has_no_latency, .timeout = 60)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-p", "mimalloc", "-w",
								      "churn:ops=20000", "-t", "1", "-n", "2", "-v", "1",
								      "-o", "r.json", "-q", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"compare", "r.json", "--plugins", "system,mimalloc", "--metric", "p99",
						    NULL});
	cr_expect(strstr(r.out, "no latency"), "%s%s", r.out, r.err);
	cmd_result_free(&r);
}
