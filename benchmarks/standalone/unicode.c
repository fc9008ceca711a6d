/*
 * The unicode workload's timed loop with no framework around it, for one
 * fixed word length on CPython 3.12's layout with ASCII words (the
 * workload's defaults): per round, allocate every word's string object,
 * write its header and characters as the workload does, then free them
 * all; first the Unicode line, then the Bytes line. It calls one
 * allocator's entry points directly (entry.h). Run under callgrind it
 * counts the loop alone, so `alloclab run --measure instructions -w
 * unicode:variant=Nchars,words=W,rounds=R` against it gives the harness's
 * own share per object (benchmarks/harness-ratio.sh).
 *
 *   unicode-standalone-ALLOCATOR WORDS CHARS ROUNDS
 */
#include "entry.h"
#include "helpers/string_layouts.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <valgrind/callgrind.h>

static void write_header(unsigned char *obj, size_t n)
{
	uint64_t one = 1, len = n;
	memcpy(obj, &one, 8);
	memcpy(obj + 16, &len, 8);
}

int main(int argc, char **argv)
{
	size_t words = argc > 1 ? strtoull(argv[1], NULL, 10) : 1024;
	size_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 32;
	unsigned long rounds = argc > 3 ? strtoul(argv[3], NULL, 10) : 50;
	const struct str_blocks lines[2] = {str_unicode_blocks(STR_PY312, STR_ASCII, n),
					    str_bytes_blocks(STR_PY312, n)};
	unsigned char **objs = calloc(words, sizeof *objs);
	char word[64];

	if (objs == NULL || words == 0 || n >= sizeof word)
		return 2;
	memset(word, 'a', sizeof word);
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
	for (int kind = 0; kind < 2; kind++) {
		const struct str_blocks b = lines[kind];
		for (unsigned long r = 0; r < rounds; r++) {
			for (size_t i = 0; i < words; i++) {
				unsigned char *o = ALLOC(b.object);
				if (o == NULL)
					return 1;
				write_header(o, n);
				memcpy(o + b.data_offset, word, n);
				o[b.data_offset + n] = 0;
				objs[i] = o;
			}
			for (size_t i = 0; i < words; i++)
				FREE(objs[i]);
		}
	}
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("unicode loop");
	free(objs);
	printf("%llu\n", (unsigned long long)(2 * words * rounds));
	return 0;
}
