/* A file's SHA-256. See file_hash.h. */
#include "files/file_hash.h"

#include "files/input_file.h"

#include <nettle/sha2.h>
#include <stdio.h>
#include <string.h>

static void to_hex(struct sha256_ctx *ctx, char hex[ALLOCLAB_SHA256_HEX])
{
	unsigned char digest[SHA256_DIGEST_SIZE];
	sha256_digest(ctx, sizeof digest, digest);
	for (size_t i = 0; i < sizeof digest; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

int alloclab_file_sha256(const char *path, char hex[ALLOCLAB_SHA256_HEX], char *err, size_t err_len)
{
	char why[512];
	/* A FIFO or a device would never end: regular files only. */
	FILE *f = alloclab_fopen_regular(path, why, sizeof why);
	struct sha256_ctx ctx;
	unsigned char buf[65536];
	size_t n;

	if (f == NULL) {
		snprintf(err, err_len, "%.900s: %s", path, why);
		return -1;
	}
	sha256_init(&ctx);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sha256_update(&ctx, n, buf);
	int failed = ferror(f);
	fclose(f);
	if (failed) {
		snprintf(err, err_len, "%.900s: cannot be read to its end", path);
		return -1;
	}
	to_hex(&ctx, hex);
	return 0;
}

void alloclab_sha256_hex(const void *data, size_t n, char hex[ALLOCLAB_SHA256_HEX])
{
	struct sha256_ctx ctx;
	sha256_init(&ctx);
	sha256_update(&ctx, n, data);
	to_hex(&ctx, hex);
}

int alloclab_sha256_hex_valid(const char *text)
{
	return text && strlen(text) == 64 && strspn(text, "0123456789abcdef") == 64;
}
