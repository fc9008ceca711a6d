/*
 * liballoclab-preload.so: any plugin as a whole program's malloc.
 *
 *   ALLOCLAB_PRELOAD_PLUGIN=NAME|PATH[:options]  LD_PRELOAD=liballoclab-preload.so  PROGRAM
 *
 * (`alloclab exec` sets all of it up.) The library serves the C allocation
 * API from the plugin: malloc, free, calloc, realloc, reallocarray,
 * posix_memalign, aligned_alloc, memalign, valloc, pvalloc and
 * malloc_usable_size (docs/guides/preload.md says what each does when the plugin
 * lacks the op it needs).
 *
 * Three sources of blocks, told apart at free:
 *   - the bootstrap area: requests made while the plugin is being loaded
 *     (dlopen itself allocates) come from an area below 4 MiB (or a
 *     static one; see boot_take_low); their frees do nothing, and
 *     realloc copies them out;
 *   - the C library: a plugin that calls malloc itself (the `system`
 *     plugin; obmalloc for large blocks) reaches this library again; such
 *     nested calls, marked by a thread-local flag, go to the C library's
 *     own allocator, and the plugin frees those blocks the same way;
 *   - the plugin: everything else. Aligned requests the plugin cannot serve
 *     are over-allocated from it, and the aligned pointers kept in a table
 *     so that free finds the block under them.
 */
#define _GNU_SOURCE 1
#include "trace/addr_map.h"
#include "plugin/allocator.h"
#include "plugin/interpose.h"
#include "memory/census.h"
#include "measure/latency.h"
#include "plugin/loader.h"
#include "trace/recorder.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define TLS static __thread __attribute__((tls_model("initial-exec")))

/* The C library's own allocator, for nested calls. */
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

enum { UNINIT, LOADING, READY };
static _Atomic int state;
static struct alloclab_allocator alloc;
static struct alloclab_loaded_plugin plugin;
static int headers;        /* the plugin has no usable_size: every block carries its size */
static int needs_one_thread; /* the plugin cannot free across threads */
static pthread_key_t detach_key;
static size_t (*libc_usable)(void *); /* the C library's malloc_usable_size */

TLS int nested;            /* inside the plugin (or the recorder) */
TLS int loading_here;      /* this thread is loading the plugin */
TLS int attached;          /* thread_attach called for this thread */

/* The path each call of the C API takes (see "the paths" below). */
static void *generic_malloc(size_t n);
static void generic_free(void *p);
static void *generic_calloc(size_t m, size_t n);
static void *generic_realloc(void *p, size_t n);
static size_t generic_usable(void *p);
static void *generic_memalign(size_t align, size_t n);

static void *(*malloc_path)(size_t) = generic_malloc;
static void (*free_path)(void *) = generic_free;
static void *(*calloc_path)(size_t, size_t) = generic_calloc;
static void *(*realloc_path)(void *, size_t) = generic_realloc;
static size_t (*usable_path)(void *) = generic_usable;
static void *(*memalign_path)(size_t, size_t) = generic_memalign;

/* ---- the bootstrap area ---- */

/*
 * Requests made while the plugin loads come from here: an area in the
 * lowest addresses a process may map, below BOOT_LOW_END, so that free
 * tells its blocks (and NULL) from every other with one comparison against
 * boot_limit. That holds only if no block the allocator hands out can ever
 * lie below BOOT_LOW_END, so the library takes, at its first call, every
 * range there that is free: it reads /proc/self/maps and maps each gap
 * between the mappings it finds, with the gap's address as a hint. What is
 * mapped there already cannot hold a block anyone frees (the first call is
 * the process's first malloc: no heap exists yet); a future mapping finds
 * no room. What the kernel or valgrind will not give at a free address is
 * what nobody is given (below mmap_min_addr or a security module's bound,
 * outside valgrind's client space, which starts at its executable near
 * 1 MiB). The largest gap taken serves the blocks; the others are kept,
 * inaccessible. With no gap of BOOT_LOW_MIN, a static area serves instead:
 * boot_limit then catches NULL alone, and free's path tests the area's
 * range.
 */
#define BOOT_LOW_END ((uintptr_t)4 << 20) /* where a program that is not position independent starts */
#define BOOT_LOW_MIN ((size_t)1 << 20)    /* the loads measured take under 100 KiB */
#define BOOT_SIZE (8u << 20)
static _Alignas(64) unsigned char boot_static[BOOT_SIZE];
static unsigned char *boot;      /* the area in use */
static size_t boot_cap;
/* Every pointer below it is NULL, a bootstrap block, or in a mapping no
 * allocator hands out. Invariant: 1, or BOOT_LOW_END with every range below
 * it the library's, a file's or nobody's. */
static uintptr_t boot_limit = 1;
static _Atomic int boot_state;   /* 0 not chosen, 1 choosing, 2 chosen */
static _Atomic size_t boot_used;
static _Atomic size_t boot_blocks, boot_frees; /* for ALLOCLAB_PRELOAD_REPORT */
static _Atomic size_t alive; /* aligned blocks the library made; 0: free never looks them up */

/* A hexadecimal number at *p, moving past it. */
static uintptr_t hex_at(const char **p, const char *end)
{
	uintptr_t v = 0;
	for (; *p < end; ++*p) {
		char c = **p;
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16;
		if (d == 16)
			break;
		v = v * 16 + d;
	}
	return v;
}

/* Takes the free ranges below BOOT_LOW_END (above). 1 when they are all
 * the library's or nobody's and one of them can serve; no malloc. */
static int boot_take_low(void)
{
	static char maps[16384];
	uintptr_t taken[16][2];
	unsigned ntaken = 0;
	size_t n = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* The mappings come in address order: the first lines suffice. */
	for (ssize_t k; n < sizeof maps && (k = read(fd, maps + n, sizeof maps - n)) > 0;)
		n += (size_t)k;
	close(fd);
	const char *p = maps, *end = maps + n;
	/* Below it: nobody's (a hint of 0 would mean anywhere). */
	uintptr_t at = 65536;
	char min[32];
	ssize_t k = 0;
	if ((fd = open("/proc/sys/vm/mmap_min_addr", O_RDONLY | O_CLOEXEC)) >= 0) {
		k = read(fd, min, sizeof min - 1);
		close(fd);
	}
	if (k > 0) {
		uintptr_t v = 0;
		for (ssize_t i = 0; i < k && min[i] >= '0' && min[i] <= '9'; i++)
			v = v * 10 + (uintptr_t)(min[i] - '0');
		at = (v + 4095) & ~(uintptr_t)4095;
		if (at == 0)
			at = 4096;
	}
	int ok = 1;
	for (;;) {
		uintptr_t lo = BOOT_LOW_END, hi = BOOT_LOW_END;
		if (p < end) {
			lo = hex_at(&p, end);
			p++; /* '-' */
			hi = hex_at(&p, end);
			while (p < end && *p != '\n')
				p++;
			if (p == end) /* a line cut short: no more to trust */
				lo = hi = BOOT_LOW_END;
			p++;
		}
		if (lo > BOOT_LOW_END)
			lo = BOOT_LOW_END;
		/* The gap [at, lo): ours from the lowest address it is given at;
		 * below that, nobody's. What is refused at a free address is
		 * refused by a lower bound (mmap_min_addr, or a security module's
		 * own, 64 KiB in Debian's kernels; valgrind's client space), so
		 * the starts tried go up: at, then 64 KiB, doubling. */
		for (uintptr_t from = at; lo > from;) {
			if (ntaken == 16) {
				ok = 0;
				break;
			}
			void *m = mmap((void *)from, lo - from, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m == (void *)from) {
				taken[ntaken][0] = from;
				taken[ntaken++][1] = lo;
				break;
			}
			if (m != MAP_FAILED)
				munmap(m, lo - from);
			from = from < 65536 ? 65536 : from * 2;
		}
		if (lo >= BOOT_LOW_END)
			break;
		if (hi > at)
			at = hi;
	}
	unsigned best = 16;
	for (unsigned i = 0; i < ntaken; i++)
		if (taken[i][1] - taken[i][0] >= BOOT_LOW_MIN &&
		    (best == 16 || taken[i][1] - taken[i][0] > taken[best][1] - taken[best][0]))
			best = i;
	if (!ok || best == 16) {
		for (unsigned i = 0; i < ntaken; i++)
			munmap((void *)taken[i][0], taken[i][1] - taken[i][0]);
		return 0;
	}
	for (unsigned i = 0; i < ntaken; i++)
		if (i != best)
			mprotect((void *)taken[i][0], taken[i][1] - taken[i][0], PROT_NONE);
	boot = (unsigned char *)taken[best][0];
	boot_cap = taken[best][1] - taken[best][0];
	return 1;
}

static void boot_choose(void)
{
	int expect = 0;
	if (!atomic_compare_exchange_strong(&boot_state, &expect, 1)) {
		while (atomic_load(&boot_state) != 2)
			sched_yield();
		return;
	}
	if (boot_take_low()) {
		boot_limit = BOOT_LOW_END;
	} else {
		boot = boot_static;
		boot_cap = BOOT_SIZE;
	}
	atomic_store(&boot_state, 2);
}

static int in_boot(const void *p)
{
	return boot && (uintptr_t)p - (uintptr_t)boot < boot_cap;
}

/* 16 bytes of size before each bootstrap block, 16-aligned (or `align`). */
static void *boot_alloc(size_t n, size_t align)
{
	if (atomic_load_explicit(&boot_state, memory_order_acquire) != 2)
		boot_choose();
	if (align < 16)
		align = 16;
	if (n > boot_cap)
		return NULL;
	size_t need = (n + 15) / 16 * 16 + 16 + align, start = atomic_fetch_add(&boot_used, need);
	if (start + need > boot_cap)
		return NULL;
	uintptr_t p = ((uintptr_t)(boot + start) + 16 + align - 1) & ~(uintptr_t)(align - 1);
	((size_t *)p)[-1] = n;
	atomic_fetch_add_explicit(&boot_blocks, 1, memory_order_relaxed);
	return (void *)p;
}

static size_t boot_size(const void *p) { return ((const size_t *)p)[-1]; }

/* ---- loading ---- */

static void fatal(const char *what, const char *why)
{
	char line[1200];
	int n = snprintf(line, sizeof line, "alloclab-preload: %s%s%s\n", what, why ? ": " : "", why ? why : "");
	if (write(2, line, n > 0 && (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
		_exit(127);
	_exit(127);
}

static void thread_gone(void *arg)
{
	(void)arg;
	if (alloc.ops.thread_detach) {
		nested++;
		alloc.ops.thread_detach(alloc.instance);
		nested--;
	}
	attached = 0;
}

static void finish_recording(void)
{
	char err[ALLOCLAB_ERR_LEN];
	nested++;
	if (alloclab_recorder_finish(NULL, err, sizeof err) != 0)
		fatal("recording", err);
	nested--;
}

/* ALLOCLAB_PRELOAD_LATENCY=K:PATH: the program's calls timed, every K-th
 * of each thread, from the plugin's load to exit; the counts written to
 * PATH at exit by the process that loaded it (a forked child's calls are
 * not its own, and are not timed). */
static char *latency_path;
static pid_t latency_pid;

static void finish_latency(void)
{
	struct alloclab_latency *l;
	json_t *j;

	if (getpid() != latency_pid)
		return;
	nested++;
	l = alloclab_latency_stop();
	j = l ? alloclab_latency_to_json(l) : NULL;
	/* Not fatal: the program's exit status stays its own, and the
	 * missing record is what the reader reports. */
	if ((j == NULL || json_dump_file(j, latency_path, JSON_COMPACT) != 0) &&
	    write(2, "alloclab-preload: cannot write the latency record\n", 50) < 0)
		latency_pid = 0;
	json_decref(j);
	alloclab_latency_free(l);
	nested--;
}

static void start_latency(const char *setting)
{
	char *end;
	unsigned long k = strtoul(setting, &end, 10);

	if (k == 0 || k > ALLOCLAB_LATENCY_MAX_EVERY || *end != ':' || end[1] == '\0')
		fatal("ALLOCLAB_PRELOAD_LATENCY is not K:PATH", setting);
	latency_path = boot_alloc(strlen(end + 1) + 1, 16);
	strcpy(latency_path, end + 1);
	latency_pid = getpid();
	alloclab_latency_install(&alloc, (unsigned)k);
	alloclab_latency_thread(0);
	alloclab_latency_start();
	atexit(finish_latency);
	unsetenv("ALLOCLAB_PRELOAD_LATENCY");
}

/* ALLOCLAB_PRELOAD_CENSUS=PATH: every block the program holds counted
 * (census.h), and at exit what it held then and at most, and its
 * anonymous memory before the plugin served anything (what is not the
 * allocator's), written to PATH.PID by each process that loaded the
 * library (a program's children are counted too, each on its own):
 * {"live_bytes": N, "peak_bytes": N, "anon_start_kib": N, "anon_peak_kib": N,
 *  "rss_start_kib": N},
 * anon_peak_kib the most anonymous memory read as the most held grew (by a
 * sixteenth at a time) and at exit, rss_start_kib the whole resident set
 * before the plugin was loaded (the program's own start, which its peak by
 * wait4 also holds). */
static char *census_path;
static pid_t census_pid;
static unsigned long census_anon_kib, census_rss_kib;
static _Atomic unsigned long census_anon_peak_kib; /* read as the most held grows, and at exit */

/* statm's resident less its shared pages (the heap, not the code), or
 * with whole 1 the whole resident set, in KiB; 0 unknown. */
static unsigned long statm_kib(int whole)
{
	char buf[128];
	unsigned long size, resident, shared;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%lu %lu %lu", &size, &resident, &shared) != 3 || resident < shared)
		return 0;
	return (whole ? resident : resident - shared) * ((unsigned long)sysconf(_SC_PAGESIZE) / 1024);
}

static unsigned long anon_kib_now(void)
{
	return statm_kib(0);
}

static void census_peak(void)
{
	unsigned long now = anon_kib_now();
	if (now > census_anon_peak_kib)
		census_anon_peak_kib = now;
}

static void finish_census(void)
{
	uint64_t live, peak;

	if (getpid() != census_pid)
		return;
	nested++;
	census_peak();
	alloclab_census_read(&live, &peak);
	char path[4096];
	snprintf(path, sizeof path, "%s.%ld", census_path, (long)census_pid);
	json_t *j = json_pack("{s:I,s:I,s:I,s:I,s:I}", "live_bytes", (json_int_t)live, "peak_bytes", (json_int_t)peak,
			      "anon_start_kib", (json_int_t)census_anon_kib, "anon_peak_kib",
			      (json_int_t)census_anon_peak_kib, "rss_start_kib", (json_int_t)census_rss_kib);
	if ((j == NULL || json_dump_file(j, path, JSON_COMPACT) != 0) &&
	    write(2, "alloclab-preload: cannot write the census\n", 42) < 0)
		census_pid = 0;
	json_decref(j);
	nested--;
}

/* anon_before_kib: the process's anonymous memory before the plugin was
 * loaded, the program's own start (an allocator's start-up, its arenas
 * and tables, is part of what it costs, not the program's). */
static void start_census(const char *path, unsigned long anon_before_kib, unsigned long rss_before_kib)
{
	census_path = boot_alloc(strlen(path) + 1, 16);
	strcpy(census_path, path);
	census_pid = getpid();
	census_anon_kib = anon_before_kib;
	census_rss_kib = rss_before_kib;
	if (alloclab_census_install(&alloc, census_peak) != 0)
		fatal("cannot map the census's table", NULL);
	atexit(finish_census);
}

/* ALLOCLAB_PRELOAD_REPORT=1: what the library did, on stderr at exit. */
static void report(void)
{
	char line[256];
	int n = snprintf(line, sizeof line,
			 "alloclab-preload: bootstrap: %zu blocks, %zu bytes, %zu frees ignored, %s area; aligned by the "
			 "library: %zu live; size headers: %s; paths: %s\n",
			 atomic_load(&boot_blocks), atomic_load(&boot_used), atomic_load(&boot_frees),
			 boot_limit > 1 ? "low" : "static", atomic_load(&alive), headers ? "yes" : "no",
			 free_path == generic_free ? "general" : "the allocator's own API");
	if (n > 0 && write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
		return;
}

static void fork_prepare(void) { nested++; }
static void fork_parent(void) { nested--; }
static void fork_child(void)
{
	/* A forked child's calls are not the recorded process's. */
	alloclab_recorder_forget();
	nested--;
}

/* The runner's handshake pipe (program.h): ALLOCLAB_PRELOAD_HANDSHAKE is
 * "FD:INODE", and the descriptor is written to only while it is still
 * that pipe, then closed and the variable removed, so that the programs
 * this one starts never write into a descriptor of its own. */
static int handshake_fd = -1;

static void handshake_open(void)
{
	const char *hs = getenv("ALLOCLAB_PRELOAD_HANDSHAKE");
	int fd;
	unsigned long ino;
	struct stat st;

	if (hs == NULL || sscanf(hs, "%d:%lu", &fd, &ino) != 2)
		return;
	unsetenv("ALLOCLAB_PRELOAD_HANDSHAKE");
	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) && st.st_ino == ino)
		handshake_fd = fd;
}

static void handshake_say(char what)
{
	if (handshake_fd >= 0 && write(handshake_fd, &what, 1) != 1) {
		close(handshake_fd);
		handshake_fd = -1;
	}
	if (what == 'S' && handshake_fd >= 0) {
		close(handshake_fd);
		handshake_fd = -1;
	}
}

static void load_plugin(void);
static void choose_paths(int recording);

/* Loads the plugin with the program's stdout pointed at its stderr, so
 * that what a plugin prints while it loads never becomes the program's
 * output (and its hash). */
static void load(void)
{
	int saved = dup(1);
	handshake_open();
	handshake_say('L');
	if (saved >= 0)
		dup2(2, 1);
	load_plugin();
	if (saved >= 0) {
		fflush(stdout);
		dup2(saved, 1);
		close(saved);
	}
	handshake_say('S');
}

static void load_plugin(void)
{
	char err[ALLOCLAB_ERR_LEN], *spec, *options;
	const char *env = getenv("ALLOCLAB_PRELOAD_PLUGIN"), *record = getenv("ALLOCLAB_PRELOAD_RECORD");
	const char *gil = getenv("ALLOCLAB_PRELOAD_GIL");

	/* Before any allocator serves the program: the census's baseline. */
	const unsigned long anon_before_kib = anon_kib_now(), rss_before_kib = statm_kib(1);
	void *sym = dlsym(RTLD_NEXT, "malloc_usable_size");
	memcpy(&libc_usable, &sym, sizeof sym);
	if (env == NULL || env[0] == '\0')
		fatal("ALLOCLAB_PRELOAD_PLUGIN is not set", "name the plugin (NAME or PATH[:options])");
	/* name[:options]; a path's options start after its ".so:". */
	spec = boot_alloc(strlen(env) + 1, 16);
	strcpy(spec, env);
	options = strstr(spec, ".so:");
	options = options ? options + 3 : (strchr(spec, '/') ? NULL : strchr(spec, ':'));
	if (options)
		*options++ = '\0';
	/* Deep binding: the plugin and the libraries it brings resolve their
	 * own symbols first, never the program's: CPython's plugin inside a
	 * Python program must call its libpython, not the program's
	 * interpreter (which is not even started yet). */
	if (alloclab_plugin_load_flags(spec, RTLD_DEEPBIND, &plugin, err, sizeof err) != 0)
		fatal(err, strstr(err, "static TLS") ? "set GLIBC_TUNABLES=glibc.rtld.optional_static_tls=16384 "
							   "(alloclab exec does)"
						     : NULL);
	if (alloclab_allocator_create(&alloc, &plugin, options ? options : "", err, sizeof err) != 0)
		fatal(err, NULL);
	/* A program cannot run on blocks that alias (the noop plugin). */
	void *a = alloclab_malloc(&alloc, 16), *b = alloclab_malloc(&alloc, 16);
	if (a == NULL || a == b)
		fatal(spec, "not an allocator a program can run on: it returned the same block twice, or none");
	alloclab_free(&alloc, a);
	alloclab_free(&alloc, b);
	if (record && record[0]) {
		json_t *meta = json_pack("{s:s,s:s,s:{s:s,s:s}}", "alloclab", ALLOCLAB_VERSION, "program",
					 program_invocation_name, "recorded", "plugin", spec, "plugin_options",
					 options ? options : "");
		if (alloclab_recorder_start(&alloc, record, meta, 1, err, sizeof err) != 0)
			fatal("recording", err);
		alloclab_recorder_thread(0); /* the thread loading: the main thread, as a rule */
		atexit(finish_recording);
		/* The program's children are not recorded (each would write
		 * the same file). */
		unsetenv("ALLOCLAB_PRELOAD_RECORD");
	}
	if (!(alloc.caps & ALLOCLAB_CAP_THREAD_SAFE) || (gil && strcmp(gil, "1") == 0))
		alloclab_allocator_global_lock(&alloc);
	/* The census, then the timer, wrap what the program's calls reach.
	 * Each takes the allocator's own API away, so the general paths
	 * serve. */
	const char *census = getenv("ALLOCLAB_PRELOAD_CENSUS");
	if (census && census[0])
		start_census(census, anon_before_kib, rss_before_kib);
	const char *latency = getenv("ALLOCLAB_PRELOAD_LATENCY");
	if (latency && latency[0])
		start_latency(latency);
	needs_one_thread = !(alloc.caps & ALLOCLAB_CAP_CROSS_THREAD_FREE);
	headers = alloc.ops.usable_size == NULL;
	const char *rep = getenv("ALLOCLAB_PRELOAD_REPORT");
	if (rep && strcmp(rep, "1") == 0)
		atexit(report);
	if (alloc.ops.thread_detach && pthread_key_create(&detach_key, thread_gone) != 0)
		fatal("cannot create a thread key", NULL);
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	choose_paths(record && record[0]);
}

/* The plugin ready for this thread: 1, or 0 when this thread is loading it
 * (its requests go to the bootstrap area). */
static inline int ready(void)
{
	int s = atomic_load_explicit(&state, memory_order_acquire);
	if (__builtin_expect(s == READY, 1)) {
		if (__builtin_expect(!attached, 0)) {
			attached = 1;
			if (needs_one_thread && getpid() != gettid())
				fatal("this program starts threads and the plugin cannot free blocks across them",
				      "not applicable (a plugin with per-thread state, such as obmalloc's mode=per-thread)");
			if (alloc.ops.thread_attach) {
				nested++;
				if (alloc.ops.thread_attach(alloc.instance) != 0)
					fatal("thread_attach failed", NULL);
				pthread_setspecific(detach_key, (void *)1);
				nested--;
			}
		}
		return 1;
	}
	if (loading_here)
		return 0;
	s = UNINIT;
	if (atomic_compare_exchange_strong(&state, &s, LOADING)) {
		loading_here = 1;
		load();
		loading_here = 0;
		atomic_store_explicit(&state, READY, memory_order_release);
		return ready();
	}
	while (atomic_load_explicit(&state, memory_order_acquire) != READY)
		sched_yield();
	return ready();
}

__attribute__((constructor)) static void preload_init(void) { ready(); }

/* ---- blocks with a size header (plugins without usable_size) ---- */

#define HEADER 16

static inline void *plugin_malloc(size_t n)
{
	if (!headers)
		return alloc.direct_malloc ? alloc.direct_malloc(n) : alloclab_malloc(&alloc, n);
	if (n > SIZE_MAX - HEADER)
		return NULL;
	size_t *p = alloclab_malloc(&alloc, n + HEADER);
	if (p == NULL)
		return NULL;
	p[0] = n;
	return (char *)p + HEADER;
}

static inline void plugin_free(void *p)
{
	if (alloc.direct_free && !headers)
		alloc.direct_free(p);
	else
		alloclab_free(&alloc, headers ? (char *)p - HEADER : p);
}

static inline size_t plugin_usable(void *p)
{
	return headers ? *(size_t *)((char *)p - HEADER) : alloc.ops.usable_size(alloc.instance, p);
}

/* ---- aligned blocks the plugin cannot align: p -> the block under it ---- */

static pthread_mutex_t aligned_lock = PTHREAD_MUTEX_INITIALIZER;
/* Kept with the C library's own allocator, never the plugin's. */
static struct alloclab_addr_map aligned_map = {.calloc_fn = __libc_calloc, .free_fn = __libc_free};

/* The block under aligned pointer k, removed when `take`; NULL if k is not one. */
static void *aligned_get(uintptr_t k, int take)
{
	uint64_t under = 0;
	if (atomic_load_explicit(&alive, memory_order_relaxed) == 0)
		return NULL;
	pthread_mutex_lock(&aligned_lock);
	if (alloclab_addr_map_get(&aligned_map, k, &under, take) && take)
		atomic_fetch_sub(&alive, 1);
	pthread_mutex_unlock(&aligned_lock);
	return (void *)(uintptr_t)under;
}

static void aligned_blocks_exist(void);

static void *plugin_aligned(size_t align, size_t n)
{
	if (align <= alloc.min_align && !headers)
		return alloclab_malloc(&alloc, n);
	if (alloc.ops.aligned_alloc && !headers)
		return alloc.ops.aligned_alloc(alloc.instance, align, n);
	if (n > SIZE_MAX - align)
		return NULL;
	char *under = plugin_malloc(n + align);
	if (under == NULL)
		return NULL;
	uintptr_t p = ((uintptr_t)under + align) & ~(uintptr_t)(align - 1);
	pthread_mutex_lock(&aligned_lock);
	int rc = alloclab_addr_map_put(&aligned_map, p, (uint64_t)(uintptr_t)under);
	if (rc == 0) {
		atomic_fetch_add(&alive, 1);
		aligned_blocks_exist();
	}
	pthread_mutex_unlock(&aligned_lock);
	if (rc != 0) {
		plugin_free(under);
		return NULL;
	}
	return (void *)p;
}

/*
 * The path each call takes, chosen once. Until the plugin is loaded, and
 * for a plugin that needs any of it (size headers, a lock, a recording,
 * thread hooks, one thread only), the general paths below; once a plugin
 * that offers its allocator's C API (program_api) is loaded, that API
 * itself: malloc is one load and a jump, free one range test (the
 * bootstrap area) more, as a program preloading the allocator natively
 * pays nothing. The first aligned block the library itself makes (for a
 * plugin that cannot align) sends free, realloc and usable size back to
 * the general paths, which find such blocks in their table.
 */
/* (The paths themselves are declared with the loading state above.) */

#define SET_PATH(path, fn) __atomic_store_n(&(path), (fn), __ATOMIC_RELEASE)

/* The allocator's own free, for the static area: its range tested first. */
static void (*api_free)(void *);
static void checked_free(void *p)
{
	if (__builtin_expect(in_boot(p), 0)) {
		atomic_fetch_add_explicit(&boot_frees, 1, memory_order_relaxed);
		return;
	}
	api_free(p);
}

static void *direct_realloc(void *p, size_t n)
{
	if (p == NULL)
		return malloc_path(n);
	if (__builtin_expect(in_boot(p), 0))
		return generic_realloc(p, n);
	if (n == 0) {
		free(p);
		return NULL; /* as glibc does */
	}
	return alloc.program.realloc(p, n);
}

static size_t direct_usable(void *p)
{
	if (p == NULL)
		return 0;
	if (__builtin_expect(in_boot(p), 0))
		return boot_size(p);
	return alloc.program.usable_size(p);
}

/* After the plugin is loaded, before any other thread can use it. */
static void choose_paths(int recording)
{
	const struct alloclab_program_api *api = &alloc.program;
	if (api->malloc == NULL || headers || needs_one_thread || recording)
		return;
	SET_PATH(malloc_path, api->malloc);
	api_free = api->free;
	SET_PATH(free_path, boot_limit > 1 ? api->free : checked_free);
	if (api->calloc)
		SET_PATH(calloc_path, api->calloc);
	if (api->realloc)
		SET_PATH(realloc_path, direct_realloc);
	if (api->usable_size)
		SET_PATH(usable_path, direct_usable);
	if (api->aligned_alloc)
		SET_PATH(memalign_path, api->aligned_alloc);
}

/* The library made an aligned block of its own: the general paths know them. */
static void aligned_blocks_exist(void)
{
	if (free_path != generic_free) {
		SET_PATH(free_path, generic_free);
		SET_PATH(realloc_path, generic_realloc);
		SET_PATH(usable_path, generic_usable);
	}
}

/* ---- the general paths: loading, nesting, bootstrap, headers, hooks ---- */

static void *generic_malloc(size_t n)
{
	if (nested || !ready())
		return nested ? __libc_malloc(n) : boot_alloc(n, 16);
	nested++;
	void *p = plugin_malloc(n);
	nested--;
	if (p == NULL)
		errno = ENOMEM;
	return p;
}

static void generic_free(void *p)
{
	if (p == NULL)
		return;
	if (in_boot(p)) {
		atomic_fetch_add_explicit(&boot_frees, 1, memory_order_relaxed);
		return;
	}
	if (nested) {
		__libc_free(p);
		return;
	}
	ready();
	nested++;
	void *under = aligned_get((uintptr_t)p, 1);
	plugin_free(under ? under : p);
	nested--;
}

/* C23's sized frees (not declared by glibc 2.36): the plugin's free_sized
 * where it can take the size as the program gives it, else free. */
EXPORT void free_sized(void *p, size_t n);
EXPORT void free_aligned_sized(void *p, size_t align, size_t n);

EXPORT void free_sized(void *p, size_t n)
{
	if (p == NULL || nested || in_boot(p) || headers || !ready() || aligned_get((uintptr_t)p, 0)) {
		free(p);
		return;
	}
	nested++;
	alloclab_free_sized(&alloc, p, n);
	nested--;
}

EXPORT void free_aligned_sized(void *p, size_t align, size_t n)
{
	(void)align;
	(void)n;
	free(p); /* the ABI frees aligned blocks with free */
}

static void *generic_calloc(size_t m, size_t n)
{
	if (n && m > SIZE_MAX / n) {
		errno = ENOMEM;
		return NULL;
	}
	if (nested || !ready()) {
		if (nested)
			return __libc_calloc(m, n);
		return boot_alloc(m * n, 16); /* the static area is zero */
	}
	nested++;
	void *p;
	if (headers) {
		p = plugin_malloc(m * n);
		if (p)
			memset(p, 0, m * n);
	} else {
		p = alloclab_calloc(&alloc, m, n);
	}
	nested--;
	if (p == NULL)
		errno = ENOMEM;
	return p;
}

static size_t generic_usable(void *p)
{
	if (p == NULL)
		return 0;
	if (in_boot(p))
		return boot_size(p);
	if (nested)
		return libc_usable ? libc_usable(p) : 0;
	ready();
	nested++;
	void *under = aligned_get((uintptr_t)p, 0);
	size_t n = under ? plugin_usable(under) - (size_t)((char *)p - (char *)under) : plugin_usable(p);
	nested--;
	return n;
}

static void *generic_realloc(void *p, size_t n)
{
	if (p == NULL)
		return malloc(n);
	if (nested)
		return __libc_realloc(p, n);
	if (n == 0) {
		free(p);
		return NULL;
	}
	if (!ready() || in_boot(p) || aligned_get((uintptr_t)p, 0) || alloc.ops.realloc == NULL || headers) {
		/* Copy: out of the bootstrap area, out of an aligned block (the
		 * new one need not be aligned), or for a plugin without
		 * realloc. */
		size_t old = malloc_usable_size(p);
		void *q = malloc(n);
		if (q == NULL)
			return NULL;
		memcpy(q, p, old < n ? old : n);
		free(p);
		return q;
	}
	nested++;
	void *q = alloc.ops.realloc(alloc.instance, p, n);
	nested--;
	if (q == NULL)
		errno = ENOMEM;
	return q;
}

EXPORT void *reallocarray(void *p, size_t m, size_t n)
{
	if (n && m > SIZE_MAX / n) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, m * n);
}

static void *generic_memalign(size_t align, size_t n)
{
	if (nested)
		return __libc_memalign(align, n);
	if (!ready())
		return boot_alloc(n, align);
	nested++;
	void *p = plugin_aligned(align < sizeof(void *) ? sizeof(void *) : align, n);
	nested--;
	return p;
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	void *p = memalign_path(align, n);
	if (p == NULL)
		return ENOMEM;
	*out = p;
	return 0;
}

/* memalign and aligned_alloc as glibc 2.36 has them (programs rely on
 * it): an alignment under 16 is 16, malloc's, one that is not a power of
 * two is rounded up to the next, and only one past the largest power of
 * two is refused (EINVAL). aligned_alloc is memalign there (the C11 check
 * on the alignment came in glibc 2.38). */
EXPORT void *memalign(size_t align, size_t n)
{
	if (align > SIZE_MAX / 2 + 1) {
		errno = EINVAL;
		return NULL;
	}
	if (align < 16)
		align = 16; /* glibc's malloc alignment, whatever the plugin's */
	if (align & (align - 1))
		align = (size_t)1 << (64 - __builtin_clzll((unsigned long long)align));
	void *p = memalign_path(align, n);
	if (p == NULL)
		errno = ENOMEM;
	return p;
}

EXPORT void *aligned_alloc(size_t align, size_t n) { return memalign(align, n); }

EXPORT void *valloc(size_t n) { return aligned_alloc((size_t)sysconf(_SC_PAGESIZE), n); }

EXPORT void *pvalloc(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (n > SIZE_MAX - page) {
		errno = ENOMEM;
		return NULL;
	}
	return memalign(page, (n + page - 1) / page * page);
}

/* ---- the C API: each call through its path ---- */

EXPORT void *malloc(size_t n) { return malloc_path(n); }

/* NULL and the low bootstrap area's blocks in one comparison; with the
 * static area instead, free_path tests its range. */
EXPORT void free(void *p)
{
	if (__builtin_expect((uintptr_t)p < boot_limit, 0)) {
		if (p)
			atomic_fetch_add_explicit(&boot_frees, 1, memory_order_relaxed);
		return;
	}
	free_path(p);
}

EXPORT void *calloc(size_t m, size_t n) { return calloc_path(m, n); }

EXPORT void *realloc(void *p, size_t n) { return realloc_path(p, n); }

EXPORT size_t malloc_usable_size(void *p) { return usable_path(p); }
