/* Paired mode's slices and the barrier between them. See slice.h. */
#define _GNU_SOURCE 1
#include "worker/slice.h"
#include "base/clock.h"

#include <limits.h>
#include <pthread.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A run()'s own stack: as a thread's, reserved, touched only as used. */
#define SLICE_STACK_BYTES ((size_t)8 << 20)

/* The calling thread's context switches and CPU time so far. The CPU
 * time from the clock, not from getrusage: getrusage's is brought up to
 * date only at the scheduler's ticks, milliseconds behind a running
 * thread. */
struct thread_clock {
	long involuntary, voluntary;
	uint64_t cpu_ns;
	struct alloclab_slice_kernel kernel;
};

static struct alloclab_slice_kernel kernel_of(const struct rusage *ru)
{
	return (struct alloclab_slice_kernel){(uint64_t)ru->ru_minflt, (uint64_t)ru->ru_majflt,
					      (uint64_t)ru->ru_stime.tv_sec * 1000000000ull +
						      (uint64_t)ru->ru_stime.tv_usec * 1000ull};
}

static struct thread_clock thread_clock(void)
{
	struct rusage ru;
	struct timespec ts;
	if (getrusage(RUSAGE_THREAD, &ru) != 0 || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return (struct thread_clock){-1, -1, 0, {0, 0, 0}};
	return (struct thread_clock){ru.ru_nivcsw, ru.ru_nvcsw,
				     (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec, kernel_of(&ru)};
}

struct alloclab_slice_kernel alloclab_slice_kernel_now(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return (struct alloclab_slice_kernel){0, 0, 0};
	return kernel_of(&ru);
}

/* What the kernel did between a and b (counts that did not move, or a
 * reading that failed, give 0). */
static struct alloclab_slice_kernel kernel_between(const struct alloclab_slice_kernel *a,
						    const struct alloclab_slice_kernel *b)
{
	return (struct alloclab_slice_kernel){b->minor_faults > a->minor_faults ? b->minor_faults - a->minor_faults : 0,
					      b->major_faults > a->major_faults ? b->major_faults - a->major_faults : 0,
					      b->sys_ns > a->sys_ns ? b->sys_ns - a->sys_ns : 0};
}

struct alloclab_slice_kernel alloclab_slice_kernel_since(const struct alloclab_slice_kernel *start)
{
	struct alloclab_slice_kernel now = alloclab_slice_kernel_now();
	return kernel_between(start, &now);
}

/* Read outside the timed part: the system call costs no plugin anything. */
static void timed_start(struct alloclab_slice *sl)
{
	struct thread_clock c = thread_clock();
	sl->start_switches = c.involuntary;
	sl->start_voluntary = c.voluntary;
	sl->start_cpu_ns = c.cpu_ns;
	sl->start_kernel = c.kernel;
	sl->start_ns = alloclab_now_ns();
}

/*
 * Taken off the CPU while it ran, by the scheduler (an involuntary switch)
 * or by the hypervisor: a virtual machine's CPU that the host gave to
 * another guest stops the thread's clock of CPU time (the kernel leaves
 * stolen time out of it) but not the wall clock, and no switch is
 * counted. A part that waited of its own accord (a voluntary switch: a
 * plugin's lock, a system call that slept) is the plugin's and is kept.
 * Off the CPU means for more than STOLEN_NS_MIN plus an eighth of the
 * part: reading the clocks costs a little of each.
 */
#define STOLEN_NS_MIN 20000

/*
 * Whether the thread's CPU clock runs with the wall clock while the thread
 * runs. Where the kernel's scheduler clock is only brought up to date at
 * its ticks (a virtual machine whose TSC the kernel does not trust), the
 * CPU time of a part of tens of microseconds reads 0, and every part would
 * look taken off: there only the involuntary switches tell. Decided once a
 * process, by spinning 200 us (three tries: a try the host interrupted
 * reads low).
 */
static pthread_once_t cpu_clock_once = PTHREAD_ONCE_INIT;
static int cpu_clock_runs;

static void cpu_clock_check(void)
{
	for (int try = 0; try < 3 && !cpu_clock_runs; try++) {
		struct thread_clock c0 = thread_clock();
		uint64_t t0 = alloclab_now_ns(), t = t0;
		while (t - t0 < 200000)
			t = alloclab_now_ns();
		struct thread_clock c1 = thread_clock();
		cpu_clock_runs = c1.cpu_ns > c0.cpu_ns && c1.cpu_ns - c0.cpu_ns >= (t - t0) / 2;
	}
}

static int taken_off(const struct alloclab_slice *sl, uint64_t ns, const struct thread_clock *end)
{
	struct thread_clock c = *end;
	if (c.involuntary != sl->start_switches)
		return 1;
	if (!cpu_clock_runs || c.voluntary != sl->start_voluntary || c.cpu_ns < sl->start_cpu_ns)
		return 0;
	uint64_t cpu = c.cpu_ns - sl->start_cpu_ns;
	return ns > cpu && ns - cpu > STOLEN_NS_MIN + ns / 8;
}

static void record(struct alloclab_slice *sl, uint64_t ns, uint64_t ops, int preempted,
		   const struct alloclab_slice_kernel *k)
{
	if (sl->nparts == sl->cap) {
		size_t cap = sl->cap ? 2 * sl->cap : 1024;
		struct alloclab_slice_part *grown = realloc(sl->parts, cap * sizeof *grown);
		if (grown == NULL) {
			/* Kept in the last part: the value then drops nothing. */
			sl->lost = 1;
			if (sl->nparts) {
				struct alloclab_slice_part *last = &sl->parts[sl->nparts - 1];
				last->ns += ns;
				last->ops += ops;
				last->kernel.minor_faults += k->minor_faults;
				last->kernel.major_faults += k->major_faults;
				last->kernel.sys_ns += k->sys_ns;
			}
			return;
		}
		sl->parts = grown;
		sl->cap = cap;
	}
	sl->parts[sl->nparts++] = (struct alloclab_slice_part){ns, ops, preempted, *k};
}

/* The timed part that started at timed_start ends here, after `ops`. */
static void timed_end(struct alloclab_slice *sl, uint64_t ops)
{
	uint64_t ns = alloclab_now_ns() - sl->start_ns;
	struct thread_clock c = thread_clock();
	struct alloclab_slice_kernel k = kernel_between(&sl->start_kernel, &c.kernel);
	record(sl, ns, ops, taken_off(sl, ns, &c), &k);
}

void alloclab_slice_record(struct alloclab_slice *sl, uint64_t ns, uint64_t ops, const struct alloclab_slice_kernel *k)
{
	record(sl, ns, ops, 0, k);
}

static __thread struct alloclab_slice *entering;

/* A run()'s context starts here, and goes back to the scheduler when run()
 * returns (uc_link). */
static void slice_main(void)
{
	struct alloclab_slice *sl = entering;
	if (sl->warming)
		sl->start_ns = alloclab_now_ns();
	else
		timed_start(sl);
	sl->wl->run(sl->wt);
	if (!sl->warming) {
		timed_end(sl, (uint64_t)((int64_t)sl->budget - sl->s.left));
	} else {
		/* run() ended inside an untimed part: counted only if the
		 * value has no timed part at all (alloclab_slice_sum). */
		sl->warm_ns += alloclab_now_ns() - sl->start_ns;
		sl->warm_ops += (uint64_t)((int64_t)sl->warm - sl->s.left);
	}
	sl->done = 1;
	atomic_fetch_sub_explicit(sl->remaining, 1, memory_order_relaxed);
}

void alloclab_slice_end(struct alloclab_slicer *s)
{
	struct alloclab_slice *sl = (struct alloclab_slice *)s;
	if (sl->warming) {
		/* The untimed part is over: the timed one starts here. */
		sl->warm_ns += alloclab_now_ns() - sl->start_ns;
		sl->warm_ops += (uint64_t)((int64_t)sl->warm - sl->s.left);
		sl->warming = 0;
		sl->s.left = (int64_t)sl->budget;
		timed_start(sl);
		return;
	}
	timed_end(sl, (uint64_t)((int64_t)sl->budget - sl->s.left));
	sl->warming = sl->warm > 0;
	sl->s.left = (int64_t)(sl->warming ? sl->warm : sl->budget);
	swapcontext(&sl->self, sl->sched);
	if (sl->warming)
		sl->start_ns = alloclab_now_ns();
	else
		timed_start(sl);
}

int alloclab_slice_begin(struct alloclab_slice *sl, ucontext_t *sched, uint64_t budget, uint64_t warm, uint64_t draw)
{
	pthread_once(&cpu_clock_once, cpu_clock_check);
	if (sl->stack == NULL) {
		void *st = mmap(NULL, SLICE_STACK_BYTES, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
		if (st == MAP_FAILED)
			return -1;
		mprotect(st, 4096, PROT_NONE); /* a guard page below the stack */
		sl->stack = st;
	}
	/* A value of few operations (known from the last) still gets 20
	 * slices or more: the slice and its untimed part shrink alike. */
	if (sl->last_ops && sl->last_ops < 20 * (budget + warm)) {
		uint64_t whole = budget + warm;
		warm = warm * sl->last_ops / (20 * whole);
		budget = budget * sl->last_ops / (20 * whole);
		budget = budget ? budget : 1;
	}
	sl->budget = budget;
	sl->warm = warm;
	sl->warming = warm > 0;
	sl->s.left = (int64_t)(sl->warming ? warm : budget);
	sl->warm_ns = sl->warm_ops = 0;
	sl->nparts = 0;
	sl->lost = 0;
	sl->done = 0;
	sl->sched = sched;
	getcontext(&sl->self);
	/* Where a loop's stack frame falls against its data decides some of
	 * its cost (4 KiB aliasing between its spills and the blocks), and
	 * each plugin has its own stack: a top fixed for the process would
	 * give one plugin of the pair the same luck all along. */
	sl->self.uc_stack.ss_sp = sl->stack;
	sl->self.uc_stack.ss_size = SLICE_STACK_BYTES - (size_t)(draw % 64) * 64;
	sl->self.uc_link = sched;
	makecontext(&sl->self, slice_main, 0);
	return 0;
}

void alloclab_slice_run(struct alloclab_slice *sl, ucontext_t *sched)
{
	if (sl->done)
		return;
	entering = sl;
	swapcontext(sched, &sl->self);
}

void alloclab_slice_free(struct alloclab_slice *sl)
{
	if (sl->stack)
		munmap(sl->stack, SLICE_STACK_BYTES);
	free(sl->parts);
	sl->stack = NULL;
	sl->parts = NULL;
	sl->nparts = sl->cap = 0;
}

long alloclab_slices_preempted(struct alloclab_slice *const *sl, size_t n, unsigned char **dropped,
			       size_t *ndropped)
{
	size_t rounds = 0;
	*dropped = NULL;
	*ndropped = 0;
	for (size_t k = 0; k < n; k++)
		rounds = sl[k]->nparts > rounds ? sl[k]->nparts : rounds;
	if (rounds == 0)
		return 0;
	unsigned char *d = calloc(rounds, 1);
	if (d == NULL)
		return -1;
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < sl[k]->nparts; j++)
			if (sl[k]->parts[j].preempted && !d[j]) {
				d[j] = 1;
				++*ndropped;
			}
	/* A slice that would keep none of its timed parts, or one that lost
	 * a part, keeps them all (alloclab_slice_sum): then every slice of
	 * the value keeps them all, so that the plugins still lose the same
	 * rounds and the count of dropped rounds is what was dropped. */
	int keep_all = *ndropped == rounds;
	for (size_t k = 0; k < n && *ndropped && !keep_all; k++) {
		uint64_t all = 0, kept = 0;
		for (size_t j = 0; j < sl[k]->nparts; j++) {
			all += sl[k]->parts[j].ops;
			kept += d[j] ? 0 : sl[k]->parts[j].ops;
		}
		keep_all = sl[k]->lost || (all && !kept);
	}
	if (keep_all) {
		memset(d, 0, rounds);
		*ndropped = 0;
	}
	*dropped = d;
	return (long)rounds;
}

static void add_kernel(struct alloclab_slice_kernel *to, const struct alloclab_slice_kernel *k)
{
	to->minor_faults += k->minor_faults;
	to->major_faults += k->major_faults;
	to->sys_ns += k->sys_ns;
}

void alloclab_slice_sum(const struct alloclab_slice *sl, const unsigned char *dropped, size_t nrounds, uint64_t *ns,
			uint64_t *ops, struct alloclab_slice_kernel *kernel)
{
	uint64_t all_ns = 0, all_ops = 0, kept_ns = 0, kept_ops = 0;
	struct alloclab_slice_kernel all_k = {0, 0, 0}, kept_k = {0, 0, 0};
	for (size_t j = 0; j < sl->nparts; j++) {
		all_ns += sl->parts[j].ns;
		all_ops += sl->parts[j].ops;
		add_kernel(&all_k, &sl->parts[j].kernel);
		if (dropped == NULL || j >= nrounds || !dropped[j]) {
			kept_ns += sl->parts[j].ns;
			kept_ops += sl->parts[j].ops;
			add_kernel(&kept_k, &sl->parts[j].kernel);
		}
	}
	if (all_ops == 0 && sl->warm_ops) {
		/* A value all untimed: its kernel figures were not taken. */
		*ns = sl->warm_ns;
		*ops = sl->warm_ops;
		*kernel = (struct alloclab_slice_kernel){0, 0, 0};
	} else if (kept_ops == 0 || sl->lost) {
		*ns = all_ns;
		*ops = all_ops;
		*kernel = all_k;
	} else {
		*ns = kept_ns;
		*ops = kept_ops;
		*kernel = kept_k;
	}
}

/* ---- the barrier ---- */

/* About a millisecond of pauses: longer than a slice's usual wait for the
 * other threads, shorter than a scheduler's time slice. */
#define SPINS 8192

void alloclab_slice_barrier_init(struct alloclab_slice_barrier *b, unsigned n)
{
	b->n = n ? n : 1;
	atomic_init(&b->arrived, 0);
	atomic_init(&b->phase, 0);
	atomic_init(&b->sleepers, 0);
}

static void pause_once(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

void alloclab_slice_barrier_wait(struct alloclab_slice_barrier *b)
{
	unsigned phase = atomic_load(&b->phase);

	if (atomic_fetch_add(&b->arrived, 1) + 1 == b->n) {
		/* Reset before the release: no thread arrives at the next
		 * phase before it saw this one end. */
		atomic_store(&b->arrived, 0);
		atomic_store(&b->phase, phase + 1);
		/* Sequentially consistent with the sleeper's increment then
		 * load: either it sees the new phase or this sees it asleep. */
		if (atomic_load(&b->sleepers))
			syscall(SYS_futex, &b->phase, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
		return;
	}
	for (unsigned spins = 0; atomic_load_explicit(&b->phase, memory_order_acquire) == phase;) {
		if (spins < SPINS) {
			spins++;
			pause_once();
			continue;
		}
		atomic_fetch_add(&b->sleepers, 1);
		if (atomic_load(&b->phase) == phase)
			syscall(SYS_futex, &b->phase, FUTEX_WAIT_PRIVATE, phase, NULL, NULL, 0);
		atomic_fetch_sub(&b->sleepers, 1);
	}
}
