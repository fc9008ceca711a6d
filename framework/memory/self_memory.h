/*
 * This process's memory as the kernel counts it, read by the process
 * itself: the worker's resident set at the steps of a value (before the
 * plugin, at the end of a run, after finish, trim and settle), a check
 * case's footprint.
 */
#ifndef ALLOCLAB_SELF_MEMORY_H
#define ALLOCLAB_SELF_MEMORY_H

/* The resident set from /proc/self/statm, in KiB, and (anon not NULL) its
 * anonymous part: resident less shared, the heap and not the code. -1
 * unknown. */
long alloclab_self_statm_kib(long *anon);

/* A "Name:  N kB" field of /proc/self/status (VmRSS, VmHWM...); -1. */
long alloclab_status_kib(const char *field);

/* Peak resident set of this process image (VmHWM), in KiB; -1 if unknown. */
long alloclab_peak_rss_kib(void);

#endif
