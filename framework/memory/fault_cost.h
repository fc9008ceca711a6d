/*
 * The machine's cost of a page fault: what one first touch of an
 * anonymous page costs the thread that takes it, in CPU time. An
 * allocator that returns memory to the kernel and takes it back pays this
 * for every page it touches again; on a virtual machine it is several
 * times what it is on bare metal (EPT violations, the host's own faults),
 * so the same allocator's ratio to another can change sign between
 * machines. Measured once a run, kept in the run's facts, so that a reader
 * can tell a fault-bound ratio from an allocator-bound one.
 */
#ifndef ALLOCLAB_FAULT_COST_H
#define ALLOCLAB_FAULT_COST_H

/* The median over a few rounds of the CPU time per first-touch fault of
 * 4 KiB pages (transparent huge pages refused for the probe's mapping),
 * in nanoseconds; takes 10 to 100 ms. < 0 when it could not be measured
 * (no memory, no fault counted). */
double alloclab_fault_cost_ns(void);

#endif
