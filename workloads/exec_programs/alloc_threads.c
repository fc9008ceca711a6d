/*
 * alloc-threads: the multithreaded allocation-heavy program of the exec
 * workload. Each of T threads runs alloc-loop's ring of mixed sizes, and
 * every 16th block it allocates goes to the next thread through a small
 * queue, to be freed there: frees across threads, as a server's requests
 * and responses are.
 *   alloc-threads [THREADS] [MILLIONS]   (default 2 threads, 4 million steps each)
 * Prints a checksum of the sizes.
 */
#include <pthread.h>
#include "mixed_sizes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define RING 1000
#define QUEUE 256
#define MAX_THREADS 64

struct queue {
	pthread_mutex_t lock;
	void *items[QUEUE];
	unsigned head, count;
};

static struct queue queues[MAX_THREADS];
static unsigned nthreads;
static uint64_t steps;

/* Hands p to queue q; 0 when it is full (the caller frees p itself). */
static int hand(struct queue *q, void *p)
{
	int ok = 0;
	pthread_mutex_lock(&q->lock);
	if (q->count < QUEUE) {
		q->items[(q->head + q->count++) % QUEUE] = p;
		ok = 1;
	}
	pthread_mutex_unlock(&q->lock);
	return ok;
}

static void drain(struct queue *q)
{
	void *got[QUEUE];
	unsigned n = 0;
	pthread_mutex_lock(&q->lock);
	while (q->count) {
		got[n++] = q->items[q->head];
		q->head = (q->head + 1) % QUEUE;
		q->count--;
	}
	pthread_mutex_unlock(&q->lock);
	for (unsigned i = 0; i < n; i++)
		free(got[i]);
}

static void *run(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;
	uint64_t x = 88172645463325252ull + me * 7919, sum = 0;
	unsigned char **ring = calloc(RING, sizeof *ring);

	for (uint64_t i = 0; ring && i < steps; i++) {
		unsigned k = (unsigned)(i % RING);
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t n = mixed_size(x);
		if (i % 16 == 15 && ring[k] && hand(&queues[(me + 1) % nthreads], ring[k]))
			ring[k] = NULL;
		free(ring[k]);
		if ((ring[k] = malloc(n)) == NULL)
			return NULL;
		ring[k][0] = (unsigned char)n;
		ring[k][n - 1] = (unsigned char)i;
		sum += n;
		if (i % 64 == 0)
			drain(&queues[me]);
	}
	for (unsigned k = 0; ring && k < RING; k++)
		free(ring[k]);
	free(ring);
	return (void *)(uintptr_t)sum;
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_THREADS];
	uint64_t total = 0;

	nthreads = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 2;
	steps = (argc > 2 ? strtoull(argv[2], NULL, 10) : 4) * 1000000ull;
	if (nthreads < 1 || nthreads > MAX_THREADS)
		return 2;
	for (unsigned i = 0; i < nthreads; i++)
		pthread_mutex_init(&queues[i].lock, NULL);
	for (unsigned i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, run, (void *)(uintptr_t)i) != 0)
			return 1;
	for (unsigned i = 0; i < nthreads; i++) {
		void *r;
		pthread_join(t[i], &r);
		total += (uint64_t)(uintptr_t)r;
	}
	for (unsigned i = 0; i < nthreads; i++)
		drain(&queues[i]);
	printf("%llu\n", (unsigned long long)total);
	return 0;
}
