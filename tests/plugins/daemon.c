/* Starts a process that leaves the process group (setsid) and sleeps, and
 * writes its pid to the file given as pidfile=PATH: the runner must still
 * kill and reap it when the cell ends. */
#include "test_plugin_common.h"
#include <signal.h>
#include <string.h>
#include <unistd.h>
static int daemon_create(const char *options, void **instance, char *err, size_t err_len)
{
	const char *cursor = options;
	struct alloclab_option opt;
	char path[4096] = "";
	pid_t pid;

	while (alloclab_option_next(&cursor, &opt) > 0)
		if (alloclab_option_is(&opt, "pidfile"))
			snprintf(path, sizeof path, "%.*s", (int)opt.value_len, opt.value);
	if (path[0] == '\0') {
		snprintf(err, err_len, "daemon needs pidfile=PATH");
		return -EINVAL;
	}
	pid = fork();
	if (pid == 0) {
		setsid();
		signal(SIGHUP, SIG_IGN);
		FILE *f = fopen(path, "w");
		if (f) {
			fprintf(f, "%ld\n", (long)getpid());
			fclose(f);
		}
		close(1);
		close(2);
		close(3);
		sleep(300);
		_exit(0);
	}
	/* Wait until the pid is written, so the test can look for it. */
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(path, "r");
		long got = 0;
		if (f) {
			int n = fscanf(f, "%ld", &got);
			fclose(f);
			if (n == 1 && got == (long)pid)
				break;
		}
		usleep(2000);
	}
	*instance = NULL;
	return 0;
}
static const struct alloclab_plugin desc = {
	TEST_PLUGIN_BASE("daemon"),
	.create = daemon_create,
};
ALLOCLAB_PLUGIN_DEFINE(desc)
