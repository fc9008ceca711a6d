/* Timing each allocator call. See latency.h. */
#define _GNU_SOURCE 1
#include "measure/latency.h"
#include "base/clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- the clock ---- */

#if defined(__x86_64__) || defined(__i386__)
/* lfence first: the reads before the call are done before the counter is
 * read; rdtscp waits for the call to finish, and the lfence after it keeps
 * later work from starting before the read. */
static inline uint64_t clock_begin(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t clock_end(void)
{
	uint32_t lo, hi, aux;
	__asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
	return ((uint64_t)hi << 32) | lo;
}
#else
#define clock_begin alloclab_now_ns
#define clock_end alloclab_now_ns
#endif

/* ---- per-thread counts ---- */

enum { SLOT_FREE, SLOT_USED, SLOT_GONE };

struct lat_thread {
	struct lat_thread *next;
	_Atomic int state;
	int index;      /* the workload thread's, or -1 */
	int64_t event;  /* the replay's current event, or -1 */
	uint64_t left;  /* calls until the next measured one */
	uint64_t slow_min; /* the fastest of the kept slow calls, when full */
	unsigned nslow;
	struct alloclab_lat_slow slow[ALLOCLAB_LAT_SLOWEST];
	struct alloclab_lat_dense d[ALLOCLAB_LAT_OPS];
};

static struct alloclab_plugin inner;   /* the ops under the wrapper */
static unsigned every;                 /* 0: not installed */
static uint64_t overhead_ticks, mult;  /* units = (ticks - overhead) * mult >> 32 */
static double overhead_ns, empty_mean_ns;
static _Atomic int active;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct lat_thread *_Atomic threads; /* every slot ever made; only pushed */
/* Each thread's slot. A thread key, not a thread-local variable: one
 * in the program would move every other thread-local variable, the
 * allocators' own among them, and with them what the allocator does
 * (jemalloc's instruction count moves by a tenth of a percent), whether
 * --latency is on or not. Its destructor marks the slot gone. */
static pthread_key_t key;
static struct alloclab_latency *absorbed;

static void thread_gone(void *arg)
{
	struct lat_thread *t = arg;
	atomic_store(&t->state, SLOT_GONE);
}

static struct lat_thread *enrol(void)
{
	struct lat_thread *t;

	for (t = atomic_load(&threads); t; t = t->next) {
		int expect = SLOT_FREE;
		if (atomic_compare_exchange_strong(&t->state, &expect, SLOT_USED))
			break;
	}
	if (t == NULL) {
		void *m = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		t = m;
		atomic_store(&t->state, SLOT_USED);
		pthread_mutex_lock(&lock);
		t->next = atomic_load(&threads);
		atomic_store(&threads, t);
		pthread_mutex_unlock(&lock);
	}
	t->index = -1;
	t->event = -1;
	t->left = every;
	pthread_setspecific(key, t);
	return t;
}

static inline struct lat_thread *mine(void)
{
	struct lat_thread *t = pthread_getspecific(key);
	return __builtin_expect(t != NULL, 1) ? t : enrol();
}

static void keep_slow(struct lat_thread *t, unsigned op, uint64_t units, uint64_t size)
{
	struct alloclab_lat_slow s = {op, units, size, t->index, t->event};
	unsigned at = t->nslow < ALLOCLAB_LAT_SLOWEST ? t->nslow : 0;

	if (t->nslow == ALLOCLAB_LAT_SLOWEST) /* replace the fastest kept */
		for (unsigned i = 1; i < ALLOCLAB_LAT_SLOWEST; i++)
			if (t->slow[i].units < t->slow[at].units)
				at = i;
	t->slow[at] = s;
	if (t->nslow < ALLOCLAB_LAT_SLOWEST)
		t->nslow++;
	if (t->nslow == ALLOCLAB_LAT_SLOWEST) {
		t->slow_min = UINT64_MAX;
		for (unsigned i = 0; i < ALLOCLAB_LAT_SLOWEST; i++)
			if (t->slow[i].units < t->slow_min)
				t->slow_min = t->slow[i].units;
	}
}

static inline void note(struct lat_thread *t, unsigned op, uint64_t ticks, uint64_t size)
{
	ticks = ticks > overhead_ticks ? ticks - overhead_ticks : 0;
	__extension__ typedef unsigned __int128 u128;
	uint64_t units = (uint64_t)(((u128)ticks * mult) >> 32);
	struct alloclab_lat_dense *d = &t->d[op];

	d->count++;
	d->sum_units += units;
	if (units > d->max_units)
		d->max_units = units;
	d->b[alloclab_lat_bucket(units)]++;
	if (units >= ALLOCLAB_LAT_1US) {
		d->over_1us++;
		d->over_100us += units >= ALLOCLAB_LAT_100US;
	}
	if (units > t->slow_min || t->nslow < ALLOCLAB_LAT_SLOWEST)
		keep_slow(t, op, units, size);
}

/* The thread's slot when this call is to be measured, else NULL. */
static inline struct lat_thread *measuring(void)
{
	if (!atomic_load_explicit(&active, memory_order_relaxed))
		return NULL;
	struct lat_thread *t = mine();
	if (t == NULL || --t->left)
		return NULL;
	t->left = every;
	return t;
}

/* ---- the wrapper ---- */

static void *l_malloc(void *instance, size_t n)
{
	struct lat_thread *t = measuring();
	if (t == NULL)
		return inner.malloc(instance, n);
	uint64_t t0 = clock_begin();
	void *p = inner.malloc(instance, n);
	note(t, ALLOCLAB_LAT_MALLOC, clock_end() - t0, n);
	return p;
}

static void *l_calloc(void *instance, size_t nmemb, size_t n)
{
	struct lat_thread *t = measuring();
	if (t == NULL)
		return inner.calloc(instance, nmemb, n);
	uint64_t t0 = clock_begin();
	void *p = inner.calloc(instance, nmemb, n);
	note(t, ALLOCLAB_LAT_CALLOC, clock_end() - t0, n && nmemb > SIZE_MAX / n ? SIZE_MAX : nmemb * n);
	return p;
}

static void *l_realloc(void *instance, void *old, size_t n)
{
	struct lat_thread *t = measuring();
	if (t == NULL)
		return inner.realloc(instance, old, n);
	uint64_t t0 = clock_begin();
	void *p = inner.realloc(instance, old, n);
	note(t, ALLOCLAB_LAT_REALLOC, clock_end() - t0, n);
	return p;
}

static void *l_aligned_alloc(void *instance, size_t alignment, size_t n)
{
	struct lat_thread *t = measuring();
	if (t == NULL)
		return inner.aligned_alloc(instance, alignment, n);
	uint64_t t0 = clock_begin();
	void *p = inner.aligned_alloc(instance, alignment, n);
	note(t, ALLOCLAB_LAT_ALIGNED, clock_end() - t0, n);
	return p;
}

static void l_free(void *instance, void *p)
{
	struct lat_thread *t = measuring();
	if (t == NULL) {
		inner.free(instance, p);
		return;
	}
	uint64_t t0 = clock_begin();
	inner.free(instance, p);
	note(t, ALLOCLAB_LAT_FREE, clock_end() - t0, 0);
}

static void l_free_sized(void *instance, void *p, size_t n)
{
	struct lat_thread *t = measuring();
	if (t == NULL) {
		inner.free_sized(instance, p, n);
		return;
	}
	uint64_t t0 = clock_begin();
	inner.free_sized(instance, p, n);
	note(t, ALLOCLAB_LAT_FREE, clock_end() - t0, n);
}

static void calibrate(void)
{
	uint64_t ns0 = alloclab_now_ns(), c0 = clock_begin(), ns1, c1;
	uint64_t best = UINT64_MAX;

	do
		ns1 = alloclab_now_ns();
	while (ns1 - ns0 < 10000000);
	c1 = clock_end();
	double ns_per_tick = c1 > c0 ? (double)(ns1 - ns0) / (double)(c1 - c0) : 1.0;
	mult = (uint64_t)(ns_per_tick * ALLOCLAB_LAT_UNITS_PER_NS * 4294967296.0);
	/* An empty measurement's cost: the fastest of many, so that no call
	 * is made to look faster than it was. */
	for (int i = 0; i < 2000; i++) {
		uint64_t t0 = clock_begin(), t1 = clock_end();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	overhead_ticks = best;
	overhead_ns = (double)best * ns_per_tick;
	/* And what one costs among many: the reads' throughput. */
	uint64_t start = clock_begin(), sink = 0;
	for (int i = 0; i < 2000; i++) {
		uint64_t t0 = clock_begin();
		sink += clock_end() - t0;
	}
	empty_mean_ns = (double)(clock_end() - start) * ns_per_tick / 2000;
	(void)sink;
}

void alloclab_latency_install(struct alloclab_allocator *a, unsigned k)
{
	inner = a->ops;
	every = k ? k : 1;
	pthread_key_create(&key, thread_gone);
	calibrate();
	alloclab_allocator_no_shortcuts(a);
	a->ops.malloc = l_malloc;
	a->ops.calloc = l_calloc;
	a->ops.free = l_free;
	a->ops.free_sized = l_free_sized;
	if (inner.realloc)
		a->ops.realloc = l_realloc;
	if (inner.aligned_alloc)
		a->ops.aligned_alloc = l_aligned_alloc;
}

unsigned alloclab_latency_every(void) { return every; }

void alloclab_latency_thread(int index)
{
	struct lat_thread *t = every ? mine() : NULL;
	if (t)
		t->index = index;
}

void alloclab_latency_event(int64_t index)
{
	struct lat_thread *t = mine();
	if (t)
		t->event = index;
}

void alloclab_latency_start(void)
{
	atomic_store(&active, 1);
}

void alloclab_latency_absorb(const struct alloclab_latency *l)
{
	pthread_mutex_lock(&lock);
	if (absorbed == NULL && (absorbed = alloclab_latency_new(every, overhead_ns)) != NULL)
		absorbed->empty_mean_ns = empty_mean_ns;
	if (absorbed)
		alloclab_latency_merge(absorbed, l);
	pthread_mutex_unlock(&lock);
}

struct alloclab_latency *alloclab_latency_stop(void)
{
	struct alloclab_latency *out;

	if (!every)
		return NULL;
	atomic_store(&active, 0);
	out = alloclab_latency_new(every, overhead_ns);
	out->empty_mean_ns = empty_mean_ns;
	for (struct lat_thread *t = atomic_load(&threads); t; t = t->next) {
		int state = atomic_load(&t->state);
		if (state == SLOT_FREE)
			continue;
		for (unsigned op = 0; op < ALLOCLAB_LAT_OPS; op++)
			if (t->d[op].count) {
				alloclab_latency_add_dense(out, op, &t->d[op]);
				memset(&t->d[op], 0, sizeof t->d[op]);
			}
		for (unsigned i = 0; i < t->nslow; i++)
			alloclab_latency_offer_slow(out, &t->slow[i]);
		t->nslow = 0;
		t->slow_min = 0;
		if (state == SLOT_GONE)
			atomic_store(&t->state, SLOT_FREE);
	}
	pthread_mutex_lock(&lock);
	if (absorbed) {
		alloclab_latency_merge(out, absorbed);
		alloclab_latency_free(absorbed);
		absorbed = NULL;
	}
	pthread_mutex_unlock(&lock);
	return out;
}
