/*
 * Runs the fuzz target it is linked with (results_target.c, trace_target.c) on every file
 * named, or every file of every folder named: the seed corpus and each
 * crash the fuzzer has found, kept as regression tests. Prints TAP.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned n;

static void replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (f == NULL) {
		printf("not ok %u - %s: cannot open\n", ++n, path);
		return;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len + 1);
	if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
		printf("not ok %u - %s: cannot read\n", ++n, path);
	} else {
		LLVMFuzzerTestOneInput(buf, (size_t)len);
		/* A crash never gets here: the test fails by its signal. */
		printf("ok %u - %s\n", ++n, path);
	}
	free(buf);
	fclose(f);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			struct dirent **entries;
			int k = scandir(argv[i], &entries, NULL, alphasort);
			for (int e = 0; e < k; e++) {
				if (entries[e]->d_name[0] != '.') {
					char path[4200];
					snprintf(path, sizeof path, "%s/%s", argv[i], entries[e]->d_name);
					replay_file(path);
				}
				free(entries[e]);
			}
			if (k >= 0)
				free(entries);
		} else {
			replay_file(argv[i]);
		}
	}
	printf("1..%u\n", n);
	return 0;
}
