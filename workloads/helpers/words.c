/* The unicode workload's words. See words.h. */
#include "words.h"

#include "files/input_file.h"
#include "base/rng.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest word list read (a list of every word of a language is a few
 * MiB). */
#define MAX_TEXT_BYTES (256 << 20)

int unicode_read_text(const char *path, struct word_list *out, char *err, size_t err_len)
{
	char why[128];
	FILE *f = alloclab_fopen_regular(path, why, sizeof why);
	char *buf;
	long len;
	size_t printable = 0, cap = 0;

	memset(out, 0, sizeof *out);
	if (f == NULL) {
		snprintf(err, err_len, "workload 'unicode': text file %s: %s", path, why);
		return -1;
	}
	/* Read to the end, not to the size the file claims: a file of /proc
	 * says 0 and holds text. */
	size_t got = 0, room = 1 << 16;
	buf = malloc(room + 1);
	for (size_t n; buf && (n = fread(buf + got, 1, room - got, f)) > 0;) {
		got += n;
		if (got == room) {
			char *grown = room < MAX_TEXT_BYTES ? realloc(buf, room * 2 + 1) : NULL;
			if (grown == NULL) {
				fclose(f);
				free(buf);
				snprintf(err, err_len, "workload 'unicode': text file %s is larger than %d MiB", path,
					 MAX_TEXT_BYTES >> 20);
				return -1;
			}
			buf = grown;
			room *= 2;
		}
	}
	if (buf == NULL || ferror(f)) {
		fclose(f);
		free(buf);
		snprintf(err, err_len, "workload 'unicode': cannot read text file %s", path);
		return -1;
	}
	fclose(f);
	len = (long)got;
	if (len == 0) {
		free(buf);
		snprintf(err, err_len, "workload 'unicode': text file %s is empty; give text=FILE with some words", path);
		return -1;
	}
	buf[len] = '\0';
	for (long i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c == 0) {
			snprintf(err, err_len, "workload 'unicode': %s is not a text file (NUL byte at offset %ld)", path, i);
			free(buf);
			return -1;
		}
		printable += isprint(c) || isspace(c) || c >= 0x80;
	}
	if (printable < (size_t)len * 95 / 100) {
		snprintf(err, err_len, "workload 'unicode': %s is not a text file (%zu%% printable)", path,
			 printable * 100 / (size_t)len);
		free(buf);
		return -1;
	}
	for (char *save = NULL, *w = strtok_r(buf, " \t\r\n\f\v", &save); w; w = strtok_r(NULL, " \t\r\n\f\v", &save)) {
		if (out->n == cap) {
			cap = cap ? cap * 2 : 1024;
			out->words = realloc(out->words, cap * sizeof *out->words);
			out->lens = realloc(out->lens, cap * sizeof *out->lens);
		}
		out->lens[out->n] = strlen(w);
		out->words[out->n++] = strdup(w);
	}
	free(buf);
	if (out->n == 0) {
		snprintf(err, err_len, "workload 'unicode': text file %s has no words", path);
		return -1;
	}
	return 0;
}

void unicode_free_words(struct word_list *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->words[i]);
	free(w->words);
	free(w->lens);
	memset(w, 0, sizeof *w);
}

void unicode_make_words(unsigned chars, size_t n, uint64_t seed, const struct word_list *text, char **words,
			size_t *lens)
{
	struct alloclab_rng rng = {seed * ALLOCLAB_GOLDEN_GAMMA + chars};

	if (chars == 0) {
		size_t start = (size_t)(alloclab_rng_next(&rng) % text->n);
		for (size_t i = 0; i < n; i++) {
			words[i] = text->words[(start + i) % text->n];
			lens[i] = text->lens[(start + i) % text->n];
		}
		return;
	}
	for (size_t i = 0; i < n; i++) {
		lens[i] = chars;
		for (size_t c = 0; c < lens[i]; c++)
			words[i][c] = (char)('a' + alloclab_rng_next(&rng) % 26);
		words[i][lens[i]] = '\0';
	}
}

