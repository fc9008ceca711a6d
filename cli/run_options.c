/* The options of `alloclab run`. See run_options.h. */
#include "run_options.h"
#include "base/shell_word.h"
#include "files/self_exe.h"

#include <string.h>

const struct alloclab_run_option alloclab_run_options[] = {
	{'p', 'p', "plugin", "NAME[:k=v,...]", NULL,
	 "plugin by name or path (./x.so), with options; repeatable;\n"
	 "the option as=LABEL names it in tables (two builds of one plugin)", 0},
	{'w', 'w', "workload", "NAME[:k=v,...]", NULL, "workload with parameters; repeatable (see 'alloclab list')", 0},
	{'t', 't', "threads", "LIST", NULL, "thread counts, e.g. 1,2,4 (1..1024; default 1,2)", 0},
	{'n', 'n', "processes", "N|auto", NULL,
	 "worker processes per cell (default 5); auto: at least 5, more\n"
	 "until the 95% confidence interval of the cell's mean is\n"
	 "within --ci PERCENT of it (default 2), at most\n"
	 "--max-processes (default 40)", 0},
	{'I', 0, "ci", "PERCENT", NULL, NULL, 0},
	{'x', 0, "max-processes", "N", NULL, NULL, 0},
	{'v', 'v', "values", "N", NULL, "measured values per process (default 3)", 0},
	{'W', 0, "warmups", "N", NULL, "unmeasured values per process first (default 1)", 0},
	{'T', 0, "timeout", "SECONDS", NULL, "kill a worker process after this long (default 120; fractions allowed)", 0},
	{'P', 0, "pin", NULL, NULL, "pin thread i to the i-th CPU allowed", 0},
	{'O', 0, "order", "random|fixed", NULL,
	 "the order cells are visited in within each round of\n"
	 "processes: shuffled anew each round (default; the seed is\n"
	 "recorded), or the order of the plan", 0},
	{'S', 0, "order-seed", "N", NULL, "the shuffles' seed, to repeat a run's order (1..2^63-1)", 0},
	{'A', 0, "cache-align", "off|on|both", NULL,
	 "measure through a wrapper that puts every block on a\n"
	 "cache line (by over-allocation); both: each plugin twice", 0},
	{'X', 0, "words", "FILE", NULL, "the text the unicode workload takes its words from", 0},
	{'M', 0, "measure", "time|instructions|cache|tlb", "      --measure time|instructions|cache|tlb  ",
	 "what a value is: time (default), or instructions\n"
	 "per op counted by valgrind's callgrind in the timed region\n"
	 "only (deterministic; about 50x slower to run); cache adds\n"
	 "simulated L1/LL data misses per op (this machine's geometry);\n"
	 "tlb adds simulated first- and second-level data-TLB misses\n"
	 "per op (4 KiB pages; ALLOCLAB_TLB=E1,W1,E2,W2 to override)", 0},
	{'y', 0, "latency", NULL, NULL,
	 "also time every allocator call: per-op percentiles (p50 to p99.99,\n"
	 "max) and the slowest calls (docs/guides/latency.md)", 0},
	{'Y', 0, "latency-every", "K", NULL, "time every K-th call of each thread only (implies --latency)", 0},
	{'m', 0, "sample-ms", "MS", NULL,
	 "sample each worker's memory from outside it every MS ms\n"
	 "(default 10; 0: not), with its steps (docs/guides/memory.md)", 0},
	{'E', 0, "settle-ms", "MS", NULL,
	 "after the last value (and the plugin's trim), wait MS ms and\n"
	 "read what the worker holds again (default 0: not)", 0},
	{'R', 0, "paired", NULL, NULL,
	 "measure the run's plugins side by side in each worker process,\n"
	 "alternating their values, and compare each with the first by the\n"
	 "ratio of their times in the same processes (docs/guides/paired.md)", 0},
	{'G', 0, "pair", "A,B[,C...]", NULL,
	 "as --paired, for these of the run's plugins (by label), against A", 0},
	{'Z', 0, "slice-ops", "N", NULL,
	 "paired: alternate the plugins every N timed operations instead of\n"
	 "every whole value (default 0: whole values; slices are tighter but\n"
	 "bias a cache-bound workload: docs/guides/paired.md)", 0},
	{'B', 0, "slice-warm", "N", NULL,
	 "paired: untimed operations before each slice's timed ones, which\n"
	 "bring the plugin's memory back into the caches (default 0)", 0},
	{'U', 0, "unpaired", NULL, NULL,
	 "the default suite without pairing: each cell in processes of its own", 0},
	{'H', 0, "shard", "K/N", NULL,
	 "measure only shard K of N of the plan: the process rounds r with\n"
	 "r mod N = K-1, so every shard measures every cell; put the shards\n"
	 "together with 'alloclab merge' (docs/guides/cluster.md)", ALLOCLAB_RUN_OPTION_SHARD_OWNS},
	{'D', 0, "dry-run", NULL, NULL,
	 "plan only: probe the plugins, check every argument, print what\n"
	 "would be measured; measure and write nothing", ALLOCLAB_RUN_OPTION_SHARD_OWNS},
	{'C', 0, "check", NULL, "      --check / --no-check       ",
	 "put every plugin through 'alloclab check' first / none; by\n"
	 "default the plugins given by path are checked (cached per build)", 0},
	{'N', 0, "no-check", NULL, NULL, NULL, 0},
	{'o', 'o', "output", "FILE", NULL,
	 "results JSON (default alloclab-results/run-DATE.json); a results\n"
	 "file there is replaced, any other file is not", ALLOCLAB_RUN_OPTION_SHARD_OWNS},
	{'L', 0, "memory-limit", "SIZE|none", NULL,
	 "kill a worker (with what it started) whose resident memory passes\n"
	 "SIZE (K, M, G, T); default three quarters of the memory available", 0},
	{'q', 'q', "quiet", NULL, NULL, "do not print the table", 0},
	{'h', 'h', "help", NULL, NULL, "this text", 0},
	{0, 0, NULL, NULL, NULL, NULL, 0},
};

void alloclab_run_options_getopt(struct option *longopts, char *shortopts, size_t shortopts_len)
{
	size_t s = 0, n = 0;

	shortopts[s++] = ':';
	for (const struct alloclab_run_option *o = alloclab_run_options; o->name; o++, n++) {
		longopts[n] = (struct option){o->name, o->value ? required_argument : no_argument, NULL, o->key};
		if (o->short_name && s + 3 < shortopts_len) {
			shortopts[s++] = o->short_name;
			if (o->value)
				shortopts[s++] = ':';
		}
	}
	longopts[n] = (struct option){NULL, 0, NULL, 0};
	shortopts[s] = '\0';
}

/* The help's left column is 33 characters wide; a longer label takes the
 * rest of its line and the help starts there. */
#define HELP_COLUMN 33

void alloclab_run_options_help(FILE *out)
{
	for (const struct alloclab_run_option *o = alloclab_run_options; o->name; o++) {
		if (o->help == NULL)
			continue;
		char label[96];
		if (o->label)
			snprintf(label, sizeof label, "%s", o->label);
		else if (o->short_name)
			snprintf(label, sizeof label, "  -%c, --%s%s%s", o->short_name, o->name, o->value ? " " : "",
				 o->value ? o->value : "");
		else
			snprintf(label, sizeof label, "      --%s%s%s", o->name, o->value ? " " : "", o->value ? o->value : "");
		fprintf(out, "%-*s", HELP_COLUMN - 1, label);
		if (strlen(label) < HELP_COLUMN - 1)
			fputc(' ', out);
		for (const char *line = o->help; *line;) {
			size_t len = strcspn(line, "\n");
			if (line != o->help)
				fprintf(out, "%*s", HELP_COLUMN, "");
			fprintf(out, "%.*s\n", (int)len, line);
			line += len + (line[len] == '\n');
		}
	}
}

const struct alloclab_run_option *alloclab_run_option_of(const char *word, int *value_follows)
{
	*value_follows = 0;
	for (const struct alloclab_run_option *o = alloclab_run_options; o->name; o++) {
		size_t n = strlen(o->name);
		if (word[0] == '-' && word[1] == '-' && strncmp(word + 2, o->name, n) == 0 &&
		    (word[2 + n] == '\0' || (word[2 + n] == '=' && o->value))) {
			*value_follows = o->value && word[2 + n] == '\0';
			return o;
		}
		if (o->short_name && word[0] == '-' && word[1] == o->short_name && (word[2] == '\0' || o->value)) {
			*value_follows = o->value && word[2] == '\0';
			return o;
		}
	}
	return NULL;
}

int alloclab_run_options_in(const char *word, const struct alloclab_run_option **out, int max, int *value_follows)
{
	*value_follows = 0;
	if (word[0] != '-' || word[1] == '\0' || strcmp(word, "--") == 0)
		return 0;
	if (word[1] == '-') {
		const struct alloclab_run_option *o = alloclab_run_option_of(word, value_follows);
		if (o == NULL)
			return -1;
		if (max > 0)
			out[0] = o;
		return 1;
	}
	int n = 0;
	for (const char *c = word + 1; *c; c++) {
		const struct alloclab_run_option *o = NULL;
		for (const struct alloclab_run_option *q = alloclab_run_options; q->name; q++)
			if (q->short_name && q->short_name == *c)
				o = q;
		if (o == NULL)
			return n; /* getopt refuses it */
		if (n < max)
			out[n] = o;
		n++;
		if (o->value) { /* the rest of the word, or the next word, is its value */
			*value_follows = c[1] == '\0';
			break;
		}
	}
	return n;
}

void alloclab_shard_command(FILE *out, const json_t *command, unsigned k, unsigned n, const char *output)
{
	const json_t *w;
	size_t i;

	/* The alloclab running now, by its path: "alloclab" may not be on
	 * PATH where the command is pasted. The words are a results file's:
	 * shown, so that none acts on the terminal it is printed on. */
	alloclab_shell_word_shown(out, alloclab_self_path());
	json_array_foreach(command, i, w)
	{
		const char *word = json_string_value(w);
		int value_follows;
		if (i == 0 || word == NULL)
			continue;
		const struct alloclab_run_option *o = i > 1 ? alloclab_run_option_of(word, &value_follows) : NULL;
		if (o && (o->flags & ALLOCLAB_RUN_OPTION_SHARD_OWNS)) {
			i += (size_t)value_follows;
			continue;
		}
		fputc(' ', out);
		alloclab_shell_word_shown(out, word);
	}
	fprintf(out, " --shard %u/%u -o ", k, n);
	alloclab_shell_word_shown(out, output);
}
