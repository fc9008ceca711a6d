/*
 * `alloclab slurm --shards N -o DIR ... -- RUN-ARGUMENTS`: a sweep as a
 * Slurm job array, one task per shard (`alloclab run --shard K/N`), and a
 * merge (`alloclab merge`) submitted as a job that runs once every task
 * has succeeded; `alloclab slurm status DIR` follows it from the files the
 * tasks write (Slurm's accounting is often off). docs/guides/cluster.md.
 *
 * DIR, on a filesystem every node sees, gets:
 *   sweep.json        what was submitted (the one record `status` reads)
 *   shards.sh         the array's batch script; merge.sh the merge's
 *   shard-K.json      each shard's results (and its journal while it runs)
 *   logs/             the tasks' output
 *   merged.json       the merge
 */
#define _GNU_SOURCE 1
#include "cli.h"
#include "run_options.h"
#include "base/shell_word.h"
#include "files/input_file.h"
#include "plugin/loader.h"
#include "base/numbers.h"
#include "process/program.h"
#include "files/self_exe.h"
#include "files/output_path.h"
#include "process/child.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
	"usage: alloclab slurm --shards N -o DIR [options] -- RUN-ARGUMENTS\n"
	"       alloclab slurm status DIR\n"
	"\n"
	"Submits `alloclab run RUN-ARGUMENTS` as a Slurm job array of N shards (one task\n"
	"each: run --shard K/N, every shard measures every cell), and `alloclab merge` as a\n"
	"job that runs when every task has succeeded and writes DIR/merged.json. DIR must be\n"
	"on a filesystem all nodes see, and alloclab installed at the same path on each.\n"
	"`status` shows each shard's progress from its files and journal.\n"
	"\n"
	"options:\n"
	"  -n, --shards N              shards (array tasks), at most the processes per cell (-n)\n"
	"  -o, --output DIR            the sweep's folder (made; must hold no sweep yet)\n"
	"      --partition P           the partition to run in\n"
	"      --nodes-at-once K       run at most K shards at a time (the array's %K)\n"
	"      --time LIMIT            each task's time limit (sbatch --time)\n"
	"      --cpu-bind TYPE         srun's CPU binding for each task (default cores; none)\n"
	"      --shared                do not ask for whole nodes (default: --exclusive, since a\n"
	"                              benchmark wants its node to itself)\n"
	"      --sbatch OPTION         one more option for both jobs' sbatch (repeatable), e.g.\n"
	"                              --sbatch=--account=lab\n"
	"      --submit-timeout SECONDS  how long sbatch may take to answer (default 60)\n"
	"      --dry-run               write the scripts and print the commands; submit nothing\n"
	"  -h, --help\n";

#define MAX_EXTRA 32


/* A value that goes into an #SBATCH line: one word (sbatch splits those
 * lines at spaces and quotes nothing). */
static int sbatch_value_ok(const char *s)
{
	return s[0] && strpbrk(s, " \t\n\r\"'\\") == NULL && alloclab_shell_word_one_line(s);
}

/* Whether an --sbatch option is one alloclab sets itself (where the jobs
 * run and write, what they are, what they wait for): given twice, the
 * later would quietly win. */
static int sbatch_option_owned(const char *opt)
{
	static const char *const owned[] = {"--array", "--chdir", "--output", "--error", "--dependency", "--parsable",
					    "--wrap", "-a", "-D", "-o", "-e", "-d", NULL};
	for (unsigned i = 0; owned[i]; i++) {
		size_t n = strlen(owned[i]);
		if (strncmp(opt, owned[i], n) == 0 && (opt[n] == '\0' || opt[n] == '=' || (owned[i][1] != '-')))
			return 1;
	}
	return 0;
}

/* How long sbatch may take to answer by default (a scheduler that does
 * not answer in a minute is down), and the plan's check (which may run
 * pyperf files once, each under the run's own --timeout). */
#define SBATCH_TIMEOUT_S 60
#define PLAN_CHECK_TIMEOUT_S 1800

/* sbatch --parsable [--dependency=afterok:DEP] SCRIPT, run in the sweep's
 * folder (the scripts name no path in their #SBATCH lines: the job's
 * working folder is where it was submitted). The job id; 0, or -1 with
 * err. */
static int submit(const char *dir, double timeout_s, const char *script, const char *dependency, char *id,
		  size_t id_len, char *err, size_t err_len)
{
	char dep[128], why[ALLOCLAB_ERR_LEN], said[400], *out = NULL;
	char *argv[6];
	int n = 0;

	argv[n++] = "sbatch";
	argv[n++] = "--parsable";
	if (dependency) {
		snprintf(dep, sizeof dep, "--dependency=afterok:%s", dependency);
		argv[n++] = dep;
	}
	argv[n++] = (char *)script;
	argv[n] = NULL;
	int rc = alloclab_capture(argv, dir, timeout_s, 512, &out, why, sizeof why, said, sizeof said);
	if (rc != 0) {
		if (rc < 0 && strstr(why, "timed out"))
			snprintf(err, err_len, "sbatch did not answer within %g s (--submit-timeout; is Slurm answering?)",
				 timeout_s);
		else if (rc < 0)
			snprintf(err, err_len, "%s (is Slurm installed and answering here?)", why);
		else
			snprintf(err, err_len, "sbatch %s failed (exit %d)%s%.300s", script, rc, said[0] ? ": " : "", said);
		free(out);
		return -1;
	}
	/* "123" or "123;cluster" */
	size_t k = strspn(out, "0123456789");
	if (k == 0 || k >= id_len) {
		char shown[84];
		alloclab_printable(out, shown, sizeof shown);
		snprintf(err, err_len, "sbatch %s answered '%s', not a job id", script, shown);
		free(out);
		return -1;
	}
	memcpy(id, out, k);
	id[k] = '\0';
	free(out);
	return 0;
}

/* A sweep: what the command line asks for, and what is worked out for the
 * scripts (the folder, the run's arguments, its order seed). */
struct sweep {
	unsigned shards, at_once;
	const char *dir_arg, *partition, *time_limit, *cpu_bind, *extra[MAX_EXTRA];
	unsigned nextra;
	int shared, dry;
	double submit_timeout_s;
	char **run_args; /* the run's arguments, after -- */
	int nrun;
	int seed_given; /* the run's arguments set --order-seed */
	uint64_t seed;  /* else the one every shard gets */
	char dir[PATH_MAX], logs[PATH_MAX + 16], self[PATH_MAX], cwd[PATH_MAX];
	/* What this command made, removed again when it fails before a job
	 * was submitted: nothing half-made stays behind. */
	int made_dir, made_logs, made_shards, made_merge, made_record;
};

/* The options into s. -1 to go on (the run's arguments at argv[optind]),
 * or the exit status. */
static int parse_options(int argc, char **argv, struct sweep *s)
{
	static const struct option longopts[] = {
		{"shards", required_argument, NULL, 'n'},    {"output", required_argument, NULL, 'o'},
		{"partition", required_argument, NULL, 'P'}, {"nodes-at-once", required_argument, NULL, 'K'},
		{"time", required_argument, NULL, 'T'},      {"cpu-bind", required_argument, NULL, 'B'},
		{"shared", no_argument, NULL, 'S'},          {"sbatch", required_argument, NULL, 'X'},
		{"dry-run", no_argument, NULL, 'D'},         {"help", no_argument, NULL, 'h'},
		{"submit-timeout", required_argument, NULL, 'W'},
		{NULL, 0, NULL, 0},
	};
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:n:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (alloclab_parse_count("slurm", "--shards", optarg, 1, ALLOCLAB_MAX_SHARDS, &s->shards) != 0)
				return 2;
			break;
		case 'o': s->dir_arg = optarg; break;
		case 'P': s->partition = optarg; break;
		case 'K':
			if (alloclab_parse_count("slurm", "--nodes-at-once", optarg, 1, 100000, &s->at_once) != 0)
				return 2;
			break;
		case 'T': s->time_limit = optarg; break;
		case 'B': s->cpu_bind = optarg; break;
		case 'S': s->shared = 1; break;
		case 'X':
			if (s->nextra == MAX_EXTRA)
				return alloclab_usage_error("slurm", "at most %d --sbatch options", MAX_EXTRA);
			s->extra[s->nextra++] = optarg;
			break;
		case 'D': s->dry = 1; break;
		case 'W':
			if (alloclab_parse_timeout("slurm", optarg, 3600, &s->submit_timeout_s) != 0)
				return 2;
			break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("slurm", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("slurm", "unknown option '%s'", argv[optind - 1]);
		}
	}
	return -1;
}

/* What goes into the scripts, checked: one word per #SBATCH value, and
 * run arguments (taken into s) that leave each shard its own. 0, or the
 * exit status. */
static int check_options(int argc, char **argv, struct sweep *s)
{
	if (s->shards == 0)
		return alloclab_usage_error("slurm", "how many shards? give --shards N");
	if (s->dir_arg == NULL || s->dir_arg[0] == '\0')
		return alloclab_usage_error("slurm", "which folder? give -o DIR (on a filesystem every node sees)");
	if (optind >= argc || strcmp(argv[optind - 1], "--") != 0)
		return alloclab_usage_error("slurm", "give the run's arguments after --");
	if ((s->partition && !sbatch_value_ok(s->partition)) || (s->time_limit && !sbatch_value_ok(s->time_limit)) ||
	    strspn(s->cpu_bind, "abcdefghijklmnopqrstuvwxyz0123456789_,:=") != strlen(s->cpu_bind) ||
	    s->cpu_bind[0] == '\0')
		return alloclab_usage_error("slurm", "--partition, --time and --cpu-bind take one word each");
	for (unsigned i = 0; i < s->nextra; i++) {
		char shown[128];
		alloclab_printable(s->extra[i], shown, sizeof shown);
		if (!sbatch_value_ok(s->extra[i]) || s->extra[i][0] != '-')
			return alloclab_usage_error("slurm", "--sbatch takes one sbatch option, such as --account=lab, not '%s'",
						    shown);
		if (sbatch_option_owned(s->extra[i]))
			return alloclab_usage_error("slurm", "--sbatch %s: alloclab sets that option of its jobs itself",
						    shown);
	}
	s->run_args = argv + optind;
	s->nrun = argc - optind;
	for (int i = 0; i < s->nrun; i++) {
		int value_follows;
		const struct alloclab_run_option *set[16];
		int n = alloclab_run_options_in(s->run_args[i], set, 16, &value_follows);
		if (n < 0) {
			char shown[128];
			alloclab_printable(s->run_args[i], shown, sizeof shown);
			return alloclab_usage_error("slurm", "the run's option '%s' is not one (write options in full)", shown);
		}
		for (int k = 0; k < n && k < 16; k++) {
			if (set[k]->flags & ALLOCLAB_RUN_OPTION_SHARD_OWNS)
				return alloclab_usage_error("slurm", "the run's arguments must not set --%s: the sweep sets it "
								     "for each shard",
							    set[k]->name);
			if (set[k]->key == 'S')
				s->seed_given = 1;
		}
		i += value_follows;
	}
	return 0;
}

/* A path that goes into the scripts (quoted there) and onto terminals:
 * one line. 0, or the exit status. */
static int one_line_path(const char *what, const char *path)
{
	char shown[PATH_MAX];
	if (alloclab_shell_word_one_line(path))
		return 0;
	alloclab_printable(path, shown, sizeof shown);
	fprintf(stderr, "alloclab slurm: %s '%s' has a control character (a newline?) in its name: no batch script "
			"can carry it safely; give another\n",
		what, shown);
	return 2;
}

/* The folder: made, and holding no sweep; its logs folder made. 0, or the
 * exit status. */
static int make_folder(struct sweep *s)
{
	char path[PATH_MAX + 64];
	struct stat st;
	int rc;

	if ((rc = one_line_path("the folder", s->dir_arg)) != 0)
		return rc;
	if (mkdir(s->dir_arg, 0777) == 0)
		s->made_dir = 1;
	else if (errno != EEXIST) {
		fprintf(stderr, "alloclab: cannot make %s: %s\n", s->dir_arg, strerror(errno));
		return 2;
	}
	if (realpath(s->dir_arg, s->dir) == NULL || stat(s->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "alloclab: %s: %s\n", s->dir_arg, errno ? strerror(errno) : "not a folder");
		return 2;
	}
	if ((rc = one_line_path("the folder", s->dir)) != 0)
		return rc;
	/* Anything named sweep.json (a dangling link too) is a sweep's. */
	snprintf(path, sizeof path, "%s/sweep.json", s->dir);
	if (lstat(path, &st) == 0)
		return alloclab_usage_error("slurm", "%s already holds a sweep (%s): give another folder", s->dir, path);
	snprintf(s->logs, sizeof s->logs, "%s/logs", s->dir);
	if (mkdir(s->logs, 0777) == 0)
		s->made_logs = 1;
	else if (errno != EEXIST || lstat(s->logs, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "alloclab: %s: %s\n", s->logs,
			errno == EEXIST ? "is not a folder (a link or a file): the tasks' logs go there" : strerror(errno));
		return 2;
	}
	return 0;
}

/* Undoes what this command made (a failure before any job was
 * submitted). */
static void remove_made(struct sweep *s)
{
	char path[PATH_MAX + 64];
	if (s->made_shards && snprintf(path, sizeof path, "%s/shards.sh", s->dir) > 0)
		unlink(path);
	if (s->made_merge && snprintf(path, sizeof path, "%s/merge.sh", s->dir) > 0)
		unlink(path);
	if (s->made_record && snprintf(path, sizeof path, "%s/sweep.json", s->dir) > 0)
		unlink(path);
	if (s->made_logs)
		rmdir(s->logs);
	if (s->made_dir)
		rmdir(s->dir[0] ? s->dir : s->dir_arg);
}

/* The plan checked here first, as the shards would see it: a bad argument
 * is refused now, not in N jobs later. The plan printed; 0, or the exit
 * status. */
static int check_plan(const struct sweep *s)
{
	char **check = calloc((size_t)s->nrun + 8, sizeof *check), shard_arg[32], why[ALLOCLAB_ERR_LEN],
	     said[ALLOCLAB_ERR_LEN], *out = NULL;
	int k = 0;
	check[k++] = (char *)s->self;
	check[k++] = "run";
	for (int i = 0; i < s->nrun; i++)
		check[k++] = s->run_args[i];
	/* The last shard has the fewest rounds: if it has one, all do. */
	snprintf(shard_arg, sizeof shard_arg, "%u/%u", s->shards, s->shards);
	check[k++] = "--shard";
	check[k++] = shard_arg;
	check[k++] = "--dry-run";
	check[k] = NULL;
	int rc = alloclab_capture(check, NULL, PLAN_CHECK_TIMEOUT_S, 1 << 16, &out, why, sizeof why, said, sizeof said);
	free(check);
	if (rc != 0) {
		fprintf(stderr, "alloclab slurm: the run's arguments do not make a plan of %u shards: %s\n", s->shards,
			rc < 0 ? why : said[0] ? said : "(the run said nothing)");
		free(out);
		return 2;
	}
	/* The plan as a shard sees it, but where the results go: the run
	 * checked was given no -o, the shards are. */
	char *where = strstr(out, "; results would go to ");
	if (where) {
		char *end = strchr(where, '\n');
		fwrite(out, 1, (size_t)(where - out), stdout);
		fputs("; each shard's results go to ", stdout);
		alloclab_shell_word(stdout, s->dir_arg);
		fputs("/shard-K.json", stdout);
		fputs(end ? end : "\n", stdout);
	} else {
		fputs(out, stdout);
	}
	free(out);
	return 0;
}

/* A script's text (freed here) into path, under the output policy
 * (output_path.h), executable. 0, or the exit status. */
static int save_script(const char *path, char *text, int *made)
{
	char err[ALLOCLAB_ERR_LEN + 600];
	struct alloclab_output_file f;
	size_t len = strlen(text);

	if (alloclab_output_begin(path, ALLOCLAB_OUTPUT_SCRIPT, &f, err, sizeof err) != 0) {
		fprintf(stderr, "alloclab: %s\n", err);
		free(text);
		return 2;
	}
	if (write(f.fd, text, len) != (ssize_t)len || fchmod(f.fd, 0755) != 0) {
		fprintf(stderr, "alloclab: cannot write %s: %s\n", path, strerror(errno));
		alloclab_output_discard(&f);
		free(text);
		return 2;
	}
	free(text);
	if (alloclab_output_commit(&f, path, ALLOCLAB_OUTPUT_SCRIPT, err, sizeof err) != 0) {
		fprintf(stderr, "alloclab: %s\n", err);
		return 2;
	}
	*made = 1;
	return 0;
}

/* The jobs' TMPDIR: the one of the shell that ran `alloclab slurm`, as
 * sbatch would hand them were alloclab not in between. sbatch runs as a
 * child of alloclab, with a scratch folder of its own as TMPDIR (removed
 * when sbatch has answered), and passes its environment on: the jobs
 * would find TMPDIR naming a folder that is gone, or that a later
 * alloclab removes under them as a killed one's leftover. */
static void write_tmpdir(FILE *f)
{
	const char *tmp = getenv("TMPDIR");
	fputs("# TMPDIR as the shell that ran alloclab slurm had it (not sbatch's own, which alloclab made).\n", f);
	if (tmp == NULL) {
		fputs("unset TMPDIR\n", f);
		return;
	}
	fputs("TMPDIR=", f);
	alloclab_shell_word(f, tmp);
	fputs("\nexport TMPDIR\n", f);
}

/* DIR/shards.sh: the array's batch script, a task per shard. 0, or the
 * exit status. */
static int write_shards_script(struct sweep *s)
{
	char path[PATH_MAX + 64];
	char *text = NULL;
	size_t text_len = 0;
	FILE *f = open_memstream(&text, &text_len);

	fprintf(f, "#!/bin/sh\n# %u shards of one alloclab run, a Slurm array task each " ALLOCLAB_SCRIPT_MARK "slurm).\n",
		s->shards);
	fprintf(f, "#SBATCH --job-name=alloclab-shards\n#SBATCH --array=1-%u", s->shards);
	if (s->at_once)
		fprintf(f, "%%%u", s->at_once);
	/* No path in an #SBATCH line (sbatch's own parser would split or
	 * expand it): the job's working folder is the sweep's, where it is
	 * submitted, and its logs are named from there. */
	fputs("\n#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --output=logs/shard-%a.out\n", f);
	if (!s->shared)
		fputs("#SBATCH --exclusive\n", f);
	if (s->partition)
		fprintf(f, "#SBATCH --partition=%s\n", s->partition);
	if (s->time_limit)
		fprintf(f, "#SBATCH --time=%s\n", s->time_limit);
	for (unsigned i = 0; i < s->nextra; i++)
		fprintf(f, "#SBATCH %s\n", s->extra[i]);
	fputs("# Exit status 1 is a cell that failed in a shard that finished: the merge shows it.\n", f);
	write_tmpdir(f);
	/* The run's arguments name files as seen from where slurm was run. */
	fputs("cd -- ", f);
	alloclab_shell_word(f, s->cwd);
	fputs(" || exit 2\n", f);
	fprintf(f, "srun --cpu-bind=%s ", s->cpu_bind);
	alloclab_shell_word(f, s->self);
	fputs(" run", f);
	for (int i = 0; i < s->nrun; i++) {
		fputc(' ', f);
		alloclab_shell_word(f, s->run_args[i]);
	}
	if (!s->seed_given)
		fprintf(f, " --order-seed %llu", (unsigned long long)s->seed);
	fprintf(f, " --shard \"$SLURM_ARRAY_TASK_ID/%u\" -o ", s->shards);
	alloclab_shell_word(f, s->dir);
	fputs("/shard-\"$SLURM_ARRAY_TASK_ID\".json\nrc=$?\n[ \"$rc\" -eq 1 ] && rc=0\nexit \"$rc\"\n", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/shards.sh", s->dir);
	return save_script(path, text, &s->made_shards);
}

/* DIR/merge.sh: the merge's batch script. 0, or the exit status. */
static int write_merge_script(struct sweep *s)
{
	char path[PATH_MAX + 64];
	char *text = NULL;
	size_t text_len = 0;
	FILE *f = open_memstream(&text, &text_len);

	fputs("#!/bin/sh\n# The merge of the shards " ALLOCLAB_SCRIPT_MARK "slurm): runs once every task succeeded.\n"
	      "#SBATCH --job-name=alloclab-merge\n#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --output=logs/merge.out\n",
	      f);
	if (s->partition)
		fprintf(f, "#SBATCH --partition=%s\n", s->partition);
	for (unsigned i = 0; i < s->nextra; i++)
		fprintf(f, "#SBATCH %s\n", s->extra[i]);
	write_tmpdir(f);
	fputs("exec ", f);
	alloclab_shell_word(f, s->self);
	fputs(" merge -o ", f);
	alloclab_shell_word(f, s->dir);
	fputs("/merged.json", f);
	for (unsigned k = 1; k <= s->shards; k++) {
		fputc(' ', f);
		alloclab_shell_word(f, s->dir);
		fprintf(f, "/shard-%u.json", k);
	}
	fputc('\n', f);
	fclose(f);
	snprintf(path, sizeof path, "%s/merge.sh", s->dir);
	return save_script(path, text, &s->made_merge);
}

/* sweep.json: what was submitted so far, the one record `status` reads,
 * under the output policy (rewritten whole after each submission). 0, or
 * the exit status. */
static int write_record(struct sweep *s, const char *shards_id, const char *merge_id)
{
	char path[PATH_MAX + 64], err[ALLOCLAB_ERR_LEN + 600];
	struct alloclab_output_file f;
	json_t *args = json_array();
	for (int i = 0; i < s->nrun; i++)
		json_array_append_new(args, json_string(s->run_args[i]));
	if (!s->seed_given) {
		char seed[32];
		snprintf(seed, sizeof seed, "%llu", (unsigned long long)s->seed);
		json_array_append_new(args, json_string("--order-seed"));
		json_array_append_new(args, json_string(seed));
	}
	json_t *sweep = json_pack("{s:s,s:i,s:i,s:s,s:s,s:s,s:o,s:s?,s:s?,s:b}", "format", "alloclab-sweep",
				  "format_version", 1, "shards", (int)s->shards, "alloclab", s->self, "folder", s->dir,
				  "chdir", s->cwd, "run_arguments", args, "shards_job", shards_id, "merge_job", merge_id,
				  "submitted", shards_id != NULL);
	snprintf(path, sizeof path, "%s/sweep.json", s->dir);
	int rc = alloclab_output_begin(path, ALLOCLAB_OUTPUT_SWEEP, &f, err, sizeof err);
	if (rc == 0 && json_dumpfd(sweep, f.fd, JSON_INDENT(1)) != 0) {
		snprintf(err, sizeof err, "cannot write %.900s: %s", path, strerror(errno));
		alloclab_output_discard(&f);
		rc = -1;
	}
	if (rc == 0)
		rc = alloclab_output_commit(&f, path, ALLOCLAB_OUTPUT_SWEEP, err, sizeof err);
	json_decref(sweep);
	if (rc != 0) {
		fprintf(stderr, "alloclab: %s\n", err);
		return 2;
	}
	s->made_record = 1;
	return 0;
}

/* Prints "cd DIR && sbatch ARGS SCRIPT" for a person to paste. */
static void print_submit(FILE *out, const struct sweep *s, const char *args, const char *script)
{
	fputs("cd ", out);
	alloclab_shell_word(out, s->dir);
	fprintf(out, " && sbatch %s%s\n", args, script);
}

/* The array, then the merge to run once it has succeeded, with the
 * record rewritten after each. 0, or the exit status; a failure before
 * the array was taken leaves nothing behind. */
static int submit_jobs(struct sweep *s)
{
	char shards_id[64], merge_id[64], err[ALLOCLAB_ERR_LEN + 600], dep[96];
	int rc;

	if (submit(s->dir, s->submit_timeout_s, "shards.sh", NULL, shards_id, sizeof shards_id, err, sizeof err) != 0) {
		fprintf(stderr, "alloclab: %s\n", err);
		remove_made(s);
		return 2;
	}
	/* From here the array runs: the record must say so, whatever else
	 * fails, so that status follows it and the folder is not reused. */
	if ((rc = write_record(s, shards_id, NULL)) != 0) {
		fprintf(stderr, "alloclab: the shards run as job %s all the same (scancel %s to stop them)\n", shards_id,
			shards_id);
		return rc;
	}
	if (submit(s->dir, s->submit_timeout_s, "merge.sh", shards_id, merge_id, sizeof merge_id, err, sizeof err) != 0) {
		fprintf(stderr, "alloclab: %s\nalloclab: the shards run as job %s; submit their merge with:\n  ", err,
			shards_id);
		snprintf(dep, sizeof dep, "--dependency=afterok:%s ", shards_id);
		print_submit(stderr, s, dep, "merge.sh");
		return 2;
	}
	if ((rc = write_record(s, shards_id, merge_id)) != 0)
		return rc;
	printf("submitted %u shards as job %s (array 1-%u) and their merge as job %s, which writes ", s->shards, shards_id,
	       s->shards, merge_id);
	alloclab_shell_word(stdout, s->dir);
	fputs("/merged.json\nfollow: alloclab slurm status ", stdout);
	alloclab_shell_word(stdout, s->dir);
	printf("   (or squeue -j %s,%s)\n", shards_id, merge_id);
	return 0;
}

static int cmd_status(int argc, char **argv);

int alloclab_cmd_slurm(int argc, char **argv)
{
	struct sweep s = {.cpu_bind = "cores", .submit_timeout_s = SBATCH_TIMEOUT_S};
	int rc;

	if (argc >= 2 && strcmp(argv[1], "status") == 0)
		return cmd_status(argc - 1, argv + 1);
	if ((rc = parse_options(argc, argv, &s)) >= 0)
		return rc;
	if ((rc = check_options(argc, argv, &s)) != 0)
		return rc;
	snprintf(s.self, sizeof s.self, "%s", alloclab_self_path());
	if (getcwd(s.cwd, sizeof s.cwd) == NULL) {
		fprintf(stderr, "alloclab slurm: cannot tell the working folder: %s\n", strerror(errno));
		return 2;
	}
	if ((rc = one_line_path("the working folder", s.cwd)) != 0 || (rc = one_line_path("alloclab's path", s.self)) != 0)
		return rc;
	/* One order for every shard, so that a round visits the cells in the
	 * same order wherever it runs. */
	if (!s.seed_given) {
		if (getrandom(&s.seed, sizeof s.seed, 0) != (ssize_t)sizeof s.seed)
			s.seed = (uint64_t)time(NULL) * 2654435761u;
		s.seed &= (1ull << 62) - 1;
		if (s.seed == 0)
			s.seed = 1;
	}
	if ((rc = check_plan(&s)) != 0)
		return rc;
	alloclab_catch_interrupts();
	if ((rc = make_folder(&s)) != 0 || (rc = write_shards_script(&s)) != 0 || (rc = write_merge_script(&s)) != 0) {
		remove_made(&s);
		return rc;
	}
	if (s.dry) {
		if ((rc = write_record(&s, NULL, NULL)) != 0) {
			remove_made(&s);
			return rc;
		}
		fputs("wrote the scripts in ", stdout);
		alloclab_shell_word(stdout, s.dir);
		fputs("; submit them with:\n  ", stdout);
		print_submit(stdout, &s, "--parsable ", "shards.sh");
		fputs("  ", stdout);
		print_submit(stdout, &s, "--dependency=afterok:JOBID ", "merge.sh");
		return 0;
	}
	return submit_jobs(&s);
}

/* ---- status ---- */

/* "ALLOCLAB merge -o DIR/merged.json DIR/shard-*.json", pasteable. */
static void print_merge(const char *self, const char *dir)
{
	alloclab_shell_word(stdout, self);
	fputs(" merge -o ", stdout);
	alloclab_shell_word(stdout, dir);
	fputs("/merged.json ", stdout);
	alloclab_shell_word(stdout, dir);
	fputs("/shard-*.json", stdout);
}

static int cmd_status(int argc, char **argv)
{
	char path[PATH_MAX + 64], err[ALLOCLAB_ERR_LEN + 600];
	json_error_t je;

	if (argc != 2 || argv[1][0] == '-')
		return alloclab_usage_error("slurm", "usage: alloclab slurm status DIR");
	snprintf(path, sizeof path, "%s/sweep.json", argv[1]);
	FILE *f = alloclab_fopen_regular(path, err, sizeof err);
	json_t *sweep = f ? json_loadf(f, 0, &je) : NULL;
	if (f)
		fclose(f);
	json_t *args = json_object_get(sweep, "run_arguments");
	json_int_t shards = json_integer_value(json_object_get(sweep, "shards"));
	const char *self = json_string_value(json_object_get(sweep, "alloclab"));
	const char *dir = json_string_value(json_object_get(sweep, "folder"));
	if (sweep == NULL || !json_is_string(json_object_get(sweep, "format")) ||
	    strcmp(json_string_value(json_object_get(sweep, "format")), "alloclab-sweep") != 0 || !json_is_array(args) ||
	    shards < 1 || shards > ALLOCLAB_MAX_SHARDS || self == NULL || dir == NULL || !alloclab_shell_word_one_line(self) ||
	    !alloclab_shell_word_one_line(dir)) {
		fprintf(stderr, "alloclab: %s: %s\n", path,
			f == NULL ? err : sweep == NULL ? je.text : "not a sweep written by alloclab slurm");
		json_decref(sweep);
		return 2;
	}
	const char *jobs = json_string_value(json_object_get(sweep, "shards_job"));
	const char *merge_job = json_string_value(json_object_get(sweep, "merge_job"));
	if ((jobs && strspn(jobs, "0123456789") != strlen(jobs)) || (merge_job && strspn(merge_job, "0123456789") != strlen(merge_job)))
		jobs = merge_job = NULL; /* not a job id sbatch gave: shown as nothing */
	char shown[PATH_MAX];
	alloclab_printable(argv[1], shown, sizeof shown);
	printf("sweep %s: %lld shards%s%s%s\n", shown, (long long)shards, jobs ? ", job " : " (not submitted)",
	       jobs ? jobs : "", jobs && !merge_job ? ", its merge not submitted (see merge.sh)" : "");
	if (merge_job)
		printf("merge job %s\n", merge_job);
	unsigned done = 0;
	for (json_int_t k = 1; k <= shards; k++) {
		char shard[PATH_MAX + 32];
		snprintf(shard, sizeof shard, "%s/shard-%lld.json", argv[1], (long long)k);
		struct stat st;
		if (stat(shard, &st) != 0) {
			printf("  shard %lld: not started\n", (long long)k);
			continue;
		}
		struct alloclab_results *r = alloclab_results_load(shard, NULL, err, sizeof err);
		if (r == NULL) {
			printf("  shard %lld: unreadable: %s\n", (long long)k, err);
			continue;
		}
		unsigned measured = 0, planned = 0, failed = 0;
		for (unsigned c = 0; c < r->ncells; c++) {
			measured += r->cells[c].nprocs;
			planned += r->cells[c].status == ALLOCLAB_CELL_NOT_APPLICABLE ? 0 : r->cells[c].planned;
			failed += r->cells[c].status == ALLOCLAB_CELL_ERROR;
		}
		const char *host = json_string_value(json_object_get(r->metadata, "host"));
		int whole = r->complete && !r->interrupted;
		if (whole)
			done++;
		printf("  shard %lld: %s, %u of %u processes%s%s%s\n", (long long)k,
		       whole ? "done" : r->complete ? "interrupted" : "running or stopped", measured, planned,
		       failed ? " (cells failed)" : "", host ? " on " : "", host ? host : "");
		alloclab_results_free(r);
	}
	snprintf(path, sizeof path, "%s/merged.json", argv[1]);
	if (access(path, F_OK) == 0) {
		alloclab_printable(path, shown, sizeof shown);
		printf("merged: %s\n", shown);
	} else if (done == shards) {
		fputs("every shard is done; the merge job writes merged.json (or: ", stdout);
		print_merge(self, dir);
		fputs(")\n", stdout);
	}
	if (done < shards) {
		printf("a shard that does not finish can be measured again, anywhere, with:\n  ");
		alloclab_shell_word(stdout, self);
		fputs(" run", stdout);
		size_t i;
		json_t *a;
		json_array_foreach(args, i, a)
			if (json_is_string(a)) {
				fputc(' ', stdout);
				alloclab_shell_word(stdout, json_string_value(a));
			}
		printf(" --shard K/%lld -o ", (long long)shards);
		alloclab_shell_word(stdout, dir);
		fputs("/shard-K.json\nthen merge: ", stdout);
		print_merge(self, dir);
		fputc('\n', stdout);
	}
	json_decref(sweep);
	return 0;
}
