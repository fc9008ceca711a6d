/*
 * The words the unicode workload allocates: random letters of a fixed
 * length, or the words of a real text, deterministic for a seed.
 */
#ifndef ALLOCLAB_WORDS_H
#define ALLOCLAB_WORDS_H

#include <stddef.h>
#include <stdint.h>

struct word_list {
	char **words;
	size_t *lens;
	size_t n;
};

/* Reads the whitespace-separated words of a text file. 0, or -1 with one
 * line in err: missing, empty, no words, or not text (a NUL byte, or under
 * 95% printable bytes). */
int unicode_read_text(const char *path, struct word_list *out, char *err, size_t err_len);
void unicode_free_words(struct word_list *w);

/*
 * Fills words[0..n) (each pointing to 33 writable bytes) and lens[]:
 * chars > 0: random lowercase words of that many letters; chars == 0: the
 * text's words in order from a seed-chosen start, wrapping around (words[i]
 * then points into `text`). Deterministic for (chars, n, seed, text).
 */
void unicode_make_words(unsigned chars, size_t n, uint64_t seed, const struct word_list *text, char **words,
			size_t *lens);

#endif
