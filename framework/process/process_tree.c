/* See process_tree.h. */
#define _GNU_SOURCE 1
#include "process/process_tree.h"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_DEPTH = 16, MAX_PROCS = 4096 };

/* Resident KiB of one process, and its anonymous part. */
static uint64_t resident_kib(pid_t pid, uint64_t *anon_kib)
{
	char path[64];
	unsigned long size, resident, shared;
	FILE *f;
	snprintf(path, sizeof path, "/proc/%ld/statm", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	int ok = fscanf(f, "%lu %lu %lu", &size, &resident, &shared) == 3;
	fclose(f);
	const uint64_t kib = (uint64_t)sysconf(_SC_PAGESIZE) / 1024;
	if (!ok)
		return 0;
	*anon_kib += (resident > shared ? resident - shared : 0) * kib;
	return (uint64_t)resident * kib;
}

/* pid and its descendants, depth first, each given to visit (which may
 * stop a process before its children are listed): at most MAX_PROCS, to a
 * depth of MAX_DEPTH. A process's children are listed under the thread
 * that started each. */
struct tree_walk {
	void (*visit)(pid_t pid, void *arg);
	void *arg;
	unsigned seen;
};

static void walk(struct tree_walk *w, pid_t pid, unsigned depth)
{
	char path[96];
	DIR *tasks;
	struct dirent *t;

	if (w->seen >= MAX_PROCS)
		return;
	w->seen++;
	w->visit(pid, w->arg);
	if (depth >= MAX_DEPTH)
		return;
	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	if ((tasks = opendir(path)) == NULL)
		return;
	while ((t = readdir(tasks)) != NULL) {
		FILE *f;
		long child;
		if (t->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%.20s/children", (long)pid, t->d_name);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		while (fscanf(f, "%ld", &child) == 1)
			walk(w, (pid_t)child, depth + 1);
		fclose(f);
	}
	closedir(tasks);
}

struct statm_sum {
	uint64_t resident, anon;
};

static void add_resident(pid_t pid, void *arg)
{
	struct statm_sum *s = arg;
	s->resident += resident_kib(pid, &s->anon);
}

uint64_t alloclab_tree_statm_kib(pid_t pid, unsigned *count, uint64_t *anon_kib)
{
	struct statm_sum sum = {0, 0};
	struct tree_walk w = {add_resident, &sum, 0};
	walk(&w, pid, 0);
	if (count)
		*count = sum.resident ? w.seen : 0;
	if (anon_kib)
		*anon_kib = sum.anon;
	return sum.resident;
}

uint64_t alloclab_tree_resident_kib(pid_t pid, unsigned *count)
{
	return alloclab_tree_statm_kib(pid, count, NULL);
}

struct rollup_sum {
	uint64_t anon, huge;
	int read;
};

static void add_rollup(pid_t pid, void *arg)
{
	struct rollup_sum *r = arg;
	char path[64], buf[2048];
	snprintf(path, sizeof path, "/proc/%ld/smaps_rollup", (long)pid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *a = strstr(buf, "\nAnonymous:"), *h = strstr(buf, "\nAnonHugePages:");
	unsigned long kib;
	if (a && sscanf(a + 11, " %lu kB", &kib) == 1)
		r->anon += kib, r->read = 1;
	if (h && sscanf(h + 15, " %lu kB", &kib) == 1)
		r->huge += kib;
}

int alloclab_tree_rollup_kib(pid_t pid, uint64_t *anon_kib, uint64_t *huge_kib)
{
	struct rollup_sum r = {0, 0, 0};
	struct tree_walk w = {add_rollup, &r, 0};
	walk(&w, pid, 0);
	*anon_kib = r.anon;
	*huge_kib = r.huge;
	return r.read ? 0 : -1;
}

/* Stopped as it is found (so that it starts no more), killed after. */
struct found {
	pid_t pids[MAX_PROCS];
	unsigned n;
};

static void stop_and_keep(pid_t pid, void *arg)
{
	struct found *f = arg;
	kill(pid, SIGSTOP);
	f->pids[f->n++] = pid;
}

void alloclab_tree_kill(pid_t pid)
{
	static struct found found;
	struct tree_walk w = {stop_and_keep, &found, 0};
	found.n = 0;
	walk(&w, pid, 0);
	for (unsigned i = 0; i < found.n; i++)
		kill(found.pids[i], SIGKILL);
}

unsigned alloclab_kill_children(void)
{
	unsigned n = 0;
	DIR *tasks = opendir("/proc/self/task");
	struct dirent *t;

	if (tasks == NULL)
		return 0;
	while ((t = readdir(tasks)) != NULL) {
		char path[300];
		FILE *f;
		long pid;
		if (t->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/self/task/%s/children", t->d_name);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		while (fscanf(f, "%ld", &pid) == 1) {
			kill((pid_t)pid, SIGKILL);
			n++;
			waitpid((pid_t)pid, NULL, 0);
		}
		fclose(f);
	}
	closedir(tasks);
	return n;
}

static uint64_t limit_bytes;
static int limit_set;

uint64_t alloclab_default_memory_limit(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	unsigned long long kib = 0;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib ? (uint64_t)kib * 1024 / 4 * 3 : 0;
}

uint64_t alloclab_memory_limit(void)
{
	if (!limit_set) {
		limit_bytes = alloclab_default_memory_limit();
		limit_set = 1;
	}
	return limit_bytes;
}

void alloclab_set_memory_limit(uint64_t bytes)
{
	limit_bytes = bytes;
	limit_set = 1;
}
