/* See input_file.h. */
#define _GNU_SOURCE 1
#include "files/input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *alloclab_fopen_regular(const char *path, char *why, size_t len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	FILE *f;

	if (fd < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, len, "not a regular file (%s)",
			 S_ISFIFO(st.st_mode) ? "a FIFO"
			 : S_ISDIR(st.st_mode) ? "a folder"
			 : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
			 : S_ISSOCK(st.st_mode) ? "a socket"
						: "special");
		close(fd);
		return NULL;
	}
	/* Reads of a regular file block as usual. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if ((f = fdopen(fd, "rb")) == NULL) {
		snprintf(why, len, "%s", strerror(errno));
		close(fd);
	}
	return f;
}
