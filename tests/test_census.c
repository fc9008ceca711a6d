/* The census counts exactly with threads counting at once
 * (framework/memory/census.c): its stripes add up to the total. */
#include "helpers.h"
#include "memory/census.h"

#include <stdatomic.h>

#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Blocks from libc, through the ABI's ops. */
static void *l_malloc(void *inst, size_t size) { (void)inst; return malloc(size); }
static void *l_calloc(void *inst, size_t n, size_t size) { (void)inst; return calloc(n, size); }
static void *l_realloc(void *inst, void *b, size_t size) { (void)inst; return realloc(b, size); }
static void l_free(void *inst, void *b) { (void)inst; free(b); }
static void l_free_sized(void *inst, void *b, size_t size) { (void)inst, (void)size; free(b); }

enum { THREADS = 4, BLOCKS = 20000, ROUNDS = 3 };
static pthread_barrier_t gate;
static struct alloclab_allocator a;
static uint64_t seen_live[ROUNDS], seen_peak[ROUNDS];

/* Each thread holds BLOCKS blocks of 24 + its number bytes at once, then
 * frees them; thread 0 reads the census while all of them hold theirs and
 * once they have freed them. Between, each churns: every block freed and
 * allocated again, sizes moved by realloc. */
static void *counter(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;
	size_t size = 24 + me;
	void **b = malloc(BLOCKS * sizeof *b);
	for (unsigned r = 0; r < ROUNDS; r++) {
		for (unsigned i = 0; i < BLOCKS; i++)
			b[i] = i % 2 ? a.ops.malloc(a.instance, size) : a.ops.calloc(a.instance, 1, size);
		for (unsigned i = 0; i < BLOCKS; i += 3) {
			a.ops.free(a.instance, b[i]);
			b[i] = a.ops.realloc(a.instance, a.ops.malloc(a.instance, 7), size);
		}
		pthread_barrier_wait(&gate);
		if (me == 0) {
			uint64_t live, peak;
			alloclab_census_read(&live, &peak);
			seen_live[r] = live, seen_peak[r] = peak;
		}
		pthread_barrier_wait(&gate);
		for (unsigned i = 0; i < BLOCKS; i++)
			i % 2 ? a.ops.free(a.instance, b[i]) : a.ops.free_sized(a.instance, b[i], size);
		pthread_barrier_wait(&gate);
	}
	free(b);
	return NULL;
}

Test(census, threads_counting_at_once_add_up_exactly)
{
	a.ops.malloc = l_malloc, a.ops.calloc = l_calloc, a.ops.realloc = l_realloc;
	a.ops.free = l_free, a.ops.free_sized = l_free_sized;
	cr_assert_eq(alloclab_census_install(&a, NULL), 0);
	pthread_barrier_init(&gate, NULL, THREADS);
	pthread_t t[THREADS];
	for (unsigned i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, counter, (void *)(uintptr_t)i);
	for (unsigned i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	uint64_t all = 0;
	for (unsigned i = 0; i < THREADS; i++)
		all += (uint64_t)BLOCKS * (24 + i);
	for (unsigned r = 0; r < ROUNDS; r++) {
		/* All held at once: exactly their sum, and never more (the
		 * churn before it frees first, then allocates). */
		cr_expect_eq(seen_live[r], all, "round %u: %llu live, want %llu", r, (unsigned long long)seen_live[r],
			     (unsigned long long)all);
		cr_expect_eq(seen_peak[r], all, "round %u: at most %llu, want %llu", r, (unsigned long long)seen_peak[r],
			     (unsigned long long)all);
	}
	uint64_t live, peak;
	alloclab_census_read(&live, &peak);
	cr_expect_eq(live, 0, "%llu bytes still live once every block was freed", (unsigned long long)live);
	cr_expect_eq(peak, all);
}

static atomic_int stop;

static void *churner(void *arg)
{
	(void)arg;
	void *b[64] = {0};
	for (unsigned i = 0; !atomic_load(&stop); i++) {
		a.ops.free(a.instance, b[i % 64]);
		b[i % 64] = a.ops.malloc(a.instance, 16 + i % 200);
	}
	for (unsigned i = 0; i < 64; i++)
		a.ops.free(a.instance, b[i]);
	return NULL;
}

/* A child forked while another thread counts can count too: no stripe's
 * lock is left held in it. Each child allocates across many stripes and
 * exits; one that hangs is killed by its alarm and fails the test. */
Test(census, a_child_forked_while_threads_count_does_not_hang, .timeout = 120)
{
	a.ops.malloc = l_malloc, a.ops.calloc = l_calloc, a.ops.realloc = l_realloc;
	a.ops.free = l_free, a.ops.free_sized = l_free_sized;
	cr_assert_eq(alloclab_census_install(&a, NULL), 0);
	pthread_t t[2];
	for (unsigned i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, churner, NULL);
	unsigned hung = 0;
	for (unsigned k = 0; k < 300; k++) {
		pid_t pid = fork();
		cr_assert_neq(pid, -1);
		if (pid == 0) {
			alarm(5);
			void *b[256];
			for (unsigned i = 0; i < 256; i++)
				b[i] = a.ops.malloc(a.instance, 8 + i);
			for (unsigned i = 0; i < 256; i++)
				a.ops.free(a.instance, b[i]);
			_exit(0);
		}
		int st;
		cr_assert_eq(waitpid(pid, &st, 0), pid);
		hung += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	atomic_store(&stop, 1);
	for (unsigned i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	cr_expect_eq(hung, 0, "%u of 300 children did not finish", hung);
}
