/* See process_tree.h. */
#define _GNU_SOURCE 1
#include "process_tree.h"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_DEPTH = 16, MAX_PROCS = 4096 };

static uint64_t resident_kib(pid_t pid)
{
	char path[64];
	unsigned long size, resident;
	FILE *f;
	snprintf(path, sizeof path, "/proc/%ld/statm", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	int ok = fscanf(f, "%lu %lu", &size, &resident) == 2;
	fclose(f);
	return ok ? (uint64_t)resident * ((uint64_t)sysconf(_SC_PAGESIZE) / 1024) : 0;
}

static void walk(pid_t pid, unsigned depth, uint64_t *kib, unsigned *count)
{
	char path[96];
	DIR *tasks;
	struct dirent *t;

	if (*count >= MAX_PROCS)
		return;
	(*count)++;
	*kib += resident_kib(pid);
	if (depth >= MAX_DEPTH)
		return;
	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	if ((tasks = opendir(path)) == NULL)
		return;
	/* A process's children are listed under the thread that started each. */
	while ((t = readdir(tasks)) != NULL) {
		FILE *f;
		long child;
		if (t->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%.20s/children", (long)pid, t->d_name);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		while (fscanf(f, "%ld", &child) == 1)
			walk((pid_t)child, depth + 1, kib, count);
		fclose(f);
	}
	closedir(tasks);
}

uint64_t alloclab_tree_resident_kib(pid_t pid, unsigned *count)
{
	uint64_t kib = 0;
	unsigned n = 0;
	walk(pid, 0, &kib, &n);
	if (count)
		*count = kib ? n : 0;
	return kib;
}

/* Every descendant of pid, into pids[0..*n). */
static void collect(pid_t pid, unsigned depth, pid_t *pids, unsigned *n)
{
	char path[96];
	DIR *tasks;
	struct dirent *t;

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
		while (*n < MAX_PROCS && fscanf(f, "%ld", &child) == 1) {
			pids[(*n)++] = (pid_t)child;
			kill((pid_t)child, SIGSTOP); /* no more children meanwhile */
			collect((pid_t)child, depth + 1, pids, n);
		}
		fclose(f);
	}
	closedir(tasks);
}

void alloclab_tree_kill(pid_t pid)
{
	static pid_t pids[MAX_PROCS];
	unsigned n = 0;
	collect(pid, 0, pids, &n);
	kill(pid, SIGKILL);
	for (unsigned i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
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
