/*
 * The measurement back-ends. See measure.h.
 */
#include "measure/measure.h"
#include "files/self_exe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#ifdef ALLOCLAB_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#endif

static const char *const names[] = {"time", "instructions", "cache", "tlb"};

int alloclab_measure_parse(const char *name, enum alloclab_measure *out)
{
	for (unsigned k = 0; k < sizeof names / sizeof *names; k++)
		if (strcmp(name, names[k]) == 0) {
			*out = (enum alloclab_measure)k;
			return 0;
		}
	return -1;
}

const char *alloclab_measure_name(enum alloclab_measure m)
{
	return names[m];
}

int alloclab_measure_available(enum alloclab_measure m, char *err, size_t err_len)
{
	if (m == ALLOCLAB_MEASURE_TIME || alloclab_program_on_path("valgrind"))
		return 0;
	snprintf(err, err_len, "--measure %s needs valgrind (apt-get install valgrind)", names[m]);
	return -1;
}

/* One cache of cpu0 as the kernel describes it in sysfs: 0 with size,
 * ways and line in bytes, -1 when index `k` is missing or not a data or
 * unified cache. The kernel's view is the one that holds on every x86
 * vendor: glibc's sysconf reads CPUID leaves that AMD's EPYC answers
 * with an L3 of associativity 0 (and the size of every slice together). */
static int sysfs_cache(unsigned k, long *level, long *size, long *ways, long *line)
{
	static const char *const fields[] = {"level", "type", "size", "ways_of_associativity", "coherency_line_size"};
	char text[5][32];

	for (unsigned f = 0; f < 5; f++) {
		char path[96];
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%u/%s", k, fields[f]);
		FILE *in = fopen(path, "re");
		if (in == NULL)
			return -1;
		int ok = fgets(text[f], sizeof text[f], in) != NULL;
		fclose(in);
		if (!ok)
			return -1;
	}
	if (strncmp(text[1], "Data", 4) != 0 && strncmp(text[1], "Unified", 7) != 0)
		return -1;
	char *end;
	*level = strtol(text[0], NULL, 10);
	*size = strtol(text[2], &end, 10);
	if (*end == 'K')
		*size *= 1024;
	else if (*end == 'M')
		*size *= 1024 * 1024;
	*ways = strtol(text[3], NULL, 10);
	*line = strtol(text[4], NULL, 10);
	return *level > 0 && *size > 0 && *ways > 0 && *line > 0 ? 0 : -1;
}

int alloclab_cache_geometry(char *d1, size_t d1_len, char *ll, size_t ll_len)
{
	long d1_size = 0, d1_assoc = 0, d1_line = 0, ll_size = 0, ll_assoc = 0, ll_line = 0, ll_level = 0;

	for (unsigned k = 0; k < 16; k++) {
		long level, size, ways, line;
		if (sysfs_cache(k, &level, &size, &ways, &line) != 0)
			continue;
		if (level == 1) {
			d1_size = size, d1_assoc = ways, d1_line = line;
		} else if (level > ll_level) {
			ll_level = level, ll_size = size, ll_assoc = ways, ll_line = line;
		}
	}
	if (d1_size <= 0 || ll_size <= 0) {
		d1_size = sysconf(_SC_LEVEL1_DCACHE_SIZE), d1_assoc = sysconf(_SC_LEVEL1_DCACHE_ASSOC),
		d1_line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
		ll_size = sysconf(_SC_LEVEL3_CACHE_SIZE), ll_assoc = sysconf(_SC_LEVEL3_CACHE_ASSOC),
		ll_line = sysconf(_SC_LEVEL3_CACHE_LINESIZE);
		if (ll_size <= 0 || ll_assoc <= 0) {
			ll_size = sysconf(_SC_LEVEL2_CACHE_SIZE);
			ll_assoc = sysconf(_SC_LEVEL2_CACHE_ASSOC);
			ll_line = sysconf(_SC_LEVEL2_CACHE_LINESIZE);
		}
	}
	if (d1_size <= 0 || d1_assoc <= 0 || d1_line <= 0 || ll_size <= 0 || ll_assoc <= 0 || ll_line <= 0)
		return -1;
	/* The simulator wants a power-of-two number of sets: keep the line
	 * and the associativity, round the sets down (a 300 MiB, 20-way L3 is
	 * simulated as 160 MiB). */
	{
		long *sizes[] = {&d1_size, &ll_size}, assocs[] = {d1_assoc, ll_assoc}, lines[] = {d1_line, ll_line};
		for (int k = 0; k < 2; k++) {
			long sets = *sizes[k] / (assocs[k] * lines[k]), p2 = 1;
			while (p2 * 2 <= sets)
				p2 *= 2;
			*sizes[k] = p2 * assocs[k] * lines[k];
		}
	}
	snprintf(d1, d1_len, "--D1=%ld,%ld,%ld", d1_size, d1_assoc, d1_line);
	snprintf(ll, ll_len, "--LL=%ld,%ld,%ld", ll_size, ll_assoc, ll_line);
	return 0;
}

/* Intel's deterministic address translation leaf (0x18): each subleaf a
 * TLB, EDX saying its type (data or unified) and level, EBX its page sizes
 * and ways, ECX its sets. AMD's 0x80000005 and 0x80000006 give the first-
 * and second-level data TLBs for 4 KiB pages with the ways encoded. */
static int tlb_from_cpuid(struct alloclab_tlb_geometry *g)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d, max, found = 0;
	static const unsigned amd_ways[16] = {0, 1, 2, 3, 4, 0, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0};

	__cpuid(0, max, b, c, d);
	if (max >= 0x18) {
		__cpuid_count(0x18, 0, a, b, c, d);
		unsigned subleaves = a;
		for (unsigned i = 0; i <= subleaves && i < 32; i++) {
			__cpuid_count(0x18, i, a, b, c, d);
			unsigned type = d & 0x1f, level = (d >> 5) & 7, ways = (b >> 16) & 0xffff, sets = c;
			int fully = (d >> 8) & 1;
			if (!(b & 1) || (type != 1 && type != 3)) /* 4 KiB pages; data or unified */
				continue;
			unsigned entries = ways * sets;
			if (fully)
				ways = entries;
			if (level == 1 && type == 1 && !(found & 1)) {
				g->l1_entries = entries, g->l1_ways = ways, found |= 1;
			} else if (level == 2 && !(found & 2)) {
				g->l2_entries = entries, g->l2_ways = ways, found |= 2;
			}
		}
		if (found == 3)
			return 0;
	}
	__cpuid(0x80000000, max, b, c, d);
	if (max >= 0x80000006) {
		__cpuid(0x80000005, a, b, c, d);
		unsigned l1 = (b >> 16) & 0xff, l1w = b >> 24;
		__cpuid(0x80000006, a, b, c, d);
		unsigned l2 = (b >> 16) & 0xfff, l2w = amd_ways[(b >> 28) & 0xf];
		if (l1 && l2 && l2w) {
			g->l1_entries = l1, g->l1_ways = l1w == 0xff ? l1 : l1w;
			g->l2_entries = l2, g->l2_ways = l2w;
			return 0;
		}
	}
#endif
	(void)g;
	return -1;
}

static int power_of_two(unsigned x) { return x && !(x & (x - 1)); }

void alloclab_tlb_geometry(struct alloclab_tlb_geometry *g)
{
	const char *env = getenv("ALLOCLAB_TLB");
	unsigned e1, w1, e2, w2;

	*g = (struct alloclab_tlb_geometry){64, 4, 1536, 12, "default"};
	if (env && sscanf(env, "%u,%u,%u,%u", &e1, &w1, &e2, &w2) == 4 && w1 && w2 && e1 % w1 == 0 && e2 % w2 == 0 &&
	    power_of_two(e1 / w1) && power_of_two(e2 / w2)) {
		*g = (struct alloclab_tlb_geometry){e1, w1, e2, w2, "override"};
		return;
	}
	struct alloclab_tlb_geometry c = *g;
	if (tlb_from_cpuid(&c) == 0 && c.l1_ways && c.l2_ways && c.l1_entries % c.l1_ways == 0 &&
	    c.l2_entries % c.l2_ways == 0) {
		/* The simulator wants a power-of-two number of sets: rounded down,
		 * as for the caches. */
		unsigned s1 = c.l1_entries / c.l1_ways, s2 = c.l2_entries / c.l2_ways, p1 = 1, p2 = 1;
		while (p1 * 2 <= s1)
			p1 *= 2;
		while (p2 * 2 <= s2)
			p2 *= 2;
		*g = (struct alloclab_tlb_geometry){p1 * c.l1_ways, c.l1_ways, p2 * c.l2_ways, c.l2_ways, "cpuid"};
	}
}

void alloclab_tlb_options(const struct alloclab_tlb_geometry *g, char *d1, size_t d1_len, char *ll, size_t ll_len)
{
	snprintf(d1, d1_len, "--D1=%lu,%u,4096", (unsigned long)g->l1_entries * 4096ul, g->l1_ways);
	snprintf(ll, ll_len, "--LL=%lu,%u,4096", (unsigned long)g->l2_entries * 4096ul, g->l2_ways);
}

void alloclab_measure_worker_argv(struct alloclab_measure_argv *a, const char *dumps_dir, int cache_sim,
				  const char *self, const char *spec)
{
	int n = 0;

	/* Collecting only where the worker says: the timed region of each
	 * value. valgrind's own messages go to a log beside the dumps, not
	 * into the worker's output. */
	a->argv[n++] = "valgrind";
	a->argv[n++] = "--tool=callgrind";
	a->argv[n++] = "--collect-atstart=no";
	a->argv[n++] = "--trace-children=no";
	a->argv[n++] = "-q";
	snprintf(a->out, sizeof a->out, "--callgrind-out-file=%s/cg.%%p", dumps_dir);
	snprintf(a->log, sizeof a->log, "--log-file=%s/valgrind.%%p.log", dumps_dir);
	a->argv[n++] = a->out;
	a->argv[n++] = a->log;
	if (cache_sim == 1) {
		a->argv[n++] = "--cache-sim=yes";
		if (alloclab_cache_geometry(a->d1, sizeof a->d1, a->ll, sizeof a->ll) == 0) {
			a->argv[n++] = a->d1;
			a->argv[n++] = a->ll;
		}
	} else if (cache_sim == 2) {
		struct alloclab_tlb_geometry g;
		alloclab_tlb_geometry(&g);
		alloclab_tlb_options(&g, a->d1, sizeof a->d1, a->ll, sizeof a->ll);
		a->argv[n++] = "--cache-sim=yes";
		a->argv[n++] = a->d1;
		a->argv[n++] = a->ll;
	}
	a->argv[n++] = (char *)self;
	a->argv[n++] = "__worker";
	a->argv[n++] = (char *)spec;
	a->argv[n] = NULL;
}

int alloclab_measure_under_valgrind(void)
{
#ifdef ALLOCLAB_HAVE_CALLGRIND
	return RUNNING_ON_VALGRIND != 0;
#else
	return 0;
#endif
}

void alloclab_measure_start(void)
{
#ifdef ALLOCLAB_HAVE_CALLGRIND
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
#endif
}

int alloclab_measure_keep_dumps;

uint64_t alloclab_measure_stop(const char *dumps_dir, unsigned *dumps, uint64_t *d1, uint64_t *ll)
{
	uint64_t total = 0;
#ifdef ALLOCLAB_HAVE_CALLGRIND
	char path[ALLOCLAB_PATH_PLUS_LEN], line[1024], events[16][16];
	int nevents = 0;
	FILE *f;

	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("alloclab value");
	++*dumps;
	snprintf(path, sizeof path, "%s/cg.%ld.%u", dumps_dir, (long)getpid(), *dumps);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "events:", 7) == 0) {
			char *save = NULL;
			nevents = 0;
			for (char *t = strtok_r(line + 7, " \n", &save); t && nevents < 16; t = strtok_r(NULL, " \n", &save))
				snprintf(events[nevents++], sizeof events[0], "%s", t);
		} else if (strncmp(line, "totals:", 7) == 0 || strncmp(line, "summary:", 8) == 0) {
			char *cursor = strchr(line, ':') + 1, *end;
			*d1 = *ll = 0;
			for (int k = 0; k < nevents; k++, cursor = end) {
				uint64_t v = strtoull(cursor, &end, 10);
				if (end == cursor)
					break;
				if (strcmp(events[k], "Ir") == 0)
					total = v;
				else if (strcmp(events[k], "D1mr") == 0 || strcmp(events[k], "D1mw") == 0)
					*d1 += v;
				else if (strcmp(events[k], "DLmr") == 0 || strcmp(events[k], "DLmw") == 0)
					*ll += v;
			}
			break;
		}
	}
	fclose(f);
	if (!alloclab_measure_keep_dumps)
		unlink(path);
#else
	(void)dumps_dir;
	(void)dumps;
	(void)d1;
	(void)ll;
#endif
	return total;
}
