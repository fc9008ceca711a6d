/* This process's memory as the kernel counts it. See self_memory.h. */
#include "memory/self_memory.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Read into the stack: no allocation (stdio would take a buffer from the
 * C library's heap, which the system plugin shares with the harness). */
long alloclab_self_statm_kib(long *anon)
{
	char buf[128];
	long size, pages, shared;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (anon)
		*anon = -1;
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%ld %ld %ld", &size, &pages, &shared) != 3)
		return -1;
	const long kib = sysconf(_SC_PAGESIZE) / 1024;
	if (anon)
		*anon = (pages > shared ? pages - shared : 0) * kib;
	return pages * kib;
}

long alloclab_status_kib(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	size_t n = strlen(field);
	long kib = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, field, n) == 0 && line[n] == ':' && sscanf(line + n + 1, " %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

long alloclab_peak_rss_kib(void)
{
	return alloclab_status_kib("VmHWM");
}
