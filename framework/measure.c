/*
 * The measurement back-ends. See measure.h.
 */
#include "measure.h"
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef ALLOCLAB_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#endif

static const char *const names[] = {"time", "instructions", "cache"};

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

int alloclab_cache_geometry(char *d1, size_t d1_len, char *ll, size_t ll_len)
{
	long d1_size = sysconf(_SC_LEVEL1_DCACHE_SIZE), d1_assoc = sysconf(_SC_LEVEL1_DCACHE_ASSOC),
	     d1_line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	long ll_size = sysconf(_SC_LEVEL3_CACHE_SIZE), ll_assoc = sysconf(_SC_LEVEL3_CACHE_ASSOC),
	     ll_line = sysconf(_SC_LEVEL3_CACHE_LINESIZE);

	if (ll_size <= 0) {
		ll_size = sysconf(_SC_LEVEL2_CACHE_SIZE);
		ll_assoc = sysconf(_SC_LEVEL2_CACHE_ASSOC);
		ll_line = sysconf(_SC_LEVEL2_CACHE_LINESIZE);
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
	if (cache_sim) {
		a->argv[n++] = "--cache-sim=yes";
		if (alloclab_cache_geometry(a->d1, sizeof a->d1, a->ll, sizeof a->ll) == 0) {
			a->argv[n++] = a->d1;
			a->argv[n++] = a->ll;
		}
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
	unlink(path);
#else
	(void)dumps_dir;
	(void)dumps;
	(void)d1;
	(void)ll;
#endif
	return total;
}
