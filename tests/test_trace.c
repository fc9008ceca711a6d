/*
 * Allocation traces: a recording replayed (and recorded again) gives the
 * same calls event for event; cross-thread frees keep their order in
 * threads; a trace far longer than memory replays in bounded memory; a
 * replay ends in the recorded allocator state; hostile traces get one
 * clear line and exit status 2 before anything is measured.
 */
#define _GNU_SOURCE 1
#include "helpers.h"
#include "results/results.h"
#include "trace/trace.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int slow_setup(void)
{
	return getenv("ALLOCLAB_UNDER_SANITIZER") || getenv("ALLOCLAB_UNDER_VALGRIND");
}

static void record(const char *dir, const char *plugin, const char *workload, const char *threads, const char *out)
{
	/* Under the sanitizer and valgrind setups CPython's debug hooks go
	 * around the plugin (as in test_python.c). */
	char spec[4200];
	snprintf(spec, sizeof spec, "%s%s", workload,
		 slow_setup() && strncmp(workload, "python:", 7) == 0 ? ",debug_hooks=yes" : "");
	workload = spec;
	/* One value and no warm-up: the run made once, as it was before
	 * windows (the tests of windows below record more). */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"record", "-p", plugin, "-w", workload, "-t",
								      threads, "-W", "0", "-v", "1", "-o", out, NULL});
	cr_assert_eq(r.status, 0, "record %s %s: %d: %s %s", plugin, workload, r.status, r.out, r.err);
	cr_assert(strstr(r.out, "recorded "), "%s", r.out);
	cmd_result_free(&r);
}

/* Every event of one thread of a trace. */
static struct alloclab_trace_event *events_of(const char *path, unsigned thread, size_t *count)
{
	char err[512];
	struct alloclab_trace *t = alloclab_trace_open(path, err, sizeof err);
	cr_assert(t, "%s", err);
	cr_assert_lt(thread, alloclab_trace_threads(t));
	uint64_t total = alloclab_trace_events(t, thread);
	struct alloclab_trace_event *all = calloc(total + ALLOCLAB_TRACE_CHUNK_EVENTS, sizeof *all);
	struct alloclab_trace_cursor *c = alloclab_trace_cursor_new(t, thread);
	size_t n, got = 0;
	int rc;
	while ((rc = alloclab_trace_next_chunk(c, all + got, &n, err, sizeof err)) == 1)
		got += n;
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_eq(got, total);
	alloclab_trace_cursor_free(c);
	alloclab_trace_close(t);
	*count = got;
	return all;
}

static struct alloclab_trace_summary summary_of(const char *path, unsigned *threads)
{
	char err[512];
	struct alloclab_trace_summary sum;
	struct alloclab_trace *t = alloclab_trace_open(path, err, sizeof err);
	cr_assert(t, "%s", err);
	cr_assert_eq(alloclab_trace_validate(t, &sum, err, sizeof err), 0, "%s", err);
	if (threads)
		*threads = alloclab_trace_threads(t);
	alloclab_trace_close(t);
	return sum;
}

/* Thread `thread` of a (recorded) and b (its replay, recorded): the same
 * calls in the same order, then in b the frees of what a left live (the
 * replay frees it at the end); with same_slots, the same identities too (a
 * trace of one thread, whose slots follow from its own order alone; in
 * threads they follow the interleaving, and so do remote generations). */
static void assert_same_events(const char *a, const char *b, unsigned thread, int same_slots)
{
	size_t na, nb;
	struct alloclab_trace_event *ea = events_of(a, thread, &na), *eb = events_of(b, thread, &nb);
	cr_assert_geq(nb, na, "thread %u: %zu events recorded, %zu replayed", thread, na, nb);
	for (size_t i = na; i < nb; i++)
		cr_assert_eq(eb[i].op, ALLOCLAB_TRACE_FREE, "thread %u: replayed event %zu after the recorded ones is %s",
			     thread, i, alloclab_trace_op_names[eb[i].op]);
	for (size_t i = 0; i < na; i++) {
		const struct alloclab_trace_event *x = &ea[i], *y = &eb[i];
		cr_assert(x->op == y->op && x->size == y->size && x->remote == y->remote &&
			  (x->op == ALLOCLAB_TRACE_CALLOC || x->op == ALLOCLAB_TRACE_ALIGNED || (x->remote && same_slots)
				   ? x->arg == y->arg
				   : 1),
			  "thread %u event %zu: recorded %s(%llu), replayed %s(%llu)", thread, i,
			  alloclab_trace_op_names[x->op], (unsigned long long)x->size, alloclab_trace_op_names[y->op],
			  (unsigned long long)y->size);
		if (same_slots)
			cr_assert(x->slot == y->slot && x->old_slot == y->old_slot, "thread %u event %zu: identities differ",
				  thread, i);
	}
	free(ea);
	free(eb);
}

/* One process of `values` values and no warm-up. */
static const struct alloclab_cell *replay_values(const char *dir, const char *plugin, const char *spec,
						 const char *threads, const char *values, struct alloclab_results **keep)
{
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", plugin, "-w", spec, "-t",
								      threads, "-n", "1", "-v", values, "--warmups", "0", "-q",
								      "-o", "replay.json", NULL});
	cr_assert(r.status == 0 || r.status == 1, "replay %s: %d: %s", spec, r.status, r.err);
	cmd_result_free(&r);
	*keep = load_results(dir, "replay.json");
	cr_assert_eq((*keep)->ncells, 1);
	return &(*keep)->cells[0];
}

static const struct alloclab_cell *replay(const char *dir, const char *plugin, const char *spec, const char *threads,
					  struct alloclab_results **keep)
{
	return replay_values(dir, plugin, spec, threads, "1", keep);
}

Test(trace, record_then_replay_gives_the_same_calls_event_for_event, .timeout = 240)
{
	static const char *const workloads[] = {
		"churn:ops=20000",
		/* realloc: the 2.x free list grows kept buffers */
		"unicode:layout=py26-ucs4,freelist=1,words=256,rounds=2",
		"python:bench=richards,loops=1,profile=no,hash_seed=1",
	};
	char *dir = scratch_dir();
	for (size_t w = 0; w < sizeof workloads / sizeof *workloads; w++) {
		char *a = path_in(dir, "a.trace"), *b = path_in(dir, "b.trace"), spec[4200];
		unlink(a);
		unlink(b);
		record(dir, "system", workloads[w], "1", a);
		snprintf(spec, sizeof spec, "trace:file=%s,part=whole", a);
		record(dir, "system", spec, "1", b);
		assert_same_events(a, b, 0, 1);

		/* And through a plugin that counts what it serves. */
		struct alloclab_results *res;
		struct alloclab_trace_summary sum = summary_of(a, NULL);
		const struct alloclab_cell *c = replay(dir, test_plugin("thread_counting"), spec, "1", &res);
		cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s: %s", workloads[w], c->message);
		json_t *st = c->procs[0].stats_after_finish;
		cr_assert_eq(json_integer_value(json_object_get(st, "mallocs")), (json_int_t)sum.ops[ALLOCLAB_TRACE_MALLOC]);
		cr_assert_eq(json_integer_value(json_object_get(st, "callocs")), (json_int_t)sum.ops[ALLOCLAB_TRACE_CALLOC]);
		cr_assert_eq(json_integer_value(json_object_get(st, "reallocs")), (json_int_t)sum.ops[ALLOCLAB_TRACE_REALLOC]);
		/* The replay frees at its end what the recording left live. */
		json_int_t left = json_integer_value(
			json_object_get(json_array_get(c->procs[0].values[0].thread_reports, 0), "left_live"));
		cr_assert_eq(json_integer_value(json_object_get(st, "frees")),
			     (json_int_t)(sum.ops[ALLOCLAB_TRACE_FREE] + sum.ops[ALLOCLAB_TRACE_FREE_SIZED]) + left);
		if (w < 2)
			cr_assert_eq(left, 0, "%s frees everything it allocates", workloads[w]);
		cr_assert_eq(c->procs[0].values[0].thread_ops[0],
			     sum.ops[0] + sum.ops[1] + sum.ops[2] + sum.ops[3] + sum.ops[4] + sum.ops[5]);
		if (w == 1)
			cr_assert_gt(sum.ops[ALLOCLAB_TRACE_REALLOC], 0);
		alloclab_results_free(res);
	}
}

Test(trace, cross_thread_frees_keep_their_order_in_threads, .timeout = 240)
{
	/* larson retires and replaces its threads: each is a thread of the
	 * trace. */
	static const char *const workloads[] = {"xmalloc:ops=409600", "larson"};
	char *dir = scratch_dir();
	for (size_t w = 0; w < 2; w++) {
		char *a = path_in(dir, "a.trace"), *b = path_in(dir, "b.trace"), spec[4200];
		unsigned threads;
		unlink(a);
		unlink(b);
		record(dir, "jemalloc", workloads[w], "2", a);
		struct alloclab_trace_summary sum = summary_of(a, &threads);
		char nthreads[16];
		cr_assert(w == 0 ? threads == 2 : threads > 2, "%s: %u threads", workloads[w], threads);
		snprintf(nthreads, sizeof nthreads, "%u", threads);
		cr_assert_gt(sum.remote, 0, "%s: no frees across threads recorded", workloads[w]);
		snprintf(spec, sizeof spec, "trace:file=%s,part=whole", a);

		/* Every remote free is remote in the replay too, and no event
		 * waits for one that never comes. */
		struct alloclab_results *res;
		const struct alloclab_cell *c = replay(dir, test_plugin("thread_counting"), spec, nthreads, &res);
		cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s: %s", workloads[w], c->message);
		cr_assert_eq(json_integer_value(json_object_get(c->procs[0].stats_after_finish, "cross_thread_frees")),
			     (json_int_t)sum.remote);
		alloclab_results_free(res);

		/* Looped: each loop starts the objects' generations afresh. */
		char looped[4300];
		snprintf(looped, sizeof looped, "%s,loops=3", spec);
		c = replay(dir, test_plugin("thread_counting"), looped, nthreads, &res);
		cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s looped: %s", workloads[w], c->message);
		cr_assert_eq(json_integer_value(json_object_get(c->procs[0].stats_after_finish, "cross_thread_frees")),
			     (json_int_t)(3 * sum.remote));
		alloclab_results_free(res);

		/* Recorded again while replayed: each thread makes the same
		 * calls in the same order. */
		record(dir, "system", spec, nthreads, b);
		for (unsigned i = 0; i < threads; i++)
			assert_same_events(a, b, i, 0);

		/* Its threads cannot be replayed by fewer. */
		c = replay(dir, "system", spec, "1", &res);
		cr_assert_eq(c->status, ALLOCLAB_CELL_NOT_APPLICABLE);
		char want[64];
		snprintf(want, sizeof want, "replay it with -t %u", threads);
		cr_assert(strstr(c->message, want), "%s", c->message);
		alloclab_results_free(res);
	}
}

Test(trace, one_thread_scales_to_many_and_loops_repeat, .timeout = 120)
{
	char *dir = scratch_dir(), *a = path_in(dir, "a.trace"), spec[4200];
	struct alloclab_results *res;
	record(dir, "system", "churn:ops=5000", "1", a);
	struct alloclab_trace_summary sum = summary_of(a, NULL);
	uint64_t events = sum.ops[0] + sum.ops[1] + sum.ops[2] + sum.ops[3] + sum.ops[4] + sum.ops[5];

	snprintf(spec, sizeof spec, "trace:file=%s,loops=3,part=whole", a);
	const struct alloclab_cell *c = replay(dir, test_plugin("thread_counting"), spec, "2", &res);
	cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s", c->message);
	for (unsigned i = 0; i < 2; i++)
		cr_assert_eq(c->procs[0].values[0].thread_ops[i], 3 * events);
	cr_assert_eq(json_integer_value(json_object_get(c->procs[0].stats_after_finish, "mallocs")),
		     (json_int_t)(2 * 3 * sum.ops[ALLOCLAB_TRACE_MALLOC]));
	cr_assert_eq(json_integer_value(json_object_get(c->procs[0].stats_after_finish, "cross_thread_frees")), 0);
	alloclab_results_free(res);

	/* Streaming and decoding ahead replay the same. */
	snprintf(spec, sizeof spec, "trace:file=%s,decode=stream,part=whole", a);
	c = replay(dir, test_plugin("thread_counting"), spec, "1", &res);
	cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s", c->message);
	cr_assert_eq(c->procs[0].values[0].thread_ops[0], events);
	alloclab_results_free(res);
}

Test(trace, a_replay_ends_in_the_recorded_allocator_state, .timeout = 120)
{
	char *dir = scratch_dir(), *a = path_in(dir, "a.trace"), spec[4200], err[512];
	struct alloclab_results *res;
	/* The interpreter leaves blocks of many classes live at its end. */
	record(dir, "obmalloc-radix", "python:bench=richards,loops=1,profile=no,hash_seed=1", "1", a);
	struct alloclab_trace *t = alloclab_trace_open(a, err, sizeof err);
	cr_assert(t, "%s", err);
	json_t *recorded = json_deep_copy(json_object_get(alloclab_trace_end(t), "stats"));
	alloclab_trace_close(t);
	cr_assert(json_is_object(recorded) && json_object_size(recorded) > 10);

	snprintf(spec, sizeof spec, "trace:file=%s,part=whole", a);
	const struct alloclab_cell *c = replay(dir, "obmalloc-radix", spec, "1", &res);
	cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s", c->message);
	const char *key;
	json_t *v;
	json_object_foreach(recorded, key, v) {
		json_t *replayed = json_object_get(c->procs[0].stats, key);
		/* Where mmap put the arenas: one that is not pool-aligned loses
		 * a pool. Placement, not the algorithm (std.free_bytes counts
		 * the unused pools). */
		if (strcmp(key, "bytes.arena_alignment") == 0 || strcmp(key, "bytes.unused_pools") == 0 ||
		    strcmp(key, "std.free_bytes") == 0 ||
		    strcmp(key, "pools.unused") == 0 || strncmp(key, "radix.arenas_straddling", 23) == 0 ||
		    strcmp(key, "radix.straddle_balance_permille") == 0)
			continue;
		cr_assert(replayed, "%s missing after the replay", key);
		cr_assert_eq(json_integer_value(replayed), json_integer_value(v), "%s: recorded %lld, replayed %lld", key,
			     (long long)json_integer_value(v), (long long)json_integer_value(replayed));
	}
	json_decref(recorded);
	alloclab_results_free(res);
}

Test(trace, the_unicode_workload_allocates_the_documented_blocks)
{
	char *dir = scratch_dir(), *a = path_in(dir, "a.trace"), *b = path_in(dir, "b.trace");
	size_t n;
	/* CPython 3.12, ASCII, 9 characters: the narrow loop's one block. */
	record(dir, "mimalloc", "unicode:variant=9chars,words=64,rounds=1", "1", a);
	struct alloclab_trace_event *e = events_of(a, 0, &n);
	size_t unicode = 0, bytes = 0;
	for (size_t i = 0; i < n; i++)
		if (e[i].op == ALLOCLAB_TRACE_MALLOC) {
			cr_assert(e[i].size == 40 + 9 + 1 || e[i].size == 33 + 9, "block of %llu bytes",
				  (unsigned long long)e[i].size);
			unicode += e[i].size == 50;
			bytes += e[i].size == 42;
		}
	cr_assert(unicode >= 64 && bytes >= 64);
	free(e);
	/* Python 2.6 UCS2: an object of 48 and a buffer of (9 + 1) * 2. */
	record(dir, "mimalloc", "unicode:variant=9chars,words=64,rounds=1,layout=py26-ucs2", "1", b);
	e = events_of(b, 0, &n);
	for (size_t i = 0; i < n; i++)
		if (e[i].op == ALLOCLAB_TRACE_MALLOC)
			cr_assert(e[i].size == 48 || e[i].size == 20 || e[i].size == 40 + 18,
				  "block of %llu bytes", (unsigned long long)e[i].size);
	free(e);
}

/* ---- traces written by hand ---- */

static struct alloclab_trace_writer *writer(const char *path)
{
	char err[512];
	struct alloclab_trace_writer *w = alloclab_trace_writer_open(path, json_pack("{s:s}", "test", "by hand"), err,
								     sizeof err);
	cr_assert(w, "%s", err);
	return w;
}

static void put(struct alloclab_trace_writer *w, unsigned th, unsigned op, uint64_t size, uint32_t slot,
		uint32_t old_slot)
{
	struct alloclab_trace_event e = {.op = (uint8_t)op, .size = size, .slot = slot, .old_slot = old_slot,
					 .old_owner = (uint16_t)th};
	cr_assert_eq(alloclab_trace_write(w, th, &e), 0);
}

static void finish(struct alloclab_trace_writer *w)
{
	char err[512];
	cr_assert_eq(alloclab_trace_writer_close(w, NULL, err, sizeof err), 0, "%s", err);
}

/* A replay of path must be refused: exit 2, one line naming the file and
 * containing `problem`, and no results file. */
static void assert_refused(const char *dir, const char *path, const char *problem)
{
	char spec[4200];
	snprintf(spec, sizeof spec, "trace:file=%s", path);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", spec, "-n", "1",
								      "-o", "bad.json", NULL});
	cr_assert_eq(r.status, 2, "%s: status %d: %s", problem, r.status, r.err);
	cr_assert(strstr(r.err, path) && strstr(r.err, problem), "expected '%s' naming %s, got: %s", problem, path, r.err);
	cr_assert_eq(count_lines(r.err), 1, "%s", r.err);
	cmd_result_free(&r);
	char out[4200];
	snprintf(out, sizeof out, "%s/bad.json", dir);
	struct stat st;
	cr_assert_neq(stat(out, &st), 0, "%s: a results file was written", problem);
}

static void copy_patched(const char *from, const char *to, long offset, int byte, long truncate_by)
{
	char *data = NULL;
	size_t len = 0;
	FILE *f = fopen(from, "rb");
	cr_assert(f);
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	data = malloc(len);
	cr_assert_eq(fread(data, 1, len, f), len);
	fclose(f);
	if (offset >= 0)
		data[offset] = (char)byte;
	f = fopen(to, "wb");
	fwrite(data, 1, len - (size_t)truncate_by, f);
	fclose(f);
	free(data);
}

Test(trace, hostile_traces_are_refused_with_one_line)
{
	char *dir = scratch_dir(), *good = path_in(dir, "good.trace"), *bad = path_in(dir, "bad.trace");
	struct alloclab_trace_writer *w = writer(good);
	for (unsigned i = 0; i < 3000; i++) {
		put(w, 0, ALLOCLAB_TRACE_MALLOC, 16 + i % 200, i % 50, 0);
		put(w, 0, ALLOCLAB_TRACE_FREE, 0, 0, i % 50);
	}
	finish(w);

	copy_patched(good, bad, -1, 0, 100);
	assert_refused(dir, bad, "truncated");
	unlink(bad);
	copy_patched(good, bad, 8, 3, 0);
	assert_refused(dir, bad, "format version 3");
	unlink(bad);
	/* A byte in the middle of the first chunk's compressed frame. */
	char err[512];
	struct alloclab_trace *t = alloclab_trace_open(good, err, sizeof err);
	cr_assert(t, "%s", err);
	long meta = 16 + (long)strlen("{\"test\":\"by hand\"}");
	alloclab_trace_close(t);
	copy_patched(good, bad, meta + 24 + 40, 0x5a, 0);
	assert_refused(dir, bad, "corrupt chunk");
	unlink(bad);
	copy_patched(good, bad, 0, 'X', 0);
	assert_refused(dir, bad, "not an alloclab trace");
	unlink(bad);

	w = writer(bad);
	put(w, 0, ALLOCLAB_TRACE_FREE, 0, 0, 0);
	put(w, 0, ALLOCLAB_TRACE_MALLOC, 8, 0, 0);
	finish(w);
	assert_refused(dir, bad, "free of an object never allocated");
	unlink(bad);
	/* A release of a slot the thread never allocates into (past every
	 * slot it uses; another thread's; by realloc): said as what it is,
	 * not as a number out of range. */
	for (int k = 0; k < 3; k++) {
		w = writer(bad);
		put(w, 0, ALLOCLAB_TRACE_MALLOC, 8, 0, 0);
		if (k == 0)
			put(w, 0, ALLOCLAB_TRACE_FREE, 0, 0, 7);
		else if (k == 1)
			put(w, 0, ALLOCLAB_TRACE_REALLOC, 16, 1, 4);
		else {
			struct alloclab_trace_event r = {.op = ALLOCLAB_TRACE_FREE, .remote = 1, .old_owner = 0, .old_slot = 5};
			cr_assert_eq(alloclab_trace_write(w, 1, &r), 0);
		}
		finish(w);
		static const char *const says[] = {"free of the object in slot 7", "realloc of the object in slot 4",
						   "free of thread 0's object in slot 5"};
		assert_refused(dir, bad, says[k]);
		assert_refused(dir, bad, "releases an object the trace never allocated");
		unlink(bad);
	}

	/* The end record's slot count, which sizes the validator's tables, is
	 * believed only as far as the events bear it out: one digit raised (1
	 * slot declared as 9) is refused, naming the count, before memory is
	 * sized. */
	char small[4200];
	snprintf(small, sizeof small, "%s/small.trace", dir);
	w = writer(small);
	put(w, 0, ALLOCLAB_TRACE_MALLOC, 8, 0, 0);
	put(w, 0, ALLOCLAB_TRACE_FREE, 0, 0, 0);
	finish(w);
	char *text = read_file(small);
	struct stat st;
	cr_assert(text && stat(small, &st) == 0);
	char *at = memmem(text, (size_t)st.st_size, "\"slots\":1}", 10);
	cr_assert(at, "no slot count in the end record");
	copy_patched(small, bad, (long)(at - text) + 8, '9', 0);
	assert_refused(dir, bad, "declares 9 slots");
	unlink(bad);
	free(text);

	w = writer(bad);
	put(w, 0, ALLOCLAB_TRACE_MALLOC, 8, 0, 0);
	put(w, 0, ALLOCLAB_TRACE_FREE, 0, 0, 0);
	put(w, 0, ALLOCLAB_TRACE_FREE, 0, 0, 0);
	finish(w);
	assert_refused(dir, bad, "double free");
	unlink(bad);

	w = writer(bad);
	put(w, 0, ALLOCLAB_TRACE_MALLOC, 1ull << 41, 0, 0);
	finish(w);
	assert_refused(dir, bad, "absurd size");
	unlink(bad);

	/* Thread 1 frees thread 0's object twice. */
	w = writer(bad);
	put(w, 0, ALLOCLAB_TRACE_MALLOC, 8, 0, 0);
	struct alloclab_trace_event e = {.op = ALLOCLAB_TRACE_FREE, .remote = 1, .old_owner = 0, .old_slot = 0, .arg = 0};
	cr_assert_eq(alloclab_trace_write(w, 1, &e), 0);
	cr_assert_eq(alloclab_trace_write(w, 1, &e), 0);
	finish(w);
	assert_refused(dir, bad, "double free");
	unlink(bad);

	assert_refused(dir, "/nonexistent/x.trace", "cannot open");
}

/* ---- windows: the recorded values, replayed as the steady state ---- */

static void record_windows(const char *dir, const char *plugin, const char *workload, const char *threads,
			   const char *warmups, const char *values, const char *out)
{
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"record", "-p", plugin, "-w", workload, "-t",
								      threads, "-W", warmups, "-v", values, "-o", out, NULL});
	cr_assert_eq(r.status, 0, "record %s: %d: %s %s", workload, r.status, r.out, r.err);
	cmd_result_free(&r);
}

struct windows {
	unsigned n;
	uint64_t begin[8], end[8], events;
};

static struct windows windows_of(const char *path, unsigned thread)
{
	char err[512];
	struct windows w = {0};
	struct alloclab_trace *t = alloclab_trace_open(path, err, sizeof err);
	cr_assert(t, "%s", err);
	cr_assert_eq(alloclab_trace_version(t), ALLOCLAB_TRACE_VERSION);
	w.n = alloclab_trace_windows(t);
	cr_assert_leq(w.n, 8);
	for (unsigned k = 0; k < w.n; k++)
		alloclab_trace_window(t, k, thread, &w.begin[k], &w.end[k]);
	w.events = alloclab_trace_events(t, thread);
	alloclab_trace_close(t);
	return w;
}

/* Events of op in e[from, to). */
static uint64_t count_op(const struct alloclab_trace_event *e, uint64_t from, uint64_t to, unsigned op)
{
	uint64_t n = 0;
	for (uint64_t i = from; i < to; i++)
		n += e[i].op == op;
	return n;
}

static const json_t *report_of(const struct alloclab_cell *c, unsigned value)
{
	return json_array_get(c->procs[0].values[value].thread_reports, 0);
}

Test(trace, windows_are_the_measured_values_and_a_replay_times_them_alone, .timeout = 240)
{
	char *dir = scratch_dir(), *a = path_in(dir, "a.trace"), spec[4200];
	struct alloclab_results *res;
	size_t n;

	/* An interpreter's start-up, one warm-up and two measured values of
	 * one richards iteration each. */
	record_windows(dir, "system", "python:bench=richards,loops=1,profile=no,hash_seed=1,census=no", "1", "1", "2", a);
	struct windows w = windows_of(a, 0);
	cr_assert_eq(w.n, 2, "one window a measured value, not %u", w.n);
	uint64_t w0 = w.end[0] - w.begin[0], w1 = w.end[1] - w.begin[1];
	cr_assert(w0 > 1000 && w1 > 1000, "windows of %llu and %llu events", (unsigned long long)w0,
		  (unsigned long long)w1);
	/* The same iteration: nearly the same calls. */
	cr_assert(w0 < w1 * 11 / 10 && w1 < w0 * 11 / 10, "%llu and %llu events", (unsigned long long)w0,
		  (unsigned long long)w1);
	/* Start-up and the warm-up come before: more than a window. */
	cr_assert_gt(w.begin[0], w0);
	cr_assert_gt(w.events, w.end[1]);
	struct alloclab_trace_event *e = events_of(a, 0, &n);

	/* Two values: each times its window, after what came before it was
	 * replayed untimed; the heap is kept from the first to the second,
	 * and nothing after the last window (teardown) is replayed. */
	snprintf(spec, sizeof spec, "trace:file=%s,start=first", a);
	const struct alloclab_cell *c = replay_values(dir, test_plugin("thread_counting"), spec, "1", "2", &res);
	cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s", c->message);
	cr_assert_eq(c->procs[0].nvalues, 2);
	cr_assert_eq(c->procs[0].values[0].thread_ops[0], w0);
	cr_assert_eq(c->procs[0].values[1].thread_ops[0], w1);
	cr_assert_str_eq(json_string_value(json_object_get(report_of(c, 0), "part")), "steady");
	cr_assert_eq(json_integer_value(json_object_get(report_of(c, 0), "window")), 0);
	cr_assert_eq(json_integer_value(json_object_get(report_of(c, 1), "window")), 1);
	cr_assert_eq(json_integer_value(json_object_get(report_of(c, 0), "left_live")), 0, "the heap is kept");
	cr_assert_gt(json_integer_value(json_object_get(report_of(c, 0), "kept_live")), 1000);
	cr_assert_gt(json_integer_value(json_object_get(report_of(c, 1), "left_live")), 1000, "freed at the end");
	cr_assert_eq(json_integer_value(json_object_get(c->procs[0].stats_after_finish, "mallocs")),
		     (json_int_t)count_op(e, 0, w.end[1], ALLOCLAB_TRACE_MALLOC));
	alloclab_results_free(res);

	/* Decoded a chunk at a time: the same calls. */
	snprintf(spec, sizeof spec, "trace:file=%s,decode=stream,start=first", a);
	c = replay_values(dir, test_plugin("thread_counting"), spec, "1", "2", &res);
	cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s", c->message);
	cr_assert_eq(c->procs[0].values[1].thread_ops[0], w1);
	cr_assert_eq(json_integer_value(json_object_get(c->procs[0].stats_after_finish, "mallocs")),
		     (json_int_t)count_op(e, 0, w.end[1], ALLOCLAB_TRACE_MALLOC));
	alloclab_results_free(res);

	/* A third value: the windows are used up, so the replay starts
	 * again from nothing (untimed) and times the first window again. */
	snprintf(spec, sizeof spec, "trace:file=%s,start=first", a);
	c = replay_values(dir, test_plugin("thread_counting"), spec, "1", "3", &res);
	cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s", c->message);
	cr_assert_eq(c->procs[0].values[2].thread_ops[0], w0);
	cr_assert_eq(json_integer_value(json_object_get(report_of(c, 2), "window")), 0);
	cr_assert_eq(json_integer_value(json_object_get(c->procs[0].stats_after_finish, "mallocs")),
		     (json_int_t)(count_op(e, 0, w.end[1], ALLOCLAB_TRACE_MALLOC) +
				  count_op(e, 0, w.end[0], ALLOCLAB_TRACE_MALLOC)));
	alloclab_results_free(res);

	/* By default each process starts at a window drawn from it, so that
	 * processes together sample every window: over a few processes both
	 * windows lead, and every value still times a whole window. */
	snprintf(spec, sizeof spec, "trace:file=%s", a);
	struct cmd_result rr = run_alloclab(dir, (const char *const[]){"run", "--no-check", "-p", "system", "-w", spec, "-t",
								       "1", "-n", "16", "-v", "1", "--warmups", "0", "-q", "-o",
								       "drawn.json", NULL});
	cr_assert_eq(rr.status, 0, "%s", rr.err);
	cmd_result_free(&rr);
	res = load_results(dir, "drawn.json");
	int led[2] = {0, 0};
	for (unsigned p = 0; p < res->cells[0].nprocs; p++) {
		const json_t *rep = json_array_get(res->cells[0].procs[p].values[0].thread_reports, 0);
		json_int_t k = json_integer_value(json_object_get(rep, "window"));
		cr_assert(k == 0 || k == 1, "window %lld", (long long)k);
		cr_assert_eq(res->cells[0].procs[p].values[0].thread_ops[0], k ? w1 : w0);
		led[k] = 1;
	}
	/* 16 processes, each drawing one of two: all alike 1 time in 32,768. */
	cr_expect(led[0] && led[1], "16 processes all started at one window");
	alloclab_results_free(res);

	/* Start-up and teardown are rows of their own. */
	snprintf(spec, sizeof spec, "trace:file=%s,part=startup", a);
	c = replay_values(dir, test_plugin("thread_counting"), spec, "1", "2", &res);
	cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s", c->message);
	cr_assert_eq(c->procs[0].values[1].thread_ops[0], w.begin[0]);
	cr_assert_str_eq(json_string_value(json_object_get(report_of(c, 0), "part")), "startup");
	alloclab_results_free(res);
	snprintf(spec, sizeof spec, "trace:file=%s,part=teardown", a);
	c = replay_values(dir, test_plugin("thread_counting"), spec, "1", "1", &res);
	cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s", c->message);
	cr_assert_eq(c->procs[0].values[0].thread_ops[0], w.events - w.end[1]);
	alloclab_results_free(res);
	free(e);
}

Test(trace, windows_cut_every_thread_at_once, .timeout = 240)
{
	char *dir = scratch_dir(), *a = path_in(dir, "a.trace"), spec[4200];
	struct alloclab_results *res;

	/* Threads that free each other's blocks: a window's remote frees of
	 * blocks allocated before it wait for the untimed part, never the
	 * other way round. */
	record_windows(dir, "jemalloc", "xmalloc:ops=102400", "2", "1", "2", a);
	struct windows w0 = windows_of(a, 0), w1 = windows_of(a, 1);
	cr_assert_eq(w0.n, 2);
	snprintf(spec, sizeof spec, "trace:file=%s,start=first", a);
	for (int stream = 0; stream < 2; stream++) {
		char s2[4300];
		snprintf(s2, sizeof s2, "%s%s", spec, stream ? ",decode=stream" : "");
		const struct alloclab_cell *c = replay_values(dir, test_plugin("thread_counting"), s2, "2", "3", &res);
		cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s", c->message);
		for (unsigned v = 0; v < 3; v++) {
			cr_assert_eq(c->procs[0].values[v].thread_ops[0], w0.end[v % 2] - w0.begin[v % 2]);
			cr_assert_eq(c->procs[0].values[v].thread_ops[1], w1.end[v % 2] - w1.begin[v % 2]);
		}
		alloclab_results_free(res);
	}
}

Test(trace, a_trace_without_windows_is_replayed_whole_and_says_so, .timeout = 120)
{
	char *dir = scratch_dir(), *good = path_in(dir, "good.trace"), *old = path_in(dir, "old.trace"), spec[4200];
	struct alloclab_results *res;
	struct alloclab_trace_writer *w = writer(good);
	for (unsigned i = 0; i < 3000; i++) {
		put(w, 0, ALLOCLAB_TRACE_MALLOC, 16 + i % 200, i % 50, 0);
		put(w, 0, ALLOCLAB_TRACE_FREE, 0, 0, i % 50);
	}
	finish(w);
	/* As an alloclab before windows wrote it: format 1. */
	copy_patched(good, old, 8, 1, 0);
	snprintf(spec, sizeof spec, "trace:file=%s", old);
	const struct alloclab_cell *c = replay(dir, test_plugin("thread_counting"), spec, "1", &res);
	cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s", c->message);
	cr_assert_eq(c->procs[0].values[0].thread_ops[0], 6000);
	cr_assert_str_eq(json_string_value(json_object_get(report_of(c, 0), "part")), "whole");
	alloclab_results_free(res);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"show", "replay.json", NULL});
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "start-up and teardown included"), "%s", r.out);
	cmd_result_free(&r);

	/* A steady state it does not have is refused in one line. */
	snprintf(spec, sizeof spec, "trace:file=%s,part=steady", old);
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", spec, "-n", "1", "-o", "x.json", NULL});
	cr_assert_eq(r.status, 2, "%d: %s", r.status, r.err);
	cr_assert(strstr(r.err, "has no windows") && strstr(r.err, "part=whole"), "%s", r.err);
	cr_assert_eq(count_lines(r.err), 1, "%s", r.err);
	cmd_result_free(&r);

	/* And loops= does not repeat a window. */
	char *a = path_in(dir, "a.trace");
	record_windows(dir, "system", "churn:ops=5000", "1", "0", "1", a);
	snprintf(spec, sizeof spec, "trace:file=%s,loops=3", a);
	r = run_alloclab(dir, (const char *const[]){"run", "-p", "system", "-w", spec, "-n", "1", "-o", "x.json", NULL});
	cr_assert_eq(r.status, 2, "%d: %s", r.status, r.err);
	cr_assert(strstr(r.err, "loops=3") && strstr(r.err, "part=whole"), "%s", r.err);
	cr_assert_eq(count_lines(r.err), 1, "%s", r.err);
	cmd_result_free(&r);
}

/* A copy of `from` with the first `was` in its end record replaced by
 * `now` (the same length, so that every offset holds). */
static void copy_replaced(const char *from, const char *to, const char *was, const char *now)
{
	struct stat st;
	char *text = read_file(from);
	cr_assert(text && stat(from, &st) == 0 && strlen(was) == strlen(now));
	char *at = memmem(text, (size_t)st.st_size, was, strlen(was));
	cr_assert(at, "no '%s' in %s", was, from);
	memcpy(at, now, strlen(now));
	FILE *f = fopen(to, "wb");
	cr_assert(f);
	fwrite(text, 1, (size_t)st.st_size, f);
	fclose(f);
	free(text);
}

Test(trace, hostile_windows_are_refused_with_one_line)
{
	char *dir = scratch_dir(), *good = path_in(dir, "good.trace"), *bad = path_in(dir, "bad.trace");
	struct alloclab_trace_writer *w = writer(good);
	/* Six events; windows [2, 4) and [4, 6). */
	for (unsigned i = 0; i < 3; i++) {
		if (i > 0)
			cr_assert_eq(alloclab_trace_writer_window(w, 1), 0);
		put(w, 0, ALLOCLAB_TRACE_MALLOC, 16, 0, 0);
		put(w, 0, ALLOCLAB_TRACE_FREE, 0, 0, 0);
		if (i > 0)
			cr_assert_eq(alloclab_trace_writer_window(w, 0), 0);
	}
	/* Out of turn: a second close. */
	cr_assert_eq(alloclab_trace_writer_window(w, 0), -1);
	alloclab_trace_writer_abort(w);
	w = writer(good);
	for (unsigned i = 0; i < 3; i++) {
		if (i > 0)
			alloclab_trace_writer_window(w, 1);
		put(w, 0, ALLOCLAB_TRACE_MALLOC, 16, 0, 0);
		put(w, 0, ALLOCLAB_TRACE_FREE, 0, 0, 0);
		if (i > 0)
			alloclab_trace_writer_window(w, 0);
	}
	/* A value that reached no allocator is no window: dropped. */
	cr_assert_eq(alloclab_trace_writer_window(w, 1), 0);
	cr_assert_eq(alloclab_trace_writer_window(w, 0), 0);
	finish(w);
	struct windows ok = windows_of(good, 0);
	cr_assert(ok.n == 2 && ok.begin[0] == 2 && ok.end[0] == 4 && ok.begin[1] == 4 && ok.end[1] == 6);

	static const struct {
		const char *was, *now, *says;
	} cases[] = {
		{"{\"begin\":[2],\"end\":[4]}", "{\"begin\":[5],\"end\":[4]}", "window 0 of thread 0 ends before it begins"},
		{"{\"begin\":[4],\"end\":[6]}", "{\"begin\":[3],\"end\":[6]}", "begins before the window before it ended"},
		{"{\"begin\":[4],\"end\":[6]}", "{\"begin\":[4],\"end\":[7]}", "not a count from 0 to its 6 events"},
		{"{\"begin\":[4],\"end\":[6]}", "{\"begin\":[4],\"end\":[4]}", "window 1 holds no event"},
		{"{\"begin\":[2],\"end\":[4]}", "{\"begin\":[2],\"end\":\"4\"}", "window 0 needs 'end'"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		copy_replaced(good, bad, cases[k].was, cases[k].now);
		assert_refused(dir, bad, cases[k].says);
		unlink(bad);
	}
	/* Windows in a format that had none. */
	copy_patched(good, bad, 8, 1, 0);
	assert_refused(dir, bad, "'windows' in a version 1 trace");
}

Test(trace, record_refuses_bad_requests_and_leaves_nothing_behind)
{
	char *dir = scratch_dir();
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"record", "-p", "system", "-o", "x.trace", NULL});
	cr_assert_eq(r.status, 2);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"record", "-p", "system", "-w", "churn", "-o", dir, NULL});
	cr_assert_eq(r.status, 2, "%s", r.err);
	cmd_result_free(&r);
	/* The plugin crashes half-way: no trace, and no temporary file left. */
	char plugin[4200];
	snprintf(plugin, sizeof plugin, "%s:n=3000", test_plugin("crash_nth"));
	r = run_alloclab(dir, (const char *const[]){"record", "--no-check", "-p", plugin, "-w", "churn", "-o", "x.trace", NULL});
	cr_assert_eq(r.status, 1, "%s", r.err);
	/* One line that says the recording stopped, how, and that nothing
	 * of it was kept. */
	cr_assert(strstr(r.err, "signal 11") && strstr(r.err, "stopped") &&
			  strstr(r.err, "no trace of it is kept (x.trace is not written)") && count_lines(r.err) == 1,
		  "%s", r.err);
	cmd_result_free(&r);
	DIR *d = opendir(dir);
	struct dirent *ent;
	while ((ent = readdir(d)) != NULL)
		cr_assert(ent->d_name[0] == '.', "left behind: %s", ent->d_name);
	closedir(d);
}

Test(trace, a_trace_far_longer_than_memory_replays_in_bounded_memory, .timeout = 300)
{
	/* 2^27 events: 4 GiB decoded, far more than decode=auto takes ahead. */
	const unsigned pairs = slow_setup() ? 1u << 20 : 1u << 26;
	char *dir = scratch_dir(), *path = path_in(dir, "long.trace"), spec[4200];
	struct alloclab_trace_writer *w = writer(path);
	for (unsigned i = 0; i < pairs; i++) {
		put(w, 0, ALLOCLAB_TRACE_MALLOC, 32 + (i & 255), i & 63, 0);
		put(w, 0, ALLOCLAB_TRACE_FREE, 0, 0, i & 63);
	}
	finish(w);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);

	struct alloclab_results *res;
	snprintf(spec, sizeof spec, "trace:file=%s%s", path, slow_setup() ? ",decode=stream" : "");
	const struct alloclab_cell *c = replay(dir, "system", spec, "1", &res);
	cr_assert_eq(c->status, ALLOCLAB_CELL_OK, "%s", c->message);
	cr_assert_eq(c->procs[0].values[0].thread_ops[0], 2ull * pairs);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(c->procs[0].values[0].thread_reports, 0),
							   "decode")),
			 "stream");
	/* The worker's whole peak: the harness, the decoding buffers, 64 slots
	 * (under valgrind or a sanitizer their own memory counts too). */
	if (!slow_setup())
		cr_assert_lt(c->procs[0].peak_rss_kib, 64 * 1024, "peak RSS %ld KiB for a %lld-byte trace of %u events",
		     c->procs[0].peak_rss_kib, (long long)st.st_size, 2 * pairs);
	alloclab_results_free(res);
}

/* ---- a wrong release by another thread, named by where it is ---- */

/* Where thread th's first chunk starts in the trace at path. */
static uint64_t first_chunk_at(const char *path, unsigned th)
{
	char err[512];
	struct alloclab_trace *t = alloclab_trace_open(path, err, sizeof err);
	cr_assert(t, "%s", err);
	struct alloclab_trace_cursor *c = alloclab_trace_cursor_new(t, th);
	struct alloclab_trace_event *ev = malloc(ALLOCLAB_TRACE_CHUNK_EVENTS * sizeof *ev);
	size_t n;
	cr_assert(c && ev);
	cr_assert_eq(alloclab_trace_next_chunk(c, ev, &n, err, sizeof err), 1, "%s", err);
	uint64_t at = alloclab_trace_cursor_chunk_offset(c);
	free(ev);
	alloclab_trace_cursor_free(c);
	alloclab_trace_close(t);
	return at;
}

/* A free by thread 1 of thread 0's object that thread 0 allocated once:
 * a generation never allocated, or the one allocated freed twice (by
 * thread 1 twice, or by thread 1 after thread 0 freed it itself). Only at
 * the end does validation know a slot's releases do not add up; the
 * message names the event to blame (thread 1's sixth, after five of its
 * own), its chunk's byte, the slot and the file, not the slot alone. */
Test(trace, a_wrong_release_by_another_thread_is_named_by_its_event)
{
	char *dir = scratch_dir(), *bad = path_in(dir, "remote.trace");
	for (int k = 0; k < 3; k++) {
		struct alloclab_trace_writer *w = writer(bad);
		put(w, 0, ALLOCLAB_TRACE_MALLOC, 8, 0, 0);
		if (k == 2)
			put(w, 0, ALLOCLAB_TRACE_FREE, 0, 0, 0);
		for (unsigned i = 0; i < 5; i++)
			put(w, 1, i % 2 ? ALLOCLAB_TRACE_FREE : ALLOCLAB_TRACE_MALLOC, 16, 0, 0);
		struct alloclab_trace_event e = {.op = ALLOCLAB_TRACE_FREE, .remote = 1, .old_owner = 0, .old_slot = 0,
						 .arg = k == 0 ? 3 : 0};
		cr_assert_eq(alloclab_trace_write(w, 1, &e), 0);
		if (k == 1)
			cr_assert_eq(alloclab_trace_write(w, 1, &e), 0);
		finish(w);

		char where[160];
		snprintf(where, sizeof where, "thread 1, event %d (chunk at byte %llu): free of thread 0's object in slot 0, "
					      "generation %d",
			 k == 1 ? 6 : 5, (unsigned long long)first_chunk_at(bad, 1), k == 0 ? 3 : 0);
		assert_refused(dir, bad, where);
		assert_refused(dir, bad, k == 0 ? "before (or without) its allocation" : "a double free");
		unlink(bad);
	}
}
