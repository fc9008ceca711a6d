/*
 * A program for the preload library's tests, one mode per run:
 *   api      every allocation call of the C API (and free_sized where the
 *            library offers it), sizes 1000 + k so the
 *            tests can find them in a trace; checks alignment and writes up
 *            to malloc_usable_size; prints "ok"
 *   fork     forks children that allocate, free and exit, waits for them
 *   threads  starts and ends 200 threads in waves, each freeing blocks the
 *            main thread allocated and handing back blocks of its own
 *   crash    dereferences NULL after allocating
 *   edges    the aligned calls at their edges (alignments 0, 3, 24, past
 *            the largest): prints what each gave (NULL or the alignment
 *            the block has, up to 64) and errno, to compare with glibc
 *   hold K   holds K blocks of 1000 bytes at once, then frees them
 * Exits 0 when everything checked out, 1 (with a line on stderr) if not.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "alloc_api: %s\n", what);
	return 1;
}

static int aligned_ok(void *p, size_t align, size_t n)
{
	if (p == NULL || (uintptr_t)p % align != 0 || malloc_usable_size(p) < n)
		return 0;
	memset(p, 0xa5, malloc_usable_size(p));
	return 1;
}

static int api(void)
{
	char *m = malloc(1001), *c = calloc(2, 501), *r, *ra;
	void *pm = NULL, *al, *me, *va, *pv;

	if (!m || !c)
		return fail("malloc or calloc returned NULL");
	for (int i = 0; i < 1002; i++)
		if (c[i] != 0)
			return fail("calloc's block is not zero");
	memset(m, 1, malloc_usable_size(m));
	if ((r = realloc(m, 1003)) == NULL || r[1000] != 1)
		return fail("realloc lost the contents");
	if ((ra = reallocarray(NULL, 4, 251)) == NULL)
		return fail("reallocarray");
	if (posix_memalign(&pm, 64, 1005) != 0 || !aligned_ok(pm, 64, 1005))
		return fail("posix_memalign");
	if (posix_memalign(&pm, 3, 10) == 0)
		return fail("posix_memalign took alignment 3");
	if (!aligned_ok(al = aligned_alloc(256, 1006), 256, 1006))
		return fail("aligned_alloc");
	if (!aligned_ok(me = memalign(4096, 1007), 4096, 1007))
		return fail("memalign");
	if (!aligned_ok(va = valloc(1008), (size_t)sysconf(_SC_PAGESIZE), 1008))
		return fail("valloc");
	if (!aligned_ok(pv = pvalloc(1009), (size_t)sysconf(_SC_PAGESIZE), 1009))
		return fail("pvalloc");
	/* An aligned block grown by realloc, then freed. */
	if ((al = realloc(al, 5000)) == NULL || ((unsigned char *)al)[1005] != 0xa5)
		return fail("realloc of an aligned block lost the contents");
	free(r);
	free(c);
	free(ra);
	free(pm);
	free(al);
	free(me);
	free(va);
	free(pv);
	free(NULL);
	/* C23's free_sized, where the library offers it (glibc 2.36 does not). */
	void *sym = dlsym(RTLD_DEFAULT, "free_sized");
	if (sym) {
		void (*free_sized_fn)(void *, size_t);
		memcpy(&free_sized_fn, &sym, sizeof sym);
		free_sized_fn(malloc(1010), 1010);
	}
	puts("ok");
	return 0;
}

static int forks(void)
{
	for (int i = 0; i < 20; i++) {
		char *keep = malloc(100 + i);
		pid_t pid = fork();
		if (pid < 0)
			return fail("fork");
		if (pid == 0) {
			for (int k = 0; k < 1000; k++)
				free(malloc(16 + k));
			free(keep);
			_exit(0);
		}
		int status;
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			return fail("a child failed");
		free(keep);
	}
	puts("ok");
	return 0;
}

#define WAVE 8
static void *worker(void *arg)
{
	void **blocks = arg;
	for (int i = 0; i < 64; i++) {
		free(blocks[i]); /* the main thread's */
		blocks[i] = malloc(24 + i);
	}
	return NULL;
}

static int threads(void)
{
	static void *blocks[WAVE][64];
	pthread_t tid[WAVE];
	for (int wave = 0; wave < 25; wave++) {
		for (int t = 0; t < WAVE; t++) {
			for (int i = 0; i < 64; i++)
				blocks[t][i] = malloc(8 + i * 3);
			if (pthread_create(&tid[t], NULL, worker, blocks[t]) != 0)
				return fail("pthread_create");
		}
		for (int t = 0; t < WAVE; t++) {
			pthread_join(tid[t], NULL);
			for (int i = 0; i < 64; i++)
				free(blocks[t][i]); /* the thread's, now ended */
		}
	}
	puts("ok");
	return 0;
}

/* "ok" for a block aligned to `want` (what glibc 2.36 gives: the
 * alignment rounded up to a power of two, at least 16), "misaligned", or
 * "NULL/errno". */
static void said(const char *call, void *p, size_t want)
{
	int err = errno;
	if (p)
		printf("%s=%s ", call, (uintptr_t)p % want == 0 ? "ok" : "misaligned");
	else
		printf("%s=NULL/%d ", call, err);
	free(p);
	errno = 0;
}

static int edges(void)
{
	/* Through a volatile: the alignments are the point, and a compiler
	 * would refuse them as constants. */
	static volatile size_t align[] = {0, 3, 24, SIZE_MAX, 48};
	void *p = NULL, *q;
	errno = 0;
	q = memalign(align[0], 10);
	said("memalign(0,10)", q, 16);
	q = memalign(align[1], 10);
	said("memalign(3,10)", q, 16);
	q = memalign(align[2], 10);
	said("memalign(24,10)", q, 32);
	q = memalign(align[3], 10);
	said("memalign(max,10)", q, 1);
	q = aligned_alloc(align[1], 10);
	said("aligned_alloc(3,10)", q, 16);
	q = aligned_alloc(align[0], 10);
	said("aligned_alloc(0,10)", q, 16);
	q = aligned_alloc(align[4], 100);
	said("aligned_alloc(48,100)", q, 64);
	int rc = posix_memalign(&p, align[1], 10);
	printf("posix_memalign(3,10)=%d ", rc);
	rc = posix_memalign(&p, align[0], 10);
	printf("posix_memalign(0,10)=%d\n", rc);
	return 0;
}

static int hold(long k)
{
	char **b = calloc((size_t)k, sizeof *b);
	if (b == NULL)
		return fail("hold: calloc");
	for (long i = 0; i < k; i++)
		if ((b[i] = malloc(1000)) == NULL)
			return fail("hold: malloc");
		else
			memset(b[i], 1, 1000);
	for (long i = 0; i < k; i++)
		free(b[i]);
	free(b);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "hold") == 0)
		return hold(atol(argv[2]));

	if (argc == 2 && strcmp(argv[1], "edges") == 0)
		return edges();
	if (argc == 2 && strcmp(argv[1], "api") == 0)
		return api();
	if (argc == 2 && strcmp(argv[1], "fork") == 0)
		return forks();
	if (argc == 2 && strcmp(argv[1], "threads") == 0)
		return threads();
	if (argc == 2 && strcmp(argv[1], "crash") == 0) {
		volatile int *p = malloc(16);
		free((void *)p);
		p = NULL;
		return *p;
	}
	return fail("usage: alloc_api api|fork|threads|crash|edges|hold K");
}
