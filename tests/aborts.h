/*
 * Whether a function aborts (SIGABRT) when run in a child process: for
 * the invariant checks, which abort only in builds that check them, so a
 * test cannot declare the signal up front.
 */
#ifndef ALLOCLAB_TEST_ABORTS_H
#define ALLOCLAB_TEST_ABORTS_H

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static inline int aborts(void (*fn)(void))
{
	pid_t pid = fork();
	if (pid == 0) {
		fn();
		_exit(0);
	}
	int status = 0;
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

#endif
