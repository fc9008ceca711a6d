/*
 * How much of the CPUs a run may use other processes took while it ran.
 * A load average cannot say: it counts the run's own workers (a 2-thread
 * run on an idle 2-core machine reads near 2) and the minute before it.
 * This takes the busy time of the CPUs the process may use from the
 * kernel's counters (/proc/stat, one line a CPU), less the CPU time of
 * this process and of every child it has reaped (getrusage: its workers,
 * their programs, its probes), and the time a hypervisor took from those
 * CPUs (steal), over the whole run and over windows of at least
 * ALLOCLAB_CPU_WINDOW_S between the run's own steps.
 */
#ifndef ALLOCLAB_CPU_SHARE_H
#define ALLOCLAB_CPU_SHARE_H

/* The shortest window a peak is taken over: the kernel counts in ticks of
 * 10 ms a CPU, so a window of 2 s on 2 CPUs reads to about 1%. */
#define ALLOCLAB_CPU_WINDOW_S 2.0

struct alloclab_cpu_reading {
	double wall_s;  /* the monotonic clock */
	double busy_s;  /* the allowed CPUs' time not idle, stolen or waiting on I/O */
	double steal_s; /* their time a hypervisor gave to another guest */
	double own_s;   /* this process's CPU time and its reaped children's */
	int ok;         /* /proc/stat was read */
};

struct alloclab_cpu_share {
	struct alloclab_cpu_reading first, window;
	double peak; /* the busiest window's other work and stolen time, in CPUs; -1 none yet */
};

/* Reads the counters at the start. */
void alloclab_cpu_share_start(struct alloclab_cpu_share *s);
/* Between two of the run's steps (after a worker is reaped): closes the
 * window when it is ALLOCLAB_CPU_WINDOW_S long. */
void alloclab_cpu_share_step(struct alloclab_cpu_share *s);
/* At the end: the CPUs other processes kept busy on average, those the
 * host stole on average, and the most the two took together in a window
 * (the whole run where it was shorter than one), in CPUs. 0, or -1 when
 * the counters could not be read (all -1). */
int alloclab_cpu_share_end(struct alloclab_cpu_share *s, double *others, double *stolen, double *peak);

#endif
