/*
 * Workload specs and the churn workload's behaviour: parameters parse with
 * defaults and limits; churn is deterministic for a seed, stays within its
 * size range, keeps `slots` blocks live and frees everything it allocated.
 */
#include "plugin/allocator.h"
#include "registry.h"
#include "workload/workload.h"
#include "worker/worker.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* A recording allocator: logs every request size and counts live blocks. */
#define LOG_MAX 200000
static size_t log_sizes[LOG_MAX];
static size_t log_len;
static long live;

static void *rec_malloc(void *instance, size_t size)
{
	(void)instance;
	if (log_len < LOG_MAX)
		log_sizes[log_len++] = size;
	live++;
	return malloc(size ? size : 1);
}

static void rec_free(void *instance, void *block)
{
	(void)instance;
	if (block)
		live--;
	free(block);
}

static void run_churn(const char *spec, unsigned thread_index, uint64_t *ops_done)
{
	static struct alloclab_workload_spec ws;
	const struct alloclab_workload *w;
	char err[256];
	struct alloclab_allocator a;

	memset(&a, 0, sizeof a);
	a.ops.malloc = rec_malloc;
	a.ops.free = rec_free;
	cr_assert_eq(alloclab_workload_parse(spec, &ws, err, sizeof err), 0, "%s", err);
	w = ws.workload;
	const uint64_t *params = ws.params.v;
	static struct alloclab_live counters;
	struct alloclab_workload_thread t = {
		.alloc = &a, .params = &ws.params, .index = thread_index, .nthreads = 1,
		.seed = alloclab_thread_seed(params[alloclab_workload_param_index(w, "seed")], thread_index),
		.live = &counters,
	};
	log_len = 0;
	live = 0;
	cr_assert_eq(w->prepare(&t, err, sizeof err), 0, "%s", err);
	cr_expect_eq(live, (long)params[alloclab_workload_param_index(w, "slots")]);
	w->run(&t);
	cr_expect_eq(live, (long)params[alloclab_workload_param_index(w, "slots")], "live count drifted");
	w->finish(&t);
	cr_expect_eq(live, 0, "finish left %ld blocks", live);
	*ops_done = t.ops;
}

Test(workload, churn_is_deterministic_for_a_seed)
{
	static size_t first[LOG_MAX];
	uint64_t ops;
	size_t first_len;

	run_churn("churn:slots=100,ops=5000,seed=7", 0, &ops);
	cr_expect_eq(ops, 5000);
	cr_expect_eq(log_len, 5100);
	memcpy(first, log_sizes, log_len * sizeof *first);
	first_len = log_len;
	run_churn("churn:slots=100,ops=5000,seed=7", 0, &ops);
	cr_assert_eq(log_len, first_len);
	cr_expect(memcmp(first, log_sizes, log_len * sizeof *first) == 0, "same seed, different requests");
	run_churn("churn:slots=100,ops=5000,seed=8", 0, &ops);
	cr_expect(memcmp(first, log_sizes, log_len * sizeof *first) != 0, "another seed, same requests");
	run_churn("churn:slots=100,ops=5000,seed=7", 1, &ops);
	cr_expect(memcmp(first, log_sizes, log_len * sizeof *first) != 0, "threads share a sequence");
}

Test(workload, churn_sizes_cover_the_range_and_no_more)
{
	uint64_t ops;
	size_t lo = SIZE_MAX, hi = 0;

	run_churn("churn:slots=64,ops=100000,min_size=17,max_size=40", 0, &ops);
	for (size_t i = 0; i < log_len; i++) {
		lo = log_sizes[i] < lo ? log_sizes[i] : lo;
		hi = log_sizes[i] > hi ? log_sizes[i] : hi;
	}
	cr_expect_eq(lo, 17);
	cr_expect_eq(hi, 40);
}

Test(workload, parse_fills_defaults_and_suffixes)
{
	struct alloclab_workload_spec ws;
	const struct alloclab_workload *w;
	char err[256];

	cr_assert_eq(alloclab_workload_parse("churn:ops=2K,slots=1M", &ws, err, sizeof err), 0, "%s", err);
	w = ws.workload;
	const uint64_t *p = ws.params.v;
	cr_expect_eq(p[alloclab_workload_param_index(w, "ops")], 2048);
	cr_expect_eq(p[alloclab_workload_param_index(w, "slots")], 1u << 20);
	cr_expect_eq(p[alloclab_workload_param_index(w, "max_size")], 512);
	cr_expect_eq(p[alloclab_workload_param_index(w, "min_size")], 1);
}

Test(workload, parse_refuses_bad_specs)
{
	struct alloclab_workload_spec ws;
	char err[256];
	static const char *const bad[][2] = {
		{"churn:ops", "malformed parameter 'ops'"},
		{"churn:=5", "malformed parameter '=5'"},
		{"churn:ops=", "is not a whole number"},
		{"churn:ops=99999999999999999999", "is too large (more than 2^64 - 1)"},
		{"churn:ops=99999999999G", "is too large"},
		{"churn:ops=5,ops=7", "ops is given twice"},
		{"churn:ops=1T", "is not a whole number"},
		{"nope", "unknown workload 'nope'"},
		{"churn:ops=1+2", "expands to 2 workloads"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		cr_expect_eq(alloclab_workload_parse(bad[i][0], &ws, err, sizeof err), -1, "%s accepted", bad[i][0]);
		cr_expect(strstr(err, bad[i][1]) != NULL, "%s: '%s' not in: %s", bad[i][0], bad[i][1], err);
	}
}

Test(workload, every_workload_keeps_its_param_invariants)
{
	for (size_t i = 0; alloclab_workloads[i]; i++) {
		const struct alloclab_workload *w = alloclab_workloads[i];
		cr_expect_leq(w->nparams, ALLOCLAB_MAX_PARAMS);
		for (unsigned k = 0; k < w->nparams; k++)
			cr_expect(w->params[k].min <= w->params[k].def && w->params[k].def <= w->params[k].max,
				  "%s.%s default outside its range", w->name, w->params[k].name);
	}
}

Test(workload, plus_lists_expand_to_every_combination)
{
	struct alloclab_workload_spec list[ALLOCLAB_MAX_EXPANSION];
	unsigned n;
	char err[256];

	cr_assert_eq(alloclab_workload_parse_list("churn:max_size=64+512,ops=1+2+3", list, ALLOCLAB_MAX_EXPANSION, &n,
						  err, sizeof err), 0, "%s", err);
	cr_assert_eq(n, 6);
	int ops = alloclab_workload_param_index(list[0].workload, "ops");
	int max = alloclab_workload_param_index(list[0].workload, "max_size");
	for (unsigned a = 0; a < 2; a++)
		for (unsigned b = 0; b < 3; b++) {
			int found = 0;
			for (unsigned i = 0; i < n; i++)
				found += list[i].params.v[max] == (a ? 512u : 64u) && list[i].params.v[ops] == b + 1;
			cr_expect_eq(found, 1, "max_size=%u ops=%u appears %d times", a ? 512 : 64, b + 1, found);
		}
	cr_expect_eq(alloclab_workload_parse_list("churn:ops=1+2", list, 1, &n, err, sizeof err), -1);
}
