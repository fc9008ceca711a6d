/* A run's metadata and config: this machine's facts, the run's settings,
 * and the typed facts read back from them. See results.h. */
#define _GNU_SOURCE 1
#include "results/results.h"
#include "results/internal.h"
#include "results/results_keys.h"
#include "base/json_text.h"

#include <gnu/libc-version.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* ---- metadata ---- */

static void cpu_model(char *out, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(out, len, "unknown");
	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) == 0 && colon) {
			colon += 2;
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(out, len, "%s", colon);
			break;
		}
	}
	fclose(f);
}

/* The bracketed choice of a /sys setting ("always [madvise] never"). */
static json_t *sys_choice(const char *path)
{
	char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	char *open = strchr(buf, '['), *close = open ? strchr(open, ']') : NULL;
	if (open == NULL || close == NULL)
		return json_string("unknown");
	*close = '\0';
	return alloclab_json_text(open + 1);
}

/* Whether an environment variable's name is one that changes an
 * allocator alloclab bundles, or what it runs: glibc's MALLOC_*_ (and its
 * tunables), jemalloc's MALLOC_CONF (or a prefixed build's
 * JE_MALLOC_CONF, _RJEM_MALLOC_CONF), mimalloc's, tcmalloc's and TBB's
 * own, a preloaded malloc, and CPython's allocator settings (PYTHONMALLOC;
 * the debug hooks of PYTHONDEVMODE; tracemalloc's). */
static int allocator_variable(const char *name, size_t len)
{
	static const char *const prefixes[] = {"MALLOC_", "MIMALLOC_", "TCMALLOC_", "TBB_MALLOC_"};
	static const char *const names[] = {"GLIBC_TUNABLES", "LD_PRELOAD",   "PYTHONMALLOC",
					    "PYTHONMALLOCSTATS", "PYTHONDEVMODE", "PYTHONTRACEMALLOC"};
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (len > strlen(prefixes[i]) && strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (len == strlen(names[i]) && strncmp(name, names[i], len) == 0)
			return 1;
	return len >= 11 && strncmp(name + len - 11, "MALLOC_CONF", 11) == 0;
}

/* glibc's tunables that are its malloc's ("glibc.malloc.arena_max=1"),
 * colon-separated; "" when none (alloclab sets glibc.rtld's itself). */
static void malloc_tunables(const char *all, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (const char *t = all; *t;) {
		size_t n = strcspn(t, ":");
		if (n > 13 && strncmp(t, "glibc.malloc.", 13) == 0 && used + n + 2 < len)
			used += (size_t)snprintf(out + used, len - used, "%s%.*s", used ? ":" : "", (int)n, t);
		t += n + (t[n] == ':');
	}
}

/* The environment's allocator variables ({name: value}): what the
 * workers inherit, and every program they run. */
static json_t *allocator_environment(void)
{
	json_t *env = json_object();
	for (char **e = environ; e && *e && json_object_size(env) < ALLOCLAB_MAX_ALLOCATOR_ENV; e++) {
		const char *eq = strchr(*e, '=');
		char name[128], tunables[1024];
		if (eq == NULL || eq == *e || (size_t)(eq - *e) >= sizeof name || !allocator_variable(*e, (size_t)(eq - *e)))
			continue;
		snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
		const char *value = eq + 1;
		if (strcmp(name, "GLIBC_TUNABLES") == 0) {
			malloc_tunables(value, tunables, sizeof tunables);
			if (tunables[0] == '\0')
				continue;
			value = tunables;
		}
		json_object_set_new(env, name, alloclab_json_text(value));
	}
	return env;
}

json_t *alloclab_metadata(int argc, char **argv)
{
	struct utsname u;
	char cpu[256], date[64], kernel[512];
	time_t t = time(NULL);
	struct tm tm;
	json_t *cmd = json_array();
	long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	cpu_set_t allowed;
	int nallowed = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 0;
	double load[3] = {0, 0, 0};

	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	cpu_model(cpu, sizeof cpu);
	gmtime_r(&t, &tm);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (uname(&u) == 0)
		snprintf(kernel, sizeof kernel, "%s %s %s", u.sysname, u.release, u.machine);
	else
		snprintf(kernel, sizeof kernel, "unknown");
	if (getloadavg(load, 3) < 1)
		load[0] = -1;
	json_t *meta = json_pack("{s:s,s:s,s:i,s:i,s:i,s:f,s:s,s:s,s:s,s:s,s:s,s:o,s:o}", K_ALLOCLAB_VERSION, ALLOCLAB_VERSION,
			 K_CPU_MODEL, cpu, K_CPU_COUNT, (int)sysconf(_SC_NPROCESSORS_ONLN), K_CPUS_ALLOWED, nallowed,
			 K_CACHE_LINE_SIZE, line > 0 ? (int)line : 64, K_LOAD_AVERAGE_START, load[0], K_KERNEL, kernel,
			 K_LIBC, gnu_get_libc_version(), K_COMPILER, ALLOCLAB_COMPILER, K_BUILD_FLAGS,
			 ALLOCLAB_BUILD_FLAGS, K_DATE, date, K_COMMAND, cmd, K_HOST,
			 alloclab_json_text(uname(&u) == 0 ? u.nodename : "unknown"));
	/* Transparent huge pages: what the allocators' memory may be backed by. */
	json_object_set_new(meta, K_THP, json_pack("{s:o,s:o}", "enabled",
						   sys_choice("/sys/kernel/mm/transparent_hugepage/enabled"), "defrag",
						   sys_choice("/sys/kernel/mm/transparent_hugepage/defrag")));
	json_object_set_new(meta, K_ALLOCATOR_ENV, allocator_environment());
	return meta;
}

unsigned alloclab_results_env_text(const struct alloclab_results *r, char *out, size_t len)
{
	const char *name;
	json_t *value;
	size_t used = 0;
	unsigned n = 0;
	out[0] = '\0';
	json_object_foreach(r->facts.allocator_env, name, value)
	{
		if (used < len)
			used += (size_t)snprintf(out + used, len - used, "%s%s=%s", n ? ", " : "", name, json_string_value(value));
		n++;
	}
	return n;
}

/* The variables a sets that b does not, or sets otherwise, as a list. */
static void env_only_in(const json_t *a, const json_t *b, char *out, size_t len)
{
	const char *name;
	json_t *value;
	size_t used = 0;
	out[0] = '\0';
	json_object_foreach((json_t *)a, name, value)
	{
		if (json_equal(value, json_object_get(b, name)) || used >= len)
			continue;
		used += (size_t)snprintf(out + used, len - used, "%s%s=%s", used ? ", " : "", name, json_string_value(value));
	}
}

int alloclab_results_env_difference(const struct alloclab_results *a, const struct alloclab_results *b, char *out,
				    size_t len)
{
	const json_t *ea = a->facts.allocator_env, *eb = b->facts.allocator_env;
	const char *na = a->path ? a->path : "the first run", *nb = b->path ? b->path : "the second run";
	char only_a[1024], only_b[1024];

	out[0] = '\0';
	if (ea == NULL || eb == NULL) {
		/* One file says nothing: a difference only where the other
		 * set something. */
		const json_t *known = ea ? ea : eb;
		if (known == NULL || json_object_size(known) == 0)
			return 0;
		env_only_in(known, NULL, only_a, sizeof only_a);
		snprintf(out, len, "%s ran with %s in its environment, changing the allocators measured; %s does not "
			 "say what its run had", ea ? na : nb, only_a, ea ? nb : na);
		return 1;
	}
	if (json_equal(ea, eb))
		return 0;
	env_only_in(ea, eb, only_a, sizeof only_a);
	env_only_in(eb, ea, only_b, sizeof only_b);
	if (only_a[0] && only_b[0])
		snprintf(out, len, "the runs' environments set the allocators differently: %s ran with %s, %s with %s", na,
			 only_a, nb, only_b);
	else
		snprintf(out, len, "the runs' environments set the allocators differently: %s ran with %s, %s without",
			 only_a[0] ? na : nb, only_a[0] ? only_a : only_b, only_a[0] ? nb : na);
	return 1;
}

static json_t *settings_json(const struct alloclab_run_settings *s)
{
	json_t *config = json_pack("{s:i,s:i,s:i,s:f,s:b,s:s,s:s}", K_PROCESSES, s->processes_auto ? 0 : (int)s->processes,
				   K_VALUES, (int)s->values, K_WARMUPS, (int)s->warmups, K_TIMEOUT_S, s->timeout_s, K_PIN,
				   s->pin, K_CACHE_ALIGN, s->cache_align, K_MEASURE, s->measure);
	json_object_set_new(config, K_MEMORY_LIMIT, json_integer((json_int_t)s->memory_limit));
	if (s->latency_every)
		json_object_set_new(config, K_LATENCY_EVERY, json_integer(s->latency_every));
	json_object_set_new(config, K_SAMPLE_MS, json_integer(s->sample_ms));
	if (s->order) {
		json_object_set_new(config, K_ORDER, json_string(s->order));
		if (strcmp(s->order, "random") == 0)
			json_object_set_new(config, K_ORDER_SEED, json_integer((json_int_t)s->order_seed));
	}
	if (s->processes_auto)
		json_object_set_new(config, K_PROCESSES_AUTO,
				    json_pack("{s:i,s:i,s:f}", K_MIN, (int)s->processes, K_MAX, (int)s->max_processes,
					      K_CI_PERCENT, s->ci_percent));
	return config;
}

/* The typed facts of metadata and config (alloclab_run_facts): a field
 * missing or of another type in an older file is unknown; one present
 * with an impossible value refuses the file. */
static int read_facts(struct alloclab_results *r, char *err, size_t err_len)
{
	struct alloclab_results_reader rd = {.name = r->path ? r->path : "results", .err = err, .err_len = err_len};
	return alloclab_results_read_facts(&rd, r);
}

struct alloclab_results *alloclab_results_new(int argc, char **argv, const struct alloclab_run_settings *settings)
{
	struct alloclab_results *r = calloc(1, sizeof *r);
	char err[256];
	r->version = ALLOCLAB_RESULTS_VERSION;
	r->metadata = alloclab_metadata(argc, argv);
	r->config = settings ? settings_json(settings) : json_object();
	read_facts(r, err, sizeof err); /* what this machine says is in range */
	return r;
}

struct alloclab_results *alloclab_results_new_from(json_t *metadata, json_t *config, char *err, size_t err_len)
{
	struct alloclab_results *r = calloc(1, sizeof *r);
	r->version = ALLOCLAB_RESULTS_VERSION;
	r->metadata = metadata;
	r->config = config;
	if (read_facts(r, err, err_len) != 0) {
		alloclab_results_free(r);
		return NULL;
	}
	return r;
}

void alloclab_results_set_shard(struct alloclab_results *r, unsigned index, unsigned count, const char *plan,
				json_t *cell_processes)
{
	json_object_set_new(r->metadata, K_SHARD,
			    json_pack("{s:i,s:i,s:s,s:o}", K_SHARD_INDEX, (int)index, K_SHARD_COUNT, (int)count,
				      K_SHARD_PLAN, plan, K_SHARD_CELL_PROCESSES, cell_processes));
	r->facts.shard_index = index;
	r->facts.shard_count = count;
	free(r->facts.shard_plan);
	r->facts.shard_plan = strdup(plan);
}

void alloclab_results_set_paired(struct alloclab_results *r, const char *const *labels, unsigned n, uint64_t slice_ops,
				 uint64_t slice_warm)
{
	struct alloclab_run_facts *f = &r->facts;
	json_t *a = json_array();

	for (unsigned i = 0; i < f->npair; i++)
		free(f->pair_plugins[i]);
	free(f->pair_plugins);
	f->pair_plugins = calloc(n + 1, sizeof *f->pair_plugins);
	for (unsigned i = 0; i < n; i++) {
		f->pair_plugins[i] = strdup(labels[i]);
		json_array_append_new(a, alloclab_json_text(labels[i]));
	}
	f->npair = n;
	f->slice_ops = slice_ops;
	f->slice_warm = slice_warm;
	json_object_set_new(r->config, K_PAIRED, json_pack("{s:o,s:I,s:I}", K_PAIR_PLUGINS, a, K_SLICE_OPS, (json_int_t)slice_ops,
							   K_SLICE_WARM, (json_int_t)slice_warm));
}

void alloclab_results_set_cache_simulated(struct alloclab_results *r, const char *geometry)
{
	json_object_set_new(r->metadata, K_CACHE_SIMULATED, alloclab_json_text(geometry));
	free(r->facts.cache_simulated);
	r->facts.cache_simulated = strdup(geometry);
}

void alloclab_results_set_end(struct alloclab_results *r, double load_end, double runner_cpu_s, unsigned workers)
{
	if (load_end >= 0) {
		json_object_set_new(r->metadata, K_LOAD_AVERAGE_END, json_real(load_end));
		r->facts.load_end = load_end;
	}
	if (runner_cpu_s >= 0)
		json_object_set_new(r->metadata, K_RUNNER_CPU_S, json_real(runner_cpu_s));
	json_object_set_new(r->metadata, K_WORKERS, json_integer(workers));
}

void alloclab_results_set_others(struct alloclab_results *r, double others, double stolen, double peak)
{
	if (others < 0 || stolen < 0 || peak < 0)
		return;
	json_object_set_new(r->metadata, K_OTHER_CPUS,
			    json_pack("{s:f,s:f,s:f}", K_MEAN, others, K_STOLEN, stolen, K_PEAK, peak));
	r->facts.other_cpus_mean = others;
	r->facts.stolen_cpus_mean = stolen;
	r->facts.other_cpus_peak = peak;
}

void alloclab_results_set_fault_cost(struct alloclab_results *r, double ns)
{
	if (ns < 0)
		return;
	json_object_set_new(r->metadata, K_PAGE_FAULT_NS, json_real(ns));
	r->facts.page_fault_ns = ns;
}

/* metadata.other_cpus: three figures in CPUs, none more than the CPUs
 * a machine may have. */
static int read_others(const struct alloclab_results_reader *rd, struct alloclab_results *r)
{
	struct alloclab_run_facts *f = &r->facts;
	json_t *o = json_object_get(r->metadata, K_OTHER_CPUS);
	const char *where = K_METADATA "." K_OTHER_CPUS;
	if (o == NULL)
		return 0;
	if (!json_is_object(o))
		return alloclab_results_bad(rd, K_METADATA, K_OTHER_CPUS, "is %s, not an object", alloclab_json_type_name(o));
	static const char *const keys[] = {K_MEAN, K_STOLEN, K_PEAK};
	double *out[] = {&f->other_cpus_mean, &f->stolen_cpus_mean, &f->other_cpus_peak};
	for (int k = 0; k < 3; k++) {
		if (json_object_get(o, keys[k]) == NULL)
			return alloclab_results_bad(rd, where, keys[k], "missing");
		if (alloclab_results_get_number(rd, o, where, keys[k], 0, 1 << 20, out[k]) != 0)
			return -1;
	}
	return 0;
}

/* metadata.shard, once the cells are read (it has an entry per cell). */
int alloclab_results_read_shard(const struct alloclab_results_reader *rd, struct alloclab_results *r)
{
	struct alloclab_run_facts *f = &r->facts;
	json_t *shard = json_object_get(r->metadata, K_SHARD);

	if (shard) {
		uint64_t index = 0, count = 0;
		json_t *cp = json_object_get(shard, K_SHARD_CELL_PROCESSES), *x;
		size_t i;
		if (!json_is_object(shard))
			return alloclab_results_bad(rd, K_METADATA, K_SHARD, "is %s, not an object", alloclab_json_type_name(shard));
		if (alloclab_results_get_uint(rd, shard, K_METADATA "." K_SHARD, K_SHARD_COUNT, 1, 1, ALLOCLAB_MAX_SHARDS, &count) != 0 ||
		    alloclab_results_get_uint(rd, shard, K_METADATA "." K_SHARD, K_SHARD_INDEX, 1, 1, count, &index) != 0 ||
		    alloclab_results_get_string(rd, shard, K_METADATA "." K_SHARD, K_SHARD_PLAN, 1, &f->shard_plan) != 0)
			return -1;
		if (strlen(f->shard_plan) != 16 || strspn(f->shard_plan, "0123456789abcdef") != 16)
			return alloclab_results_bad(rd, K_METADATA "." K_SHARD, K_SHARD_PLAN, "is not 16 hexadecimal digits");
		if (!json_is_array(cp) || json_array_size(cp) != r->ncells)
			return alloclab_results_bad(rd, K_METADATA "." K_SHARD, K_SHARD_CELL_PROCESSES, "is not an array of %u process counts (one a cell)",
				   r->ncells);
		f->cell_processes = calloc(r->ncells + 1, sizeof *f->cell_processes);
		json_array_foreach(cp, i, x)
		{
			/* Every cell has a round for every shard: the runner refuses
			 * more shards than a cell has processes. */
			if (!json_is_integer(x) || json_integer_value(x) < (json_int_t)count || json_integer_value(x) > 1000000)
				return alloclab_results_bad(rd, K_METADATA "." K_SHARD, K_SHARD_CELL_PROCESSES,
							    "entry %zu is not a count of %llu (the shards) to 1000000", i,
							    (unsigned long long)count);
			f->cell_processes[i] = (unsigned)json_integer_value(x);
		}
		f->ncell_processes = r->ncells;
		f->shard_index = (unsigned)index;
		f->shard_count = (unsigned)count;
	}
	return 0;
}

/* config.paired: the group's labels (checked against the plugins once
 * they are read, reader.c's check_pairs) and the slice. */
static int read_paired(const struct alloclab_results_reader *rd, struct alloclab_results *r)
{
	struct alloclab_run_facts *f = &r->facts;
	json_t *pr = json_object_get(r->config, K_PAIRED), *labels, *x;
	size_t i;

	if (pr == NULL)
		return 0;
	if (!json_is_object(pr))
		return alloclab_results_bad(rd, K_CONFIG, K_PAIRED, "is %s, not an object", alloclab_json_type_name(pr));
	if (alloclab_results_get_array(rd, pr, K_CONFIG "." K_PAIRED, K_PAIR_PLUGINS, 1, 16, &labels) != 0 ||
	    alloclab_results_get_uint(rd, pr, K_CONFIG "." K_PAIRED, K_SLICE_OPS, 1, 0, 1000000000, &f->slice_ops) != 0 ||
	    alloclab_results_get_uint(rd, pr, K_CONFIG "." K_PAIRED, K_SLICE_WARM, 1, 0, 1000000000, &f->slice_warm) != 0)
		return -1;
	if (json_array_size(labels) < 2)
		return alloclab_results_bad(rd, K_CONFIG "." K_PAIRED, K_PAIR_PLUGINS, "names fewer than two plugins");
	f->pair_plugins = calloc(json_array_size(labels), sizeof *f->pair_plugins);
	json_array_foreach(labels, i, x)
	{
		if (!json_is_string(x) || json_string_length(x) == 0 || strlen(json_string_value(x)) != json_string_length(x) ||
		    json_string_length(x) > ALLOCLAB_MAX_LABEL)
			return alloclab_results_bad(rd, K_CONFIG "." K_PAIRED, K_PAIR_PLUGINS, "entry %zu is not a plugin label", i);
		for (unsigned k = 0; k < f->npair; k++)
			if (strcmp(f->pair_plugins[k], json_string_value(x)) == 0)
				return alloclab_results_bad(rd, K_CONFIG "." K_PAIRED, K_PAIR_PLUGINS, "names '%.64s' twice",
							    json_string_value(x));
		f->pair_plugins[f->npair++] = strdup(json_string_value(x));
	}
	return 0;
}

/* metadata.allocator_environment: {name: value}, names as the
 * environment's ([A-Za-z0-9_]), values strings, shown safely. */
static int read_allocator_env(const struct alloclab_results_reader *rd, struct alloclab_results *r)
{
	json_t *env = json_object_get(r->metadata, K_ALLOCATOR_ENV), *value;
	const char *name;

	if (env == NULL)
		return 0;
	if (!json_is_object(env))
		return alloclab_results_bad(rd, K_METADATA, K_ALLOCATOR_ENV, "is %s, not an object", alloclab_json_type_name(env));
	if (json_object_size(env) > ALLOCLAB_MAX_ALLOCATOR_ENV)
		return alloclab_results_bad(rd, K_METADATA, K_ALLOCATOR_ENV, "has more than %d variables",
					    ALLOCLAB_MAX_ALLOCATOR_ENV);
	r->facts.allocator_env = json_object();
	json_object_foreach(env, name, value)
	{
		char *text;
		if (name[0] == '\0' || strlen(name) > 64 || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
								     "0123456789_") != strlen(name))
			return alloclab_results_bad(rd, K_METADATA, K_ALLOCATOR_ENV, "'%.64s' is not a variable's name", name);
		if (alloclab_results_get_string(rd, env, K_METADATA "." K_ALLOCATOR_ENV, name, 1, &text) != 0)
			return -1;
		json_object_set_new(r->facts.allocator_env, name, json_string(text));
		free(text);
	}
	return 0;
}

int alloclab_results_read_facts(const struct alloclab_results_reader *rd, struct alloclab_results *r)
{
	struct alloclab_run_facts *f = &r->facts;
	json_t *a = json_object_get(r->config, K_PROCESSES_AUTO);
	uint64_t cpus = 0, max = 0;
	char *geometry = NULL;

	free(f->cache_simulated);
	free(f->cpu_model);
	free(f->host);
	free(f->date);
	free(f->alloclab_version);
	free(f->kernel);
	free(f->shard_plan);
	free(f->cell_processes);
	for (unsigned i = 0; i < f->npair; i++)
		free(f->pair_plugins[i]);
	free(f->pair_plugins);
	json_decref(f->allocator_env);
	memset(f, 0, sizeof *f);
	f->load_start = f->load_end = -1;
	f->other_cpus_mean = f->stolen_cpus_mean = f->other_cpus_peak = -1;
	f->page_fault_ns = -1;
	/* A fault costs from a few hundred nanoseconds (bare metal) to tens
	 * of microseconds (nested virtual machines); a second is no fault. */
	if (json_object_get(r->metadata, K_PAGE_FAULT_NS) &&
	    alloclab_results_get_number(rd, r->metadata, K_METADATA, K_PAGE_FAULT_NS, 1, 1e9, &f->page_fault_ns) != 0)
		return -1;
	if (alloclab_results_get_string(rd, r->metadata, K_METADATA, K_CPU_MODEL, 0, &f->cpu_model) != 0 ||
	    alloclab_results_get_string(rd, r->metadata, K_METADATA, K_HOST, 0, &f->host) != 0 ||
	    alloclab_results_get_string(rd, r->metadata, K_METADATA, K_ALLOCLAB_VERSION, 0, &f->alloclab_version) != 0 ||
	    alloclab_results_get_string(rd, r->metadata, K_METADATA, K_KERNEL, 0, &f->kernel) != 0)
		return -1;
	if (alloclab_results_get_uint(rd, r->metadata, K_METADATA, K_CPUS_ALLOWED, 0, 0, 1u << 20, &cpus) != 0 ||
	    alloclab_results_get_number(rd, r->metadata, K_METADATA, K_LOAD_AVERAGE_START, -1, 1e9, &f->load_start) != 0 ||
	    alloclab_results_get_number(rd, r->metadata, K_METADATA, K_LOAD_AVERAGE_END, -1, 1e9, &f->load_end) != 0 ||
	    alloclab_results_get_string(rd, r->metadata, K_METADATA, K_CACHE_SIMULATED, 0, &geometry) != 0)
		return -1;
	f->cpus_allowed = (int)cpus;
	f->cache_simulated = geometry;
	if (alloclab_results_get_uint(rd, r->config, K_CONFIG, K_ORDER_SEED, 0, 0, UINT64_MAX, &f->order_seed) != 0)
		return -1;
	/* The run's date, as alloclab writes it (UTC, "2026-12-01T14:10:00Z"):
	 * other tools are given it (an export's dates). */
	{
		json_t *d = json_object_get(r->metadata, K_DATE);
		const char *s = json_string_value(d);
		int y, mo, da, h, mi, se, n = 0;
		if (d && (s == NULL || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &da, &h, &mi, &se, &n) != 6 ||
			  n != 19 || y < 1970 || mo < 1 || mo > 12 || da < 1 || da > 31 || h > 23 || mi > 59 || se > 60 ||
			  (s[19] != '\0' && strcmp(s + 19, "Z") != 0)))
			return alloclab_results_bad(rd, K_METADATA, K_DATE, "is not a date as YYYY-MM-DDTHH:MM:SSZ");
		f->date = s ? strdup(s) : NULL;
	}
	{
		json_t *m = json_object_get(r->config, K_MEASURE);
		f->tlb_simulated = json_is_string(m) && strcmp(json_string_value(m), "tlb") == 0;
	}
	if (read_paired(rd, r) != 0 || read_allocator_env(rd, r) != 0 || read_others(rd, r) != 0)
		return -1;
	if (a == NULL)
		return 0;
	if (!json_is_object(a))
		return alloclab_results_bad(rd, K_CONFIG, K_PROCESSES_AUTO, "is %s, not an object", alloclab_json_type_name(a));
	f->ci_percent = 0;
	if (alloclab_results_get_uint(rd, a, K_CONFIG "." K_PROCESSES_AUTO, K_MAX, 1, 2, 1000000, &max) != 0 ||
	    alloclab_results_get_number(rd, a, K_CONFIG "." K_PROCESSES_AUTO, K_CI_PERCENT, 1e-9, 100, &f->ci_percent) != 0)
		return -1;
	if (f->ci_percent == 0)
		return alloclab_results_bad(rd, K_CONFIG "." K_PROCESSES_AUTO, K_CI_PERCENT, "missing");
	f->processes_auto = 1;
	f->max_processes = (unsigned)max;
	return 0;
}
