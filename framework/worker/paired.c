/*
 * Paired mode: several plugins measured side by side in one worker
 * process (run --paired). What makes time on a shared machine noisy is
 * mostly the process's state and the moment it runs; plugins sharing both
 * share that noise, and their ratio is nearly free of it.
 *
 * Every plugin has its own instance and, on every thread, its own workload
 * state (its slots, its cursor, its shared block): nothing of one plugin's
 * ever reaches another's ops. A value goes, on every thread:
 *   prepare every plugin -> barrier -> slices -> barrier -> finish every plugin
 * For a workload with ALLOCLAB_WORKLOAD_SLICES each plugin's run() runs on
 * a stack of its own (a ucontext), and its slice points hand control back
 * after slice_ops operations: the plugins' slices alternate in an order
 * drawn per value (a random permutation, then its reverse, then the
 * permutation again: ABBA for two), all threads switching together at a
 * barrier. A workload whose threads wait for one another in run() (a
 * producer and its consumer) alternates whole values instead. A slice's
 * time is taken inside it, after the switch into it and before the switch
 * out, so switching costs no plugin anything; a plugin's value is the sum
 * of its slices' wall times.
 *
 * What is not paired: memory figures (one process holds every plugin's
 * memory), latency, heap maps, recording, the alignment wrapper and the
 * global lock (process-wide wrappers), instruction counts (deterministic:
 * nothing to pair). The runner refuses those with --paired.
 */
#define _GNU_SOURCE 1
#include "worker/internal.h"
#include "plugin/stats.h"
#include "worker/slice.h"
#include "base/rng.h"
#include "files/self_exe.h"
#include "memory/self_memory.h"
#include "plugin/loader.h"
#include "process/child.h"
#include "results/results.h"
#include "base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

/* Each on cache lines of its own (the array from zeroed): every member's
 * fields, the op table among them, lie alike against the lines. */
struct member {
	_Alignas(64) const struct alloclab_pair_member *spec;
	char copy[ALLOCLAB_PATH_PLUS_LEN]; /* the private copy's path, or "" */
	struct alloclab_loaded_plugin plugin;
	struct alloclab_allocator alloc;
	int created;
	struct thread_host host;
	struct alloclab_block_list *lists;
	void *shared;
	struct alloclab_live *live;            /* [threads] */
	struct alloclab_workload_thread *wt;   /* [threads] */
	struct alloclab_slice *sl;             /* [threads] */
	char (*error)[ALLOCLAB_ERR_LEN];       /* [threads] */
	int *attached;                         /* [threads] */
	uint64_t *wall_ns;                     /* [rounds] */
	uint64_t *thread_ns, *thread_ops;      /* [rounds * threads] */
	/* [rounds * threads]: the page faults and system time of the
	 * member's timed parts on each thread (slice.h). */
	struct alloclab_slice_kernel *thread_kernel;
	uint64_t *slices, *dropped;            /* [rounds]: slice rounds, those dropped */
	json_t **reports;                      /* [rounds * threads] */
	json_t **process_reports;              /* [threads] */
	json_t *stats_live;
};

struct pair {
	const struct alloclab_cell_spec *cell;
	unsigned n, rounds, threads;
	int sliced;
	struct member *m;
	pthread_barrier_t barrier;
	struct alloclab_slice_barrier slices;  /* between slices: see slice.h */
	_Atomic int failed, prepare_failed;
	_Atomic unsigned remaining;            /* (plugin, thread) runs not done in this value */
	int *cpu;                              /* [threads]: -1 not pinned */
	/* The member a failure belongs to, from 1 (0: none, or the worker's
	 * own): the first to fail, left on the phase page when the worker
	 * ends, so that its supervisor names that plugin and no other. */
	_Atomic int blame;
	/* The answer's descriptor as the worker found it (answer_dev and
	 * answer_ino, when answer_known), and the member after whose step it
	 * was found closed or replaced (from 1; 0 never). */
	int answer_known;
	dev_t answer_dev;
	ino_t answer_ino;
	_Atomic int closed_by;
	/* The member whose blocks were found changed (check_members), from
	 * 1; 0 none. */
	_Atomic int changed;
};

struct pair_thread {
	struct pair *p;
	unsigned index;
	pthread_t tid;
};

/* ---- the order of the plugins ---- */

/* The plugin in position j of slice s of round r. Slices go in pairs:
 * the first of a pair takes a permutation of the plugins drawn from the
 * seed, the round and the pair, the second its reverse (ABBA for two
 * plugins). A fresh permutation every pair, so that over a value each
 * plugin runs in every position, after every other, equally often: a
 * fixed order with its reverse would keep the middle of three always
 * in the middle. */
static void permutation(uint64_t seed, unsigned n, unsigned *o)
{
	struct alloclab_rng rng = {seed};
	for (unsigned k = 0; k < n; k++)
		o[k] = k;
	for (unsigned k = n; k > 1; k--) {
		unsigned i = (unsigned)(alloclab_rng_next(&rng) % k), t = o[k - 1];
		o[k - 1] = o[i];
		o[i] = t;
	}
}

static unsigned member_at(const struct pair *p, unsigned r, unsigned s, unsigned j)
{
	unsigned o[ALLOCLAB_MAX_PAIR];
	permutation(alloclab_thread_seed(p->cell->pair_seed ^ ((uint64_t)r << 32), s / 2), p->n, o);
	return s % 2 == 0 ? o[j] : o[p->n - 1 - j];
}

/* The order in which step `what` (loading, allocating, preparing round r)
 * visits the plugins: drawn per process. What is set up first lands at
 * other addresses than what comes after, and a fixed order gave one
 * instance of an A/A pair the same place in every process: 2.6% faster
 * than its twin, resolved, on churn at 2 threads. */
static unsigned setup_at(const struct pair *p, uint64_t what, unsigned j)
{
	unsigned o[ALLOCLAB_MAX_PAIR];
	permutation(alloclab_thread_seed(p->cell->pair_seed, (unsigned)(2000000 + what)), p->n, o);
	return o[j];
}

static void wait_all(struct pair *p)
{
	if (p->threads > 1)
		alloclab_slice_barrier_wait(&p->slices);
}

/* ---- whose step it is ---- */

/* Marks member m's step, before it starts: every thread is in the same
 * member's step at once (the threads meet between members), so a crash
 * or a hang is the plugin named here. */
static void in_member(unsigned m)
{
	alloclab_phase_member((int)m + 1);
}

/* Member m is to blame, unless one failed first. */
static void blame(struct pair *p, unsigned m)
{
	int none = 0;
	atomic_compare_exchange_strong(&p->blame, &none, (int)m + 1);
}

/* Member m failed (a thread's failure, seen by the others after the next
 * barrier). */
static void member_failed(struct pair *p, unsigned m)
{
	blame(p, m);
	p->failed = 1;
}

/* Thread 0, after member m's step: whether the worker's answer descriptor
 * is still the pipe it was (a plugin that closes descriptors it did not
 * open takes the worker's answer with it). A system call outside every
 * timed part. It sets closed_by, which the threads read only after a
 * barrier (as `failed`: a thread must not leave a step the others are
 * still in). */
static void check_answer(struct pair *p, unsigned m)
{
	struct stat st;
	if (!p->answer_known || p->closed_by)
		return;
	if (fstat(ALLOCLAB_WORKER_RESULT_FD, &st) != 0 || st.st_dev != p->answer_dev || st.st_ino != p->answer_ino) {
		snprintf(p->m[m].error[0], ALLOCLAB_ERR_LEN, "closed the worker's descriptors, so its answer could not be "
			 "sent (a plugin must close only descriptors it opened)");
		blame(p, m);
		p->closed_by = (int)m + 1;
	}
}

/* Every thread, once member m's step ends on it: the threads meet, thread
 * 0 checks the answer pipe while no plugin's code runs, and they meet
 * again before the next step. A check before every thread had ended the
 * step would pin what a slower thread's plugin did there on the next. */
static void after_step(struct pair *p, unsigned i, unsigned m)
{
	wait_all(p);
	if (i == 0)
		check_answer(p, m);
	wait_all(p);
}

/* Thread 0, once every thread's part of round r has ended: each plugin's
 * time and operations on each thread, less the slice rounds in which a
 * thread was preempted (slice.h), dropped for every plugin alike. */
static void tally(struct pair *p, unsigned r)
{
	size_t n = (size_t)p->n * p->threads, ndropped = 0;
	struct alloclab_slice **all = calloc(n ? n : 1, sizeof *all);
	unsigned char *dropped = NULL;
	long rounds = 0;

	for (unsigned m = 0; all && m < p->n; m++)
		for (unsigned i = 0; i < p->threads; i++)
			all[m * p->threads + i] = &p->m[m].sl[i];
	if (p->sliced && all)
		rounds = alloclab_slices_preempted(all, n, &dropped, &ndropped);
	if (p->sliced && (rounds < 0 || all == NULL)) {
		/* No memory to decide what to drop: nothing dropped, and the
		 * rounds still counted (a value in slices has slices). */
		rounds = 0, ndropped = 0;
		for (unsigned m = 0; m < p->n; m++)
			for (unsigned i = 0; i < p->threads; i++)
				rounds = (long)p->m[m].sl[i].nparts > rounds ? (long)p->m[m].sl[i].nparts : rounds;
	}
	for (unsigned m = 0; m < p->n; m++) {
		for (unsigned i = 0; i < p->threads; i++) {
			struct alloclab_slice *sl = &p->m[m].sl[i];
			alloclab_slice_sum(sl, dropped, (size_t)rounds, &p->m[m].thread_ns[r * p->threads + i],
					   &p->m[m].thread_ops[r * p->threads + i], &p->m[m].thread_kernel[r * p->threads + i]);
			sl->last_ops = p->m[m].wt[i].ops;
		}
		p->m[m].slices[r] = p->sliced ? (uint64_t)rounds : 0;
		p->m[m].dropped[r] = ndropped;
	}
	free(dropped);
	free(all);
}

/* Thread 0, once every thread's part of round r has ended: each plugin's
 * wall time, the longest of its threads' own times (their slices' sum).
 * Not the sum of each slice's first start to last end: that adds every
 * slice's imbalance between threads (one thread's 2,000 operations take
 * longer than the other's, and it waits at the barrier), which an
 * unpaired run's threads, running freely to the end of the value, do not
 * pay; at 2 threads it made every plugin 20% slower alike. */
static void set_walls(struct pair *p, unsigned r)
{
	for (unsigned m = 0; m < p->n; m++) {
		uint64_t most = 0;
		for (unsigned i = 0; i < p->threads; i++) {
			uint64_t ns = p->m[m].thread_ns[r * p->threads + i];
			most = ns > most ? ns : most;
		}
		p->m[m].wall_ns[r] = most;
	}
}

/* The timed part of round r on thread i, in slices. */
static void timed_slices(struct pair *p, unsigned i, unsigned r)
{
	ucontext_t sched;

	for (unsigned m = 0; m < p->n; m++)
		if (alloclab_slice_begin(&p->m[m].sl[i], &sched, p->cell->slice_ops, p->cell->slice_warm,
				alloclab_thread_seed(p->cell->pair_seed ^ ((uint64_t)r << 32), 1000 + m * p->threads + i)) != 0) {
			snprintf(p->m[m].error[i], ALLOCLAB_ERR_LEN, "paired: cannot map a stack for run()");
			p->failed = 1;
		}
	wait_all(p);
	if (p->failed)
		return;
	for (unsigned s = 0;; s++) {
		for (unsigned j = 0; j < p->n; j++) {
			unsigned m = member_at(p, r, s, j);
			wait_all(p);
			in_member(m);
			alloclab_slice_run(&p->m[m].sl[i], &sched);
			wait_all(p);
			/* Every thread's slice has ended, and the next starts only
			 * after the barrier above it. */
			if (i == 0)
				check_answer(p, m);
		}
		/* Stable here: every decrement happened before the barrier. */
		if (atomic_load_explicit(&p->remaining, memory_order_relaxed) == 0)
			break;
	}
}

/* The timed part of round r on thread i, a whole value a plugin. */
static void timed_values(struct pair *p, unsigned i, unsigned r)
{
	for (unsigned j = 0; j < p->n; j++) {
		unsigned m = member_at(p, r, 0, j);
		struct alloclab_slice *sl = &p->m[m].sl[i];
		wait_all(p);
		in_member(m);
		struct alloclab_slice_kernel k0 = alloclab_slice_kernel_now();
		uint64_t start = alloclab_now_ns();
		p->m[m].wt[i].own_ns = 0;
		p->cell->workload->run(&p->m[m].wt[i]);
		uint64_t ns = alloclab_now_ns() - start;
		struct alloclab_slice_kernel k = alloclab_slice_kernel_since(&k0);
		/* The workload's own time of its operations, where it took one. */
		if (p->m[m].wt[i].own_ns && p->m[m].wt[i].own_ns < ns)
			ns = p->m[m].wt[i].own_ns;
		sl->nparts = 0;
		alloclab_slice_record(sl, ns, p->m[m].wt[i].ops, &k);
		wait_all(p);
		/* Every thread's value has ended; the next starts after a barrier. */
		if (i == 0)
			check_answer(p, m);
	}
}

/* ---- a thread's rounds ---- */

/* Prepares every plugin's state on thread i for round r. */
static void prepare_all(struct pair *p, unsigned i, unsigned r)
{
	for (unsigned j = 0; j < p->n; j++) {
		unsigned m = setup_at(p, 2 + r, j);
		struct alloclab_workload_thread *wt = &p->m[m].wt[i];
		wt->last_value = r + 1 == p->rounds;
		wt->warmup = r < p->cell->warmups;
		wt->ops = 0;
		wt->slicer = p->sliced ? &p->m[m].sl[i].s : NULL;
		in_member(m);
		alloclab_phase("prepare");
		if (p->cell->workload->prepare(wt, p->m[m].error[i], ALLOCLAB_ERR_LEN) != 0) {
			blame(p, m);
			p->prepare_failed = 1;
		}
		after_step(p, i, m);
	}
}

/* Every plugin's blocks on thread i, once every plugin has run (untimed):
 * each still carries what the workload wrote into it (workload.h,
 * check_blocks). One that does not was written by a plugin of the pair:
 * its own, or another's writing into a block after freeing it (the
 * plugins may share the memory beneath them, as two plugins built on the
 * C library's malloc do). Which one, the check cannot tell. */
static void check_members(struct pair *p, unsigned i)
{
	for (unsigned m = 0; m < p->n; m++) {
		char why[256];
		in_member(m);
		alloclab_phase("check");
		if (p->cell->workload->check_blocks(&p->m[m].wt[i], why, sizeof why) != 0) {
			snprintf(p->m[m].error[i], ALLOCLAB_ERR_LEN, "%.200s", why);
			int none = 0;
			atomic_compare_exchange_strong(&p->changed, &none, (int)m + 1);
		}
	}
}

/* After the timed part: what it did, a failure's reason, the plugins'
 * statistics with the working sets live (last value), then finish. */
static void end_round(struct pair *p, unsigned i, unsigned r)
{
	for (unsigned m = 0; m < p->n; m++) {
		struct alloclab_workload_thread *wt = &p->m[m].wt[i];
		if (wt->error) {
			snprintf(p->m[m].error[i], ALLOCLAB_ERR_LEN, "%s", wt->error);
			member_failed(p, m);
		}
	}
	if (p->closed_by)
		p->failed = 1;
	wait_all(p);
	if (p->cell->workload->check_blocks && !p->failed) {
		check_members(p, i);
		wait_all(p);
		if (p->changed)
			p->failed = 1;
	}
	if (i == 0) {
		tally(p, r);
		set_walls(p, r);
	}
	if (p->failed)
		for (unsigned m = 0; m < p->n; m++)
			p->m[m].wt[i].last_value = 1;
	if (i == 0 && r + 1 == p->rounds && !p->failed)
		for (unsigned m = 0; m < p->n; m++)
			if (p->m[m].alloc.ops.stats) {
				json_t *all = json_object();
				in_member(m);
				alloclab_phase("stats");
				alloclab_plugin_stats(&p->m[m].alloc.ops, p->m[m].alloc.instance, alloclab_worker_collect_stat, all);
				p->m[m].stats_live = all;
			}
	wait_all(p);
	for (unsigned m = 0; m < p->n; m++) {
		struct member *mb = &p->m[m];
		struct alloclab_workload_thread *wt = &mb->wt[i];
		in_member(m);
		alloclab_phase("finish");
		p->cell->workload->finish(wt);
		after_step(p, i, m);
		if (wt->report) {
			mb->reports[r * p->threads + i] = wt->report;
			wt->report = NULL;
		}
		if (wt->process_report) {
			json_decref(mb->process_reports[i]);
			mb->process_reports[i] = wt->process_report;
			wt->process_report = NULL;
		}
	}
}

static void attach_all(struct pair *p, unsigned i)
{
	if (p->cpu[i] >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(p->cpu[i], &set);
		pthread_setaffinity_np(pthread_self(), sizeof set, &set);
	}
	for (unsigned m = 0; m < p->n; m++) {
		struct member *mb = &p->m[m];
		if (mb->alloc.ops.thread_attach == NULL)
			continue;
		in_member(m);
		alloclab_phase("thread_attach");
		int rc = mb->alloc.ops.thread_attach(mb->alloc.instance);
		if (rc != 0) {
			snprintf(mb->error[i], ALLOCLAB_ERR_LEN, "thread_attach failed: %s", strerror(-rc));
			member_failed(p, m);
		} else {
			mb->attached[i] = 1;
		}
		after_step(p, i, m);
	}
}

static void *pair_thread(void *arg)
{
	struct pair_thread *pt = arg;
	struct pair *p = pt->p;
	unsigned i = pt->index;

	attach_all(p, i);
	for (unsigned r = 0; r < p->rounds; r++) {
		pthread_barrier_wait(&p->barrier);
		if (p->failed || p->closed_by)
			break;
		if (i == 0) {
			alloclab_phase_round(r < p->cell->warmups ? -(int)(r + 1) : (int)(r - p->cell->warmups + 1));
			p->remaining = p->n * p->threads;
		}
		prepare_all(p, i, r);
		pthread_barrier_wait(&p->barrier);
		if (p->prepare_failed || p->closed_by)
			p->failed = 1;
		if (!p->failed) {
			alloclab_phase("run");
			if (p->sliced)
				timed_slices(p, i, r);
			else
				timed_values(p, i, r);
		}
		end_round(p, i, r);
	}
	for (unsigned m = 0; m < p->n; m++)
		if (p->m[m].alloc.ops.thread_detach) {
			if (p->m[m].attached[i]) {
				in_member(m);
				alloclab_phase("thread_detach");
				p->m[m].alloc.ops.thread_detach(p->m[m].alloc.instance);
			}
			after_step(p, i, m);
		}
	return NULL;
}

/* ---- set-up and results ---- */

/* A private copy of the plugin's file in this worker's scratch folder
 * ($TMPDIR: the supervisor removes it with the worker), so that dlopen
 * gives it statics of its own. 0, or -1 with err. */
static int private_copy(const char *spec, unsigned k, char *out, size_t out_len, char *err, size_t err_len)
{
	char path[ALLOCLAB_PATH_LEN], name[ALLOCLAB_PATH_LEN];
	const char *tmp = getenv("TMPDIR");
	struct stat st;

	if (alloclab_plugin_find(spec, path, sizeof path, err, err_len) != 0)
		return -1;
	snprintf(name, sizeof name, "%s", path);
	snprintf(out, out_len, "%s/pair%u-%s", tmp && tmp[0] == '/' ? tmp : "/tmp", k, basename(name));
	int in = open(path, O_RDONLY | O_CLOEXEC), fd = -1;
	if (in < 0 || fstat(in, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0700)) < 0) {
		snprintf(err, err_len, "paired: cannot copy %s for a second instance: %s", path, strerror(errno));
		if (in >= 0)
			close(in);
		return -1;
	}
	off_t off = 0;
	while (off < st.st_size)
		if (sendfile(fd, in, &off, (size_t)(st.st_size - off)) <= 0)
			break;
	close(in);
	if (close(fd) != 0 || off != st.st_size) {
		snprintf(err, err_len, "paired: cannot copy %s for a second instance", path);
		return -1;
	}
	return 0;
}

/* Loads and creates every plugin of the pair, in order. 0, or -1 with err
 * naming the plugin. */
static int open_members(struct pair *p, char *err, size_t err_len)
{
	for (unsigned j = 0; j < p->n; j++) {
		unsigned k = setup_at(p, 0, j);
		struct member *mb = &p->m[k];
		const char *spec = mb->spec->plugin;
		char why[ALLOCLAB_ERR_LEN];
		in_member(k);
		p->blame = (int)k + 1; /* until it is created */
		if (mb->spec->private_copy) {
			if (private_copy(spec, k, mb->copy, sizeof mb->copy, err, err_len) != 0)
				return -1;
			spec = mb->copy;
		}
		alloclab_phase("load");
		const char *second = mb->spec->private_copy ? " (its second instance, from a copy of its file)" : "";
		if (alloclab_plugin_load(spec, &mb->plugin, why, sizeof why) != 0) {
			snprintf(err, err_len, "plugin '%s'%s cannot be loaded beside the others: %s",
				 alloclab_pair_member_name(mb->spec), second, why);
			return -1;
		}
		/* The loader's own answer to "one file?": a handle it gave
		 * another member means one set of statics for both (the file
		 * changed since the plan decided on copies). */
		for (unsigned i = 0; i < j; i++) {
			const struct member *other = &p->m[setup_at(p, 0, i)];
			if (other->plugin.handle == mb->plugin.handle) {
				snprintf(err, err_len, "plugin '%s' and plugin '%s' are one file to the loader (its statics "
					 "would serve both): they cannot be measured as two", alloclab_pair_member_name(other->spec),
					 alloclab_pair_member_name(mb->spec));
				return -1;
			}
		}
		alloclab_phase("create");
		if (alloclab_allocator_create(&mb->alloc, &mb->plugin, mb->spec->plugin_options, why, sizeof why) != 0) {
			snprintf(err, err_len, "plugin '%s'%s cannot be created beside the others: %s",
				 alloclab_pair_member_name(mb->spec), second, why);
			return -1;
		}
		mb->created = 1;
		check_answer(p, k);
		if (p->closed_by) {
			snprintf(err, err_len, "plugin '%s' %s", alloclab_pair_member_name(mb->spec), mb->error[0]);
			return -1;
		}
	}
	p->blame = 0;
	return 0;
}

/* Zeroed, on a cache line of its own: the plugins' harness state (the
 * op table a workload calls through, its thread's state, the slice
 * counter its loop reads) must not sit differently against the cache
 * lines for one plugin than for another, or the one whose state spans
 * one line more pays a miss more after every other plugin's slice. */
static void *zeroed(size_t n, size_t size)
{
	n = n ? n : 1;
	if (size > (SIZE_MAX - 64) / n)
		return NULL;
	size_t bytes = size ? (n * size + 63) & ~(size_t)63 : 64;
	void *z = aligned_alloc(64, bytes);
	return z ? memset(z, 0, bytes) : NULL;
}

/* Every plugin's per-thread state, stacks aside (made at the first value). */
static int allocate_members(struct pair *p)
{
	const struct alloclab_cell_spec *cell = p->cell;
	int seed_idx = alloclab_workload_role_index(cell->workload, ALLOCLAB_ROLE_SEED);
	uint64_t seed = seed_idx >= 0 ? cell->params.v[seed_idx] : 0;

	for (unsigned j = 0; j < p->n; j++) {
		unsigned k = setup_at(p, 1, j);
		struct member *mb = &p->m[k];
		mb->lists = zeroed(p->threads, sizeof *mb->lists);
		mb->shared = cell->workload->shared_size ? zeroed(1, cell->workload->shared_size) : NULL;
		mb->live = zeroed(p->threads, sizeof *mb->live);
		mb->wt = zeroed(p->threads, sizeof *mb->wt);
		mb->sl = zeroed(p->threads, sizeof *mb->sl);
		mb->error = zeroed(p->threads, sizeof *mb->error);
		mb->attached = zeroed(p->threads, sizeof *mb->attached);
		mb->wall_ns = zeroed(p->rounds, sizeof *mb->wall_ns);
		mb->thread_ns = zeroed((size_t)p->rounds * p->threads, sizeof *mb->thread_ns);
		mb->thread_ops = zeroed((size_t)p->rounds * p->threads, sizeof *mb->thread_ops);
		mb->thread_kernel = zeroed((size_t)p->rounds * p->threads, sizeof *mb->thread_kernel);
		mb->slices = zeroed(p->rounds, sizeof *mb->slices);
		mb->dropped = zeroed(p->rounds, sizeof *mb->dropped);
		mb->reports = zeroed((size_t)p->rounds * p->threads, sizeof *mb->reports);
		mb->process_reports = zeroed(p->threads, sizeof *mb->process_reports);
		if (!mb->lists || !mb->live || !mb->wt || !mb->sl || !mb->error || !mb->attached || !mb->wall_ns ||
		    !mb->thread_ns || !mb->thread_ops || !mb->thread_kernel || !mb->slices || !mb->dropped || !mb->reports || !mb->process_reports ||
		    (cell->workload->shared_size && !mb->shared))
			return -1;
		mb->host = (struct thread_host){&p->barrier, mb->lists, 0, 0, &p->failed};
		for (unsigned i = 0; i < p->threads; i++) {
			struct alloclab_workload_thread *wt = &mb->wt[i];
			/* The same seed for every plugin: each does the same work. */
			*wt = (struct alloclab_workload_thread){
				.alloc = &mb->alloc, .plugin = mb->spec->plugin, .plugin_options = mb->spec->plugin_options,
				.params = &cell->params, .index = i, .nthreads = p->threads,
				.seed = alloclab_thread_seed(seed, i), .shared = mb->shared, .sync = alloclab_worker_sync,
				.placement = alloclab_worker_placement, .host = &mb->host, .live = &mb->live[i]};
			mb->sl[i].wt = wt;
			mb->sl[i].wl = cell->workload;
			mb->sl[i].remaining = &p->remaining;
		}
	}
	return 0;
}

static int allowed_cpu(int i)
{
	cpu_set_t set;
	int seen = 0;
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return -1;
	int n = CPU_COUNT(&set);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set) && seen++ == i % n)
			return c;
	return -1;
}

/* Every round on every thread; thread 0 is the main thread. */
static int run_pair(struct pair *p, char *err, size_t err_len)
{
	struct pair_thread *pt = zeroed(p->threads, sizeof *pt);
	unsigned started = 0;

	if (pt == NULL) {
		snprintf(err, err_len, "paired: out of memory");
		return -1;
	}
	for (unsigned i = 0; i < p->threads; i++) {
		pt[i] = (struct pair_thread){p, i, 0};
		p->cpu[i] = p->cell->pin ? allowed_cpu((int)i) : -1;
	}
	for (unsigned i = 1; i < p->threads; i++, started++)
		if (pthread_create(&pt[i].tid, NULL, pair_thread, &pt[i]) != 0) {
			snprintf(err, err_len, "cannot start thread %u", i);
			free(pt);
			return -1;
		}
	pair_thread(&pt[0]);
	for (unsigned i = 1; i <= started; i++)
		pthread_join(pt[i].tid, NULL);
	free(pt);
	return 0;
}

/* Plugin k's round r as a value. */
static void pair_value(const struct pair *p, unsigned k, unsigned r, struct alloclab_value *v)
{
	const struct member *mb = &p->m[k];
	uint64_t ops = 0;

	v->thread_ns = zeroed(p->threads, sizeof *v->thread_ns);
	v->thread_ops = zeroed(p->threads, sizeof *v->thread_ops);
	for (unsigned i = 0; i < p->threads; i++) {
		const struct alloclab_slice_kernel *kern = &mb->thread_kernel[r * p->threads + i];
		v->thread_ns[i] = mb->thread_ns[r * p->threads + i];
		v->thread_ops[i] = mb->thread_ops[r * p->threads + i];
		/* The member's share: its own timed parts, every thread's. */
		v->minor_faults += kern->minor_faults;
		v->major_faults += kern->major_faults;
		v->sys_ns += kern->sys_ns;
		ops += v->thread_ops[i];
	}
	v->faults_counted = 1;
	v->wall_ns = mb->wall_ns[r];
	v->per_op = ops ? (double)v->wall_ns * p->threads / (double)ops : 0;
	v->slices = mb->slices[r];
	v->slices_dropped = mb->dropped[r];
	if (mb->reports[r * p->threads]) {
		v->thread_reports = json_array();
		for (unsigned i = 0; i < p->threads; i++) {
			json_t *rep = mb->reports[r * p->threads + i];
			json_array_append_new(v->thread_reports, rep ? rep : json_null());
			mb->reports[r * p->threads + i] = NULL;
		}
	}
}

/* Plugin k's rounds as its process. */
static void pair_process(struct pair *p, unsigned k, struct alloclab_process *out)
{
	struct member *mb = &p->m[k];

	memset(out, 0, sizeof *out);
	out->peak_rss_kib = -1;
	out->rss_before_plugin_kib = out->rss_after_finish_kib = out->rss_after_trim_kib = -1;
	out->rss_after_settle_kib = out->anon_before_plugin_kib = -1;
	out->warmups = zeroed(p->cell->warmups + 1, sizeof *out->warmups);
	out->values = zeroed(p->cell->values + 1, sizeof *out->values);
	for (unsigned r = 0; r < p->rounds; r++) {
		if (r < p->cell->warmups) {
			pair_value(p, k, r, &out->warmups[out->nwarmups]);
			json_decref(out->warmups[out->nwarmups].thread_reports);
			out->warmups[out->nwarmups++].thread_reports = NULL;
		} else {
			pair_value(p, k, r, &out->values[out->nvalues++]);
		}
	}
	for (unsigned i = 0; i < p->threads; i++)
		if (mb->process_reports[i]) {
			out->report = json_array();
			for (unsigned t = 0; t < p->threads; t++) {
				json_array_append_new(out->report, mb->process_reports[t] ? mb->process_reports[t] : json_null());
				mb->process_reports[t] = NULL;
			}
			break;
		}
	out->stats = mb->stats_live;
	mb->stats_live = NULL;
	if (mb->alloc.ops.stats) {
		json_t *stats = json_object();
		in_member(k);
		alloclab_phase("stats");
		if (alloclab_plugin_stats(&mb->alloc.ops, mb->alloc.instance, alloclab_worker_collect_stat, stats) == 0)
			out->stats_after_finish = stats;
		else
			json_decref(stats);
	}
}

static void free_pair(struct pair *p)
{
	for (unsigned k = 0; k < p->n; k++) {
		struct member *mb = &p->m[k];
		if (mb->created) {
			in_member(k);
			alloclab_phase("destroy");
			alloclab_allocator_destroy(&mb->alloc);
		}
		for (unsigned i = 0; mb->sl && i < p->threads; i++)
			alloclab_slice_free(&mb->sl[i]);
		for (size_t i = 0; mb->reports && i < (size_t)p->rounds * p->threads; i++)
			json_decref(mb->reports[i]);
		for (unsigned i = 0; mb->process_reports && i < p->threads; i++)
			json_decref(mb->process_reports[i]);
		json_decref(mb->stats_live);
		free(mb->lists), free(mb->shared), free(mb->live), free(mb->wt), free(mb->sl), free(mb->error);
		free(mb->attached), free(mb->wall_ns), free(mb->thread_ns), free(mb->thread_ops), free(mb->thread_kernel),
			free(mb->reports);
		free(mb->slices), free(mb->dropped);
		free(mb->process_reports);
		/* The plugin stays mapped: its TLS destructors may still run at exit. */
		free(mb->plugin.path);
	}
	free(p->m);
	free(p->cpu);
}

/* The failure a thread reported, with the plugin it came from: the
 * first member to fail (p->blame), else the first with a reason. */
static int pair_failure(struct pair *p, char *err, size_t err_len)
{
	if (p->changed && !p->blame) {
		/* No plugin to blame: every cell says so, alike. */
		unsigned k = (unsigned)p->changed - 1;
		size_t used = (size_t)snprintf(err, err_len, ALLOCLAB_PAIR_BLOCKS_CHANGED "%s' held changed under the workload (",
					       alloclab_pair_member_name(p->m[k].spec));
		for (unsigned i = 0; i < p->threads && used < err_len; i++)
			if (p->m[k].error[i][0]) {
				used += (size_t)snprintf(err + used, err_len - used, "%s", p->m[k].error[i]);
				break;
			}
		for (unsigned o = 0, first = 1; o < p->n && used < err_len; o++)
			if (o != k) {
				used += (size_t)snprintf(err + used, err_len - used, "%s'%s'", first ? ") beside " : ", ",
							 alloclab_pair_member_name(p->m[o].spec));
				first = 0;
			}
		if (used < err_len)
			snprintf(err + used, err_len - used, ": a plugin of the pair wrote into a block it had freed or "
				 "had not handed out");
		return -1;
	}
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned k = 0; k < p->n; k++) {
			if (pass == 0 && (int)k + 1 != p->blame)
				continue;
			for (unsigned i = 0; i < p->threads; i++)
				if (p->m[k].error[i][0]) {
					snprintf(err, err_len, "plugin '%s' %s%s", alloclab_pair_member_name(p->m[k].spec),
						 (int)k + 1 == p->closed_by ? "" : "failed: ", p->m[k].error[i]);
					p->blame = (int)k + 1;
					return p->m[k].wt[i].not_applicable ? -2 : -1;
				}
		}
	snprintf(err, err_len, "a thread failed without saying why");
	return -1;
}

/* The answer's descriptor as this worker starts (a worker's; a probe
 * answers elsewhere and checks nothing). */
static void note_answer(struct pair *p)
{
	struct stat st;
	p->answer_known = fstat(ALLOCLAB_WORKER_RESULT_FD, &st) == 0 && S_ISFIFO(st.st_mode);
	p->answer_dev = st.st_dev;
	p->answer_ino = st.st_ino;
}

/* What the worker leaves on its phase page as it ends: the member whose
 * failure it was (0 none, or a success), and a closed answer said as
 * such, for the supervisor to name that plugin. */
static void leave_blame(const struct pair *p, int rc)
{
	if (rc == 0) {
		alloclab_phase_member(0);
		return;
	}
	alloclab_phase_member(p->closed_by ? p->closed_by : p->blame);
	if (p->closed_by)
		alloclab_phase(ALLOCLAB_PHASE_ANSWER_CLOSED);
}

int alloclab_worker_measure_paired(const struct alloclab_cell_spec *cell, struct alloclab_process *out, char *err,
				   size_t err_len)
{
	struct pair p = {.cell = cell, .n = cell->npair, .rounds = cell->warmups + cell->values, .threads = cell->threads};
	int rc = -1;

	p.sliced = cell->slice_ops > 0 && alloclab_workload_slices(cell->workload, cell->threads);
	p.m = zeroed(p.n, sizeof *p.m);
	p.cpu = zeroed(p.threads, sizeof *p.cpu);
	if (p.m == NULL || p.cpu == NULL) {
		snprintf(err, err_len, "paired: out of memory");
		free(p.m), free(p.cpu);
		return -1;
	}
	for (unsigned k = 0; k < p.n; k++)
		p.m[k].spec = &cell->pair[k];
	note_answer(&p);
	pthread_barrier_init(&p.barrier, NULL, p.threads);
	alloclab_slice_barrier_init(&p.slices, p.threads);
	if (open_members(&p, err, err_len) != 0)
		goto out;
	if (allocate_members(&p) != 0) {
		snprintf(err, err_len, "paired: out of memory");
		goto out;
	}
	if (run_pair(&p, err, err_len) != 0) {
		p.blame = 0;
		goto out;
	}
	if (p.failed || p.closed_by) {
		rc = pair_failure(&p, err, err_len);
		goto out;
	}
	for (unsigned k = 0; k < p.n; k++)
		pair_process(&p, k, &out[k]);
	alloclab_phase("exit");
	rc = 0;
out:
	free_pair(&p);
	pthread_barrier_destroy(&p.barrier);
	leave_blame(&p, rc);
	return rc;
}

int alloclab_pair_probe(const struct alloclab_pair_member *members, unsigned n, char *err, size_t err_len)
{
	struct alloclab_cell_spec cell = {.npair = n};
	struct pair p = {.cell = &cell, .n = n, .threads = 1};
	int rc;

	memcpy(cell.pair, members, n * sizeof *members);
	p.m = zeroed(n, sizeof *p.m);
	if (p.m == NULL) {
		snprintf(err, err_len, "paired: out of memory");
		return -1;
	}
	for (unsigned k = 0; k < n; k++)
		p.m[k].spec = &cell.pair[k];
	rc = open_members(&p, err, err_len);
	free_pair(&p);
	leave_blame(&p, rc);
	return rc;
}
