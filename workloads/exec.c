/*
 * exec: a whole program as a workload, with the cell's plugin as its
 * malloc (liballoclab-preload.so, framework/process/program.h). One value is one
 * run of the program, timed from outside; the worker's own allocator
 * instance is not used.
 *
 * Either a program of the user's (cmd=, split at spaces, no shell; cwd=,
 * stdin=) or one of the programs that ship with Debian and allocate
 * heavily and deterministically, given inputs made in prepare (untimed):
 *   python  CPython 3.11 building and walking dicts of lists of strings
 *   perl    the same in Perl
 *   sqlite  SQLite's shell: a table filled by a recursive query, an index, grouping
 *   sort    GNU sort of generated words, two threads
 *   gcc     GCC compiling generated C to assembly (-O1; its cc1 is a
 *           second program under the plugin)
 *   xz      xz compressing the words in blocks, two threads
 * and three of alloclab's own, whose time is nearly all malloc and free
 * (workloads/exec_programs/; the preload path's cost against native
 * preloading is measured on them):
 *   alloc-loop     one thread: a ring of 1000 blocks of mixed sizes, one
 *                  replaced each step (10 million steps)
 *   bigint         big-integer arithmetic, a fresh number each operation
 *   alloc-threads  two threads of alloc-loop, every 16th block freed by
 *                  the other thread
 * Each reports a hash of its standard output (hashed as it streams, never
 * stored), so that every plugin can be checked to give the program's
 * output under glibc. A program the plugin never served (a static one, or
 * one the plugin ended while loading) is an error, never a measurement.
 */
#define _GNU_SOURCE 1
#include "process/program.h"
#include "measure/latency.h"
#include "base/hash.h"
#include "base/lengths.h"
#include "results/results.h"
#include "base/rng.h"
#include "files/scratch.h"
#include "files/self_exe.h"
#include "workload/workload.h"
#include "worker/worker.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { P_PROGRAM, P_CMD, P_CWD, P_STDIN, P_SCALE, P_NATIVE };
enum { PROG_NONE, PROG_PYTHON, PROG_PERL, PROG_SQLITE, PROG_SORT, PROG_GCC, PROG_XZ, PROG_LOOP, PROG_BIGINT,
       PROG_THREADS, NPROGS };
static const char *const program_names[] = {"none", "python",     "perl",   "sqlite",        "sort", "gcc",
					    "xz",   "alloc-loop", "bigint", "alloc-threads", NULL};
static const char *const program_groups[] = {
	"all",   "python+perl+sqlite+sort+gcc+xz+alloc-loop+bigint+alloc-threads",
	/* Debian's programs, and alloclab's own allocation-heavy ones (the
	 * preload path's cost against native preloading). */
	"debian", "python+perl+sqlite+sort+gcc+xz",
	"heavy",  "alloc-loop+bigint+alloc-threads",
	NULL};
static const char *const program_unless[] = {"cmd", NULL};

static const struct alloclab_param exec_params[] = {
	[P_PROGRAM] = {.name = "program", .help = "a bundled program with generated input, or 'all'",
		       .type = ALLOCLAB_PARAM_CHOICE, .choices = program_names, .groups = program_groups,
		       .max = NPROGS - 1, .def_text = "all", .def_unless = program_unless},
	[P_CMD] = {.name = "cmd", .help = "your program and its arguments, split at spaces (no shell)",
		   .type = ALLOCLAB_PARAM_TEXT, .def_text = ""},
	[P_CWD] = {.name = "cwd", .help = "the folder cmd runs in", .type = ALLOCLAB_PARAM_TEXT, .def_text = ""},
	[P_STDIN] = {.name = "stdin", .help = "the file cmd reads on its standard input", .type = ALLOCLAB_PARAM_TEXT,
		     .def_text = ""},
	[P_SCALE] = {.name = "scale", .help = "bundled programs' input size, percent", .def = 100, .min = 1,
		     .max = 100000},
	[P_NATIVE] = {.name = "native",
		      .help = "instead of the plugin, preload this library (an allocator's own LD_PRELOAD form: the "
			      "reference for the preload path's cost)",
		      .type = ALLOCLAB_PARAM_TEXT, .def_text = ""},
};

/* cmd= splits into at most this many words. */
#define MAX_WORDS 62

struct exec_state {
	char dir[ALLOCLAB_PATH_LEN];          /* the bundled programs' inputs (in the worker's scratch) */
	char own[ALLOCLAB_PATH_PLUS_LEN];     /* a program of alloclab's own: its path */
	char count[24];                       /* its "@N@" */
	char *argv_store;        /* cmd= split */
	const char *argv[MAX_WORDS + 2];
};

/* Words of cmd=, split at spaces. */
static unsigned count_words(const char *cmd)
{
	unsigned n = 0;
	for (const char *c = cmd; *c;) {
		c += strspn(c, " ");
		if (*c == '\0')
			break;
		n++;
		c += strcspn(c, " ");
	}
	return n;
}

static int exec_check(const struct alloclab_params *p, char *err, size_t err_len)
{
	int cmd = p->text[P_CMD][0] != '\0';
	if (cmd == (p->v[P_PROGRAM] != PROG_NONE)) {
		snprintf(err, err_len, "workload 'exec': give program= or cmd=");
		return -1;
	}
	if (cmd && count_words(p->text[P_CMD]) > MAX_WORDS) {
		snprintf(err, err_len, "workload 'exec': cmd= has %u words, more than %u", count_words(p->text[P_CMD]),
			 MAX_WORDS);
		return -1;
	}
	if (cmd && count_words(p->text[P_CMD]) == 0) {
		snprintf(err, err_len, "workload 'exec': cmd= names no program");
		return -1;
	}
	if (!cmd && (p->text[P_CWD][0] || p->text[P_STDIN][0])) {
		snprintf(err, err_len, "workload 'exec': cwd= and stdin= go with cmd=");
		return -1;
	}
	if (cmd && p->text[P_CWD][0]) {
		/* Said now, naming the folder, not found by the program's
		 * worker as an exit status. */
		struct stat st;
		if (stat(p->text[P_CWD], &st) != 0 || !S_ISDIR(st.st_mode)) {
			snprintf(err, err_len, "workload 'exec': cwd=%s: %s", p->text[P_CWD],
				 stat(p->text[P_CWD], &st) != 0 ? strerror(errno) : "not a folder");
			return -1;
		}
	}
	const unsigned files[] = {P_STDIN, P_NATIVE};
	for (unsigned i = 0; i < 2; i++) {
		struct stat st;
		const char *f = p->text[files[i]];
		if (f[0] == '\0')
			continue;
		if (stat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
			snprintf(err, err_len, "workload 'exec': %s=%s: %s", exec_params[files[i]].name, f,
				 stat(f, &st) != 0 ? strerror(errno) : "not a regular file");
			return -1;
		}
	}
	return 0;
}

/* ---- the bundled programs' inputs ---- */

/* An input's writer: fills f with n units of it. */
typedef void (*input_fn)(FILE *f, uint64_t n, const char *text);

/* Writes dir/name with fill. 0, or -1 with err. */
static int write_input(const char *dir, const char *name, input_fn fill, uint64_t n, const char *text, char *err,
		       size_t err_len)
{
	char path[ALLOCLAB_PATH_PLUS_LEN];
	FILE *f;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL) {
		snprintf(err, err_len, "exec: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	fill(f, n, text);
	if (ferror(f) | fclose(f)) {
		snprintf(err, err_len, "exec: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A program's text: the template with each "@N@" replaced by n. */
static void text_input(FILE *f, uint64_t n, const char *text)
{
	for (const char *at; (at = strstr(text, "@N@")) != NULL; text = at + 3) {
		fwrite(text, 1, (size_t)(at - text), f);
		fprintf(f, "%" PRIu64, n);
	}
	fputs(text, f);
}

/* n pseudo-random lower-case words, one a line, always the same. */
static void words_input(FILE *f, uint64_t n, const char *text)
{
	struct alloclab_rng rng = {ALLOCLAB_SEED_FIXED_INPUTS};
	(void)text;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t r = alloclab_rng_next(&rng);
		unsigned len = 3 + (unsigned)(r % 12);
		for (unsigned k = 0; k < len; k++, r >>= 4)
			fputc('a' + (int)((r ^ (r >> 29)) % 26), f);
		fputc('\n', f);
	}
}

/* n functions of branches, loops and calls, for the compiler. */
static void c_input(FILE *f, uint64_t n, const char *text)
{
	(void)text;
	fputs("struct node { struct node *next; long key; double weight; char name[16]; };\n", f);
	for (uint64_t i = 0; i < n; i++) {
		fprintf(f,
			"static long f%" PRIu64 "(struct node *n, long k) {\n"
			"  long s = %" PRIu64 ";\n"
			"  for (; n; n = n->next) { if (n->key %% %" PRIu64 " == k) s += n->key * %" PRIu64 "; "
			"else if (n->weight > %" PRIu64 ".5) s ^= (long)n->weight; else s -= n->name[k & 15]; }\n"
			"  switch (k & 7) { case 0: return s + %" PRIu64 "; case 1: return s * 3; case 2: return s - k; ",
			i, i * 7919 % 1000, i % 97 + 2, i % 31 + 1, i % 13, i);
		if (i)
			fprintf(f, "default: return f%" PRIu64 "(n, k - 1); }\n}\n", i - 1);
		else
			fputs("default: return s; }\n}\n", f);
	}
	fputs("long entry(struct node *n, long k);\nlong entry(struct node *n, long k) { long s = 0;\n", f);
	for (uint64_t i = 0; i < n; i++)
		fprintf(f, "  s += f%" PRIu64 "(n, k + %" PRIu64 ");\n", i, i);
	fputs("  return s; }\n", f);
}

/* The bundled programs: the input each reads (made by fill from
 * per_scale units a percent of scale, or from the text template) and its
 * command line, run in the input's folder. */
static const struct bundled {
	const char *input;
	input_fn fill;
	uint64_t per_scale;
	const char *text;
	int threads; /* it runs threads: plugins with per-thread state cannot serve it */
	const char *argv[8]; /* "@N@": per_scale a percent of scale, for a program of alloclab's own (input NULL) */
} bundled[NPROGS] = {
	[PROG_PYTHON] = {"prog.py", text_input, 3000,
			 "import random\nrandom.seed(1)\nd = {}\nN = @N@\n"
			 "for i in range(N):\n    d.setdefault('k%d' % random.randrange(N // 4), []).append(str(i) * (i % 7))\n"
			 "s = 0\nfor k in sorted(d):\n    s = (s * 31 + len(d[k]) + sum(len(x) for x in d[k])) % 1000000007\n"
			 "print(len(d), s)\n",
			 0, {"/usr/bin/python3.11", "-I", "prog.py"}},
	[PROG_PERL] = {"prog.pl", text_input, 3000,
		       "my $N = @N@; my %h; my $x = 1;\n"
		       "for my $i (0 .. $N - 1) { $x = ($x * 1103515245 + 12345) % 2147483648; "
		       "push @{$h{'k' . ($x % int($N / 4))}}, \"$i\" x ($i % 7); }\n"
		       "my $s = 0; for my $k (sort keys %h) { $s = ($s * 31 + scalar(@{$h{$k}}) + "
		       "length(join('', @{$h{$k}}))) % 1000000007; }\nprint scalar(keys %h), \" $s\\n\";\n",
		       0, {"perl", "prog.pl"}},
	[PROG_SQLITE] = {"prog.sql", text_input, 3000,
			 "CREATE TABLE t(a INTEGER, b TEXT);\n"
			 "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < @N@)\n"
			 "  INSERT INTO t SELECT x, printf('%d-%s', (x * 7919) % 10007, "
			 "substr('abcdefghijklmnopqrstuvwxyz', x % 26 + 1, x % 13 + 1)) FROM c;\n"
			 "CREATE INDEX i ON t(b);\n"
			 "SELECT count(*), sum(length(b)) FROM t;\n"
			 "SELECT b, count(*) FROM t GROUP BY b ORDER BY 2 DESC, 1 LIMIT 5;\n"
			 "SELECT count(*) FROM t AS x JOIN t AS y ON x.b = y.b WHERE x.a < 5000;\n",
			 0, {"sqlite3", ":memory:", ".read prog.sql"}},
	[PROG_SORT] = {"words", words_input, 10000, NULL, 1, {"sort", "--parallel=2", "words"}},
	[PROG_GCC] = {"gen.c", c_input, 3, NULL, 0, {"gcc", "-O1", "-S", "-o", "-", "gen.c"}},
	/* Blocks of 1 MiB, so that two threads compress them. */
	[PROG_XZ] = {"words", words_input, 5000, NULL, 1, {"xz", "-T2", "-3", "--block-size=1MiB", "-c", "words"}},
	[PROG_LOOP] = {NULL, NULL, 10, NULL, 0, {"alloc-loop", "@N@"}},
	[PROG_BIGINT] = {NULL, NULL, 3000, NULL, 0, {"bigint", "@N@"}},
	[PROG_THREADS] = {NULL, NULL, 4, NULL, 1, {"alloc-threads", "2", "@N@"}},
};

static int exec_prepare(struct alloclab_workload_thread *t, char *err, size_t err_len)
{
	const struct alloclab_params *p = t->params;
	struct exec_state *s;
	const unsigned prog = (unsigned)p->v[P_PROGRAM];

	/* A plugin that is not thread-safe runs under the preload library's
	 * lock; one that is, but keeps per-thread state, cannot serve a
	 * program with threads. */
	if (bundled[prog].threads && (t->alloc->caps & ALLOCLAB_CAP_THREAD_SAFE) &&
	    !(t->alloc->caps & ALLOCLAB_CAP_CROSS_THREAD_FREE)) {
		snprintf(err, err_len, "%s runs threads; the plugin cannot free blocks across them", program_names[prog]);
		t->not_applicable = 1;
		return -1;
	}
	if ((s = calloc(1, sizeof *s)) == NULL) {
		snprintf(err, err_len, "exec: out of memory");
		return -1;
	}
	t->state = s;
	if (alloclab_scratch_make("exec", s->dir, sizeof s->dir) != 0) {
		snprintf(err, err_len, "exec: cannot make a scratch folder: %s", strerror(errno));
		return -1;
	}
	if (p->text[P_CMD][0]) {
		unsigned n = 0;
		char *save = NULL;
		if ((s->argv_store = strdup(p->text[P_CMD])) == NULL) {
			snprintf(err, err_len, "exec: out of memory");
			return -1;
		}
		/* The count was checked with the parameters. */
		for (char *w = strtok_r(s->argv_store, " ", &save); w && n < MAX_WORDS; w = strtok_r(NULL, " ", &save))
			s->argv[n++] = w;
		return 0;
	}
	/* Each value makes its inputs afresh: a fraction of a second. */
	const struct bundled *b = &bundled[prog];
	for (unsigned i = 0; b->argv[i]; i++)
		s->argv[i] = b->argv[i];
	if (b->input == NULL) {
		/* Built with alloclab: beside it in the build tree, or installed. */
		uint64_t n = b->per_scale * p->v[P_SCALE] / 100;
		snprintf(s->own, sizeof s->own, "%s/%s",
			 alloclab_running_from_build_tree() ? ALLOCLAB_EXEC_PROGRAM_BUILD_DIR : ALLOCLAB_EXEC_PROGRAM_INSTALL_DIR,
			 b->argv[0]);
		snprintf(s->count, sizeof s->count, "%" PRIu64, n ? n : 1);
		s->argv[0] = s->own;
		for (unsigned i = 1; b->argv[i]; i++)
			if (strcmp(b->argv[i], "@N@") == 0)
				s->argv[i] = s->count;
		if (access(s->own, X_OK) != 0) {
			snprintf(err, err_len, "exec: %s: %s", s->own, strerror(errno));
			return -1;
		}
		return 0;
	}
	return write_input(s->dir, b->input, b->fill, b->per_scale * p->v[P_SCALE], b->text, err, err_len);
}

/* The program's latency record into the value's counts, its slow calls
 * under this workload thread. 0, or -1 with why. */
static int absorb_latency(const struct alloclab_workload_thread *t, const char *path, char *why, size_t why_len)
{
	struct alloclab_latency *l;
	char err[ALLOCLAB_ERR_LEN];

	if (alloclab_program_latency(path, &l, err, sizeof err) != 0) {
		snprintf(why, why_len, "exec: %s", err);
		return -1;
	}
	for (unsigned i = 0; i < l->nslow; i++)
		l->slow[i].thread = (int)t->index;
	alloclab_latency_absorb(l);
	alloclab_latency_free(l);
	return 0;
}

static void exec_run(struct alloclab_workload_thread *t)
{
	struct exec_state *s = t->state;
	const struct alloclab_params *p = t->params;
	struct alloclab_program prog = {
		.argv = s->argv,
		.cwd = p->text[P_CMD][0] ? (p->text[P_CWD][0] ? p->text[P_CWD] : NULL) : s->dir,
		.stdin_path = p->text[P_STDIN][0] ? p->text[P_STDIN] : NULL,
		.plugin = p->text[P_NATIVE][0] ? NULL : t->plugin,
		.native_preload = p->text[P_NATIVE][0] ? p->text[P_NATIVE] : NULL,
		.plugin_options = t->plugin_options,
		.gil = t->gil,
		.record_path = t->record_path,
	};
	struct alloclab_program_result r;
	static char why[ALLOCLAB_ERR_LEN + 1400];
	char how[400], latency_path[ALLOCLAB_PATH_LEN], census_path[ALLOCLAB_PATH_LEN];

	if (alloclab_latency_every() && prog.plugin) {
		/* The preload library times the program's calls and leaves its
		 * counts here (the worker's scratch folder, removed with it). */
		const char *tmp = getenv("TMPDIR");
		snprintf(latency_path, sizeof latency_path, "%s/latency-%u.json", tmp && tmp[0] ? tmp : "/tmp", t->index);
		unlink(latency_path);
		prog.latency_every = alloclab_latency_every();
		prog.latency_path = latency_path;
	}
	if (t->warmup && prog.plugin) {
		/* In a warm-up, untimed: the preload library counts every block
		 * the program holds, for the framework's fragmentation. */
		const char *tmp = getenv("TMPDIR");
		snprintf(census_path, sizeof census_path, "%s/census-%u.json", tmp && tmp[0] ? tmp : "/tmp", t->index);
		unlink(census_path);
		prog.census_path = census_path;
	}
	if (alloclab_program_run(&prog, &r, why, sizeof why) != 0) {
		t->error = why;
		return;
	}
	/* Not measured under the plugin unless the plugin served it. */
	if (!alloclab_program_ok(&prog, &r)) {
		alloclab_program_describe(&prog, &r, how, sizeof how);
		snprintf(why, sizeof why, "%s: %s%s%s", s->argv[0], how, r.stderr_tail[0] ? ": " : "", r.stderr_tail);
		t->error = why;
		return;
	}
	if (prog.latency_every && absorb_latency(t, latency_path, why, sizeof why) != 0) {
		t->error = why;
		return;
	}
	if (prog.census_path) {
		uint64_t live, peak, anon_kib, anon_peak_kib, rss_start_kib;
		if (alloclab_program_census(census_path, &live, &peak, &anon_kib, &anon_peak_kib, &rss_start_kib, why,
					    sizeof why) != 0) {
			t->error = why;
			return;
		}
		/* The most it held, by its own count, and its resident set
		 * before the plugin was loaded: the program's own start, which
		 * its peak by wait4 holds too (fragmentation at the peak is the
		 * measured values' peak less this, over the most held; an
		 * allocator's start-up is part of what it costs). The census
		 * run's own memory is never read: its table is the census's.
		 * What it held at exit is not said: the worker's reading at the
		 * end of the run comes after the program has gone. */
		(void)anon_kib, (void)anon_peak_kib;
		alloclab_live_peak(t, peak);
		alloclab_live_own(t, rss_start_kib * 1024);
	}
	/* The program's own peak, exact, in every value: the memory figure
	 * of a program (the worker's samples hold the harness too, and miss a
	 * short program's peak). */
	if (r.peak_rss_kib > 0)
		alloclab_live_program_rss(t, (uint64_t)r.peak_rss_kib);
	t->ops = 1;
	char hash[24];
	snprintf(hash, sizeof hash, "%016" PRIx64, r.stdout_hash);
	t->report = json_pack("{s:f,s:f,s:f,s:I,s:s}", "wall_s", r.wall_s, "user_s", r.user_s, "sys_s", r.sys_s,
			      "peak_rss_kib", (json_int_t)r.peak_rss_kib, "output_hash", hash);
}

static void exec_finish(struct alloclab_workload_thread *t)
{
	struct exec_state *s = t->state;
	if (s == NULL)
		return;
	if (s->dir[0])
		alloclab_scratch_remove(s->dir);
	free(s->argv_store);
	free(s);
	t->state = NULL;
}

static int exec_check_report(int per_process, const json_t *r, char *err, size_t err_len)
{
	const char *h = json_string_value(json_object_get(r, "output_hash"));
	json_t *rss = json_object_get(r, "peak_rss_kib");
	if (per_process || !json_is_number(json_object_get(r, "wall_s")) || !json_is_number(json_object_get(r, "user_s")) ||
	    !json_is_number(json_object_get(r, "sys_s")) || !json_is_integer(rss) || json_integer_value(rss) < 0 ||
	    h == NULL || strlen(h) != 16 || strspn(h, "0123456789abcdef") != 16) {
		snprintf(err, err_len, "an exec report needs wall_s, user_s, sys_s, peak_rss_kib and a 16-digit output_hash");
		return -1;
	}
	return 0;
}

static void exec_row_name(const struct alloclab_cell *cell, char *out, size_t len)
{
	const char *prog = json_string_value(json_object_get(cell->params, "program"));
	const char *cmd = json_string_value(json_object_get(cell->params, "cmd"));
	const char *native = json_string_value(json_object_get(cell->params, "native"));
	snprintf(out, len, "%s%s%s", prog && strcmp(prog, "none") != 0 ? prog : cmd ? cmd : "?",
		 native && native[0] ? " native " : "", native && native[0] ? native : "");
}

static void exec_print_cell(const struct alloclab_cell *cell, FILE *out)
{
	double wall = 0, cpu = 0;
	long rss = 0;
	unsigned n = 0;
	const char *hash = NULL;
	int same = 1;
	char row[512];

	for (struct alloclab_report_iter it = alloclab_reports(cell, ALLOCLAB_REPORTS_PER_VALUE); alloclab_reports_next(&it);) {
		const json_t *r = it.report;
		const char *h = json_string_value(json_object_get(r, "output_hash"));
		if (it.thread != 0 || h == NULL)
			continue;
		wall += json_number_value(json_object_get(r, "wall_s"));
		cpu += json_number_value(json_object_get(r, "user_s")) + json_number_value(json_object_get(r, "sys_s"));
		if (json_integer_value(json_object_get(r, "peak_rss_kib")) > rss)
			rss = (long)json_integer_value(json_object_get(r, "peak_rss_kib"));
		same &= hash == NULL || strcmp(hash, h) == 0;
		hash = h;
		n++;
	}
	if (n == 0)
		return;
	exec_row_name(cell, row, sizeof row);
	fprintf(out, "exec %s %s: mean wall %.3f s, CPU %.3f s, the program's peak RSS %.1f MiB, output %s%s\n", row,
		cell->plugin, wall / n, cpu / n, (double)rss / 1024, hash, same ? "" : " (differs between runs!)");
}

const struct alloclab_workload alloclab_workload_exec = {
	.name = "exec",
	.description = "a whole program with the plugin as its malloc (bundled programs or cmd=)",
	.unit_op = "program run",
	.params = exec_params,
	.nparams = sizeof exec_params / sizeof exec_params[0],
	.flags = ALLOCLAB_WORKLOAD_RECORDS_ITSELF | ALLOCLAB_WORKLOAD_ONE_ALLOCATOR,
	.max_threads = 1,
	.check_params = exec_check,
	.prepare = exec_prepare,
	.run = exec_run,
	.finish = exec_finish,
	.default_values = 1,
	.check_report = exec_check_report,
	.print_cell = exec_print_cell,
	.row_name = exec_row_name,
};
