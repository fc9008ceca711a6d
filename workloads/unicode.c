/*
 * unicode: the 2008 Unicode/Bytes allocation benchmark posted to python-dev
 * (docs/background/string-layouts.md), for any plugin, across CPython's string
 * layouts, in threads.
 *
 * A round allocates N words as string objects of the chosen layout, writes
 * their characters, then frees them all; `reps` times (the benchmark's printed
 * seconds are 100 repetitions: seconds / (words x us-per-object) = 100 in
 * every line it printed; the default here is 1, `reps=100` gives its scale).
 * Each line of the report (variant x N x Unicode/Bytes) runs `rounds`
 * rounds and reports the best. One cell runs every line of its layout, as
 * the benchmark's program did, so the headline ns/op covers all of them.
 *
 * After the timed rounds, an untimed pass allocates each line's words once
 * more and records where every block falls on cache lines: the sizes
 * requested, the share of blocks straddling a line, and, with several
 * threads (which hold their blocks live at the same time, between two
 * barriers), the share of lines holding blocks of two threads.
 *
 * The free list of 2.x/3.1 unicode objects (layouts py26-* and py31-*, on
 * by default for them, freelist=0 turns it off): up to 1024 freed objects
 * are kept, and buffers of fewer than 9 characters stay attached and are
 * reused, grown with realloc, never shrunk.
 */
#include "measure/placement.h"
#include "base/rng.h"
#include "helpers/string_layouts.h"
#include "helpers/unicode_report.h"
#include "helpers/words.h"
#include "workload/workload.h"
#include "worker/worker.h"
#include "base/clock.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P_LAYOUT, P_CHARSET, P_WORDS, P_VARIANT, P_ROUNDS, P_REPS, P_FREELIST, P_TEXT, P_SEED };
enum { V_2, V_9, V_16, V_32, V_TEXT, NVARIANTS, V_ALL = NVARIANTS };

static const char *const variant_names[] = {"2chars", "9chars", "16chars", "32chars", "text", "all", NULL};
static const unsigned variant_chars[] = {2, 9, 16, 32, 0};
static const unsigned default_words[] = {1024, 2048, 4096};

#define FREELIST_MAX 1024   /* PyUnicode_MAXFREELIST */
#define KEEPALIVE_LIMIT 9   /* KEEPALIVE_SIZE_LIMIT */
#define MAX_LINES (3 * NVARIANTS * 2)

/* freelist: the era's behaviour by default (on for the layouts of CPython
 * 2.x and 3.1, which had the free list; off for the others), or as said. */
enum { FREELIST_AUTO, FREELIST_OFF, FREELIST_ON };
static const char *const freelist_names[] = {"auto", "0", "1", NULL};
/* layout=2008: the layouts of the 2008 benchmark's two UCS2 builds. */
static const char *const layout_groups[] = {"2008", "py26-ucs2+py31-ucs2", NULL};

static const struct alloclab_param unicode_params[] = {
	[P_LAYOUT] = {.name = "layout", .help = "CPython string layout (2008: py26-ucs2 and py31-ucs2, the benchmark's builds)",
		      .def = STR_PY312, .max = STR_NLAYOUTS - 1, .type = ALLOCLAB_PARAM_CHOICE, .choices = str_layout_names,
		      .groups = layout_groups},
	[P_CHARSET] = {.name = "charset", .help = "characters, for py33/py312's kinds", .def = STR_ASCII, .max = 3,
		       .type = ALLOCLAB_PARAM_CHOICE, .choices = str_charset_names},
	[P_WORDS] = {.name = "words", .help = "words per round; 0 = 1024, 2048 and 4096, as the benchmark did",
		     .max = 1 << 20},
	[P_VARIANT] = {.name = "variant", .help = "word lengths, or words of the text", .def = V_ALL, .max = V_ALL,
		       .type = ALLOCLAB_PARAM_CHOICE, .choices = variant_names},
	[P_ROUNDS] = {.name = "rounds", .help = "rounds per line; the best is reported", .def = 50, .min = 1,
		      .max = 100000},
	[P_REPS] = {.name = "reps", .help = "allocate-write-free passes per round (the benchmark: 100)", .def = 1,
		    .min = 1, .max = 100000},
	[P_FREELIST] = {.name = "freelist",
			.help = "the 2.x/3.1 unicode free list: auto (on for py26/py31 layouts, as they had it), 0 or 1",
			.def = FREELIST_AUTO, .max = FREELIST_ON, .type = ALLOCLAB_PARAM_CHOICE, .choices = freelist_names},
	[P_TEXT] = {.name = "text", .help = "text file the text variant takes its words from",
		    .type = ALLOCLAB_PARAM_TEXT, .def_text = "/usr/share/common-licenses/GPL-3",
		    .role = ALLOCLAB_ROLE_WORDS_FILE},
	[P_SEED] = {.name = "seed", .help = "random seed (letters, text offset)", .def = 1, .max = INT64_MAX,
		    .role = ALLOCLAB_ROLE_SEED},
};

/* ---- the allocations of one string ---- */

struct string_obj {
	unsigned char *object;
	unsigned char *buffer;
	size_t length;        /* characters of the current string */
	size_t buffer_chars;  /* characters the buffer was allocated for (+1 for the NUL) */
};

/* The words of one variant and count: made in prepare (untimed), shared
 * by that variant's Unicode and Bytes lines. */
struct word_set {
	unsigned variant, count;
	char **words;               /* point into storage or into the text */
	size_t *lens;
	char *storage;              /* fixed-length words' characters */
};

/* Block sizes by word length, worked out in prepare so the timed loop
 * only looks them up (words longer than this are worked out as they come). */
#define SIZED_LENGTHS 64

struct line {
	unsigned variant, words, kind; /* kind 0: Unicode, 1: Bytes */
	uint64_t *rounds_ns;
	const struct word_set *set;
	struct str_blocks by_len[SIZED_LENGTHS + 1];
	/* Lines whose strings are one block with one-byte characters (PEP 393
	 * ASCII and Latin-1 strings; Bytes on every layout but the UCS2/UCS4
	 * builds' scaled ones) run the specialised loop: each word's block
	 * size, and where the characters start (the same for every length). */
	size_t *narrow_sizes; /* NULL: the general loop */
	size_t narrow_offset;
	uint64_t narrow_bytes; /* the narrow loop's blocks, all live at the end of its first half */
	/* What the run holds (count_held, untimed): at most while this line's
	 * passes run, and once they are done (free-listed objects). */
	uint64_t most_held, held_after;
};

struct unicode_state {
	const struct alloclab_allocator *a;
	enum str_layout layout;
	enum str_charset charset;
	int freelist;
	struct word_list text;
	unsigned nlines;
	struct line lines[MAX_LINES];
	size_t maxwords;
	struct word_set sets[MAX_LINES];
	unsigned nsets;
	struct string_obj *objs;
	unsigned char **blocks;     /* the specialised loop's live blocks */
	struct string_obj free_list[FREELIST_MAX];
	unsigned nfree;
	/* Requested bytes held (free-listed objects too: the program keeps
	 * them), counted only by a dry copy of the state (count_held). */
	uint64_t held;
	int ran;                    /* run() started: the placement pass follows */
	uintptr_t *addr;            /* placement pass: every block of a line */
	size_t *size;
	size_t nblocks;
};

static inline void write_chars(unsigned char *dst, const char *word, size_t n, unsigned width)
{
	/* Characters of `width` bytes (widened as a decoder would, in a loop
	 * the compiler vectorises), then a terminating NUL character. */
	if (width == 1) {
		memcpy(dst, word, n);
		dst[n] = 0;
	} else if (width == 2) {
		uint16_t *d = (uint16_t *)(void *)dst;
		for (size_t i = 0; i < n; i++)
			d[i] = (unsigned char)word[i];
		d[n] = 0;
	} else {
		uint32_t *d = (uint32_t *)(void *)dst;
		for (size_t i = 0; i < n; i++)
			d[i] = (unsigned char)word[i];
		d[n] = 0;
	}
}

/* Initialises an object's header as CPython would: refcount, type, length. */
static inline void write_header(unsigned char *obj, size_t n)
{
	uint64_t one = 1, len = n;
	memcpy(obj, &one, 8);
	memcpy(obj + 16, &len, 8);
}

static void record(struct unicode_state *s, const void *p, size_t size)
{
	if (s->addr) {
		s->addr[s->nblocks] = (uintptr_t)p;
		s->size[s->nblocks++] = size;
	}
}

/* The blocks a string of n characters of the line's kind allocates. For
 * Bytes, width is the Unicode character width the payload is scaled by. */
static struct str_blocks blocks_of(const struct unicode_state *s, unsigned kind, size_t n)
{
	if (kind == 1) {
		unsigned w = str_char_width(s->layout, s->charset);
		struct str_blocks b = str_bytes_blocks(s->layout, n * w);
		b.width = w;
		return b;
	}
	return str_unicode_blocks(s->layout, s->charset, n);
}

/* A block that a dry pass pretends the allocator gave. */
#define DRY_BLOCK ((unsigned char *)16)

/* Allocates and fills one string. 0, or -1 when the allocator is out.
 * dry (a constant where inlined): nothing allocated or written, only the
 * bytes it would hold counted in s->held, in a copy of the state: the
 * same decisions as the run, so that what it holds is known without
 * counting in the timed loop. */
static inline __attribute__((always_inline)) int string_make(struct unicode_state *s, const struct line *l,
							      const char *word, size_t n, struct string_obj *o, int dry)
{
	const struct alloclab_allocator *a = s->a;
	const unsigned kind = l->kind;
	const struct str_blocks b = n <= SIZED_LENGTHS ? l->by_len[n] : blocks_of(s, kind, n);

	if (kind == 1) {
		unsigned w = b.width;
		o->object = dry ? DRY_BLOCK : alloclab_malloc(a, b.object);
		o->buffer = NULL;
		if (o->object == NULL)
			return -1;
		if (dry) {
			s->held += b.object;
			o->length = n;
			return 0;
		}
		record(s, o->object, b.object);
		write_header(o->object, n * w);
		/* The Bytes payload is the Unicode payload's bytes. */
		for (unsigned r = 0; r < w; r++)
			memcpy(o->object + b.data_offset + r * n, word, n);
		o->object[b.data_offset + n * w] = 0;
		return 0;
	}

	if (b.buffer == 0) { /* PEP 393 compact: one block */
		o->object = dry ? DRY_BLOCK : alloclab_malloc(a, b.object);
		o->buffer = NULL;
		if (o->object == NULL)
			return -1;
		if (dry) {
			s->held += b.object;
			o->length = n;
			return 0;
		}
		record(s, o->object, b.object);
		write_header(o->object, n);
		write_chars(o->object + b.data_offset, word, n, b.width);
		return 0;
	}
	/* Object plus a separate buffer (2.x, 3.0-3.2). */
	if (s->freelist && s->nfree > 0) {
		*o = s->free_list[--s->nfree];
		if (o->buffer != NULL && o->length < n) {
			/* A kept buffer is grown when the new string is longer
			 * than the old one, never shrunk. */
			unsigned char *grown = !a->ops.realloc ? NULL
					       : dry	       ? o->buffer
							       : a->ops.realloc(a->instance, o->buffer, b.buffer);
			if (dry)
				s->held -= blocks_of(s, 0, o->buffer_chars).buffer;
			if (grown == NULL) {
				if (!dry)
					alloclab_free(a, o->buffer);
				o->buffer = NULL;
			} else {
				o->buffer = grown;
				o->buffer_chars = n;
				if (dry)
					s->held += b.buffer;
			}
		}
	} else {
		o->object = dry ? DRY_BLOCK : alloclab_malloc(a, b.object);
		o->buffer = NULL;
		if (o->object == NULL)
			return -1;
		if (dry)
			s->held += b.object;
	}
	if (o->buffer == NULL) {
		o->buffer = dry ? DRY_BLOCK : alloclab_malloc(a, b.buffer);
		o->buffer_chars = n;
		if (o->buffer == NULL)
			return -1;
		if (dry)
			s->held += b.buffer;
	}
	o->length = n;
	if (dry)
		return 0;
	record(s, o->object, b.object);
	record(s, o->buffer, (o->buffer_chars + 1) * b.width);
	write_header(o->object, n);
	write_chars(o->buffer, word, n, b.width);
	return 0;
}

static inline __attribute__((always_inline)) void string_release(struct unicode_state *s, const struct line *l,
								  struct string_obj *o, int dry)
{
	if (o->buffer != NULL && o->object != NULL && s->freelist && s->nfree < FREELIST_MAX) {
		/* Keep-alive: short strings' buffers stay with the object. */
		if (o->length >= KEEPALIVE_LIMIT) {
			if (dry)
				s->held -= blocks_of(s, 0, o->buffer_chars).buffer;
			else
				alloclab_free(s->a, o->buffer);
			o->buffer = NULL;
		}
		s->free_list[s->nfree++] = *o;
		return;
	}
	if (dry) {
		s->held -= blocks_of(s, l->kind, o->length).object +
			   (o->buffer != NULL ? blocks_of(s, 0, o->buffer_chars).buffer : 0);
		return;
	}
	/* CPython frees a buffer only where there is one. */
	if (o->buffer != NULL)
		alloclab_free(s->a, o->buffer);
	alloclab_free(s->a, o->object);
}

static int string_new(struct unicode_state *s, const struct line *l, const char *word, size_t n, struct string_obj *o)
{
	return string_make(s, l, word, n, o, 0);
}

static void string_free(struct unicode_state *s, struct string_obj *o)
{
	string_release(s, NULL, o, 0); /* the line only counts in a dry pass */
}

/* What the run will hold, found before it (untimed): every line's passes
 * made dry, in the run's order, on a copy of the state from its empty free
 * list. A pass that leaves the free list as it found it leaves every later
 * pass of the line the same, so the count stops there. -1 out of memory. */
static int count_held(struct unicode_state *s, uint64_t passes)
{
	struct unicode_state *dry = malloc(sizeof *dry);
	struct string_obj *before = malloc(sizeof s->free_list), *objs = calloc(s->maxwords + 1, sizeof *objs);

	if (dry == NULL || before == NULL || objs == NULL) {
		free(dry), free(before), free(objs);
		return -1;
	}
	*dry = *s;
	dry->nfree = 0;
	dry->held = 0;
	dry->addr = NULL;
	for (unsigned li = 0; li < s->nlines; li++) {
		struct line *l = &s->lines[li];
		if (l->narrow_sizes) {
			l->most_held = dry->held + l->narrow_bytes;
			l->held_after = dry->held;
			continue;
		}
		l->most_held = dry->held;
		for (uint64_t p = 0; p < passes; p++) {
			unsigned nfree = dry->nfree;
			uint64_t held = dry->held;
			memcpy(before, dry->free_list, nfree * sizeof *before);
			for (size_t i = 0; i < l->words; i++)
				string_make(dry, l, l->set->words[i], l->set->lens[i], &objs[i], 1);
			l->most_held = dry->held > l->most_held ? dry->held : l->most_held;
			for (size_t i = 0; i < l->words; i++)
				string_release(dry, l, &objs[i], 1);
			if (dry->nfree == nfree && dry->held == held && memcmp(before, dry->free_list, nfree * sizeof *before) == 0)
				break;
		}
		l->held_after = dry->held;
	}
	free(dry);
	free(before);
	free(objs);
	return 0;
}

/* ---- the workload ---- */

static int unicode_check(const struct alloclab_params *p, char *err, size_t err_len)
{
	struct word_list text;

	if (p->v[P_FREELIST] == FREELIST_ON && !str_layout_has_freelist((enum str_layout)p->v[P_LAYOUT])) {
		snprintf(err, err_len, "workload 'unicode': freelist=1 needs a py26 or py31 layout (%s had none)",
			 str_layout_names[p->v[P_LAYOUT]]);
		return -1;
	}
	if (p->v[P_VARIANT] != V_TEXT && p->v[P_VARIANT] != V_ALL)
		return 0;
	if (unicode_read_text(p->text[P_TEXT], &text, err, err_len) != 0)
		return -1;
	unicode_free_words(&text);
	return 0;
}

/* The line's words, made once (shared with its twin of the other kind). */
static const struct word_set *words_for(struct unicode_state *s, const struct line *l, uint64_t seed)
{
	struct word_set *set;

	for (unsigned i = 0; i < s->nsets; i++)
		if (s->sets[i].variant == l->variant && s->sets[i].count == l->words)
			return &s->sets[i];
	set = &s->sets[s->nsets];
	set->variant = l->variant;
	set->count = l->words;
	set->words = calloc(l->words, sizeof *set->words);
	set->lens = calloc(l->words, sizeof *set->lens);
	set->storage = calloc(l->words, 33);
	if (!set->words || !set->lens || !set->storage) {
		free(set->words);
		free(set->lens);
		free(set->storage);
		return NULL;
	}
	for (size_t i = 0; i < l->words; i++)
		set->words[i] = set->storage + i * 33;
	unicode_make_words(l->variant == V_TEXT ? 0 : variant_chars[l->variant], l->words, seed, &s->text, set->words,
			   set->lens);
	s->nsets++;
	return set;
}

/* Gives a line the specialised loop when its strings are narrow (see
 * struct line) and the free list is off. 0, or -1 out of memory. */
static int narrow_line(struct unicode_state *s, struct line *l)
{
	const struct str_blocks b0 = l->by_len[0];

	if (s->freelist || b0.buffer != 0 || b0.width != 1)
		return 0;
	if ((l->narrow_sizes = calloc(l->words, sizeof *l->narrow_sizes)) == NULL)
		return -1;
	l->narrow_offset = b0.data_offset;
	for (size_t i = 0; i < l->words; i++) {
		struct str_blocks b = blocks_of(s, l->kind, l->set->lens[i]);
		assert(b.buffer == 0 && b.width == 1 && b.data_offset == b0.data_offset);
		l->narrow_sizes[i] = b.object;
		l->narrow_bytes += b.object;
	}
	return 0;
}

static int unicode_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	const struct alloclab_params *p = t->params;
	struct unicode_state *s = calloc(1, sizeof *s);
	unsigned nwords = p->v[P_WORDS] ? 1 : 3;

	if (s == NULL)
		goto oom;
	t->state = s;
	s->a = t->alloc;
	s->layout = (enum str_layout)p->v[P_LAYOUT];
	s->charset = (enum str_charset)p->v[P_CHARSET];
	s->freelist = p->v[P_FREELIST] == FREELIST_ON ||
		      (p->v[P_FREELIST] == FREELIST_AUTO && str_layout_has_freelist((enum str_layout)p->v[P_LAYOUT]));
	if ((p->v[P_VARIANT] == V_TEXT || p->v[P_VARIANT] == V_ALL) &&
	    unicode_read_text(p->text[P_TEXT], &s->text, err, err_len) != 0)
		return -1;
	for (unsigned wi = 0; wi < nwords; wi++) {
		unsigned words = p->v[P_WORDS] ? (unsigned)p->v[P_WORDS] : default_words[wi];
		for (unsigned v = 0; v < NVARIANTS; v++) {
			if (p->v[P_VARIANT] != V_ALL && p->v[P_VARIANT] != v)
				continue;
			for (unsigned kind = 0; kind < 2; kind++) {
				struct line *l = &s->lines[s->nlines++];
				l->variant = v;
				l->words = words;
				l->kind = kind;
				l->rounds_ns = calloc(p->v[P_ROUNDS], sizeof *l->rounds_ns);
				if (l->rounds_ns == NULL)
					goto oom;
			}
			if (words > s->maxwords)
				s->maxwords = words;
		}
	}
	/* Everything the timed loop reads is made here: each line's words and
	 * its block sizes by length. */
	for (unsigned li = 0; li < s->nlines; li++) {
		struct line *l = &s->lines[li];
		if ((l->set = words_for(s, l, t->seed)) == NULL)
			goto oom;
		for (size_t n = 0; n <= SIZED_LENGTHS; n++)
			l->by_len[n] = blocks_of(s, l->kind, n);
		if (narrow_line(s, l) != 0)
			goto oom;
	}
	s->objs = calloc(s->maxwords, sizeof *s->objs);
	s->blocks = calloc(s->maxwords, sizeof *s->blocks);
	if (!s->objs || !s->blocks || count_held(s, p->v[P_ROUNDS] * p->v[P_REPS]) != 0)
		goto oom;
	return 0;
oom:
	snprintf(err, err_len, "unicode: out of memory preparing the words");
	return -1;
}

/* One allocate-write-free pass of a narrow line: the general loop's work
 * for these strings (the same blocks, header and characters) with no
 * per-object decisions, calling the allocator's own entry points where the
 * plugin hands them out. Inlined twice (direct or through the ops), so the
 * choice is made once per pass. 0, or -1 when the allocator is out. */
static inline __attribute__((always_inline)) int narrow_pass(struct unicode_state *s, const struct line *l,
							      int direct)
{
	const struct alloclab_allocator *a = s->a;
	char *const *words = l->set->words;
	const size_t *lens = l->set->lens, *sizes = l->narrow_sizes, off = l->narrow_offset, nwords = l->words;
	unsigned char **blocks = s->blocks;

	for (size_t i = 0; i < nwords; i++) {
		unsigned char *o = direct ? a->direct_malloc(sizes[i]) : alloclab_malloc(a, sizes[i]);
		if (o == NULL) {
			while (i > 0)
				alloclab_free(a, blocks[--i]);
			return -1;
		}
		write_header(o, lens[i]);
		memcpy(o + off, words[i], lens[i]);
		o[off + lens[i]] = 0;
		blocks[i] = o;
	}
	for (size_t i = 0; i < nwords; i++)
		if (direct)
			a->direct_free(blocks[i]);
		else
			alloclab_free(a, blocks[i]);
	return 0;
}

/* One pass of any other line, object by object. */
static int general_pass(struct unicode_state *s, const struct line *l)
{
	for (size_t i = 0; i < l->words; i++)
		if (string_new(s, l, l->set->words[i], l->set->lens[i], &s->objs[i]) != 0) {
			while (i > 0)
				string_free(s, &s->objs[--i]);
			return -1;
		}
	for (size_t i = 0; i < l->words; i++)
		string_free(s, &s->objs[i]);
	return 0;
}

static void unicode_run(struct alloclab_workload_thread *t)
{
	struct unicode_state *s = t->state;
	const uint64_t rounds = t->params->v[P_ROUNDS], reps = t->params->v[P_REPS];
	uint64_t ops = 0;

	uint64_t most = 0;

	s->ran = 1;
	for (unsigned li = 0; li < s->nlines; li++) {
		struct line *l = &s->lines[li];
		const int direct = s->a->direct_malloc != NULL;
		/* What the line's passes hold at most, said once a line for the
		 * memory timeline (counted before the run: count_held). */
		alloclab_live_set(t, l->most_held, l->words);
		most = l->most_held > most ? l->most_held : most;
		for (uint64_t r = 0; r < rounds; r++) {
			uint64_t t0 = alloclab_now_ns();
			for (uint64_t rep = 0; rep < reps; rep++) {
				int rc = !l->narrow_sizes ? general_pass(s, l)
					 : direct	   ? narrow_pass(s, l, 1)
							   : narrow_pass(s, l, 0);
				if (rc != 0) {
					t->error = "unicode: the allocator returned NULL";
					t->ops = ops;
					return;
				}
			}
			l->rounds_ns[r] = alloclab_now_ns() - t0;
			ops += l->words * reps;
			/* Paired mode: between rounds, which the workload times
			 * itself (the 2008 benchmark's best round). */
			if (t->slicer)
				alloclab_slice_ops(t, (int64_t)(l->words * reps));
		}
	}
	t->ops = ops;
	const uint64_t left = s->nlines ? s->lines[s->nlines - 1].held_after : 0;
	alloclab_live_set(t, left, s->nfree);
	alloclab_live_end(t, left);
	alloclab_live_peak(t, most);
}

/* The placement pass of one line, once per process: allocate its words,
 * hand the blocks to the framework's placement service (which waits for
 * every thread to hold its own, so lines shared between threads are
 * live blocks of both), free. */
static json_t *placement(struct alloclab_workload_thread *t, struct unicode_state *s, const struct line *l)
{
	json_t *out;

	s->nblocks = 0;
	for (size_t i = 0; i < l->words; i++)
		if (string_new(s, l, l->set->words[i], l->set->lens[i], &s->objs[i]) != 0)
			break; /* cannot happen after the timed rounds succeeded */
	out = t->placement(t, s->addr, s->size, s->nblocks);
	for (size_t i = 0; i < l->words; i++)
		string_free(s, &s->objs[i]);
	return out;
}

static void unicode_finish(struct alloclab_workload_thread *t)
{
	struct unicode_state *s = t->state;
	json_t *lines = json_array(), *placements = NULL;

	if (s == NULL)
		return;
	/* Every thread takes part in every placement pass (each has the same
	 * lines), so the barriers inside match. A thread whose prepare failed
	 * never gets here; then no thread does (the worker stops them all). */
	s->addr = calloc(s->maxwords * 2, sizeof *s->addr);
	s->size = calloc(s->maxwords * 2, sizeof *s->size);
	for (unsigned li = 0; li < s->nlines; li++) {
		struct line *l = &s->lines[li];
		json_t *rounds = json_array(), *entry;
		uint64_t best = UINT64_MAX;
		for (uint64_t r = 0; r < t->params->v[P_ROUNDS]; r++) {
			json_array_append_new(rounds, json_integer((json_int_t)l->rounds_ns[r]));
			if (l->rounds_ns[r] < best)
				best = l->rounds_ns[r];
		}
		entry = json_pack("{s:s,s:i,s:s,s:I,s:o}", "variant", variant_names[l->variant], "words", l->words,
				  "kind", l->kind ? "bytes" : "unicode", "best_ns", (json_int_t)best, "rounds_ns", rounds);
		json_array_append_new(lines, entry);
		if (t->last_value && s->ran && s->addr && s->size) {
			if (placements == NULL)
				placements = json_array();
			json_array_append_new(placements,
					      json_pack("{s:s,s:i,s:s,s:o}", "variant", variant_names[l->variant], "words",
							l->words, "kind", l->kind ? "bytes" : "unicode", "placement",
							placement(t, s, l)));
		}
		free(l->rounds_ns);
		free(l->narrow_sizes);
	}
	/* Objects parked on the free list go back to the allocator. */
	while (s->nfree > 0) {
		struct string_obj *o = &s->free_list[--s->nfree];
		alloclab_free(s->a, o->buffer);
		alloclab_free(s->a, o->object);
	}
	alloclab_live_set(t, 0, 0);
	t->report = json_pack("{s:o,s:i}", "lines", lines, "reps", (int)t->params->v[P_REPS]);
	if (placements)
		t->process_report = json_pack("{s:o}", "lines", placements);
	free(s->addr);
	free(s->size);
	for (unsigned i = 0; i < s->nsets; i++) {
		free(s->sets[i].words);
		free(s->sets[i].lens);
		free(s->sets[i].storage);
	}
	free(s->objs);
	free(s->blocks);
	unicode_free_words(&s->text);
	free(s);
	t->state = NULL;
}

/* Defined in unicode_report.c: the benchmark's own lines, the placement
 * table and picture, and the check of what a results file says of them. */
struct alloclab_cell;
struct alloclab_figure_list;

const struct alloclab_workload alloclab_workload_unicode = {
	.name = "unicode",
	.description = "the 2008 Unicode/Bytes allocation benchmark (python-dev) across CPython string layouts",
	.unit_op = "string object allocated, written and freed",
	.params = unicode_params,
	.nparams = sizeof unicode_params / sizeof unicode_params[0],
	.flags = ALLOCLAB_WORKLOAD_SLICES,
	.check_params = unicode_check,
	.prepare = unicode_prepare,
	.run = unicode_run,
	.finish = unicode_finish,
	/* Each process runs every line's 50 rounds once (the report takes the
	 * best round, as the benchmark did) and gives one value, the mean over
	 * all rounds; the runner's processes make the cell comparable. */
	.default_values = 1,
	.default_warmups = 0,
	.check_report = alloclab_unicode_check_report,
	.print_cell = alloclab_unicode_print_cell,
	.figures = alloclab_unicode_figures,
};
