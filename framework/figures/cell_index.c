/* Cells found by what they are. See cell_index.h. */
#include "figures/cell_index.h"

#include "base/hash.h"

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

char *alloclab_cell_row_key(const struct alloclab_cell *c, int with_plugin)
{
	/* One JSON array: its strings escaped, no text can end one field and
	 * start the next. */
	json_t *key = with_plugin ? json_pack("[s,O,i,s,b]", c->workload, c->params, (int)c->threads,
					      c->plugin ? c->plugin : "", c->cache_aligned)
				  : json_pack("[s,O,i]", c->workload, c->params, (int)c->threads);
	char *text = key ? json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(key);
	return text;
}

struct slot {
	char *text; /* NULL: empty */
	uint64_t hash;
	long value;
};

struct alloclab_text_index {
	struct slot *slots;
	size_t cap, count; /* cap a power of two, at least twice count */
};

static uint64_t seed;
static pthread_once_t seeded = PTHREAD_ONCE_INIT;

static void make_seed(void)
{
	if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed)
		seed = (uint64_t)time(NULL) * ALLOCLAB_GOLDEN_GAMMA ^ (uint64_t)(uintptr_t)&seed;
}

/* FNV-1a from a random start, then SplitMix64's finish, so that every bit
 * of the text moves the low bits a slot is picked by. */
static uint64_t hash_of(const char *text)
{
	pthread_once(&seeded, make_seed);
	uint64_t h = alloclab_fnv1a(ALLOCLAB_FNV_OFFSET ^ seed, text, strlen(text));
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

struct alloclab_text_index *alloclab_text_index_new(void)
{
	struct alloclab_text_index *x = calloc(1, sizeof *x);
	if (x == NULL)
		return NULL;
	x->cap = 64;
	x->slots = calloc(x->cap, sizeof *x->slots);
	if (x->slots == NULL) {
		free(x);
		return NULL;
	}
	return x;
}

void alloclab_text_index_free(struct alloclab_text_index *x)
{
	if (x == NULL)
		return;
	for (size_t i = 0; i < x->cap; i++)
		free(x->slots[i].text);
	free(x->slots);
	free(x);
}

/* The slot holding text, or the empty one where it would go. */
static struct slot *find(const struct alloclab_text_index *x, const char *text, uint64_t h)
{
	for (size_t i = h & (x->cap - 1);; i = (i + 1) & (x->cap - 1)) {
		struct slot *s = &x->slots[i];
		if (s->text == NULL || (s->hash == h && strcmp(s->text, text) == 0))
			return s;
	}
}

static int grow(struct alloclab_text_index *x)
{
	struct alloclab_text_index bigger = {.cap = x->cap * 2, .count = x->count};
	bigger.slots = calloc(bigger.cap, sizeof *bigger.slots);
	if (bigger.slots == NULL)
		return -1;
	for (size_t i = 0; i < x->cap; i++)
		if (x->slots[i].text)
			*find(&bigger, x->slots[i].text, x->slots[i].hash) = x->slots[i];
	free(x->slots);
	*x = bigger;
	return 0;
}

long alloclab_text_index_get(const struct alloclab_text_index *x, const char *text)
{
	const struct slot *s = find(x, text, hash_of(text));
	return s->text ? s->value : -1;
}

long alloclab_text_index_put(struct alloclab_text_index *x, const char *text, long value)
{
	uint64_t h = hash_of(text);
	struct slot *s = find(x, text, h);
	if (s->text)
		return s->value;
	if (2 * (x->count + 1) > x->cap) {
		if (grow(x) != 0)
			return -1;
		s = find(x, text, h);
	}
	if ((s->text = strdup(text)) == NULL)
		return -1;
	s->hash = h;
	s->value = value;
	x->count++;
	return value;
}

size_t alloclab_text_index_count(const struct alloclab_text_index *x)
{
	return x->count;
}

int alloclab_text_groups_make(const char *const *texts, size_t count, struct alloclab_text_groups *g)
{
	struct alloclab_text_index *x = alloclab_text_index_new();
	*g = (struct alloclab_text_groups){0};
	g->group = calloc(count + 1, sizeof *g->group);
	g->member = calloc(count + 1, sizeof *g->member);
	int ok = x && g->group && g->member;
	for (size_t i = 0; ok && i < count; i++) {
		long k = alloclab_text_index_put(x, texts[i], (long)alloclab_text_index_count(x));
		ok = k >= 0;
		g->group[i] = ok ? (size_t)k : 0;
	}
	g->n = x ? alloclab_text_index_count(x) : 0;
	alloclab_text_index_free(x);
	g->start = ok ? calloc(g->n + 2, sizeof *g->start) : NULL;
	if (g->start == NULL) {
		alloclab_text_groups_free(g);
		return -1;
	}
	/* Counted, then placed: each group's members in the texts' order. */
	for (size_t i = 0; i < count; i++)
		g->start[g->group[i] + 2]++;
	for (size_t k = 2; k < g->n + 2; k++)
		g->start[k] += g->start[k - 1];
	for (size_t i = 0; i < count; i++)
		g->member[g->start[g->group[i] + 1]++] = i;
	return 0;
}

void alloclab_text_groups_free(struct alloclab_text_groups *g)
{
	free(g->group);
	free(g->start);
	free(g->member);
	*g = (struct alloclab_text_groups){0};
}
