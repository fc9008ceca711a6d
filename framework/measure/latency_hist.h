/*
 * Latency histograms: the model of `--latency` figures and the one owner
 * of their JSON form (a value's "latency" object in a results file, and
 * the file the preload library leaves for the exec workload).
 *
 * Times are kept in units of 1/16 ns in logarithmic buckets, HDR style:
 * one bucket per unit below 128 units (8 ns), then 64 buckets in every
 * octave, so that a bucket is at most 1/64 of its lower bound wide and a
 * percentile read as the bucket's midpoint is within 0.8% of the true
 * time, from 8 ns to about 2 minutes (2^41 units; longer calls are counted
 * in the last bucket and their exact maximum kept). docs/guides/latency.md.
 *
 * A histogram counts the calls of one op kind; a `struct alloclab_latency`
 * is one value's (or one process's, merged) set of them with the slowest
 * calls seen.
 */
#ifndef ALLOCLAB_LATENCY_HIST_H
#define ALLOCLAB_LATENCY_HIST_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

enum alloclab_lat_op {
	ALLOCLAB_LAT_MALLOC,
	ALLOCLAB_LAT_CALLOC,
	ALLOCLAB_LAT_REALLOC,
	ALLOCLAB_LAT_ALIGNED, /* aligned_alloc (memalign, posix_memalign... under exec) */
	ALLOCLAB_LAT_FREE,    /* free and free_sized */
	ALLOCLAB_LAT_OPS,
};

/* "malloc", "calloc", "realloc", "aligned_alloc", "free". */
extern const char *const alloclab_lat_op_names[ALLOCLAB_LAT_OPS];

#define ALLOCLAB_LAT_UNITS_PER_NS 16
#define ALLOCLAB_LAT_EXACT 128     /* below this many units, one bucket per unit */
#define ALLOCLAB_LAT_SUB_BITS 6    /* 2^6 buckets an octave above it */
#define ALLOCLAB_LAT_TOP_OCTAVE 40 /* the last octave with buckets: [2^40, 2^41) units */
#define ALLOCLAB_LAT_BUCKETS \
	(ALLOCLAB_LAT_EXACT + (ALLOCLAB_LAT_TOP_OCTAVE - 6) * (1u << ALLOCLAB_LAT_SUB_BITS))
/* Slowest calls kept per thread and per value. */
#define ALLOCLAB_LAT_SLOWEST 8
/* 1 us and 100 us in units: calls at or over them are also counted apart. */
#define ALLOCLAB_LAT_1US (1000u * ALLOCLAB_LAT_UNITS_PER_NS)
#define ALLOCLAB_LAT_100US (100000u * ALLOCLAB_LAT_UNITS_PER_NS)

/* The bucket of a time in units. Invariant: < ALLOCLAB_LAT_BUCKETS. */
static inline unsigned alloclab_lat_bucket(uint64_t units)
{
	if (units < ALLOCLAB_LAT_EXACT)
		return (unsigned)units;
	unsigned octave = 63u - (unsigned)__builtin_clzll(units);
	if (octave > ALLOCLAB_LAT_TOP_OCTAVE)
		return ALLOCLAB_LAT_BUCKETS - 1;
	return ALLOCLAB_LAT_EXACT + (octave - 7) * (1u << ALLOCLAB_LAT_SUB_BITS) +
	       (unsigned)((units >> (octave - ALLOCLAB_LAT_SUB_BITS)) & ((1u << ALLOCLAB_LAT_SUB_BITS) - 1));
}

/* A bucket's lower bound and width, in units. */
uint64_t alloclab_lat_bucket_low(unsigned bucket);
uint64_t alloclab_lat_bucket_width(unsigned bucket);

/* Counts of one op kind, dense: what a thread records into. */
struct alloclab_lat_dense {
	uint64_t count, sum_units, max_units, over_1us, over_100us;
	uint64_t b[ALLOCLAB_LAT_BUCKETS];
};

/* One slow call. */
struct alloclab_lat_slow {
	unsigned op;      /* enum alloclab_lat_op */
	uint64_t units;
	uint64_t size;    /* the size asked for (free: 0, free_sized: the size given) */
	int thread;       /* the workload thread's index; -1 another thread */
	int64_t event;    /* a replay's event index; -1 none */
};

/* The counts of one op kind, sparse: the non-empty buckets in increasing
 * order. Invariants (alloclab_lat_hist_valid: the reader checks them, and
 * debug builds wherever a histogram is made or merged): index[] strictly
 * increasing and < ALLOCLAB_LAT_BUCKETS, counts[] > 0 and summing to
 * count; max_units within the last bucket; over_100us <= over_1us <= count. */
struct alloclab_lat_hist {
	uint64_t count, over_1us, over_100us, max_units;
	double sum_ns;
	unsigned n;
	unsigned *index;
	uint64_t *counts;
};

struct alloclab_latency {
	unsigned every;       /* every k-th call was measured */
	double overhead_ns;   /* an empty measurement's cost, subtracted from each */
	/* What an empty measurement costs in a loop of them, on average: its
	 * share of the time --latency adds to each timed call (the counter
	 * reads' throughput, where overhead_ns is their latency). */
	double empty_mean_ns;
	struct alloclab_lat_hist op[ALLOCLAB_LAT_OPS];
	/* The slowest calls, slowest first; at most ALLOCLAB_LAT_SLOWEST. */
	struct alloclab_lat_slow slow[ALLOCLAB_LAT_SLOWEST];
	unsigned nslow;
};

/* 1 when the invariants stated on struct alloclab_lat_hist hold (the
 * reader's checks of a file, and debug builds' of every histogram made or
 * merged), else 0. */
int alloclab_lat_hist_valid(const struct alloclab_lat_hist *h);
/* ... and of every op's, with the slowest calls slowest first and at most
 * ALLOCLAB_LAT_SLOWEST of them. */
int alloclab_latency_valid(const struct alloclab_latency *l);

struct alloclab_latency *alloclab_latency_new(unsigned every, double overhead_ns);
void alloclab_latency_free(struct alloclab_latency *l);

/* Adds dense counts of one op kind (its count taken from its buckets). */
void alloclab_latency_add_dense(struct alloclab_latency *l, unsigned op, const struct alloclab_lat_dense *d);
/* Offers a slow call to the list of the slowest. */
void alloclab_latency_offer_slow(struct alloclab_latency *l, const struct alloclab_lat_slow *s);
/* Adds src's counts and slow calls to dst (every and overhead: dst's
 * when set, else src's). */
void alloclab_latency_merge(struct alloclab_latency *dst, const struct alloclab_latency *src);
/* All op kinds of l in one histogram (out is cleared first; free it with
 * alloclab_lat_hist_clear). */
void alloclab_latency_all_ops(const struct alloclab_latency *l, struct alloclab_lat_hist *out);
void alloclab_lat_hist_clear(struct alloclab_lat_hist *h);

/* The q-quantile (0 < q <= 1) of h in ns: the midpoint of the bucket
 * holding the ceil(q * count)-th smallest call, never above the maximum;
 * q = 1 is the exact maximum. -1 for an empty histogram. */
double alloclab_lat_quantile(const struct alloclab_lat_hist *h, double q);

/* The quantiles every report shows, with their names ("p50"...). */
#define ALLOCLAB_LAT_NQUANTILES 6
extern const double alloclab_lat_quantiles[ALLOCLAB_LAT_NQUANTILES];
extern const char *const alloclab_lat_quantile_names[ALLOCLAB_LAT_NQUANTILES]; /* ... "p9999", "max" */

/* "p50", "p90", "p99", "p999", "p9999", "max" to its quantile; -1 unknown. */
double alloclab_lat_quantile_named(const char *name);

/* ---- JSON ---- */

json_t *alloclab_latency_to_json(const struct alloclab_latency *l);
/* Reads and checks a latency object from outside (a results file, a
 * program's record): every field's type and range and the invariants
 * above. threads: the cell's thread count, which a slow call's thread
 * index must be under (0: not checked). 0 with *out, or -1 with one line
 * in why naming the field. */
int alloclab_latency_from_json(const json_t *obj, unsigned threads, struct alloclab_latency **out, char *why,
			       size_t why_len);

#endif
