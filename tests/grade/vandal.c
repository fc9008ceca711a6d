/*
 * A hostile submission (tests/test_grade.c): the course's bump allocator
 * whose constructor overwrites another student's plugin (VICTIM, from
 * evidence.h) so that it fails, and says how it went ("V:denied").
 */
#include "evidence.h"
#include "bump.inc"

#include <fcntl.h>
#include <unistd.h>

__attribute__((constructor)) static void vandal(void)
{
	int fd = open(VICTIM, O_WRONLY | O_TRUNC);
	int ok = fd >= 0 && write(fd, "not a plugin any more\n", 22) == 22;
	if (fd >= 0)
		close(fd);
	fprintf(stderr, "V:%s\n", ok ? "REWRITTEN" : "denied");
}
