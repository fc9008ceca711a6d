/*
 * The trace format's writer and reader. See trace.h, and docs/guides/traces.md
 * for the layout this file is the one owner of.
 */
#define _GNU_SOURCE 1
#include "trace/trace.h"
#include "base/invariant.h"
#include "memory/resident.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

const char *const alloclab_trace_op_names[ALLOCLAB_TRACE_NOPS] = {"malloc", "calloc", "aligned_alloc",
								   "realloc", "free",   "free_sized"};

static const char file_magic[8] = {'A', 'L', 'C', 'T', 'R', 'A', 'C', 'E'};
static const char chunk_magic[4] = {'C', 'H', 'N', 'K'};
static const char end_magic[4] = {'C', 'E', 'N', 'D'};
static const char trailer_magic[8] = {'A', 'L', 'C', 'T', 'E', 'N', 'D', '\0'};

#define HEADER_LEN 16u      /* magic, version, metadata length */
#define CHUNK_HEADER_LEN 24u /* magic, thread, events, raw length, compressed length, flags */
#define TRAILER_LEN 16u     /* end record's offset, magic */
#define MAX_META (1u << 20)
#define MAX_END (16u << 20)
/* The longest event: an op byte and five varints of at most 10 bytes. */
#define MAX_EVENT_LEN 51u
#define CHUNK_RAW_MAX (ALLOCLAB_TRACE_CHUNK_EVENTS * MAX_EVENT_LEN)
#define CHUNK_REMOTE 1u     /* flags: the chunk has remote references */
#define REMOTE_BIT 0x08u
#define ZSTD_LEVEL 3

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* 0, or -1 with errno (0 at the end of the file). */
static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;
	while (len > 0) {
		ssize_t n = pread(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = 0;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* ==== writing ==== */

struct wthread {
	unsigned char *buf; /* the open chunk's events, encoded */
	size_t len;
	uint32_t chunk_events, flags;
	uint64_t events;
	uint32_t slots; /* highest slot allocated + 1 */
};

struct alloclab_trace_writer {
	int fd;
	char *path;
	struct wthread *threads;
	unsigned nthreads; /* threads seen: the highest index + 1 */
	ZSTD_CCtx *cctx;
	void *zbuf;
	size_t zcap;
	uint64_t offset;
	int failed;
	char why[256];
	/* Windows: each a begin and an end cut, a count per thread (threads
	 * not seen yet at a cut had none), 2 x nwindows cuts; open: a begin
	 * without its end yet. */
	uint64_t (*cuts)[ALLOCLAB_TRACE_MAX_THREADS];
	unsigned ncuts, cuts_cap, cut_threads[2 * ALLOCLAB_TRACE_MAX_WINDOWS];
};

static int wfail(struct alloclab_trace_writer *w, const char *what)
{
	if (!w->failed)
		snprintf(w->why, sizeof w->why, "%s: %s", what, errno ? strerror(errno) : "short write");
	w->failed = 1;
	return -1;
}

static int emit(struct alloclab_trace_writer *w, const void *buf, size_t len)
{
	if (write_all(w->fd, buf, len) != 0)
		return wfail(w, "cannot write");
	w->offset += len;
	return 0;
}

static int descriptor_path(const char *path) { return strncmp(path, "/proc/self/fd/", 14) == 0; }

struct alloclab_trace_writer *alloclab_trace_writer_open(const char *path, json_t *meta, char *err, size_t err_len)
{
	struct alloclab_trace_writer *w = calloc(1, sizeof *w);
	char *text = json_dumps(meta, JSON_COMPACT | JSON_SORT_KEYS);
	unsigned char head[HEADER_LEN];

	json_decref(meta);
	if (w == NULL || text == NULL || strlen(text) > MAX_META) {
		snprintf(err, err_len, "trace '%s': cannot encode the metadata", path);
		goto fail;
	}
	w->zcap = ZSTD_compressBound(CHUNK_RAW_MAX);
	w->threads = calloc(ALLOCLAB_TRACE_MAX_THREADS, sizeof *w->threads);
	w->zbuf = malloc(w->zcap);
	w->cctx = ZSTD_createCCtx();
	w->path = strdup(path);
	if (!w->threads || !w->zbuf || !w->cctx || !w->path ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, ZSTD_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1))) {
		snprintf(err, err_len, "trace '%s': out of memory", path);
		goto fail;
	}
	/* A descriptor the caller opened for the trace (an unnamed file that
	 * `alloclab record` names once it is complete) is written as it is;
	 * any other path is created, never replaced. */
	w->fd = descriptor_path(path) ? open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
				      : open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		snprintf(err, err_len, "trace '%s': cannot create: %s", path, strerror(errno));
		goto fail;
	}
	memcpy(head, file_magic, 8);
	put32(head + 8, ALLOCLAB_TRACE_VERSION);
	put32(head + 12, (uint32_t)strlen(text));
	if (emit(w, head, sizeof head) != 0 || emit(w, text, strlen(text)) != 0) {
		snprintf(err, err_len, "trace '%s': %s", path, w->why);
		close(w->fd);
		if (!descriptor_path(path))
			unlink(path);
		goto fail;
	}
	free(text);
	return w;
fail:
	free(text);
	if (w) {
		ZSTD_freeCCtx(w->cctx);
		free(w->zbuf);
		free(w->threads);
		free(w->path);
		free(w);
	}
	return NULL;
}

static int flush_chunk(struct alloclab_trace_writer *w, struct wthread *t, unsigned thread)
{
	unsigned char head[CHUNK_HEADER_LEN];
	size_t z;

	if (t->chunk_events == 0)
		return 0;
	z = ZSTD_compress2(w->cctx, w->zbuf, w->zcap, t->buf, t->len);
	if (ZSTD_isError(z)) {
		errno = 0;
		snprintf(w->why, sizeof w->why, "zstd: %s", ZSTD_getErrorName(z));
		w->failed = 1;
		return -1;
	}
	memcpy(head, chunk_magic, 4);
	put32(head + 4, thread);
	put32(head + 8, t->chunk_events);
	put32(head + 12, (uint32_t)t->len);
	put32(head + 16, (uint32_t)z);
	put32(head + 20, t->flags);
	if (emit(w, head, sizeof head) != 0 || emit(w, w->zbuf, z) != 0)
		return -1;
	t->len = 0;
	t->chunk_events = 0;
	t->flags = 0;
	return 0;
}

static unsigned char *put_varint(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

int alloclab_trace_write(struct alloclab_trace_writer *w, unsigned thread, const struct alloclab_trace_event *e)
{
	struct wthread *t;
	unsigned char *p;

	if (w->failed)
		return -1;
	if (thread >= ALLOCLAB_TRACE_MAX_THREADS) {
		errno = 0;
		snprintf(w->why, sizeof w->why, "more than %u threads", ALLOCLAB_TRACE_MAX_THREADS);
		w->failed = 1;
		return -1;
	}
	t = &w->threads[thread];
	if (thread >= w->nthreads)
		w->nthreads = thread + 1;
	if (t->buf == NULL && (t->buf = malloc(CHUNK_RAW_MAX)) == NULL) {
		errno = ENOMEM;
		return wfail(w, "cannot buffer");
	}
	p = t->buf + t->len;
	*p++ = (unsigned char)(e->op | (e->remote ? REMOTE_BIT : 0));
	if (e->op == ALLOCLAB_TRACE_CALLOC || e->op == ALLOCLAB_TRACE_ALIGNED)
		p = put_varint(p, e->arg);
	if (alloclab_trace_op_releases(e->op)) {
		if (e->remote) {
			p = put_varint(p, e->old_owner);
			p = put_varint(p, e->old_slot);
			p = put_varint(p, e->arg);
			t->flags |= CHUNK_REMOTE;
		} else {
			p = put_varint(p, e->old_slot);
		}
	}
	if (e->op != ALLOCLAB_TRACE_FREE)
		p = put_varint(p, e->size);
	if (alloclab_trace_op_allocates(e->op)) {
		p = put_varint(p, e->slot);
		if (e->slot >= t->slots)
			t->slots = e->slot + 1;
	}
	t->len = (size_t)(p - t->buf);
	t->events++;
	if (++t->chunk_events == ALLOCLAB_TRACE_CHUNK_EVENTS || t->len + MAX_EVENT_LEN > CHUNK_RAW_MAX)
		return flush_chunk(w, t, thread);
	return 0;
}

int alloclab_trace_writer_window(struct alloclab_trace_writer *w, int begin)
{
	if (w->failed)
		return -1;
	if ((begin != 0) != (w->ncuts % 2 == 0) || w->ncuts == 2 * ALLOCLAB_TRACE_MAX_WINDOWS) {
		errno = 0;
		if (w->ncuts == 2 * ALLOCLAB_TRACE_MAX_WINDOWS)
			snprintf(w->why, sizeof w->why, "more than %u windows", ALLOCLAB_TRACE_MAX_WINDOWS);
		else
			snprintf(w->why, sizeof w->why, "a window %s out of turn", begin ? "opened" : "closed");
		w->failed = 1;
		return -1;
	}
	if (w->ncuts == w->cuts_cap) {
		unsigned cap = w->cuts_cap ? 2 * w->cuts_cap : 8;
		void *grown = realloc(w->cuts, cap * sizeof *w->cuts);
		if (grown == NULL) {
			errno = ENOMEM;
			return wfail(w, "cannot keep a window");
		}
		w->cuts = grown;
		w->cuts_cap = cap;
	}
	for (unsigned i = 0; i < w->nthreads; i++)
		w->cuts[w->ncuts][i] = w->threads[i].events;
	w->cut_threads[w->ncuts++] = w->nthreads;
	return 0;
}

/* The windows closed so far as the end record's "windows": each
 * {"begin": [...], "end": [...]}, a count for every one of the trace's
 * threads. */
static json_t *windows_json(const struct alloclab_trace_writer *w)
{
	json_t *all = json_array();
	for (unsigned k = 0; k + 1 < w->ncuts; k += 2) {
		/* A window in which no thread made a call (a value whose run
		 * reached no allocator) is none: a replay could time nothing. */
		int held = 0;
		for (unsigned i = 0; i < w->cut_threads[k + 1]; i++)
			held |= w->cuts[k + 1][i] != (i < w->cut_threads[k] ? w->cuts[k][i] : 0);
		if (!held)
			continue;
		json_t *cut[2] = {json_array(), json_array()};
		for (unsigned c = 0; c < 2; c++)
			for (unsigned i = 0; i < w->nthreads; i++)
				json_array_append_new(cut[c], json_integer(i < w->cut_threads[k + c] ? (json_int_t)w->cuts[k + c][i]
												     : 0));
		json_array_append_new(all, json_pack("{s:o,s:o}", "begin", cut[0], "end", cut[1]));
	}
	return all;
}

static void writer_free(struct alloclab_trace_writer *w)
{
	free(w->cuts);
	for (unsigned i = 0; i < ALLOCLAB_TRACE_MAX_THREADS; i++)
		free(w->threads[i].buf);
	ZSTD_freeCCtx(w->cctx);
	free(w->zbuf);
	free(w->threads);
	free(w->path);
	free(w);
}

int alloclab_trace_writer_close(struct alloclab_trace_writer *w, json_t *end_extra, char *err, size_t err_len)
{
	json_t *end = json_object(), *threads = json_array();
	uint64_t total = 0, end_offset;
	unsigned char head[CHUNK_HEADER_LEN], trailer[TRAILER_LEN];
	char *text = NULL;
	int rc = -1;

	for (unsigned i = 0; i < w->nthreads && !w->failed; i++) {
		struct wthread *t = &w->threads[i];
		flush_chunk(w, t, i);
		json_array_append_new(threads, json_pack("{s:I,s:I}", "events", (json_int_t)t->events, "slots",
							 (json_int_t)t->slots));
		total += t->events;
	}
	if (end_extra)
		json_object_update(end, end_extra);
	json_decref(end_extra);
	json_object_set_new(end, "threads", threads);
	json_object_set_new(end, "events", json_integer((json_int_t)total));
	/* Only where there are some: a trace without is a version 1 trace
	 * in all but its version byte. */
	json_t *windows = windows_json(w);
	if (json_array_size(windows))
		json_object_set_new(end, "windows", windows);
	else
		json_decref(windows);
	text = json_dumps(end, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(end);
	if (!w->failed && (text == NULL || strlen(text) > MAX_END)) {
		errno = 0;
		snprintf(w->why, sizeof w->why, "the end record is too large");
		w->failed = 1;
	}
	if (!w->failed) {
		end_offset = w->offset;
		memcpy(head, end_magic, 4);
		put32(head + 4, 0);
		put32(head + 8, 0);
		put32(head + 12, (uint32_t)strlen(text));
		put32(head + 16, (uint32_t)strlen(text));
		put32(head + 20, 0);
		put64(trailer, end_offset);
		memcpy(trailer + 8, trailer_magic, 8);
		if (emit(w, head, sizeof head) == 0 && emit(w, text, strlen(text)) == 0 &&
		    emit(w, trailer, sizeof trailer) == 0 && fsync(w->fd) != 0)
			wfail(w, "cannot sync");
	}
	if (close(w->fd) != 0 && !w->failed)
		wfail(w, "cannot close");
	if (w->failed) {
		snprintf(err, err_len, "trace '%s': %s", w->path, w->why);
		if (!descriptor_path(w->path))
			unlink(w->path);
	} else {
		rc = 0;
	}
	free(text);
	writer_free(w);
	return rc;
}

void alloclab_trace_writer_abort(struct alloclab_trace_writer *w)
{
	close(w->fd);
	if (!descriptor_path(w->path))
		unlink(w->path);
	writer_free(w);
}

void alloclab_trace_writer_forget(struct alloclab_trace_writer *w)
{
	close(w->fd);
	writer_free(w);
}

/* ==== reading ==== */

struct chunk_ix {
	uint64_t offset; /* of its header */
	uint64_t first;  /* index of its first event in the thread */
	uint32_t events, raw_len, zlen, flags;
};

struct rthread {
	struct chunk_ix *chunks;
	size_t nchunks, cap;
	uint64_t events;
	uint32_t slots;
};

struct alloclab_trace {
	int fd;
	char *name;
	json_t *meta, *end;
	unsigned nthreads;
	struct rthread *threads;
	int version;
	/* Window k of thread i: [win[2 (k n + i)], win[2 (k n + i) + 1]), n
	 * the threads (trace.h states the invariants, read_windows checks). */
	unsigned nwindows;
	uint64_t *win;
};

/* Invariants (cursor_valid, checked in debug builds at every chunk):
 * thread < the trace's threads; next <= its chunks; after a chunk, first
 * is that chunk's first event and first + its events <= the thread's
 * events (the index's counts add up, checked at open). */
struct alloclab_trace_cursor {
	const struct alloclab_trace *t;
	unsigned thread;
	size_t next;         /* the next chunk to decode */
	uint64_t offset, first; /* of the last chunk decoded */
	ZSTD_DCtx *dctx;
	unsigned char *z, *raw;
};

#if ALLOCLAB_INVARIANTS_CHECKED
static int cursor_valid(const struct alloclab_trace_cursor *c)
{
	if (c->thread >= c->t->nthreads)
		return 0;
	const struct rthread *rt = &c->t->threads[c->thread];
	if (c->next > rt->nchunks)
		return 0;
	if (c->next == 0)
		return 1;
	const struct chunk_ix *last = &rt->chunks[c->next - 1];
	return c->first == last->first && last->first + last->events <= rt->events;
}

/* The invariants a decoded event keeps (trace.h, struct
 * alloclab_trace_event), for thread `thread` of t. */
static int event_valid(const struct alloclab_trace *t, unsigned thread, const struct alloclab_trace_event *e)
{
	if (e->op >= ALLOCLAB_TRACE_NOPS || e->size > ALLOCLAB_TRACE_MAX_SIZE)
		return 0;
	if (alloclab_trace_op_allocates(e->op) && e->slot >= t->threads[thread].slots)
		return 0;
	if (alloclab_trace_op_releases(e->op) &&
	    (e->old_owner >= t->nthreads || e->old_slot >= t->threads[e->old_owner].slots ||
	     e->remote != (e->old_owner != thread)))
		return 0;
	if (e->op == ALLOCLAB_TRACE_CALLOC && e->size && e->arg > ALLOCLAB_TRACE_MAX_SIZE / e->size)
		return 0;
	return e->op != ALLOCLAB_TRACE_ALIGNED ||
	       (e->arg >= sizeof(void *) && e->arg <= ALLOCLAB_TRACE_MAX_ALIGN && (e->arg & (e->arg - 1)) == 0);
}
#endif

static int tfail(const char *name, char *err, size_t err_len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int tfail(const char *name, char *err, size_t err_len, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(err, err_len, "trace '%s': %s", name, what);
	return -1;
}

const char *alloclab_trace_name(const struct alloclab_trace *t) { return t->name; }
unsigned alloclab_trace_threads(const struct alloclab_trace *t) { return t->nthreads; }
uint64_t alloclab_trace_events(const struct alloclab_trace *t, unsigned i) { return t->threads[i].events; }
uint32_t alloclab_trace_slots(const struct alloclab_trace *t, unsigned i) { return t->threads[i].slots; }
const json_t *alloclab_trace_meta(const struct alloclab_trace *t) { return t->meta; }
const json_t *alloclab_trace_end(const struct alloclab_trace *t) { return t->end; }
int alloclab_trace_version(const struct alloclab_trace *t) { return t->version; }
unsigned alloclab_trace_windows(const struct alloclab_trace *t) { return t->nwindows; }

void alloclab_trace_window(const struct alloclab_trace *t, unsigned k, unsigned thread, uint64_t *begin, uint64_t *end)
{
	ALLOCLAB_CHECK_INVARIANT(k < t->nwindows && thread < t->nthreads);
	*begin = t->win[2 * ((size_t)k * t->nthreads + thread)];
	*end = t->win[2 * ((size_t)k * t->nthreads + thread) + 1];
}

void alloclab_trace_close(struct alloclab_trace *t)
{
	if (t == NULL)
		return;
	if (t->fd >= 0)
		close(t->fd);
	for (unsigned i = 0; i < t->nthreads; i++)
		free(t->threads[i].chunks);
	free(t->threads);
	free(t->win);
	json_decref(t->meta);
	json_decref(t->end);
	free(t->name);
	free(t);
}

/* Reads len bytes of JSON object at off. NULL with err. */
static json_t *read_json(struct alloclab_trace *t, uint64_t off, uint32_t len, const char *what, char *err,
			 size_t err_len)
{
	char *text = malloc((size_t)len + 1);
	json_error_t je;
	json_t *obj = NULL;

	if (text == NULL) {
		tfail(t->name, err, err_len, "out of memory reading the %s", what);
		return NULL;
	}
	if (pread_all(t->fd, text, len, off) != 0) {
		tfail(t->name, err, err_len, "byte %" PRIu64 ": truncated in the %s", off, what);
	} else if ((obj = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je)) == NULL || !json_is_object(obj)) {
		tfail(t->name, err, err_len, "byte %" PRIu64 ": the %s is not a JSON object%s%s", off, what,
		      obj ? "" : ": ", obj ? "" : je.text);
		json_decref(obj);
		obj = NULL;
	}
	free(text);
	return obj;
}

/* The end record: per thread, events and slots. */
static int read_end(struct alloclab_trace *t, char *err, size_t err_len)
{
	json_t *threads = json_object_get(t->end, "threads"), *e;
	size_t i;

	if (!json_is_array(threads) || json_array_size(threads) == 0 ||
	    json_array_size(threads) > ALLOCLAB_TRACE_MAX_THREADS)
		return tfail(t->name, err, err_len, "end record: 'threads' must be a list of 1 to %u threads",
			     ALLOCLAB_TRACE_MAX_THREADS);
	t->nthreads = (unsigned)json_array_size(threads);
	if ((t->threads = calloc(t->nthreads, sizeof *t->threads)) == NULL)
		return tfail(t->name, err, err_len, "out of memory");
	json_array_foreach(threads, i, e) {
		json_t *ev = json_object_get(e, "events"), *sl = json_object_get(e, "slots");
		if (!json_is_integer(ev) || json_integer_value(ev) < 0 || !json_is_integer(sl) ||
		    json_integer_value(sl) < 0 || json_integer_value(sl) > ALLOCLAB_TRACE_MAX_SLOTS)
			return tfail(t->name, err, err_len,
				     "end record: thread %zu needs 'events' (>= 0) and 'slots' (0 to %u)", i,
				     ALLOCLAB_TRACE_MAX_SLOTS);
		t->threads[i].events = (uint64_t)json_integer_value(ev);
		t->threads[i].slots = (uint32_t)json_integer_value(sl);
	}
	return 0;
}

/* One cut of window k (which: "begin" or "end") into the table: a count
 * of events for every thread, each no more than the thread's. */
static int read_cut(struct alloclab_trace *t, const json_t *w, unsigned k, int which, char *err, size_t err_len)
{
	const char *name = which ? "end" : "begin";
	json_t *cut = json_object_get(w, name), *c;
	size_t i;

	if (!json_is_array(cut) || json_array_size(cut) != t->nthreads)
		return tfail(t->name, err, err_len, "end record: window %u needs '%s', a count for each of the %u threads",
			     k, name, t->nthreads);
	json_array_foreach(cut, i, c) {
		if (!json_is_integer(c) || json_integer_value(c) < 0 ||
		    (uint64_t)json_integer_value(c) > t->threads[i].events)
			return tfail(t->name, err, err_len,
				     "end record: window %u's %s for thread %zu is not a count from 0 to its %" PRIu64
				     " events",
				     k, name, i, t->threads[i].events);
		t->win[2 * ((size_t)k * t->nthreads + i) + (size_t)which] = (uint64_t)json_integer_value(c);
	}
	return 0;
}

/* The end record's windows (version 2): see trace.h's invariants. */
static int read_windows(struct alloclab_trace *t, char *err, size_t err_len)
{
	json_t *all = json_object_get(t->end, "windows"), *w;
	size_t k;

	if (all == NULL)
		return 0;
	if (t->version < 2)
		return tfail(t->name, err, err_len, "end record: 'windows' in a version %d trace (version 2 added them)",
			     t->version);
	if (!json_is_array(all) || json_array_size(all) > ALLOCLAB_TRACE_MAX_WINDOWS)
		return tfail(t->name, err, err_len, "end record: 'windows' must be a list of at most %u windows",
			     ALLOCLAB_TRACE_MAX_WINDOWS);
	t->nwindows = (unsigned)json_array_size(all);
	if (t->nwindows && (t->win = calloc((size_t)t->nwindows * t->nthreads * 2, sizeof *t->win)) == NULL)
		return tfail(t->name, err, err_len, "out of memory");
	json_array_foreach(all, k, w) {
		uint64_t held = 0;
		if (read_cut(t, w, (unsigned)k, 0, err, err_len) != 0 || read_cut(t, w, (unsigned)k, 1, err, err_len) != 0)
			return -1;
		for (unsigned i = 0; i < t->nthreads; i++) {
			uint64_t b, e, before_b = 0, before_e = 0;
			alloclab_trace_window(t, (unsigned)k, i, &b, &e);
			if (k > 0)
				alloclab_trace_window(t, (unsigned)k - 1, i, &before_b, &before_e);
			if (b > e || b < before_e)
				return tfail(t->name, err, err_len,
					     "end record: window %zu of thread %u %s", k, i,
					     b > e ? "ends before it begins" : "begins before the window before it ended");
			held += e - b;
		}
		if (held == 0)
			return tfail(t->name, err, err_len, "end record: window %zu holds no event", k);
	}
	return 0;
}

/* Every chunk header between the metadata and the end record: they must
 * tile that span exactly, and add up to the end record's counts. */
static int index_chunks(struct alloclab_trace *t, uint64_t start, uint64_t end_offset, char *err, size_t err_len)
{
	uint64_t off = start, *seen = calloc(t->nthreads, sizeof *seen);

	if (seen == NULL)
		return tfail(t->name, err, err_len, "out of memory");
	while (off < end_offset) {
		unsigned char h[CHUNK_HEADER_LEN];
		struct chunk_ix c = {.offset = off};
		uint32_t thread;
		struct rthread *rt;

		if (end_offset - off < CHUNK_HEADER_LEN || pread_all(t->fd, h, sizeof h, off) != 0) {
			free(seen);
			return tfail(t->name, err, err_len, "byte %" PRIu64 ": truncated chunk header", off);
		}
		thread = get32(h + 4);
		c.events = get32(h + 8);
		c.raw_len = get32(h + 12);
		c.zlen = get32(h + 16);
		c.flags = get32(h + 20);
		const char *bad = memcmp(h, chunk_magic, 4) != 0 ? "not a chunk (bad magic)"
				  : thread >= t->nthreads ? "thread out of range"
				  : c.events == 0 || c.events > ALLOCLAB_TRACE_CHUNK_EVENTS ? "event count out of range"
				  : c.raw_len < c.events || c.raw_len > CHUNK_RAW_MAX ? "decoded length out of range"
				  : c.zlen == 0 || c.zlen > ZSTD_compressBound(c.raw_len) ? "compressed length out of range"
				  : c.flags & ~CHUNK_REMOTE ? "unknown flags"
				  : c.zlen > end_offset - off - CHUNK_HEADER_LEN ? "runs past the end record"
				  : NULL;
		if (bad) {
			free(seen);
			return tfail(t->name, err, err_len, "byte %" PRIu64 ": chunk: %s", off, bad);
		}
		rt = &t->threads[thread];
		c.first = seen[thread];
		seen[thread] += c.events;
		if (rt->nchunks == rt->cap) {
			size_t cap = rt->cap ? rt->cap * 2 : 16;
			struct chunk_ix *grown = realloc(rt->chunks, cap * sizeof *grown);
			if (grown == NULL) {
				free(seen);
				return tfail(t->name, err, err_len, "out of memory");
			}
			rt->chunks = grown;
			rt->cap = cap;
		}
		rt->chunks[rt->nchunks++] = c;
		off += CHUNK_HEADER_LEN + c.zlen;
	}
	for (unsigned i = 0; i < t->nthreads; i++)
		if (seen[i] != t->threads[i].events) {
			uint64_t s = seen[i];
			free(seen);
			return tfail(t->name, err, err_len,
				     "thread %u has %" PRIu64 " events in its chunks, the end record says %" PRIu64, i, s,
				     t->threads[i].events);
		}
	free(seen);
	return 0;
}

struct alloclab_trace *alloclab_trace_open_fd(int fd, const char *name, char *err, size_t err_len)
{
	struct alloclab_trace *t = calloc(1, sizeof *t);
	unsigned char head[HEADER_LEN], trailer[TRAILER_LEN], eh[CHUNK_HEADER_LEN];
	struct stat st;
	uint64_t size, end_offset, meta_end;

	if (t == NULL || (t->name = strdup(name)) == NULL) {
		snprintf(err, err_len, "trace '%s': out of memory", name);
		free(t);
		close(fd);
		return NULL;
	}
	t->fd = fd;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		tfail(name, err, err_len, "not a regular file");
		goto fail;
	}
	size = (uint64_t)st.st_size;
	if (size < HEADER_LEN || pread_all(fd, head, sizeof head, 0) != 0 || memcmp(head, file_magic, 8) != 0) {
		tfail(name, err, err_len, "byte 0: not an alloclab trace (no 'ALCTRACE' header)");
		goto fail;
	}
	if (get32(head + 8) < ALLOCLAB_TRACE_OLDEST_VERSION || get32(head + 8) > ALLOCLAB_TRACE_VERSION) {
		tfail(name, err, err_len, "byte 8: format version %" PRIu32 ", this alloclab reads versions %d to %d",
		      get32(head + 8), ALLOCLAB_TRACE_OLDEST_VERSION, ALLOCLAB_TRACE_VERSION);
		goto fail;
	}
	t->version = (int)get32(head + 8);
	if (get32(head + 12) > MAX_META || get32(head + 12) > size - HEADER_LEN) {
		tfail(name, err, err_len, "byte 12: metadata length %" PRIu32 " out of range", get32(head + 12));
		goto fail;
	}
	meta_end = HEADER_LEN + get32(head + 12);
	if ((t->meta = read_json(t, HEADER_LEN, get32(head + 12), "metadata", err, err_len)) == NULL)
		goto fail;
	if (size < meta_end + CHUNK_HEADER_LEN + TRAILER_LEN || pread_all(fd, trailer, sizeof trailer, size - TRAILER_LEN) != 0 ||
	    memcmp(trailer + 8, trailer_magic, 8) != 0) {
		tfail(name, err, err_len, "byte %" PRIu64 ": truncated: no end record (the recording did not finish)",
		      size);
		goto fail;
	}
	end_offset = get64(trailer);
	if (end_offset < meta_end || end_offset > size - TRAILER_LEN - CHUNK_HEADER_LEN ||
	    pread_all(fd, eh, sizeof eh, end_offset) != 0 || memcmp(eh, end_magic, 4) != 0 ||
	    get32(eh + 12) > MAX_END || end_offset + CHUNK_HEADER_LEN + get32(eh + 12) + TRAILER_LEN != size) {
		tfail(name, err, err_len, "byte %" PRIu64 ": the trailer points at no end record", size - TRAILER_LEN);
		goto fail;
	}
	if ((t->end = read_json(t, end_offset + CHUNK_HEADER_LEN, get32(eh + 12), "end record", err, err_len)) ==
		    NULL ||
	    read_end(t, err, err_len) != 0 || read_windows(t, err, err_len) != 0 ||
	    index_chunks(t, meta_end, end_offset, err, err_len) != 0)
		goto fail;
	return t;
fail:
	alloclab_trace_close(t);
	return NULL;
}

struct alloclab_trace *alloclab_trace_open(const char *path, char *err, size_t err_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		tfail(path, err, err_len, "cannot open: %s", strerror(errno));
		return NULL;
	}
	return alloclab_trace_open_fd(fd, path, err, err_len);
}

/* ---- cursors ---- */

struct alloclab_trace_cursor *alloclab_trace_cursor_new(const struct alloclab_trace *t, unsigned thread)
{
	struct alloclab_trace_cursor *c = calloc(1, sizeof *c);
	if (c == NULL)
		return NULL;
	c->t = t;
	c->thread = thread;
	c->dctx = ZSTD_createDCtx();
	c->z = malloc(ZSTD_compressBound(CHUNK_RAW_MAX));
	c->raw = malloc(CHUNK_RAW_MAX);
	if (!c->dctx || !c->z || !c->raw) {
		alloclab_trace_cursor_free(c);
		return NULL;
	}
	return c;
}

uint64_t alloclab_trace_cursor_resident(const struct alloclab_trace_cursor *c)
{
	return alloclab_resident_bytes(c->z, ZSTD_compressBound(CHUNK_RAW_MAX)) + alloclab_resident_bytes(c->raw, CHUNK_RAW_MAX);
}

void alloclab_trace_cursor_free(struct alloclab_trace_cursor *c)
{
	if (c == NULL)
		return;
	ZSTD_freeDCtx(c->dctx);
	free(c->z);
	free(c->raw);
	free(c);
}

void alloclab_trace_cursor_rewind(struct alloclab_trace_cursor *c) { c->next = 0; }
uint64_t alloclab_trace_cursor_chunk_offset(const struct alloclab_trace_cursor *c) { return c->offset; }
uint64_t alloclab_trace_cursor_first_event(const struct alloclab_trace_cursor *c) { return c->first; }

/* Decodes one unsigned LEB128 varint of at most 64 bits; NULL when it
 * runs past end or is longer. Most of a trace's numbers (slots, small
 * sizes) take one or two bytes: those are decoded first, without the loop. */
static const unsigned char *get_varint_slow(const unsigned char *p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;
	for (unsigned shift = 0; shift < 64 && p < end; shift += 7) {
		unsigned char b = *p++;
		if (shift == 63 && b > 1)
			return NULL;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return p;
		}
	}
	return NULL;
}

static inline const unsigned char *get_varint(const unsigned char *p, const unsigned char *end, uint64_t *v)
{
	if (__builtin_expect(end - p >= 2, 1)) {
		if (!(p[0] & 0x80)) {
			*v = p[0];
			return p + 1;
		}
		if (!(p[1] & 0x80)) {
			*v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
			return p + 2;
		}
	}
	return get_varint_slow(p, end, v);
}

/* A release of an object in a slot its thread never allocates into (the
 * slots a thread has are those it allocates into): what it is, in words,
 * in buf. owner: another thread's object, or -1 the thread's own. */
static const char *never_allocated(char *buf, size_t len, unsigned op, int owner, uint64_t slot)
{
	char whose[48] = "the object";
	if (owner >= 0)
		snprintf(whose, sizeof whose, "thread %d's object", owner);
	snprintf(buf, len, "%s of %s in slot %" PRIu64 ", where %s never allocates: it releases an object the trace "
		 "never allocated", alloclab_trace_op_names[op], whose, slot, owner >= 0 ? "that thread" : "the thread");
	return buf;
}

/* Reads chunk ci of c's thread and decompresses it into c->raw: 0 with
 * its length in *got, or -1 with why in err. The frame's size is checked
 * against the chunk's header before zstd is trusted with it. */
static int read_chunk(struct alloclab_trace_cursor *c, const struct chunk_ix *ci, size_t *got, char *err,
		      size_t err_len)
{
	const struct alloclab_trace *t = c->t;

	if (pread_all(t->fd, c->z, ci->zlen, ci->offset + CHUNK_HEADER_LEN) != 0)
		return tfail(t->name, err, err_len, "byte %" PRIu64 ": cannot read chunk: %s", ci->offset,
			     errno ? strerror(errno) : "truncated");
	if (ZSTD_getFrameContentSize(c->z, ci->zlen) != ci->raw_len)
		return tfail(t->name, err, err_len, "byte %" PRIu64 ": corrupt chunk (frame size differs from its header)",
			     ci->offset);
	*got = ZSTD_decompressDCtx(c->dctx, c->raw, CHUNK_RAW_MAX, c->z, ci->zlen);
	if (ZSTD_isError(*got) || *got != ci->raw_len)
		return tfail(t->name, err, err_len, "byte %" PRIu64 ": corrupt chunk (zstd: %s)", ci->offset,
			     ZSTD_isError(*got) ? ZSTD_getErrorName(*got) : "short frame");
	return 0;
}

/* The sizes an event carries against what a trace may hold: NULL when
 * they are fine, else what is wrong. calloc's count times its size is
 * bounded without multiplying, which could overflow. */
static const char *bad_sizes(const struct alloclab_trace_event *e)
{
	if (e->size > ALLOCLAB_TRACE_MAX_SIZE ||
	    (e->op == ALLOCLAB_TRACE_CALLOC &&
	     (e->arg > ALLOCLAB_TRACE_MAX_SIZE || (e->size && e->arg > ALLOCLAB_TRACE_MAX_SIZE / e->size))))
		return "absurd size (over 1 TiB)";
	if (e->op == ALLOCLAB_TRACE_REALLOC && e->size == 0)
		return "realloc to 0 bytes (a free: record it as one)";
	if (e->op == ALLOCLAB_TRACE_ALIGNED &&
	    (e->arg < sizeof(void *) || e->arg > ALLOCLAB_TRACE_MAX_ALIGN || (e->arg & (e->arg - 1))))
		return "alignment not a power of two from 8 to 1 GiB";
	return NULL;
}

#define NEED(expr)                                                                                                 \
	do {                                                                                                       \
		if ((p = (expr)) == NULL)                                                                          \
			goto truncated;                                                                            \
	} while (0)

/* Decodes the event at p, of thread `thread` (rt) of t, into e: where the
 * next event begins, or NULL with what is wrong in *bad (why holds the
 * words when they need building). remote_ok: its chunk is flagged as
 * holding remote releases. Every slot and owner is checked here, as it is
 * read, so that replay can index by them unchecked. The thread and the
 * flag come as values, not through the cursor and the chunk's index: the
 * stores into e could alias those, and reloading them costs every event. */
static inline const unsigned char *decode_event(const struct alloclab_trace *t, const struct rthread *rt,
						unsigned thread, int remote_ok, const unsigned char *p,
						const unsigned char *end, struct alloclab_trace_event *e, const char **bad,
						char *why, size_t why_len)
{
	uint64_t v;

	if (p >= end)
		goto truncated;
	e->op = *p & 7u;
	e->remote = (*p & REMOTE_BIT) != 0;
	if (*p++ & 0xf0u || e->op >= ALLOCLAB_TRACE_NOPS || (e->remote && !alloclab_trace_op_releases(e->op))) {
		*bad = "unknown op";
		return NULL;
	}
	if (e->remote && !remote_ok) {
		*bad = "a release of another thread's object in a chunk not flagged as having one";
		return NULL;
	}
	e->arg = 0;
	e->slot = e->old_slot = 0;
	e->old_owner = thread;
	e->size = 0;
	if (e->op == ALLOCLAB_TRACE_CALLOC || e->op == ALLOCLAB_TRACE_ALIGNED)
		NEED(get_varint(p, end, &e->arg));
	if (alloclab_trace_op_releases(e->op)) {
		if (e->remote) {
			NEED(get_varint(p, end, &v));
			if (v >= t->nthreads || v == thread) {
				*bad = "remote object's owner out of range";
				return NULL;
			}
			e->old_owner = (uint16_t)v;
			NEED(get_varint(p, end, &v));
			if (v >= t->threads[e->old_owner].slots) {
				*bad = never_allocated(why, why_len, e->op, (int)e->old_owner, v);
				return NULL;
			}
			e->old_slot = (uint32_t)v;
			NEED(get_varint(p, end, &e->arg));
		} else {
			NEED(get_varint(p, end, &v));
			if (v >= rt->slots) {
				*bad = never_allocated(why, why_len, e->op, -1, v);
				return NULL;
			}
			e->old_slot = (uint32_t)v;
		}
	}
	if (e->op != ALLOCLAB_TRACE_FREE)
		NEED(get_varint(p, end, &e->size));
	if (alloclab_trace_op_allocates(e->op)) {
		NEED(get_varint(p, end, &v));
		if (v >= rt->slots) {
			*bad = "new object's slot out of range";
			return NULL;
		}
		e->slot = (uint32_t)v;
	}
	if ((*bad = bad_sizes(e)) != NULL)
		return NULL;
	return p;
truncated:
	*bad = "event truncated";
	return NULL;
}

int alloclab_trace_next_chunk(struct alloclab_trace_cursor *c, struct alloclab_trace_event *out, size_t *n,
			      char *err, size_t err_len)
{
	const struct alloclab_trace *t = c->t;
	const struct rthread *rt = &t->threads[c->thread];
	const struct chunk_ix *ci;
	const unsigned char *p, *end;
	size_t got = 0;

	if (c->next >= rt->nchunks)
		return 0;
	ci = &rt->chunks[c->next++];
	c->offset = ci->offset;
	c->first = ci->first;
	if (read_chunk(c, ci, &got, err, err_len) != 0)
		return -1;
	p = c->raw;
	end = c->raw + got;
	const unsigned thread = c->thread;
	const int remote_ok = (ci->flags & CHUNK_REMOTE) != 0;
	for (uint32_t i = 0; i < ci->events; i++) {
		const char *bad = NULL;
		char why[200];

		if ((p = decode_event(t, rt, thread, remote_ok, p, end, &out[i], &bad, why, sizeof why)) == NULL)
			return tfail(t->name, err, err_len, "thread %u, event %" PRIu64 " (chunk at byte %" PRIu64 "): %s",
				     c->thread, ci->first + i, ci->offset, bad);
		ALLOCLAB_CHECK_INVARIANT(event_valid(t, c->thread, &out[i]));
	}
	if (p != end)
		return tfail(t->name, err, err_len, "byte %" PRIu64 ": corrupt chunk (bytes after its last event)",
			     ci->offset);
	ALLOCLAB_CHECK_INVARIANT(cursor_valid(c));
	*n = ci->events;
	return 1;
}

/* ---- meaning ---- */

#define LIVE 0x80000000u

/* Each thread's declared slot count against its events: one more than the
 * highest slot it allocates into, and no more than its allocations (every
 * slot is allocated at least once). A pass that decodes but keeps nothing,
 * so a trace that lies costs no memory. */
static int check_declared_slots(struct alloclab_trace *t, struct alloclab_trace_event *ev, char *err, size_t err_len)
{
	for (unsigned th = 0; th < t->nthreads; th++) {
		struct alloclab_trace_cursor *c = alloclab_trace_cursor_new(t, th);
		uint64_t allocations = 0, used = 0;
		size_t n;
		int got;

		if (c == NULL)
			return tfail(t->name, err, err_len, "out of memory validating");
		while ((got = alloclab_trace_next_chunk(c, ev, &n, err, err_len)) == 1)
			for (size_t k = 0; k < n; k++)
				if (alloclab_trace_op_allocates(ev[k].op)) {
					allocations++;
					if ((uint64_t)ev[k].slot + 1 > used)
						used = (uint64_t)ev[k].slot + 1;
				}
		alloclab_trace_cursor_free(c);
		if (got < 0)
			return -1;
		if (used != t->threads[th].slots || t->threads[th].slots > allocations)
			return tfail(t->name, err, err_len,
				     "end record: thread %u declares %" PRIu32 " slots, but its %" PRIu64
				     " allocations use %" PRIu64,
				     th, t->threads[th].slots, allocations, used);
	}
	return 0;
}

/* What validation follows of each thread's object slots, a table per
 * thread indexed by slot. */
struct slot_tables {
	uint32_t **state;  /* LIVE | allocations so far */
	uint32_t **remote; /* remote releases not yet matched */
	uint64_t **maxgen; /* highest generation referenced + 1 */
	struct alloclab_trace_summary counted;
};

/* Pass 0 on one event: a release by another thread of thread
 * e->old_owner's slot, counted against that slot. NULL, or what is wrong. */
static const char *count_remote_release(struct slot_tables *v, const struct alloclab_trace_event *e)
{
	const char *bad = NULL;

	if (e->remote) {
		if (v->remote[e->old_owner][e->old_slot] == UINT32_MAX)
			bad = "too many releases of one slot";
		else
			v->remote[e->old_owner][e->old_slot]++;
		if (e->arg + 1 > v->maxgen[e->old_owner][e->old_slot])
			v->maxgen[e->old_owner][e->old_slot] = e->arg + 1;
	}
	return bad;
}

/* Pass 1 on one event of thread th: counted, and its own slots followed
 * through their releases and allocations. NULL, or what is wrong. */
static const char *follow_own_slots(struct slot_tables *v, unsigned th, const struct alloclab_trace_event *e)
{
	const char *bad = NULL;

	v->counted.ops[e->op]++;
	v->counted.remote += e->remote;
	if (alloclab_trace_op_releases(e->op) && !e->remote) {
		uint32_t *s = &v->state[th][e->old_slot];
		if (!(*s & LIVE))
			bad = (*s & ~LIVE) == 0 ? "free of an object never allocated (its slot is allocated into only "
						  "later): it releases an object the trace had not allocated"
						: "double free (the object was freed before)";
		*s &= ~LIVE;
	}
	if (!bad && alloclab_trace_op_allocates(e->op)) {
		uint32_t *s = &v->state[th][e->slot];
		if (*s & LIVE) {
			/* Released by another thread meanwhile, or reused while live. */
			if (v->remote[th][e->slot] == 0)
				bad = "allocation into a slot whose object is live and that no other thread frees";
			else
				v->remote[th][e->slot]--;
		}
		if (!bad && (*s & ~LIVE) == LIVE - 1)
			bad = "too many allocations in one slot";
		*s = LIVE | ((*s & ~LIVE) + 1);
	}
	return bad;
}

/* One pass (see alloclab_trace_validate) over one thread's events. */
static int validate_thread(struct alloclab_trace *t, struct slot_tables *v, int pass, unsigned th,
			   struct alloclab_trace_event *ev, char *err, size_t err_len)
{
	struct alloclab_trace_cursor *c = alloclab_trace_cursor_new(t, th);
	const struct rthread *tt = &t->threads[th];
	size_t n;
	int got;

	if (c == NULL)
		return tfail(t->name, err, err_len, "out of memory validating");
	for (;;) {
		if (pass == 0)
			while (c->next < tt->nchunks && !(tt->chunks[c->next].flags & CHUNK_REMOTE))
				c->next++;
		if ((got = alloclab_trace_next_chunk(c, ev, &n, err, err_len)) != 1)
			break;
		for (size_t k = 0; k < n; k++) {
			const char *bad = pass == 0 ? count_remote_release(v, &ev[k]) : follow_own_slots(v, th, &ev[k]);
			if (bad) {
				tfail(t->name, err, err_len,
				      "thread %u, event %" PRIu64 " (chunk at byte %" PRIu64 "): %s", th,
				      alloclab_trace_cursor_first_event(c) + k, alloclab_trace_cursor_chunk_offset(c), bad);
				alloclab_trace_cursor_free(c);
				return -1;
			}
		}
	}
	alloclab_trace_cursor_free(c);
	return got < 0 ? -1 : 0;
}

/*
 * Which event a wrong remote release is. Validation counts each object
 * slot's releases by other threads and learns only at the end that a
 * slot's count does not add up: the count cannot say which event is to
 * blame, and a message naming the slot alone leaves the reader of a trace
 * of millions of events nothing to look at. The event is found again by
 * reading the trace once more, only once validation has failed: a trace
 * that passes pays nothing.
 */
/* Where a release is: its thread, its index in the thread (from 0, as the
 * reader's other messages count), the byte its chunk starts at; the
 * generation of the object it releases, and whether another thread's. */
struct release_at {
	unsigned thread;
	uint64_t event, chunk_offset, generation;
	int remote;
};

/* The releases of the one slot searched, with where each is. */
struct releases {
	struct release_at *at;
	size_t n, cap;
};

static int add_release(struct releases *r, const struct release_at *at)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct release_at *grown = realloc(r->at, cap * sizeof *grown);
		if (grown == NULL)
			return -1;
		r->at = grown;
		r->cap = cap;
	}
	r->at[r->n++] = *at;
	return 0;
}

/* One thread's releases of owner's slot into r. The owner's own frees
 * carry no generation: it is the count of the owner's allocations into
 * the slot so far, less one (validation has checked that one was live). */
static int collect_thread(struct alloclab_trace *t, unsigned th, unsigned owner, uint32_t slot,
			  struct alloclab_trace_event *ev, struct releases *r, char *err, size_t err_len)
{
	struct alloclab_trace_cursor *c = alloclab_trace_cursor_new(t, th);
	uint64_t allocations = 0;
	size_t n;
	int got;

	if (c == NULL) {
		snprintf(err, err_len, "trace '%s': out of memory validating", alloclab_trace_name(t));
		return -1;
	}
	while ((got = alloclab_trace_next_chunk(c, ev, &n, err, err_len)) == 1)
		for (size_t k = 0; k < n; k++) {
			const struct alloclab_trace_event *e = &ev[k];
			struct release_at at = {th, alloclab_trace_cursor_first_event(c) + k,
							     alloclab_trace_cursor_chunk_offset(c), 0, e->remote};
			int ours = alloclab_trace_op_releases(e->op) && e->old_owner == owner && e->old_slot == slot;

			if (ours && e->remote)
				at.generation = e->arg;
			else if (ours && allocations > 0)
				at.generation = allocations - 1;
			if (ours && add_release(r, &at) != 0) {
				got = -1;
				snprintf(err, err_len, "trace '%s': out of memory validating", alloclab_trace_name(t));
				break;
			}
			if (th == owner && alloclab_trace_op_allocates(e->op) && e->slot == slot)
				allocations++;
		}
	alloclab_trace_cursor_free(c);
	return got < 0 ? -1 : 0;
}

/* By generation; of one generation the owner's own release first, then
 * by thread and event, so that the second of a pair is a remote one. */
static int by_generation(const void *a, const void *b)
{
	const struct release_at *x = a, *y = b;

	if (x->generation != y->generation)
		return x->generation < y->generation ? -1 : 1;
	if (x->remote != y->remote)
		return x->remote < y->remote ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->event < y->event ? -1 : x->event > y->event;
}

/* The release to blame among r's, as find_bad_release says; NULL when r
 * holds no remote release. Sorts r. */
static const struct release_at *blame_release(struct releases *r, uint64_t allocated)
{
	const struct release_at *last_remote = NULL;

	for (size_t i = 0; i < r->n; i++)
		if (r->at[i].remote) {
			if (r->at[i].generation >= allocated)
				return &r->at[i];
			last_remote = &r->at[i];
		}
	if (last_remote == NULL)
		return NULL;
	struct release_at keep = *last_remote;
	qsort(r->at, r->n, sizeof *r->at, by_generation);
	for (size_t i = 1; i < r->n; i++)
		if (r->at[i].generation == r->at[i - 1].generation && r->at[i].remote)
			return &r->at[i];
	for (size_t i = 0; i < r->n; i++)
		if (r->at[i].thread == keep.thread && r->at[i].event == keep.event)
			return &r->at[i];
	return NULL;
}

/* Thread owner's object in `slot`, of which the owner made `allocated`
 * allocations, is released by other threads wrongly. Finds the release to
 * blame: the first that names a generation never allocated, else the
 * second release of a generation released twice (the owner's own frees
 * included), else the last remote release of the slot. 1 with *at, 0 when
 * there is no remote release of the slot at all, -1 with err. */
static int find_bad_release(struct alloclab_trace *t, unsigned owner, uint32_t slot, uint64_t allocated,
			    struct alloclab_trace_event *ev, struct release_at *at, char *err, size_t err_len)
{
	struct releases r = {NULL, 0, 0};
	const struct release_at *found;
	int rc = -1;

	for (unsigned th = 0; th < alloclab_trace_threads(t); th++)
		if (collect_thread(t, th, owner, slot, ev, &r, err, err_len) != 0)
			goto out;
	found = blame_release(&r, allocated);
	rc = found != NULL;
	if (found)
		*at = *found;
out:
	free(r.at);
	return rc;
}

/* Every remote reference names a generation its owner allocated, and the
 * slots live at the end account for the remote releases left. A slot that
 * does not add up is told by the release to blame, found by reading the
 * trace again (find_bad_release): its thread, its event and its chunk's byte. */
static int check_remote_references(struct alloclab_trace *t, const struct slot_tables *v,
				   struct alloclab_trace_event *ev, char *err, size_t err_len)
{
	for (unsigned th = 0; th < t->nthreads; th++)
		for (uint32_t s = 0; s < t->threads[th].slots; s++) {
			uint32_t allocated = v->state[th][s] & ~LIVE;
			if (v->maxgen[th][s] <= allocated && v->remote[th][s] <= ((v->state[th][s] & LIVE) ? 1u : 0u))
				continue;
			const char *why = v->maxgen[th][s] > allocated
						  ? "before (or without) its allocation"
						  : "more often than it is allocated (a double free)";
			struct release_at at;
			int found = find_bad_release(t, th, s, allocated, ev, &at, err, err_len);
			if (found < 0)
				return -1;
			if (found == 0)
				return tfail(t->name, err, err_len,
					     "thread %u's object in slot %" PRIu32 " is freed by another thread %s", th, s,
					     why);
			return tfail(t->name, err, err_len,
				     "thread %u, event %" PRIu64 " (chunk at byte %" PRIu64 "): free of thread %u's object "
				     "in slot %" PRIu32 ", generation %" PRIu64 ", by another thread %s",
				     at.thread, at.event, at.chunk_offset, th, s, at.generation, why);
		}
	return 0;
}

/* Walks every thread's events: pass 0 counts the remote releases of each
 * object slot, decoding only the chunks flagged as having some (the
 * decoder refuses a remote release anywhere else); pass 1 decodes
 * everything, follows each thread's own slots (a slot it finds live when it
 * allocates must have been released by another thread) and checks that
 * remote references name generations their owner allocated. */
int alloclab_trace_validate(struct alloclab_trace *t, struct alloclab_trace_summary *sum, char *err,
			    size_t err_len)
{
	struct slot_tables v = {.counted = {{0}, 0}};
	struct alloclab_trace_event *ev;
	int rc = -1;

	v.state = calloc(t->nthreads, sizeof *v.state);
	v.remote = calloc(t->nthreads, sizeof *v.remote);
	v.maxgen = calloc(t->nthreads, sizeof *v.maxgen);
	ev = malloc(ALLOCLAB_TRACE_CHUNK_EVENTS * sizeof *ev);
	if (!v.state || !v.remote || !v.maxgen || !ev) {
		tfail(t->name, err, err_len, "out of memory validating");
		goto out;
	}
	/* The slot counts the end record declares size the tables below: they
	 * are believed only once the events bear them out. */
	if (check_declared_slots(t, ev, err, err_len) != 0)
		goto out;
	for (unsigned i = 0; i < t->nthreads; i++) {
		size_t n = t->threads[i].slots ? t->threads[i].slots : 1;
		v.state[i] = calloc(n, sizeof **v.state);
		v.remote[i] = calloc(n, sizeof **v.remote);
		v.maxgen[i] = calloc(n, sizeof **v.maxgen);
		if (!v.state[i] || !v.remote[i] || !v.maxgen[i]) {
			tfail(t->name, err, err_len, "out of memory validating");
			goto out;
		}
	}
	for (int pass = 0; pass < 2; pass++)
		for (unsigned th = 0; th < t->nthreads; th++)
			if (validate_thread(t, &v, pass, th, ev, err, err_len) != 0)
				goto out;
	if (check_remote_references(t, &v, ev, err, err_len) != 0)
		goto out;
	if (sum)
		*sum = v.counted;
	rc = 0;
out:
	for (unsigned i = 0; v.state && v.remote && v.maxgen && i < t->nthreads; i++) {
		free(v.state[i]);
		free(v.remote[i]);
		free(v.maxgen[i]);
	}
	free(v.state);
	free(v.remote);
	free(v.maxgen);
	free(ev);
	return rc;
}
