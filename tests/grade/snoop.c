/*
 * A hostile submission for the grading's sandbox test (tests/test_grade.c):
 * the course's bump allocator (bump.inc, the test copies it in) whose
 * constructor tries, every time it is loaded, each way out the sandbox
 * must stop, and says on stderr how each went (the case's plugin output,
 * kept in the row) in one token each:
 *   S  read /etc/shadow                 R  read a file only root may read
 *   L  list the other submissions       N  connect to the test's port
 *   P  processes it could start         A  reserve 32 GiB of addresses
 *   F  write a file past 256 MiB        D  a daemon writing outside, later
 * What gets through also leaves evidence in the test's folder
 * (EVIDENCE, from evidence.h), which the sandbox hides.
 */
#include "evidence.h"
#include "bump.inc"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void leave(const char *name, const char *text)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", EVIDENCE, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			perror("write");
		close(fd);
	}
}

static const char *shadow(void)
{
	char buf[64];
	int fd = open("/etc/shadow", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return "denied";
	buf[n] = '\0';
	leave("shadow", buf);
	return "READ";
}

static const char *listing(void)
{
	DIR *d = opendir(SUBMISSIONS);
	if (d == NULL)
		return "denied";
	closedir(d);
	leave("listing", SUBMISSIONS);
	return "LISTED";
}

static const char *network(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(PORT)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	int ok = s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0;
	if (s >= 0)
		close(s);
	return ok ? "CONNECTED" : "denied";
}

/* As many processes as it can start, at most 400 at once. */
static int processes(void)
{
	int hold[2], n = 0;
	if (pipe(hold) != 0)
		return -1;
	for (; n < 400; n++) {
		pid_t p = fork();
		if (p < 0)
			break;
		if (p == 0) {
			char c;
			close(hold[1]);
			_exit(read(hold[0], &c, 1) < 0);
		}
	}
	close(hold[0]);
	close(hold[1]);
	while (wait(NULL) > 0)
		;
	return n;
}

static const char *big_file(void)
{
	signal(SIGXFSZ, SIG_IGN);
	const char *tmp = getenv("TMPDIR");
	char path[4200];
	snprintf(path, sizeof path, "%s/big", tmp ? tmp : "/tmp");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int ok = fd >= 0 && pwrite(fd, "x", 1, 300ll << 20) == 1;
	if (fd >= 0)
		close(fd);
	unlink(path);
	return ok ? "WRITTEN" : "denied";
}

/* A daemon (forked twice, its own session) that writes outside later. */
static void daemon_later(void)
{
	if (fork() != 0)
		return;
	setsid();
	if (fork() != 0)
		_exit(0);
	sleep(2);
	leave("daemon", "still running after its grading\n");
	_exit(0);
}

/* A file of its own folder that only root may read (the test makes it
 * so when it runs as root): whether the sandbox is root outside. */
static const char *root_only(void)
{
	char buf[16];
	const char *paths[] = {"/submission/rootonly", SUBMISSIONS "/snoop/rootonly"};
	for (int i = 0; i < 2; i++) {
		int fd = open(paths[i], O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
		if (fd >= 0)
			close(fd);
		if (n > 0) {
			leave("rootonly", paths[i]);
			return "READ";
		}
	}
	return "denied";
}

__attribute__((constructor)) static void snoop(void)
{
	void *space = mmap(NULL, 32ull << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (space != MAP_FAILED)
		munmap(space, 32ull << 30);
	fprintf(stderr, "S:%s R:%s L:%s N:%s P:%d A:%s F:%s\n", shadow(), root_only(), listing(), network(), processes(),
		space == MAP_FAILED ? "denied" : "GOT", big_file());
	daemon_later();
}
