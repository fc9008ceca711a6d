/*
 * A hostile submission (tests/test_grade.c): the course's bump allocator
 * whose constructor kills the process that loaded it and that process's
 * parent (unchecked, the grader itself), with SIGKILL.
 */
#include "evidence.h"
#include "bump.inc"

#include <signal.h>
#include <unistd.h>

__attribute__((constructor)) static void killer(void)
{
	pid_t parent = getppid();
	kill(parent, SIGKILL);
	kill(getpid(), SIGKILL);
}
