/*
 * Allocation traces: the file format's one owner, writer and reader
 * (docs/guides/traces.md describes the format byte by byte).
 *
 * A trace is the stream of allocator calls each thread of a recorded run
 * made: per thread, in its order. Objects are named by identities, never
 * addresses: each thread numbers the objects it allocates with slots it
 * reuses (so slots are bounded by its live objects, not by the trace's
 * length), and an object is (owner thread, slot, generation), the
 * generation counting the owner's allocations in that slot. A free or
 * realloc of another thread's object carries all three, so that a replay
 * can wait for that very allocation; the owner's own events need the slot
 * alone.
 *
 * The file: a header with the recording's metadata (JSON), then chunks of
 * one thread's events each, varint-encoded and compressed as independent
 * zstd frames (with checksums), then an end record (JSON: events and
 * slots per thread, the allocator's statistics at the end) and a trailer
 * that points at it. A reader indexes the chunks without decompressing
 * them and decodes one chunk per thread at a time: memory proportional to
 * the live objects and the chunk size, not to the trace's length.
 *
 * Everything in a trace is untrusted: the reader checks every field and
 * says what is wrong in one line naming the file, where, and the problem.
 */
#ifndef ALLOCLAB_TRACE_H
#define ALLOCLAB_TRACE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Version 2 added windows (the end record's "windows"); a reader reads
 * both, a version 1 trace as one without windows. */
#define ALLOCLAB_TRACE_VERSION 2
#define ALLOCLAB_TRACE_OLDEST_VERSION 1
/* A chunk holds at most this many events (the reader's decode buffer). */
#define ALLOCLAB_TRACE_CHUNK_EVENTS 65536u
/* Limits a reader enforces: sizes and alignments a replay could not
 * honour on any machine, and tables it would not allocate. */
#define ALLOCLAB_TRACE_MAX_SIZE (1ull << 40)
#define ALLOCLAB_TRACE_MAX_ALIGN (1ull << 30)
#define ALLOCLAB_TRACE_MAX_SLOTS (1u << 28)
#define ALLOCLAB_TRACE_MAX_THREADS 1024u
#define ALLOCLAB_TRACE_MAX_WINDOWS 4096u

enum alloclab_trace_op {
	ALLOCLAB_TRACE_MALLOC,     /* size -> new slot */
	ALLOCLAB_TRACE_CALLOC,     /* arg elements of size bytes -> new slot */
	ALLOCLAB_TRACE_ALIGNED,    /* arg alignment, size -> new slot */
	ALLOCLAB_TRACE_REALLOC,    /* old object, size -> new slot */
	ALLOCLAB_TRACE_FREE,       /* old object */
	ALLOCLAB_TRACE_FREE_SIZED, /* old object, size given to free */
	ALLOCLAB_TRACE_NOPS
};

extern const char *const alloclab_trace_op_names[ALLOCLAB_TRACE_NOPS];

static inline int alloclab_trace_op_allocates(unsigned op)
{
	return op <= ALLOCLAB_TRACE_REALLOC;
}

static inline int alloclab_trace_op_releases(unsigned op)
{
	return op >= ALLOCLAB_TRACE_REALLOC;
}

/* One event, decoded. Invariants after the reader: op < NOPS; slot (for
 * an op that allocates) < its thread's slot count; old_owner < threads and
 * old_slot < the owner's slot count (for an op that releases); remote iff
 * old_owner is not this thread; size <= MAX_SIZE, and for CALLOC
 * arg * size too; ALIGNED's arg a power of two in [sizeof(void *),
 * MAX_ALIGN]. 32 bytes, so a replay can hold many decoded. */
struct alloclab_trace_event {
	uint64_t size;
	/* CALLOC: elements; ALIGNED: alignment; a remote release: the
	 * released object's generation (no op needs two of these). */
	uint64_t arg;
	uint32_t slot;      /* the new object's slot */
	uint32_t old_slot;  /* the released object's slot */
	uint16_t old_owner; /* and its owner */
	uint8_t op;
	uint8_t remote;
};

/* ---- writing ---- */

struct alloclab_trace_writer;

/* Creates path (O_EXCL: an existing file is never replaced) and writes
 * the header with `meta` (a JSON object; a reference is taken); a path
 * "/proc/self/fd/N" is a descriptor opened for it, written from its start.
 * NULL with err on failure. */
struct alloclab_trace_writer *alloclab_trace_writer_open(const char *path, json_t *meta, char *err, size_t err_len);
/* Appends one event of `thread` (< MAX_THREADS); the event must satisfy
 * the invariants above (the recorder makes them so). 0, or -1 when writing
 * failed (then every later call fails too, and close reports why). Not
 * thread-safe: the caller serialises. */
int alloclab_trace_write(struct alloclab_trace_writer *w, unsigned thread, const struct alloclab_trace_event *e);
/* Flushes every thread's last chunk and writes the end record, with
 * `end_extra` (a JSON object or NULL, reference taken) merged into it, and
 * the trailer, then syncs and closes. 0, or -1 with err. Frees w. */
int alloclab_trace_writer_close(struct alloclab_trace_writer *w, json_t *end_extra, char *err, size_t err_len);
/*
 * Windows: the parts of a recording that were the workload's timed
 * region (a measured value's run(), after its warm-ups), as opposed to
 * what came before (an interpreter's start-up, imports, warm-ups, the
 * workload's set-up) and after (teardown). A mark is a cut through every
 * thread's stream at once: each thread's count of events so far. The
 * caller marks while no thread makes a call (between barriers), so that
 * every event before the cut happened before every event after it, and
 * a replay may replay what is before untimed and then time the window
 * without either waiting on the other. begin 1 opens a window, 0 closes
 * the open one; a window still open at close is dropped. 0, or -1 (out
 * of memory, too many windows, or a mark out of turn: the trace is then
 * not finished). Not thread-safe, as write.
 */
int alloclab_trace_writer_window(struct alloclab_trace_writer *w, int begin);
/* Gives up: closes and removes the file. Frees w. */
void alloclab_trace_writer_abort(struct alloclab_trace_writer *w);
/* Lets go without touching the file (a forked child's copy): closes this
 * process's descriptor. Frees w. */
void alloclab_trace_writer_forget(struct alloclab_trace_writer *w);

/* ---- reading ---- */

struct alloclab_trace;

/* Opens and indexes a trace: the header, the trailer, the end record and
 * every chunk's header are checked; nothing is decompressed yet. NULL with
 * one line in err ("trace 'FILE': ..."). */
struct alloclab_trace *alloclab_trace_open(const char *path, char *err, size_t err_len);
/* The same on an open descriptor (kept, closed by alloclab_trace_close);
 * `name` is what messages call the file. */
struct alloclab_trace *alloclab_trace_open_fd(int fd, const char *name, char *err, size_t err_len);
void alloclab_trace_close(struct alloclab_trace *t);

unsigned alloclab_trace_threads(const struct alloclab_trace *t);
uint64_t alloclab_trace_events(const struct alloclab_trace *t, unsigned thread);
uint32_t alloclab_trace_slots(const struct alloclab_trace *t, unsigned thread);
const char *alloclab_trace_name(const struct alloclab_trace *t);
/* The header's metadata and the end record (borrowed). */
const json_t *alloclab_trace_meta(const struct alloclab_trace *t);
const json_t *alloclab_trace_end(const struct alloclab_trace *t);
/* The file's format version (ALLOCLAB_TRACE_OLDEST_VERSION to _VERSION). */
int alloclab_trace_version(const struct alloclab_trace *t);
/* Its windows (0: recorded without, or by a version 1 writer), and window
 * k's events of a thread: [*begin, *end). Invariants, checked at open:
 * begin <= end <= the thread's events; a window begins where the one
 * before ended or later, on every thread; every window holds an event. */
unsigned alloclab_trace_windows(const struct alloclab_trace *t);
void alloclab_trace_window(const struct alloclab_trace *t, unsigned k, unsigned thread, uint64_t *begin,
			   uint64_t *end);

/* What validation found: events per op, and those that release another
 * thread's object. */
struct alloclab_trace_summary {
	uint64_t ops[ALLOCLAB_TRACE_NOPS];
	uint64_t remote;
};

/* Decodes every chunk and checks the events' meaning, thread by thread:
 * a free of an object never allocated, a double free, an allocation into
 * a slot still live, a remote reference to a generation its owner never
 * allocated. 0 with *sum filled (sum may be NULL), or -1 with the first
 * problem and where it is. Memory: three words per slot. */
int alloclab_trace_validate(struct alloclab_trace *t, struct alloclab_trace_summary *sum, char *err,
			    size_t err_len);

/* One thread's events, a chunk at a time; several cursors (one per
 * thread) may read one trace at once. */
struct alloclab_trace_cursor;
struct alloclab_trace_cursor *alloclab_trace_cursor_new(const struct alloclab_trace *t, unsigned thread);
void alloclab_trace_cursor_free(struct alloclab_trace_cursor *c);
/* The resident bytes of the cursor's buffers (resident.h). */
uint64_t alloclab_trace_cursor_resident(const struct alloclab_trace_cursor *c);
void alloclab_trace_cursor_rewind(struct alloclab_trace_cursor *c);
/* The next chunk's events into out: 1 with *n set, 0 at the thread's
 * end, -1 with err. Room for ALLOCLAB_TRACE_CHUNK_EVENTS always suffices,
 * and so does room for the thread's events not read yet (the chunks' counts
 * add up to alloclab_trace_events, checked at open). */
int alloclab_trace_next_chunk(struct alloclab_trace_cursor *c, struct alloclab_trace_event *out, size_t *n,
			      char *err, size_t err_len);
/* Where the cursor's last chunk starts in the file and the index (in the
 * thread) of its first event: for messages. */
uint64_t alloclab_trace_cursor_chunk_offset(const struct alloclab_trace_cursor *c);
uint64_t alloclab_trace_cursor_first_event(const struct alloclab_trace_cursor *c);

#endif
