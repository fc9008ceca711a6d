/*
 * trace: replays an allocation trace (`alloclab record`, docs/guides/traces.md)
 * against the plugin, each recorded thread on a thread of its own, in
 * parallel.
 *
 * Objects are (owner, slot, generation) in the trace; here each thread has
 * a table of its slots: the block, and a sequence number counting the
 * events done on the slot (odd: an object is live). Only the owner
 * allocates into its slots; it waits for an even number (a release by
 * another thread still to come). A release of another thread's object of
 * generation g waits until that slot's number is 2g + 1: its allocation
 * done, and nothing after it. These waits follow the recorded order of
 * each object's events, which is consistent with one order of the whole
 * recorded run, so a replay of a valid trace cannot deadlock; a hostile
 * one that would is stopped by a timeout with the event named.
 *
 * A trace of one thread replayed with -t N runs N independent copies
 * (scaling). Decoding happens in the timed region, a chunk at a time, so
 * memory stays proportional to live objects whatever the trace's length;
 * its cost is measured with the noop plugin (docs/measurements/replays.md).
 *
 * Parts. A trace recorded with windows (trace.h: the recorded workload's
 * measured values) is replayed as the process it came from ran: what
 * comes before a window is replayed untimed in prepare, so the heap the
 * window found is there; the window is the timed value; and the heap is
 * kept from one value to the next, as an interpreter keeps its heap
 * between iterations. A value that would go back (the windows used up)
 * frees everything and replays from the start, untimed. Timing the whole
 * recording instead (part=whole, the only part of a trace without
 * windows) times an interpreter's start-up and teardown each value: a
 * heap built from nothing and emptied, which an allocator that returns
 * its empty arenas to the kernel pays for in page faults every value, and
 * the recorded program never does in its steady state.
 */
#define _GNU_SOURCE 1
#include "trace/trace.h"
#include "measure/latency.h"
#include "memory/resident.h"
#include "base/lengths.h"
#include "workload/workload.h"
#include "worker/worker.h"
#include "results/results.h"
#include "base/clock.h"

#include <inttypes.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>

enum { P_FILE, P_LOOPS, P_TOUCH, P_DECODE, P_DECODE_MB, P_WAIT, P_PART, P_START };
enum { START_DRAWN, START_FIRST };
static const char *const start_names[] = {"drawn", "first", NULL};
enum { PART_AUTO, PART_STEADY, PART_STARTUP, PART_TEARDOWN, PART_WHOLE };
static const char *const part_names[] = {"auto", "steady", "startup", "teardown", "whole", NULL};
enum { TOUCH_ENDS, TOUCH_ALL, TOUCH_NONE };
static const char *const touch_names[] = {"ends", "all", "none", NULL};
enum { DECODE_AUTO, DECODE_AHEAD, DECODE_STREAM };
static const char *const decode_names[] = {"auto", "ahead", "stream", NULL};

static const struct alloclab_param trace_params[] = {
	[P_FILE] = {.name = "file",
		    .help = "the trace to replay (alloclab record); a bare name not in the current folder: one that ships "
			    "(richards.trace, json_dumps.trace, nbody.trace, deltablue.trace)",
		    .type = ALLOCLAB_PARAM_TEXT, .def_text = ""},
	[P_LOOPS] = {.name = "loops", .help = "replays per value (what is left live is freed between them)",
		     .def = 1, .min = 1, .max = 1000000},
	[P_TOUCH] = {.name = "touch", .help = "writes to each new block: its first and last byte, all of it, none",
		     .type = ALLOCLAB_PARAM_CHOICE, .choices = touch_names, .max = TOUCH_NONE},
	[P_DECODE] = {.name = "decode",
		      .help = "ahead: the whole trace decoded before the timed region; stream: a chunk at a time in it; "
			      "auto: ahead when it fits decode_mb",
		      .type = ALLOCLAB_PARAM_CHOICE, .choices = decode_names, .max = DECODE_STREAM},
	[P_DECODE_MB] = {.name = "decode_mb", .help = "most memory for decoding ahead (32 bytes an event)", .def = 1024,
			 .min = 1, .max = 1 << 20},
	[P_WAIT] = {.name = "wait_s", .help = "longest wait for another thread's object before giving up",
		    .def = 30, .min = 1, .max = 86400},
	[P_PART] = {.name = "part",
		    .help = "what a value times: steady (the recorded values' windows, the heap before them built untimed "
			    "and kept between values), startup (everything before the first window), teardown (after the "
			    "last), whole (all of it, each value from nothing); auto: steady when the trace has windows, "
			    "else whole",
		    .type = ALLOCLAB_PARAM_CHOICE, .choices = part_names, .max = PART_WHOLE},
	[P_START] = {.name = "start",
		     .help = "part=steady: the window a process's first value times: drawn (from the process, so that "
			     "processes together sample every window), or the first",
		     .type = ALLOCLAB_PARAM_CHOICE, .choices = start_names, .max = START_FIRST},
};

/* One slot of a replay thread. Invariant: seq is odd exactly when block
 * holds a live object of the slot. Where the replay counts what it holds
 * as it goes (streaming, or threads releasing each other's objects), the
 * object's requested bytes are in a table beside the slots (sizes[slot]),
 * so that the slots stay 16 bytes. */
struct slot {
	void *block;
	_Atomic uint32_t seq;
	uint32_t unused;
};

/* What a replay of one recorded thread's events holds, found from the
 * events alone (untimed, when they are decoded ahead): the requested
 * bytes held after every PROFILE_EVERY events counted from the thread's
 * first, and at each cut (the parts' ends, cut[]: increasing, the last
 * the thread's end) exactly, with the most held since the cut before. */
#define PROFILE_EVERY 1024u
struct live_profile {
	unsigned ncuts;
	uint64_t *cut, *cut_live, *cut_peak;
	uint64_t after[]; /* after[k]: once events [0, (k + 1) x PROFILE_EVERY) are done, or all */
};

/* What validation found of a trace, and what its parts hold (events,
 * all threads together). */
struct trace_facts {
	struct alloclab_trace_summary sum;
	unsigned windows;
	uint64_t part_events[PART_WHOLE + 1];
};

struct trace_shared {
	struct alloclab_trace *trace; /* opened by thread 0 in the first prepare */
	struct trace_facts facts;
	struct alloclab_trace_summary sum;
	char error[ALLOCLAB_ERR_LEN]; /* why the trace was refused, for every thread */
	int refused, not_applicable;
	struct slot *slots[ALLOCLAB_MAX_THREADS]; /* each thread's table (multi-thread traces) */
	uint64_t *sizes[ALLOCLAB_MAX_THREADS];    /* and its sizes */
	/* Decoding ahead: each recorded thread's events, decoded once per
	 * process by the replay thread of the same index (thread 0 for a
	 * trace of one thread, which every thread then reads). */
	int ahead;
	struct alloclab_trace_event *decoded[ALLOCLAB_MAX_THREADS];
	uint64_t ndecoded[ALLOCLAB_MAX_THREADS];
	/* And, where no thread releases another's objects, what a replay of
	 * them holds (live_profile below), so that the timed loop need not
	 * count it. */
	struct live_profile *profile[ALLOCLAB_MAX_THREADS];
	/* The part the values time (never PART_AUTO once open), and with
	 * part=steady the window this process's first value times (drawn
	 * once a process: a program's windows differ, where its heap grows
	 * in bursts, and every process timing the same few would sample
	 * those alone). */
	unsigned part, first_window;
	/* Each replay thread's state, kept from value to value (part=steady
	 * keeps the heap too): made in the first prepare, freed in the last
	 * value's finish. */
	struct replay *replay[ALLOCLAB_MAX_THREADS];
	/* Set by a thread that stopped early: the others stop waiting. */
	_Atomic int failed;
	/* A barrier between loops that a failure opens. */
	_Atomic unsigned arrived, generation;
};

struct replay {
	struct alloclab_trace_cursor *cursor;
	/* Streaming: the chunk decoded last, its events [buf_first, buf_first
	 * + buf_n) of the thread's. */
	struct alloclab_trace_event *events;
	uint64_t buf_first, buf_n;
	unsigned source; /* the recorded thread replayed */
	/* The events replayed since the replay last started from nothing
	 * (pos), and this value's timed part [from, to): pos == from when
	 * run() starts, pos == to when it ends. */
	uint64_t pos, from, to;
	unsigned round;  /* values prepared so far, warm-ups included */
	int window;      /* the window this value times (part=steady), else -1 */
	struct slot *mine;
	uint64_t *sizes; /* of mine's objects */
	uint32_t nslots;
	uint64_t waits;
	/* Requested bytes this thread holds (a remote release counts on the
	 * thread that makes it, so only the sum over threads is what the
	 * replay holds), and the most it held in this value. Kept in
	 * registers by the replay loops, which store the bytes held to the
	 * thread's live counter (workload.h) once an event, for the memory
	 * timeline's samples. */
	uint64_t live, peak;
	char error[ALLOCLAB_ERR_LEN];
};

/* The last trace validated in this process, by file identity: the
 * parameters' check validates (so a bad trace is a usage error, before
 * anything is measured) and the replay's prepare does not again. */
static struct {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct trace_facts facts;
	int valid;
} validated;

/* The part a value times: auto is steady where the trace has windows. */
static unsigned resolved_part(uint64_t asked, unsigned windows)
{
	if (asked == PART_AUTO)
		return windows ? PART_STEADY : PART_WHOLE;
	return (unsigned)asked;
}

/* Recorded thread th's part of round `round` (from 0): its events [*from,
 * *to), and the window (part=steady) or -1. */
static int part_range(const struct alloclab_trace *t, unsigned part, unsigned th, unsigned round, uint64_t *from,
		      uint64_t *to)
{
	unsigned w = alloclab_trace_windows(t);
	uint64_t b, e;

	*from = 0;
	*to = alloclab_trace_events(t, th);
	switch (part) {
	case PART_STEADY:
		alloclab_trace_window(t, round % w, th, from, to);
		return (int)(round % w);
	case PART_STARTUP:
		alloclab_trace_window(t, 0, th, &b, &e);
		*to = b;
		break;
	case PART_TEARDOWN:
		alloclab_trace_window(t, w - 1, th, &b, &e);
		*from = e;
		break;
	default: break;
	}
	return -1;
}

static void trace_facts(const struct alloclab_trace *t, struct trace_facts *f)
{
	f->windows = alloclab_trace_windows(t);
	memset(f->part_events, 0, sizeof f->part_events);
	for (unsigned th = 0; th < alloclab_trace_threads(t); th++) {
		uint64_t from, to;
		f->part_events[PART_WHOLE] += alloclab_trace_events(t, th);
		if (f->windows == 0)
			continue;
		for (unsigned k = 0; k < f->windows; k++) {
			part_range(t, PART_STEADY, th, k, &from, &to);
			f->part_events[PART_STEADY] += to - from;
		}
		part_range(t, PART_STARTUP, th, 0, &from, &to);
		f->part_events[PART_STARTUP] += to - from;
		part_range(t, PART_TEARDOWN, th, 0, &from, &to);
		f->part_events[PART_TEARDOWN] += to - from;
	}
}

/* The file a file= value names: as given, or for a bare name that is
 * not in the current folder, the trace of that name that ships (in the
 * build folder when running from it, else where it is installed). */
static const char *resolve(const char *given, char *buf, size_t len)
{
	struct stat st;
	if (given[0] == '\0' || strchr(given, '/') || stat(given, &st) == 0)
		return given;
	snprintf(buf, len, "%s/%s", ALLOCLAB_TRACE_BUILD_DIR, given);
	if (stat(buf, &st) == 0)
		return buf;
	snprintf(buf, len, "%s/%s", ALLOCLAB_TRACE_INSTALL_DIR, given);
	return stat(buf, &st) == 0 ? buf : given;
}

static int validate_once(const char *given, struct trace_facts *facts, char *err, size_t err_len)
{
	struct alloclab_trace *t;
	struct stat st;
	char buf[ALLOCLAB_PATH_PLUS_LEN];
	const char *path = resolve(given, buf, sizeof buf);

	if (path[0] == '\0') {
		snprintf(err, err_len, "workload 'trace': give the trace to replay, trace:file=FILE");
		return -1;
	}
	if (stat(path, &st) == 0 && validated.valid && st.st_dev == validated.dev && st.st_ino == validated.ino &&
	    st.st_size == validated.size && st.st_mtim.tv_sec == validated.mtime.tv_sec &&
	    st.st_mtim.tv_nsec == validated.mtime.tv_nsec) {
		*facts = validated.facts;
		return 0;
	}
	validated.valid = 0;
	if ((t = alloclab_trace_open(path, err, err_len)) == NULL)
		return -1;
	if (alloclab_trace_validate(t, &facts->sum, err, err_len) != 0) {
		alloclab_trace_close(t);
		return -1;
	}
	trace_facts(t, facts);
	alloclab_trace_close(t);
	if (stat(path, &st) == 0) {
		validated.dev = st.st_dev;
		validated.ino = st.st_ino;
		validated.size = st.st_size;
		validated.mtime = st.st_mtim;
		validated.facts = *facts;
		validated.valid = 1;
	}
	return 0;
}

static int trace_check(const struct alloclab_params *p, char *err, size_t err_len)
{
	struct trace_facts f;
	unsigned part;

	if (validate_once(p->text[P_FILE], &f, err, err_len) != 0)
		return -1;
	part = resolved_part(p->v[P_PART], f.windows);
	if (part != PART_WHOLE && f.windows == 0) {
		snprintf(err, err_len,
			 "trace '%s' has no windows (a trace of format 1, recorded before windows were marked), so no %s "
			 "part: replay it whole (part=whole: start-up and teardown timed with it), or record it again",
			 p->text[P_FILE], part_names[part]);
		return -1;
	}
	if (part != PART_WHOLE && p->v[P_LOOPS] > 1) {
		snprintf(err, err_len,
			 "loops=%" PRIu64 " replays the whole trace several times a value; part=%s replays its part once "
			 "(record longer values instead, or give part=whole)",
			 p->v[P_LOOPS], part_names[part]);
		return -1;
	}
	if (f.part_events[part] == 0) {
		snprintf(err, err_len, "trace '%s': its %s part holds no event", p->text[P_FILE], part_names[part]);
		return -1;
	}
	return 0;
}

/* A number drawn once a process (the kernel's random bytes; the process
 * id where they fail): the same for the plugins of a pair, which share the
 * process and must time the same windows, and independent from one
 * process to the next (process ids are not: a runner that forks twice a
 * worker gives them all one parity). */
static uint64_t drawn;
static void draw_once(void)
{
	if (getrandom(&drawn, sizeof drawn, 0) != (ssize_t)sizeof drawn)
		drawn = (uint64_t)getpid() * 2654435761u;
}

static uint64_t process_draw(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, draw_once);
	return drawn;
}

/* Opens the trace, once per process (thread 0; the others wait at the
 * sync after), and decides whether this plugin can replay it. */
static void open_trace(struct alloclab_workload_thread *t, struct trace_shared *sh)
{
	char buf[ALLOCLAB_PATH_PLUS_LEN];
	const char *path = resolve(t->params->text[P_FILE], buf, sizeof buf);
	const struct alloclab_allocator *a = t->alloc;
	unsigned k;

	if (validate_once(path, &sh->facts, sh->error, sizeof sh->error) != 0 ||
	    (sh->trace = alloclab_trace_open(path, sh->error, sizeof sh->error)) == NULL) {
		sh->refused = 1;
		return;
	}
	sh->sum = sh->facts.sum;
	sh->part = resolved_part(t->params->v[P_PART], sh->facts.windows);
	if (sh->facts.windows && t->params->v[P_START] == START_DRAWN)
		sh->first_window = (unsigned)(process_draw() % sh->facts.windows);
	k = alloclab_trace_threads(sh->trace);
	if (k > 1 && t->nthreads != k)
		snprintf(sh->error, sizeof sh->error, "the trace has %u threads: replay it with -t %u", k, k);
	else if (sh->sum.remote && !(a->caps & ALLOCLAB_CAP_CROSS_THREAD_FREE))
		snprintf(sh->error, sizeof sh->error, "the trace frees blocks in other threads than their own");
	else if (sh->sum.ops[ALLOCLAB_TRACE_REALLOC] && a->ops.realloc == NULL)
		snprintf(sh->error, sizeof sh->error, "the trace calls realloc");
	else if (sh->sum.ops[ALLOCLAB_TRACE_ALIGNED] && a->ops.aligned_alloc == NULL)
		snprintf(sh->error, sizeof sh->error, "the trace calls aligned_alloc");
	else if (t->nthreads > 1 && !(a->caps & ALLOCLAB_CAP_THREAD_SAFE))
		snprintf(sh->error, sizeof sh->error, "the plugin is not thread-safe");
	sh->not_applicable = sh->error[0] != '\0';
	if (t->params->v[P_DECODE] == DECODE_AUTO) {
		uint64_t events = 0;
		for (unsigned i = 0; i < k; i++)
			events += alloclab_trace_events(sh->trace, i);
		sh->ahead = events <= (t->params->v[P_DECODE_MB] << 20) / sizeof(struct alloclab_trace_event);
	} else {
		sh->ahead = t->params->v[P_DECODE] == DECODE_AHEAD;
	}
}

static void free_profile(struct live_profile *pr)
{
	if (pr) {
		free(pr->cut);
		free(pr->cut_live);
		free(pr->cut_peak);
		free(pr);
	}
}

/* The cuts of recorded thread th's parts: every window's ends and the
 * thread's end, increasing, repeats left out. *n of them; NULL when out
 * of memory. */
static uint64_t *part_cuts(const struct alloclab_trace *t, unsigned th, unsigned *n)
{
	unsigned w = alloclab_trace_windows(t), k = 0;
	uint64_t *cut = malloc((2 * (size_t)w + 1) * sizeof *cut);

	if (cut == NULL)
		return NULL;
	for (unsigned i = 0; i < w; i++) {
		uint64_t b, e;
		alloclab_trace_window(t, i, th, &b, &e);
		if (b > 0 && (k == 0 || cut[k - 1] != b))
			cut[k++] = b;
		if (e > 0 && (k == 0 || cut[k - 1] != e))
			cut[k++] = e;
	}
	if (k == 0 || cut[k - 1] != alloclab_trace_events(t, th))
		cut[k++] = alloclab_trace_events(t, th);
	*n = k;
	return cut;
}

/* The bytes a replay of events[0, n) holds as it goes (a trace with no
 * remote release: every release is of the thread's own slots), with the
 * cuts of recorded thread th. NULL when out of memory. */
static struct live_profile *live_profile(const struct alloclab_trace *t, unsigned th,
					 const struct alloclab_trace_event *events, uint64_t n, uint32_t nslots)
{
	struct live_profile *pr = calloc(1, sizeof *pr + ((n + PROFILE_EVERY - 1) / PROFILE_EVERY + 1) * sizeof(uint64_t));
	uint64_t *size = calloc(nslots ? nslots : 1, sizeof *size), live = 0, peak = 0;
	unsigned c = 0;

	if (pr == NULL || size == NULL || (pr->cut = part_cuts(t, th, &pr->ncuts)) == NULL ||
	    (pr->cut_live = calloc(pr->ncuts, sizeof *pr->cut_live)) == NULL ||
	    (pr->cut_peak = calloc(pr->ncuts, sizeof *pr->cut_peak)) == NULL) {
		free_profile(pr);
		free(size);
		return NULL;
	}
	for (uint64_t i = 0; i < n; i++) {
		const struct alloclab_trace_event *e = &events[i];
		if (alloclab_trace_op_releases(e->op))
			live -= size[e->old_slot];
		if (alloclab_trace_op_allocates(e->op)) {
			size[e->slot] = e->op == ALLOCLAB_TRACE_CALLOC ? e->size * e->arg : e->size;
			live += size[e->slot];
			peak = live > peak ? live : peak;
		}
		if ((i + 1) % PROFILE_EVERY == 0 || i + 1 == n)
			pr->after[i / PROFILE_EVERY] = live;
		while (c < pr->ncuts && pr->cut[c] == i + 1) {
			pr->cut_live[c] = live;
			pr->cut_peak[c++] = peak;
			peak = live;
		}
	}
	free(size);
	return pr;
}

/* The profile's exact bytes held after the thread's first `at` events (a
 * cut, or 0), and the most held in (from, at]. */
static void profile_at(const struct live_profile *pr, uint64_t from, uint64_t at, uint64_t *live, uint64_t *peak)
{
	*live = 0;
	*peak = 0;
	for (unsigned c = 0; c < pr->ncuts && pr->cut[c] <= at; c++) {
		if (pr->cut[c] > from && pr->cut_peak[c] > *peak)
			*peak = pr->cut_peak[c];
		if (pr->cut[c] == at)
			*live = pr->cut_live[c];
	}
}

/* Decodes recorded thread `source` whole into sh->decoded. 0, or -1. */
static int decode_ahead(struct trace_shared *sh, struct replay *r, unsigned source, char *err, size_t err_len)
{
	uint64_t total = alloclab_trace_events(sh->trace, source), got = 0;
	struct alloclab_trace_event *all = malloc((total ? total : 1) * sizeof *all);
	size_t n;
	int rc;

	if (all == NULL) {
		snprintf(err, err_len, "trace: out of memory decoding %" PRIu64 " events ahead (decode=stream needs less)",
			 total);
		return -1;
	}
	/* Straight into place: the reader has checked that the thread's
	 * chunks hold `total` events in all. */
	while ((rc = alloclab_trace_next_chunk(r->cursor, all + got, &n, err, err_len)) == 1)
		got += n;
	if (rc < 0) {
		free(all);
		return -1;
	}
	sh->decoded[source] = all;
	sh->ndecoded[source] = got;
	if (!sh->sum.remote &&
	    (sh->profile[source] = live_profile(sh->trace, source, all, got, alloclab_trace_slots(sh->trace, source))) == NULL) {
		snprintf(err, err_len, "trace: out of memory profiling %" PRIu64 " events", got);
		return -1;
	}
	return 0;
}

/* Waits until the slot's sequence number is `want`. 0, or -1 with
 * r->error when it cannot come (already past: a double free) or does not
 * come in time, or another thread failed. */
static int wait_for(struct alloclab_workload_thread *t, struct replay *r, struct slot *s, uint32_t want,
		    const struct alloclab_trace_event *e, uint64_t event)
{
	/* What is waited for, for messages: another thread's object, or
	 * (allocating into its own slot) the release of the slot's last one. */
	char what[160];
	if (alloclab_trace_op_releases(e->op) && e->remote)
		snprintf(what, sizeof what, "thread %u's object in slot %" PRIu32 " (generation %" PRIu64 ")",
			 e->old_owner, e->old_slot, e->arg);
	else
		snprintf(what, sizeof what, "another thread to free the object in its own slot %" PRIu32, e->slot);
	struct trace_shared *sh = t->shared;
	uint64_t deadline = 0;
	unsigned spins = 0;
	uint32_t seq;

	r->waits++;
	while ((seq = atomic_load_explicit(&s->seq, memory_order_acquire)) != want) {
		if ((int32_t)(seq - want) > 0) {
			snprintf(r->error, sizeof r->error,
				 "trace: thread %u, event %" PRIu64 ": %s of %s, which was freed already (a double free)",
				 t->index, event, alloclab_trace_op_names[e->op], what);
			return -1;
		}
		if (atomic_load_explicit(&sh->failed, memory_order_relaxed))
			return -1;
		if (++spins < 256)
			continue;
		sched_yield();
		if ((spins & 1023) == 0) {
			uint64_t now = alloclab_now_ns();
			if (deadline == 0)
				deadline = now + t->params->v[P_WAIT] * 1000000000ull;
			else if (now > deadline) {
				snprintf(r->error, sizeof r->error,
					 "trace: thread %u, event %" PRIu64 " waited %" PRIu64
					 " s for %s: the trace's cross-thread order cannot be met",
					 t->index, event, t->params->v[P_WAIT], what);
				return -1;
			}
		}
	}
	return 0;
}

static inline void touch(unsigned char *p, size_t n, unsigned how)
{
	if (n == 0 || how == TOUCH_NONE)
		return;
	if (how == TOUCH_ALL) {
		memset(p, 1, n);
	} else {
		p[0] = 1;
		p[n - 1] = 1;
	}
}

static int null_block(struct alloclab_workload_thread *t, struct replay *r, const struct alloclab_trace_event *e,
		      uint64_t event, size_t size)
{
	snprintf(r->error, sizeof r->error,
		 "trace: thread %u, event %" PRIu64 ": the allocator returned NULL for %s of %zu bytes", t->index, event,
		 alloclab_trace_op_names[e->op], size);
	return -1;
}

/* Replays n events of a trace in which no thread releases another's
 * objects: no waits and no sequence numbers, the allocator's own entry
 * points where the plugin hands them out (direct, a constant where it is
 * inlined). What the thread holds goes to its live counter once every
 * PROFILE_EVERY events: from `profile` (count 0; decoded ahead: found
 * untimed, so the loop does not count), or counted here (count 1;
 * streaming, where decoding costs far more). 0, or -1 with r->error. */
static inline __attribute__((always_inline)) int replay_local(struct alloclab_workload_thread *t, struct replay *r,
							       const struct alloclab_trace_event *events, size_t n,
							       uint64_t first, int direct, int timed, int count,
							       const struct live_profile *profile, int sliced)
{
	const struct alloclab_allocator *a = t->alloc;
	const unsigned how = (unsigned)t->params->v[P_TOUCH];
	struct slot *const mine = r->mine;
	uint64_t *const sizes = r->sizes;
	uint64_t *const held = (uint64_t *)&t->live->bytes;
	uint64_t live = r->live, peak = r->peak;
	int rc = 0;

	for (size_t i = 0; i < n;) {
		/* Blocks end where the profile's do: at multiples of
		 * PROFILE_EVERY counted from the thread's first event. */
		const size_t block_start = i, to_edge = PROFILE_EVERY - (size_t)((first + i) % PROFILE_EVERY);
		const size_t block_end = n - i > to_edge ? i + to_edge : n;
		for (; i < block_end; i++) {
			const struct alloclab_trace_event *e = &events[i];
			size_t size = e->size;
			void *p;

			if (timed)
				alloclab_latency_event((int64_t)(first + i));
			switch (e->op) {
			case ALLOCLAB_TRACE_MALLOC: p = direct ? a->direct_malloc(size) : alloclab_malloc(a, size); break;
			case ALLOCLAB_TRACE_FREE:
				if (direct)
					a->direct_free(mine[e->old_slot].block);
				else
					alloclab_free(a, mine[e->old_slot].block);
				mine[e->old_slot].block = NULL;
				if (count)
					live -= sizes[e->old_slot];
				continue;
			case ALLOCLAB_TRACE_CALLOC:
				p = alloclab_calloc(a, e->arg, size);
				size *= e->arg;
				break;
			case ALLOCLAB_TRACE_ALIGNED: p = a->ops.aligned_alloc(a->instance, e->arg, size); break;
			case ALLOCLAB_TRACE_REALLOC:
				p = a->ops.realloc(a->instance, mine[e->old_slot].block, size);
				mine[e->old_slot].block = NULL;
				if (count)
					live -= sizes[e->old_slot];
				break;
			default:
				alloclab_free_sized(a, mine[e->old_slot].block, size);
				mine[e->old_slot].block = NULL;
				if (count)
					live -= sizes[e->old_slot];
				continue;
			}
			if (p == NULL && size != 0) {
				rc = null_block(t, r, e, first + i, size);
				goto out;
			}
			touch(p, size, how);
			mine[e->slot].block = p;
			if (count) {
				sizes[e->slot] = size;
				live += size;
				peak = live > peak ? live : peak;
			}
		}
		if (!count)
			live = profile->after[(first + i - 1) / PROFILE_EVERY];
		__atomic_store_n(held, live, __ATOMIC_RELAXED);
		/* Paired mode: the other plugins may run between blocks. */
		if (sliced)
			alloclab_slice_ops(t, (int64_t)(i - block_start));
	}
	if (!count && n) {
		uint64_t most;
		profile_at(profile, first, first + n, &live, &most);
		peak = most > peak ? most : peak;
	}
out:
	__atomic_store_n(held, live, __ATOMIC_RELAXED);
	r->live = live;
	r->peak = peak;
	return rc;
}

/* Replays n events, the first of them the thread's event `first`. 0,
 * or -1 with r->error. */
static inline __attribute__((always_inline)) int replay_shared(struct alloclab_workload_thread *t, struct replay *r,
								const struct alloclab_trace_event *events, size_t n,
								uint64_t first, int timed)
{
	const struct alloclab_allocator *a = t->alloc;
	struct trace_shared *sh = t->shared;
	const unsigned how = (unsigned)t->params->v[P_TOUCH];
	struct slot *const mine = r->mine;
	uint64_t *const held = (uint64_t *)&t->live->bytes;
	uint64_t live = r->live;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		const struct alloclab_trace_event *e = &events[i];
		void *old = NULL, *p = NULL;
		size_t size = e->size;
		struct slot *os = NULL;

		if (timed)
			alloclab_latency_event((int64_t)(first + i));
		if (alloclab_trace_op_releases(e->op)) {
			if (e->remote) {
				os = &sh->slots[e->old_owner][e->old_slot];
				if (atomic_load_explicit(&os->seq, memory_order_acquire) != 2 * (uint32_t)e->arg + 1 &&
				    wait_for(t, r, os, 2 * (uint32_t)e->arg + 1, e, first + i) != 0) {
					rc = -1;
					break;
				}
			} else {
				os = &mine[e->old_slot];
			}
			old = os->block;
		}
		switch (e->op) {
		case ALLOCLAB_TRACE_MALLOC: p = alloclab_malloc(a, size); break;
		case ALLOCLAB_TRACE_CALLOC:
			p = alloclab_calloc(a, e->arg, size);
			size *= e->arg;
			break;
		case ALLOCLAB_TRACE_ALIGNED: p = a->ops.aligned_alloc(a->instance, e->arg, size); break;
		case ALLOCLAB_TRACE_REALLOC: p = a->ops.realloc(a->instance, old, size); break;
		case ALLOCLAB_TRACE_FREE: alloclab_free(a, old); break;
		default: alloclab_free_sized(a, old, size); break;
		}
		if (os) {
			/* Released (realloc's old block too, whatever address the
			 * new one has): the owner may reuse the slot. */
			os->block = NULL;
			live -= sh->sizes[e->remote ? e->old_owner : t->index][e->old_slot];
			atomic_store_explicit(&os->seq, atomic_load_explicit(&os->seq, memory_order_relaxed) + 1,
					      memory_order_release);
		}
		if (alloclab_trace_op_allocates(e->op)) {
			struct slot *s = &mine[e->slot];
			if (p == NULL && size != 0) {
				rc = null_block(t, r, e, first + i, size);
				break;
			}
			uint32_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
			/* Odd: its last object is still live, until another
			 * thread frees it (read once: that may happen now). */
			if ((seq & 1u) && wait_for(t, r, s, ++seq, e, first + i) != 0) {
				rc = -1;
				break;
			}
			touch(p, size, how);
			s->block = p;
			r->sizes[e->slot] = size;
			live += size;
			atomic_store_explicit(&s->seq, seq + 1, memory_order_release);
		}
		__atomic_store_n(held, live, __ATOMIC_RELAXED);
	}
	/* No most held here: a thread's count is not a part of the whole
	 * when threads release each other's objects (the samples tell). */
	r->live = live;
	return rc;
}

/* Replays n events, the thread's [first, first + n): timed (run(), with
 * latency and slices where the value has them), or not (prepare building
 * the heap a part starts from: no slice point may switch plugins there). */
static int replay(struct alloclab_workload_thread *t, struct replay *r, const struct alloclab_trace_event *events,
		  size_t n, uint64_t first, const struct live_profile *profile, int timed)
{
	const struct trace_shared *sh = t->shared;
	const struct live_profile *pr = profile;
	if (!timed)
		return sh->sum.remote ? replay_shared(t, r, events, n, first, 0)
		       : pr	      ? replay_local(t, r, events, n, first, 0, 0, 0, pr, 0)
				      : replay_local(t, r, events, n, first, 0, 0, 1, NULL, 0);
	/* With --latency each event's index goes with its call, so that the
	 * slowest calls name their events; a loop of its own, so that without
	 * it the replay does not pay for it. */
	if (alloclab_latency_every())
		return sh->sum.remote ? replay_shared(t, r, events, n, first, 1)
		       : pr	      ? replay_local(t, r, events, n, first, 0, 1, 0, pr, 0)
				      : replay_local(t, r, events, n, first, 0, 1, 1, NULL, 0);
	if (sh->sum.remote)
		return replay_shared(t, r, events, n, first, 0);
	/* Paired mode (one thread: a replay's threads wait for one another). */
	if (t->slicer)
		return pr ? replay_local(t, r, events, n, first, 0, 0, 0, pr, 1)
			  : replay_local(t, r, events, n, first, 0, 0, 1, NULL, 1);
	if (pr)
		return t->alloc->direct_malloc ? replay_local(t, r, events, n, first, 1, 0, 0, pr, 0)
					       : replay_local(t, r, events, n, first, 0, 0, 0, pr, 0);
	return t->alloc->direct_malloc ? replay_local(t, r, events, n, first, 1, 0, 1, NULL, 0)
				       : replay_local(t, r, events, n, first, 0, 0, 1, NULL, 0);
}

/* Replays the thread's events from r->pos up to `to`, decoded ahead or a
 * chunk at a time. 0, or -1 with r->error. */
static int replay_to(struct alloclab_workload_thread *t, struct replay *r, uint64_t to, int timed)
{
	const struct trace_shared *sh = t->shared;

	if (r->pos >= to)
		return 0;
	if (sh->ahead) {
		if (replay(t, r, sh->decoded[r->source] + r->pos, (size_t)(to - r->pos), r->pos, sh->profile[r->source],
			   timed) != 0)
			return -1;
		r->pos = to;
		return 0;
	}
	while (r->pos < to) {
		size_t n;
		if (r->pos >= r->buf_first + r->buf_n) {
			int got = alloclab_trace_next_chunk(r->cursor, r->events, &n, r->error, sizeof r->error);
			if (got <= 0) {
				if (got == 0)
					snprintf(r->error, sizeof r->error, "trace: thread %u ended before event %" PRIu64,
						 r->source, to);
				return -1;
			}
			r->buf_first = alloclab_trace_cursor_first_event(r->cursor);
			r->buf_n = n;
		}
		uint64_t k0 = r->pos - r->buf_first, k1 = to - r->buf_first < r->buf_n ? to - r->buf_first : r->buf_n;
		if (replay(t, r, r->events + k0, (size_t)(k1 - k0), r->pos, NULL, timed) != 0)
			return -1;
		r->pos = r->buf_first + k1;
	}
	return 0;
}

/* Frees this thread's objects still live: after every thread has ended
 * the loop, since another may still release them before it ends. A live
 * object's block is never NULL (a 0-byte request's NULL needs no free).
 * Every slot starts the next loop afresh (sequence 0, generation 0, as the
 * trace counts them); no other thread looks at them until the barrier
 * after this. */
static uint64_t free_leftovers(struct alloclab_workload_thread *t, struct replay *r)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < r->nslots; i++) {
		if (r->mine[i].block) {
			alloclab_free(t->alloc, r->mine[i].block);
			r->mine[i].block = NULL;
			n++;
		}
		atomic_store_explicit(&r->mine[i].seq, 0, memory_order_relaxed);
	}
	/* Every thread has ended the loop, so nothing is held by anyone. */
	r->live = 0;
	alloclab_live_set(t, 0, 0);
	/* And the replay starts from the trace's first event again. */
	r->pos = 0;
	r->buf_first = r->buf_n = 0;
	alloclab_trace_cursor_rewind(r->cursor);
	return n;
}

/* Every thread at the end of a loop, or a failure. 0, or -1 on failure. */
static int loop_barrier(struct alloclab_workload_thread *t)
{
	struct trace_shared *sh = t->shared;
	unsigned gen = atomic_load(&sh->generation);

	if (atomic_fetch_add(&sh->arrived, 1) + 1 == t->nthreads) {
		atomic_store(&sh->arrived, 0);
		atomic_fetch_add(&sh->generation, 1);
		return 0;
	}
	while (atomic_load(&sh->generation) == gen) {
		if (atomic_load(&sh->failed))
			return -1;
		sched_yield();
	}
	return 0;
}

static void free_replay(struct replay *r)
{
	if (r) {
		alloclab_trace_cursor_free(r->cursor);
		free(r->events);
		free(r->mine);
		free(r->sizes);
		free(r);
	}
}

/* This thread's replay state, kept from value to value: made in the
 * first prepare. NULL with err when out of memory. */
static struct replay *replay_state(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	struct trace_shared *sh = t->shared;
	struct replay *r = sh->replay[t->index];

	if (r)
		return r;
	if ((r = calloc(1, sizeof *r)) == NULL) {
		snprintf(err, err_len, "trace: out of memory");
		return NULL;
	}
	r->source = alloclab_trace_threads(sh->trace) > 1 ? t->index : 0;
	r->nslots = alloclab_trace_slots(sh->trace, r->source);
	r->cursor = alloclab_trace_cursor_new(sh->trace, r->source);
	/* A chunk's buffer, for streaming only (decoding ahead writes in place). */
	r->events = sh->ahead ? NULL : malloc(ALLOCLAB_TRACE_CHUNK_EVENTS * sizeof *r->events);
	/* Written by this thread first, so its pages are its own. */
	r->mine = calloc(r->nslots ? r->nslots : 1, sizeof *r->mine);
	r->sizes = calloc(r->nslots ? r->nslots : 1, sizeof *r->sizes);
	if (!r->cursor || (!sh->ahead && !r->events) || !r->mine || !r->sizes) {
		snprintf(err, err_len, "trace: out of memory for %u slots", r->nslots);
		free_replay(r);
		return NULL;
	}
	sh->replay[t->index] = r;
	sh->slots[t->index] = r->mine;
	sh->sizes[t->index] = r->sizes;
	return r;
}

/*
 * A value's preparation: the trace opened (first value), this thread's
 * state, the events decoded ahead (once a process), then what comes before
 * the value's part replayed untimed: nothing when the heap kept from the
 * value before is where the part starts (part=steady, the next window);
 * else from nothing (a part that starts earlier than where the replay is:
 * the windows used up, or every value of another part). The threads decide
 * alike (the same round and part), and meet before and after freeing, as
 * other threads may release this one's objects.
 */
static int trace_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	struct trace_shared *sh = t->shared;
	struct replay *r;
	int restart;

	/* Every thread meets the others the same number of times whatever
	 * fails (workload.h): a thread's failure is written to sh->failed
	 * before a meeting and read by all after it. Reset by thread 0 alone,
	 * before the first, so that no reset can undo another's failure. */
	if (t->index == 0) {
		atomic_store(&sh->failed, 0);
		if (sh->trace == NULL && !sh->refused)
			open_trace(t, sh);
	}
	t->sync(t);
	if (sh->refused || sh->not_applicable) {
		snprintf(err, err_len, "%s", sh->error);
		t->not_applicable = sh->not_applicable;
		return -1;
	}
	if ((t->state = r = replay_state(t, err, err_len)) == NULL ||
	    (sh->ahead && t->index == r->source && sh->decoded[r->source] == NULL &&
	     decode_ahead(sh, r, r->source, err, err_len) != 0))
		atomic_store(&sh->failed, 1);
	t->sync(t);
	if (atomic_load(&sh->failed)) {
		if (err[0] == '\0')
			snprintf(err, err_len, "trace: another thread could not prepare its replay");
		return -1;
	}
	unsigned nth = sh->first_window + r->round;
	r->window = part_range(sh->trace, sh->part, r->source, nth, &r->from, &r->to);
	/* Going back (past the last window, to the first): from nothing. */
	restart = r->round > 0 && (sh->part != PART_STEADY || nth % alloclab_trace_windows(sh->trace) == 0);
	r->round++;
	if (restart) {
		free_leftovers(t, r);
		t->sync(t);
	}
	r->error[0] = '\0';
	if (replay_to(t, r, r->from, 0) != 0)
		atomic_store(&sh->failed, 1);
	t->sync(t);
	if (atomic_load(&sh->failed)) {
		snprintf(err, err_len, "%s", r->error[0] ? r->error : "trace: another thread failed before the part");
		return -1;
	}
	return 0;
}

static void trace_run(struct alloclab_workload_thread *t)
{
	struct trace_shared *sh = t->shared;
	struct replay *r = t->state;
	const uint64_t loops = t->params->v[P_LOOPS];
	uint64_t ops = 0;

	r->peak = r->live;
	for (uint64_t l = 0; l < loops; l++) {
		/* Whole traces only (trace_check): each loop from nothing. */
		if (l > 0 && (loop_barrier(t) != 0 || (free_leftovers(t, r), loop_barrier(t) != 0)))
			goto failed;
		if (replay_to(t, r, r->to, 1) != 0)
			goto failed;
		ops += r->to - r->from;
	}
	t->ops = ops;
	alloclab_live_end(t, r->live);
	/* A thread's own most held is a part of the replay's only where no
	 * thread releases another's objects; else the samples tell. */
	if (!sh->sum.remote)
		alloclab_live_peak(t, r->peak);
	return;
failed:
	/* Only the thread that failed has a reason; those that stopped for
	 * it say nothing, so the cell's error is the reason (the worker fails
	 * the value either way). */
	atomic_store(&sh->failed, 1);
	t->error = r->error[0] ? r->error : NULL;
	t->ops = ops;
	alloclab_live_end(t, r->live);
}

/* The value's report: what the part was, and what was left live. */
static json_t *value_report(const struct trace_shared *sh, const struct replay *r, uint64_t freed, uint64_t kept)
{
	json_t *rep = json_pack("{s:I,s:I,s:s,s:s,s:I}", "waits", (json_int_t)r->waits, "left_live", (json_int_t)freed,
				"decode", sh->ahead ? "ahead" : "stream", "part", part_names[sh->part], "kept_live",
				(json_int_t)kept);
	if (r->window >= 0)
		json_object_set_new(rep, "window", json_integer(r->window));
	return rep;
}

static void trace_finish(struct alloclab_workload_thread *t)
{
	struct trace_shared *sh = t->shared;
	struct replay *r = t->state;
	/* part=steady keeps the heap for the next window; the last value
	 * and a failure free it, as does every other part (each value from
	 * nothing). */
	int keep = sh->part == PART_STEADY && !t->last_value;

	/* The last loop's live objects stay until here, so that the plugin's
	 * statistics at the end of the value are the recorded run's at its
	 * end. */
	t->sync(t);
	if (r) {
		/* The replay's own tables, resident: taken off the resident set
		 * for fragmentation. A trace of one thread decoded ahead is
		 * thread 0's, whatever threads replay it. */
		uint64_t own = alloclab_resident_bytes(r->mine, (size_t)r->nslots * sizeof *r->mine) +
			       alloclab_resident_bytes(r->sizes, (size_t)r->nslots * sizeof *r->sizes) +
			       alloclab_resident_bytes(r->events, ALLOCLAB_TRACE_CHUNK_EVENTS * sizeof *r->events) +
			       alloclab_trace_cursor_resident(r->cursor);
		if (sh->ahead && (alloclab_trace_threads(sh->trace) > 1 || t->index == 0))
			own += alloclab_resident_bytes(sh->decoded[t->index], sh->ndecoded[t->index] * sizeof **sh->decoded) +
			       alloclab_resident_bytes(sh->profile[t->index],
						       sh->ndecoded[t->index] / PROFILE_EVERY * sizeof(uint64_t) + 1);
		alloclab_live_own(t, own);
		uint64_t kept = 0, freed = 0;
		if (keep)
			for (uint32_t i = 0; i < r->nslots; i++)
				kept += r->mine[i].block != NULL;
		else
			freed = free_leftovers(t, r);
		t->report = value_report(sh, r, freed, kept);
		t->state = NULL;
	}
	t->sync(t);
	if (!keep) {
		free_replay(sh->replay[t->index]);
		sh->replay[t->index] = NULL;
		sh->slots[t->index] = NULL;
		sh->sizes[t->index] = NULL;
	}
	t->sync(t);
	if (t->index == 0 && t->last_value) {
		for (unsigned i = 0; i < t->nthreads; i++) {
			free(sh->decoded[i]);
			free_profile(sh->profile[i]);
			sh->decoded[i] = NULL;
			sh->profile[i] = NULL;
		}
		alloclab_trace_close(sh->trace);
		sh->trace = NULL;
	}
}

static int is_count(const json_t *x) { return json_is_integer(x) && json_integer_value(x) >= 0; }

static int trace_check_report(int per_process, const json_t *report, char *err, size_t err_len)
{
	json_t *part = json_object_get(report, "part"), *kept = json_object_get(report, "kept_live"),
	       *window = json_object_get(report, "window");
	const char *d = json_string_value(json_object_get(report, "decode"));
	int known = 0;

	for (unsigned i = PART_STEADY; part && json_is_string(part) && i <= PART_WHOLE; i++)
		known |= strcmp(json_string_value(part), part_names[i]) == 0;
	if (per_process || !is_count(json_object_get(report, "waits")) || !is_count(json_object_get(report, "left_live")) ||
	    d == NULL || (strcmp(d, "ahead") != 0 && strcmp(d, "stream") != 0)) {
		snprintf(err, err_len, "a trace report needs 'waits' and 'left_live' (counts) and 'decode' (ahead or stream)");
		return -1;
	}
	/* Older files have none of these: a whole trace's values. */
	if ((part && !known) || (kept && !is_count(kept)) || (window && !is_count(window))) {
		snprintf(err, err_len, "a trace report's 'part' is steady, startup, teardown or whole, and its 'kept_live' "
				       "and 'window' are counts");
		return -1;
	}
	return 0;
}

/* What the values timed, from their reports: a replay of the whole
 * recording says what that includes. */
static void trace_print_cell(const struct alloclab_cell *cell, FILE *out)
{
	const char *part = NULL;
	for (unsigned p = 0; p < cell->nprocs && !part; p++)
		for (unsigned v = 0; v < cell->procs[p].nvalues && !part; v++)
			part = json_string_value(json_object_get(json_array_get(cell->procs[p].values[v].thread_reports, 0), "part"));
	if (part == NULL || strcmp(part, "whole") == 0)
		fprintf(out, "  timed: the whole recording each value, start-up and teardown included: a heap built from "
			     "nothing and emptied every value%s\n",
			part ? "" : " (a results file from before trace parts)");
	else if (strcmp(part, "steady") != 0)
		fprintf(out, "  timed: the recording's %s alone, what came before it built untimed\n", part);
}

const struct alloclab_workload alloclab_workload_trace = {
	.name = "trace",
	.description = "replay an allocation trace (alloclab record), each recorded thread in a thread",
	.unit_op = "event",
	.params = trace_params,
	.nparams = sizeof trace_params / sizeof trace_params[0],
	.check_params = trace_check,
	.flags = ALLOCLAB_WORKLOAD_SLICES_ALONE,
	.prepare = trace_prepare,
	.run = trace_run,
	.finish = trace_finish,
	.shared_size = sizeof(struct trace_shared),
	.check_report = trace_check_report,
	.print_cell = trace_print_cell,
};
