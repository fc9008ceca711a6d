/* What other processes took of the CPUs a run may use. See cpu_share.h. */
#define _GNU_SOURCE 1
#include "measure/cpu_share.h"
#include "base/clock.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static void read_now(struct alloclab_cpu_reading *r)
{
	struct rusage self, children;
	cpu_set_t allowed;
	char line[512];
	double tick = (double)sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "r");

	memset(r, 0, sizeof *r);
	r->wall_s = alloclab_now_s();
	if (getrusage(RUSAGE_SELF, &self) == 0 && getrusage(RUSAGE_CHILDREN, &children) == 0)
		r->own_s = tv_s(self.ru_utime) + tv_s(self.ru_stime) + tv_s(children.ru_utime) + tv_s(children.ru_stime);
	if (f == NULL || tick <= 0 || sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
		if (f)
			fclose(f);
		return;
	}
	while (fgets(line, sizeof line, f)) {
		unsigned cpu;
		unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal = 0;
		/* "cpuN user nice system idle iowait irq softirq steal ..." (guest
		 * time is within user's); the total line "cpu " is no CPU's. */
		if (sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &user, &nice, &sys, &idle, &iowait,
			   &irq, &softirq, &steal) < 8 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed))
			continue;
		r->busy_s += (double)(user + nice + sys + irq + softirq) / tick;
		r->steal_s += (double)steal / tick;
		r->ok = 1;
	}
	fclose(f);
}

/* Other work and stolen time between two readings, in CPUs. */
static void between(const struct alloclab_cpu_reading *a, const struct alloclab_cpu_reading *b, double *others,
		    double *stolen)
{
	double wall = b->wall_s - a->wall_s;
	double other = (b->busy_s - a->busy_s) - (b->own_s - a->own_s);
	*others = wall > 0 && other > 0 ? other / wall : 0;
	*stolen = wall > 0 && b->steal_s > a->steal_s ? (b->steal_s - a->steal_s) / wall : 0;
}

void alloclab_cpu_share_start(struct alloclab_cpu_share *s)
{
	read_now(&s->first);
	s->window = s->first;
	s->peak = -1;
}

void alloclab_cpu_share_step(struct alloclab_cpu_share *s)
{
	struct alloclab_cpu_reading now;
	double others, stolen;
	read_now(&now);
	if (!now.ok || !s->window.ok || now.wall_s - s->window.wall_s < ALLOCLAB_CPU_WINDOW_S)
		return;
	between(&s->window, &now, &others, &stolen);
	if (others + stolen > s->peak)
		s->peak = others + stolen;
	s->window = now;
}

int alloclab_cpu_share_end(struct alloclab_cpu_share *s, double *others, double *stolen, double *peak)
{
	struct alloclab_cpu_reading now;
	read_now(&now);
	*others = *stolen = *peak = -1;
	if (!now.ok || !s->first.ok)
		return -1;
	alloclab_cpu_share_step(s);
	between(&s->first, &now, others, stolen);
	/* A run shorter than a window: its whole time is its one window. */
	*peak = s->peak >= 0 ? s->peak : *others + *stolen;
	return 0;
}
