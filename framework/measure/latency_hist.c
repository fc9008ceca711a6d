/* Latency histograms and their JSON form. See latency_hist.h. */
#include "measure/latency_hist.h"
#include "base/invariant.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const alloclab_lat_op_names[ALLOCLAB_LAT_OPS] = {"malloc", "calloc", "realloc", "aligned_alloc", "free"};
const double alloclab_lat_quantiles[ALLOCLAB_LAT_NQUANTILES] = {0.5, 0.9, 0.99, 0.999, 0.9999, 1.0};
const char *const alloclab_lat_quantile_names[ALLOCLAB_LAT_NQUANTILES] = {"p50", "p90", "p99", "p999", "p9999", "max"};

uint64_t alloclab_lat_bucket_low(unsigned bucket)
{
	if (bucket < ALLOCLAB_LAT_EXACT)
		return bucket;
	unsigned k = bucket - ALLOCLAB_LAT_EXACT, octave = 7 + (k >> ALLOCLAB_LAT_SUB_BITS);
	uint64_t m = (1u << ALLOCLAB_LAT_SUB_BITS) + (k & ((1u << ALLOCLAB_LAT_SUB_BITS) - 1));
	return m << (octave - ALLOCLAB_LAT_SUB_BITS);
}

uint64_t alloclab_lat_bucket_width(unsigned bucket)
{
	if (bucket < ALLOCLAB_LAT_EXACT)
		return 1;
	unsigned octave = 7 + ((bucket - ALLOCLAB_LAT_EXACT) >> ALLOCLAB_LAT_SUB_BITS);
	return (uint64_t)1 << (octave - ALLOCLAB_LAT_SUB_BITS);
}

double alloclab_lat_quantile_named(const char *name)
{
	for (unsigned i = 0; i < ALLOCLAB_LAT_NQUANTILES; i++)
		if (strcmp(name, alloclab_lat_quantile_names[i]) == 0)
			return alloclab_lat_quantiles[i];
	return -1;
}

struct alloclab_latency *alloclab_latency_new(unsigned every, double overhead_ns)
{
	struct alloclab_latency *l = calloc(1, sizeof *l);
	if (l) {
		l->every = every;
		l->overhead_ns = overhead_ns;
	}
	return l;
}

void alloclab_lat_hist_clear(struct alloclab_lat_hist *h)
{
	free(h->index);
	free(h->counts);
	memset(h, 0, sizeof *h);
}

void alloclab_latency_free(struct alloclab_latency *l)
{
	if (l == NULL)
		return;
	for (unsigned i = 0; i < ALLOCLAB_LAT_OPS; i++)
		alloclab_lat_hist_clear(&l->op[i]);
	free(l);
}

/* dst += the sparse buckets (idx, cnt)[0..n). */
static void hist_add(struct alloclab_lat_hist *dst, const unsigned *idx, const uint64_t *cnt, unsigned n)
{
	unsigned *ni = malloc((dst->n + n + 1) * sizeof *ni);
	uint64_t *nc = malloc((dst->n + n + 1) * sizeof *nc);
	unsigned a = 0, b = 0, k = 0;

	while (a < dst->n || b < n) {
		if (b == n || (a < dst->n && dst->index[a] < idx[b])) {
			ni[k] = dst->index[a], nc[k++] = dst->counts[a++];
		} else if (a == dst->n || idx[b] < dst->index[a]) {
			ni[k] = idx[b], nc[k++] = cnt[b++];
		} else {
			ni[k] = idx[b], nc[k++] = dst->counts[a++] + cnt[b++];
		}
	}
	free(dst->index);
	free(dst->counts);
	dst->index = ni, dst->counts = nc, dst->n = k;
}

int alloclab_lat_hist_valid(const struct alloclab_lat_hist *h)
{
	uint64_t total = 0;
	if (h->n > ALLOCLAB_LAT_BUCKETS || h->over_100us > h->over_1us || h->over_1us > h->count)
		return 0;
	for (unsigned i = 0; i < h->n; i++) {
		if (h->index[i] >= ALLOCLAB_LAT_BUCKETS || (i > 0 && h->index[i] <= h->index[i - 1]) || h->counts[i] == 0)
			return 0;
		total += h->counts[i];
	}
	if (total != h->count)
		return 0;
	if (h->n == 0)
		return 1;
	unsigned last = h->index[h->n - 1];
	uint64_t lo = alloclab_lat_bucket_low(last);
	return h->max_units >= lo && (last == ALLOCLAB_LAT_BUCKETS - 1 || h->max_units < lo + alloclab_lat_bucket_width(last));
}

int alloclab_latency_valid(const struct alloclab_latency *l)
{
	for (unsigned i = 0; i < ALLOCLAB_LAT_OPS; i++)
		if (!alloclab_lat_hist_valid(&l->op[i]))
			return 0;
	if (l->nslow > ALLOCLAB_LAT_SLOWEST)
		return 0;
	for (unsigned i = 1; i < l->nslow; i++)
		if (l->slow[i].units > l->slow[i - 1].units)
			return 0;
	return 1;
}

static void hist_merge(struct alloclab_lat_hist *dst, const struct alloclab_lat_hist *src)
{
	ALLOCLAB_CHECK_INVARIANT(alloclab_lat_hist_valid(src));
	if (src->count == 0)
		return;
	hist_add(dst, src->index, src->counts, src->n);
	dst->count += src->count;
	dst->over_1us += src->over_1us;
	dst->over_100us += src->over_100us;
	dst->sum_ns += src->sum_ns;
	if (src->max_units > dst->max_units)
		dst->max_units = src->max_units;
	ALLOCLAB_CHECK_INVARIANT(alloclab_lat_hist_valid(dst));
}

void alloclab_latency_add_dense(struct alloclab_latency *l, unsigned op, const struct alloclab_lat_dense *d)
{
	struct alloclab_lat_hist h = {0};
	unsigned n = 0;

	for (unsigned i = 0; i < ALLOCLAB_LAT_BUCKETS; i++)
		n += d->b[i] != 0;
	if (n == 0)
		return;
	h.index = malloc(n * sizeof *h.index);
	h.counts = malloc(n * sizeof *h.counts);
	for (unsigned i = 0; i < ALLOCLAB_LAT_BUCKETS; i++)
		if (d->b[i]) {
			h.index[h.n] = i;
			h.counts[h.n++] = d->b[i];
			h.count += d->b[i];
		}
	/* A thread may still be recording while its counts are read (one
	 * the workload started and did not join): the buckets are the truth,
	 * the other fields are made to agree with them. */
	h.over_100us = d->over_100us < d->over_1us ? d->over_100us : d->over_1us;
	h.over_1us = d->over_1us < h.count ? d->over_1us : h.count;
	if (h.over_100us > h.over_1us)
		h.over_100us = h.over_1us;
	unsigned last = h.index[h.n - 1];
	uint64_t lo = alloclab_lat_bucket_low(last), hi = lo + alloclab_lat_bucket_width(last) - 1;
	h.max_units = d->max_units < lo ? lo : (last < ALLOCLAB_LAT_BUCKETS - 1 && d->max_units > hi) ? hi : d->max_units;
	h.sum_ns = (double)d->sum_units / ALLOCLAB_LAT_UNITS_PER_NS;
	hist_merge(&l->op[op], &h);
	alloclab_lat_hist_clear(&h);
}

void alloclab_latency_offer_slow(struct alloclab_latency *l, const struct alloclab_lat_slow *s)
{
	unsigned at = l->nslow;
	while (at > 0 && l->slow[at - 1].units < s->units)
		at--;
	if (at >= ALLOCLAB_LAT_SLOWEST)
		return;
	unsigned keep = l->nslow < ALLOCLAB_LAT_SLOWEST ? l->nslow : ALLOCLAB_LAT_SLOWEST - 1;
	memmove(&l->slow[at + 1], &l->slow[at], (keep - at) * sizeof *l->slow);
	l->slow[at] = *s;
	if (l->nslow < ALLOCLAB_LAT_SLOWEST)
		l->nslow++;
	ALLOCLAB_CHECK_INVARIANT(alloclab_latency_valid(l));
}

void alloclab_latency_merge(struct alloclab_latency *dst, const struct alloclab_latency *src)
{
	if (dst->every == 0)
		dst->every = src->every;
	if (dst->overhead_ns == 0)
		dst->overhead_ns = src->overhead_ns;
	if (dst->empty_mean_ns == 0)
		dst->empty_mean_ns = src->empty_mean_ns;
	for (unsigned i = 0; i < ALLOCLAB_LAT_OPS; i++)
		hist_merge(&dst->op[i], &src->op[i]);
	for (unsigned i = 0; i < src->nslow; i++)
		alloclab_latency_offer_slow(dst, &src->slow[i]);
}

void alloclab_latency_all_ops(const struct alloclab_latency *l, struct alloclab_lat_hist *out)
{
	memset(out, 0, sizeof *out);
	for (unsigned i = 0; i < ALLOCLAB_LAT_OPS; i++)
		hist_merge(out, &l->op[i]);
}

double alloclab_lat_quantile(const struct alloclab_lat_hist *h, double q)
{
	if (h->count == 0)
		return -1;
	if (q >= 1)
		return (double)h->max_units / ALLOCLAB_LAT_UNITS_PER_NS;
	uint64_t rank = (uint64_t)ceil(q * (double)h->count), seen = 0;
	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < h->n; i++) {
		seen += h->counts[i];
		if (seen >= rank) {
			unsigned b = h->index[i];
			double mid = (double)alloclab_lat_bucket_low(b) + (double)(alloclab_lat_bucket_width(b) - 1) / 2;
			if (mid > (double)h->max_units)
				mid = (double)h->max_units;
			return mid / ALLOCLAB_LAT_UNITS_PER_NS;
		}
	}
	return (double)h->max_units / ALLOCLAB_LAT_UNITS_PER_NS;
}

/* ---- JSON ---- */

static json_t *hist_json(const struct alloclab_lat_hist *h)
{
	json_t *b = json_array();
	for (unsigned i = 0; i < h->n; i++)
		json_array_append_new(b, json_pack("[I,I]", (json_int_t)h->index[i], (json_int_t)h->counts[i]));
	return json_pack("{s:I,s:f,s:I,s:I,s:I,s:o}", "count", (json_int_t)h->count, "sum_ns", h->sum_ns, "max_units",
			 (json_int_t)h->max_units, "over_1us", (json_int_t)h->over_1us, "over_100us",
			 (json_int_t)h->over_100us, "buckets", b);
}

json_t *alloclab_latency_to_json(const struct alloclab_latency *l)
{
	json_t *ops = json_object(), *slow = json_array();
	for (unsigned i = 0; i < ALLOCLAB_LAT_OPS; i++)
		if (l->op[i].count)
			json_object_set_new(ops, alloclab_lat_op_names[i], hist_json(&l->op[i]));
	for (unsigned i = 0; i < l->nslow; i++) {
		const struct alloclab_lat_slow *s = &l->slow[i];
		json_array_append_new(slow, json_pack("{s:s,s:I,s:I,s:o,s:o}", "op", alloclab_lat_op_names[s->op],
						      "units", (json_int_t)s->units, "size", (json_int_t)s->size,
						      "thread", s->thread >= 0 ? json_integer(s->thread) : json_null(),
						      "event", s->event >= 0 ? json_integer(s->event) : json_null()));
	}
	return json_pack("{s:i,s:i,s:i,s:f,s:f,s:o,s:o}", "units_per_ns", ALLOCLAB_LAT_UNITS_PER_NS, "sub_bucket_bits",
			 ALLOCLAB_LAT_SUB_BITS, "every", (int)l->every, "overhead_ns", l->overhead_ns, "empty_mean_ns",
			 l->empty_mean_ns, "ops", ops, "slowest", slow);
}

#define WHY(...) (snprintf(why, why_len, __VA_ARGS__), -1)

static int get_count(const json_t *obj, const char *key, uint64_t max, uint64_t *out, const char *where, char *why,
		     size_t why_len)
{
	json_t *x = json_object_get(obj, key);
	if (!json_is_integer(x) || json_integer_value(x) < 0 || (uint64_t)json_integer_value(x) > max)
		return WHY("%s.%s: %s", where, key, x == NULL ? "missing" : "not a whole number in range");
	*out = (uint64_t)json_integer_value(x);
	return 0;
}

static int op_index(const char *name)
{
	for (unsigned i = 0; i < ALLOCLAB_LAT_OPS; i++)
		if (strcmp(name, alloclab_lat_op_names[i]) == 0)
			return (int)i;
	return -1;
}

#define MAX_UNITS ((uint64_t)INT64_MAX)

static int hist_from_json(const json_t *o, const char *where, struct alloclab_lat_hist *h, char *why, size_t why_len)
{
	json_t *b = json_object_get(o, "buckets"), *sum = json_object_get(o, "sum_ns"), *e;
	uint64_t total = 0;
	size_t i;

	if (!json_is_object(o))
		return WHY("%s: not an object", where);
	if (get_count(o, "count", MAX_UNITS, &h->count, where, why, why_len) != 0 ||
	    get_count(o, "max_units", MAX_UNITS, &h->max_units, where, why, why_len) != 0 ||
	    get_count(o, "over_1us", h->count, &h->over_1us, where, why, why_len) != 0 ||
	    get_count(o, "over_100us", h->over_1us, &h->over_100us, where, why, why_len) != 0)
		return -1;
	/* Bounded, as every figure from outside: sums and means of absurd
	 * values would reach infinity in a table ("inf", "-nan"). */
	if (!json_is_number(sum) || !isfinite(json_number_value(sum)) || json_number_value(sum) < 0 ||
	    json_number_value(sum) > 1e30)
		return WHY("%s.sum_ns: not a number of nanoseconds from 0 to 1e30", where);
	h->sum_ns = json_number_value(sum);
	if (!json_is_array(b) || json_array_size(b) == 0 || json_array_size(b) > ALLOCLAB_LAT_BUCKETS)
		return WHY("%s.buckets: not an array of 1 to %u [bucket, count] pairs", where, ALLOCLAB_LAT_BUCKETS);
	h->index = malloc(json_array_size(b) * sizeof *h->index);
	h->counts = malloc(json_array_size(b) * sizeof *h->counts);
	json_array_foreach(b, i, e)
	{
		json_t *k = json_array_get(e, 0), *c = json_array_get(e, 1);
		if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_integer(k) || !json_is_integer(c) ||
		    json_integer_value(k) < 0 || json_integer_value(k) >= ALLOCLAB_LAT_BUCKETS || json_integer_value(c) <= 0)
			return WHY("%s.buckets[%zu]: not a [bucket below %u, positive count] pair", where, i,
				   ALLOCLAB_LAT_BUCKETS);
		if (i > 0 && (unsigned)json_integer_value(k) <= h->index[i - 1])
			return WHY("%s.buckets[%zu]: buckets out of order", where, i);
		h->index[i] = (unsigned)json_integer_value(k);
		h->counts[i] = (uint64_t)json_integer_value(c);
		if (h->counts[i] > MAX_UNITS - total)
			return WHY("%s.buckets: the counts overflow", where);
		total += h->counts[i];
		h->n++;
	}
	if (total != h->count)
		return WHY("%s.count: %llu, but its buckets hold %llu calls", where, (unsigned long long)h->count,
			   (unsigned long long)total);
	unsigned last = h->index[h->n - 1];
	uint64_t lo = alloclab_lat_bucket_low(last);
	if (h->max_units < lo || (last < ALLOCLAB_LAT_BUCKETS - 1 && h->max_units >= lo + alloclab_lat_bucket_width(last)))
		return WHY("%s.max_units: %llu is not in its last bucket (%u)", where, (unsigned long long)h->max_units,
			   last);
	return 0;
}

int alloclab_latency_from_json(const json_t *obj, unsigned threads, struct alloclab_latency **out, char *why,
			       size_t why_len)
{
	json_t *ops = json_object_get(obj, "ops"), *slow = json_object_get(obj, "slowest"),
	       *ov = json_object_get(obj, "overhead_ns"), *em = json_object_get(obj, "empty_mean_ns"), *x;
	uint64_t every, upn, bits;
	const char *key;
	size_t i;
	struct alloclab_latency *l;

	*out = NULL;
	if (!json_is_object(obj))
		return WHY("latency: not an object");
	if (get_count(obj, "units_per_ns", 1000000, &upn, "latency", why, why_len) != 0 ||
	    get_count(obj, "sub_bucket_bits", 64, &bits, "latency", why, why_len) != 0 ||
	    get_count(obj, "every", 1000000000, &every, "latency", why, why_len) != 0)
		return -1;
	if (upn != ALLOCLAB_LAT_UNITS_PER_NS || bits != ALLOCLAB_LAT_SUB_BITS)
		return WHY("latency: buckets of %llu units a ns and %llu sub-bucket bits; this alloclab reads %u and %u",
			   (unsigned long long)upn, (unsigned long long)bits, ALLOCLAB_LAT_UNITS_PER_NS,
			   ALLOCLAB_LAT_SUB_BITS);
	if (every == 0)
		return WHY("latency.every: 0 (every k-th call, k >= 1)");
	if (!json_is_number(ov) || !isfinite(json_number_value(ov)) || json_number_value(ov) < 0 ||
	    json_number_value(ov) > 1e12)
		return WHY("latency.overhead_ns: not a number of nanoseconds from 0 to 1e12");
	if (!json_is_number(em) || !isfinite(json_number_value(em)) || json_number_value(em) < 0 ||
	    json_number_value(em) > 1e12)
		return WHY("latency.empty_mean_ns: not a number of nanoseconds from 0 to 1e12");
	if (!json_is_object(ops))
		return WHY("latency.ops: not an object");
	if (!json_is_array(slow) || json_array_size(slow) > ALLOCLAB_LAT_SLOWEST)
		return WHY("latency.slowest: not an array of at most %u calls", ALLOCLAB_LAT_SLOWEST);
	l = alloclab_latency_new((unsigned)every, json_number_value(ov));
	l->empty_mean_ns = json_number_value(em);
	json_object_foreach((json_t *)ops, key, x)
	{
		char where[64];
		int op = op_index(key);
		if (op < 0) {
			alloclab_latency_free(l);
			return WHY("latency.ops: '%.32s' is not an op (malloc, calloc, realloc, aligned_alloc, free)", key);
		}
		snprintf(where, sizeof where, "latency.ops.%s", key);
		if (hist_from_json(x, where, &l->op[op], why, why_len) != 0) {
			alloclab_latency_free(l);
			return -1;
		}
	}
	json_array_foreach(slow, i, x)
	{
		struct alloclab_lat_slow s = {0};
		json_t *op = json_object_get(x, "op"), *t = json_object_get(x, "thread"), *ev = json_object_get(x, "event");
		char where[64];
		snprintf(where, sizeof where, "latency.slowest[%zu]", i);
		if (!json_is_object(x) || !json_is_string(op) || op_index(json_string_value(op)) < 0) {
			alloclab_latency_free(l);
			return WHY("%s.op: not an op name", where);
		}
		s.op = (unsigned)op_index(json_string_value(op));
		if (get_count(x, "units", MAX_UNITS, &s.units, where, why, why_len) != 0 ||
		    get_count(x, "size", MAX_UNITS, &s.size, where, why, why_len) != 0) {
			alloclab_latency_free(l);
			return -1;
		}
		if (!(json_is_null(t) || (json_is_integer(t) && json_integer_value(t) >= 0 &&
					  (threads == 0 || json_integer_value(t) < threads)))) {
			alloclab_latency_free(l);
			return WHY("%s.thread: not null or a thread index of the cell", where);
		}
		if (!(json_is_null(ev) || (json_is_integer(ev) && json_integer_value(ev) >= 0))) {
			alloclab_latency_free(l);
			return WHY("%s.event: not null or an event index", where);
		}
		if (l->op[s.op].count == 0 || s.units > l->op[s.op].max_units) {
			alloclab_latency_free(l);
			return WHY("%s: slower than the slowest %s counted", where, alloclab_lat_op_names[s.op]);
		}
		if (i > 0 && s.units > l->slow[i - 1].units) {
			alloclab_latency_free(l);
			return WHY("%s: not in order, slowest first", where);
		}
		s.thread = json_is_null(t) ? -1 : (int)json_integer_value(t);
		s.event = json_is_null(ev) ? -1 : json_integer_value(ev);
		l->slow[l->nslow++] = s;
	}
	ALLOCLAB_CHECK_INVARIANT(alloclab_latency_valid(l));
	*out = l;
	return 0;
}
