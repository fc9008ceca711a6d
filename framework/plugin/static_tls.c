/* See static_tls.h. */
#define _GNU_SOURCE 1
#include "plugin/static_tls.h"
#include "base/lengths.h"

#include "files/self_exe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TUNABLE "glibc.rtld.optional_static_tls"
#define GUARD "ALLOCLAB_STATIC_TLS_REEXEC"

void alloclab_ensure_static_tls(char **argv)
{
	const char *current = getenv("GLIBC_TUNABLES");
	char value[ALLOCLAB_PATH_LEN];

	if ((current && strstr(current, TUNABLE)) || getenv(GUARD))
		return;
	/* Tunables are colon-separated; keep whatever the user set. */
	if (current && *current)
		snprintf(value, sizeof value, "%s:%s=%d", current, TUNABLE, ALLOCLAB_STATIC_TLS_BYTES);
	else
		snprintf(value, sizeof value, "%s=%d", TUNABLE, ALLOCLAB_STATIC_TLS_BYTES);
	setenv("GLIBC_TUNABLES", value, 1);
	setenv(GUARD, "1", 1);
	execv(alloclab_self_path(), argv);
	/* exec failed (no /proc?): carry on; a plugin that needs the reserve
	 * will fail to load with a message saying what to set. */
}
