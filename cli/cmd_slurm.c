/*
 * `alloclab slurm --shards N -o DIR ... -- RUN-ARGUMENTS`: a sweep as a
 * Slurm job array, one task per shard (`alloclab run --shard K/N`), and a
 * merge (`alloclab merge`) submitted as a job that runs once every task
 * has succeeded; `alloclab slurm status DIR` follows it from the files the
 * tasks write (Slurm's accounting is often off). docs/guides/cluster.md.
 * The sweep's files (its scripts and record) are framework/run/sweep.h's;
 * this command checks what it is given, makes the folder, submits.
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
#include "plugin/loader.h"
#include "base/numbers.h"
#include "process/program.h"
#include "files/self_exe.h"
#include "process/child.h"
#include "run/sweep.h"

#include <errno.h>
#include <getopt.h>
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
 * scripts (the folder, the run's arguments, its order seed) in plan. */
struct sweep {
	struct alloclab_sweep plan;
	const char *dir_arg, *extra[MAX_EXTRA];
	int dry;
	double submit_timeout_s;
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
			if (alloclab_parse_count("slurm", "--shards", optarg, 1, ALLOCLAB_MAX_SHARDS, &s->plan.shards) != 0)
				return 2;
			break;
		case 'o': s->dir_arg = optarg; break;
		case 'P': s->plan.partition = optarg; break;
		case 'K':
			if (alloclab_parse_count("slurm", "--nodes-at-once", optarg, 1, 100000, &s->plan.at_once) != 0)
				return 2;
			break;
		case 'T': s->plan.time_limit = optarg; break;
		case 'B': s->plan.cpu_bind = optarg; break;
		case 'S': s->plan.shared = 1; break;
		case 'X':
			if (s->plan.nextra == MAX_EXTRA)
				return alloclab_usage_error("slurm", "at most %d --sbatch options", MAX_EXTRA);
			s->extra[s->plan.nextra++] = optarg;
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
	if (s->plan.shards == 0)
		return alloclab_usage_error("slurm", "how many shards? give --shards N");
	if (s->dir_arg == NULL || s->dir_arg[0] == '\0')
		return alloclab_usage_error("slurm", "which folder? give -o DIR (on a filesystem every node sees)");
	if (optind >= argc || strcmp(argv[optind - 1], "--") != 0)
		return alloclab_usage_error("slurm", "give the run's arguments after --");
	if ((s->plan.partition && !sbatch_value_ok(s->plan.partition)) || (s->plan.time_limit && !sbatch_value_ok(s->plan.time_limit)) ||
	    strspn(s->plan.cpu_bind, "abcdefghijklmnopqrstuvwxyz0123456789_,:=") != strlen(s->plan.cpu_bind) ||
	    s->plan.cpu_bind[0] == '\0')
		return alloclab_usage_error("slurm", "--partition, --time and --cpu-bind take one word each");
	for (unsigned i = 0; i < s->plan.nextra; i++) {
		char shown[128];
		alloclab_printable(s->extra[i], shown, sizeof shown);
		if (!sbatch_value_ok(s->extra[i]) || s->extra[i][0] != '-')
			return alloclab_usage_error("slurm", "--sbatch takes one sbatch option, such as --account=lab, not '%s'",
						    shown);
		if (sbatch_option_owned(s->extra[i]))
			return alloclab_usage_error("slurm", "--sbatch %s: alloclab sets that option of its jobs itself",
						    shown);
	}
	s->plan.run_args = argv + optind;
	s->plan.nrun = argc - optind;
	for (int i = 0; i < s->plan.nrun; i++) {
		int value_follows;
		const struct alloclab_run_option *set[16];
		int n = alloclab_run_options_in(s->plan.run_args[i], set, 16, &value_follows);
		if (n < 0) {
			char shown[128];
			alloclab_printable(s->plan.run_args[i], shown, sizeof shown);
			return alloclab_usage_error("slurm", "the run's option '%s' is not one (write options in full)", shown);
		}
		for (int k = 0; k < n && k < 16; k++) {
			if (set[k]->flags & ALLOCLAB_RUN_OPTION_SHARD_OWNS)
				return alloclab_usage_error("slurm", "the run's arguments must not set --%s: the sweep sets it "
								     "for each shard",
							    set[k]->name);
			if (set[k]->key == 'S')
				s->plan.seed_given = 1;
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
	alloclab_say("alloclab slurm: %s '%s' has a control character (a newline?) in its name: no batch script "
		     "can carry it safely; give another",
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
		alloclab_say("alloclab: cannot make %s: %s", s->dir_arg, strerror(errno));
		return 2;
	}
	if (realpath(s->dir_arg, s->dir) == NULL || stat(s->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		alloclab_say("alloclab: %s: %s", s->dir_arg, errno ? strerror(errno) : "not a folder");
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
		alloclab_say("alloclab: %s: %s", s->logs,
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
	char **check = calloc((size_t)s->plan.nrun + 8, sizeof *check), shard_arg[32], why[ALLOCLAB_ERR_LEN],
	     said[ALLOCLAB_ERR_LEN], *out = NULL;
	int k = 0;
	check[k++] = (char *)s->self;
	check[k++] = "run";
	for (int i = 0; i < s->plan.nrun; i++)
		check[k++] = s->plan.run_args[i];
	/* The last shard has the fewest rounds: if it has one, all do. */
	snprintf(shard_arg, sizeof shard_arg, "%u/%u", s->plan.shards, s->plan.shards);
	check[k++] = "--shard";
	check[k++] = shard_arg;
	check[k++] = "--dry-run";
	check[k] = NULL;
	int rc = alloclab_capture(check, NULL, PLAN_CHECK_TIMEOUT_S, 1 << 16, &out, why, sizeof why, said, sizeof said);
	free(check);
	if (rc != 0) {
		alloclab_say("alloclab slurm: the run's arguments do not make a plan of %u shards: %s", s->plan.shards,
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

/* The batch scripts: 0, or the exit status. */
static int write_scripts(struct sweep *s)
{
	char err[ALLOCLAB_ERR_LEN + 600];
	if (alloclab_sweep_write_scripts(&s->plan, &s->made_shards, &s->made_merge, err, sizeof err) != 0) {
		alloclab_say("alloclab: %s", err);
		return 2;
	}
	return 0;
}

/* sweep.json, with the jobs submitted so far: 0, or the exit status. */
static int write_record(struct sweep *s, const char *shards_id, const char *merge_id)
{
	char err[ALLOCLAB_ERR_LEN + 600];
	if (alloclab_sweep_write_record(&s->plan, shards_id, merge_id, err, sizeof err) != 0) {
		alloclab_say("alloclab: %s", err);
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
		alloclab_say("alloclab: %s", err);
		remove_made(s);
		return 2;
	}
	/* From here the array runs: the record must say so, whatever else
	 * fails, so that status follows it and the folder is not reused. */
	if ((rc = write_record(s, shards_id, NULL)) != 0) {
		alloclab_say("alloclab: the shards run as job %s all the same (scancel %s to stop them)", shards_id,
			     shards_id);
		return rc;
	}
	if (submit(s->dir, s->submit_timeout_s, "merge.sh", shards_id, merge_id, sizeof merge_id, err, sizeof err) != 0) {
		alloclab_say("alloclab: %s", err);
		fprintf(stderr, "alloclab: the shards run as job %s; submit their merge with:\n  ", shards_id);
		snprintf(dep, sizeof dep, "--dependency=afterok:%s ", shards_id);
		print_submit(stderr, s, dep, "merge.sh");
		return 2;
	}
	if ((rc = write_record(s, shards_id, merge_id)) != 0)
		return rc;
	printf("submitted %u shards as job %s (array 1-%u) and their merge as job %s, which writes ", s->plan.shards, shards_id,
	       s->plan.shards, merge_id);
	alloclab_shell_word_shown(stdout, s->dir);
	fputs("/merged.json\nfollow: alloclab slurm status ", stdout);
	alloclab_shell_word_shown(stdout, s->dir);
	printf("   (or squeue -j %s,%s)\n", shards_id, merge_id);
	return 0;
}

static int cmd_status(int argc, char **argv);

int alloclab_cmd_slurm(int argc, char **argv)
{
	struct sweep s = {.plan = {.cpu_bind = "cores"}, .submit_timeout_s = SBATCH_TIMEOUT_S};
	int rc;

	if (argc >= 2 && strcmp(argv[1], "status") == 0)
		return cmd_status(argc - 1, argv + 1);
	if ((rc = parse_options(argc, argv, &s)) >= 0)
		return rc;
	if ((rc = check_options(argc, argv, &s)) != 0)
		return rc;
	snprintf(s.self, sizeof s.self, "%s", alloclab_self_path());
	if (getcwd(s.cwd, sizeof s.cwd) == NULL) {
		alloclab_say("alloclab slurm: cannot tell the working folder: %s", strerror(errno));
		return 2;
	}
	if ((rc = one_line_path("the working folder", s.cwd)) != 0 || (rc = one_line_path("alloclab's path", s.self)) != 0)
		return rc;
	/* One order for every shard, so that a round visits the cells in the
	 * same order wherever it runs. */
	if (!s.plan.seed_given) {
		if (getrandom(&s.plan.seed, sizeof s.plan.seed, 0) != (ssize_t)sizeof s.plan.seed)
			s.plan.seed = (uint64_t)time(NULL) * 2654435761u;
		s.plan.seed &= (1ull << 62) - 1;
		if (s.plan.seed == 0)
			s.plan.seed = 1;
	}
	s.plan.self = s.self;
	s.plan.cwd = s.cwd;
	s.plan.dir = s.dir;
	s.plan.extra = s.extra;
	s.plan.tmpdir = getenv("TMPDIR");
	if (s.plan.tmpdir && (rc = one_line_path("TMPDIR", s.plan.tmpdir)) != 0)
		return rc;
	if ((rc = check_plan(&s)) != 0)
		return rc;
	alloclab_catch_interrupts();
	if ((rc = make_folder(&s)) != 0 || (rc = write_scripts(&s)) != 0) {
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
	struct alloclab_sweep_record rec;

	if (argc != 2 || argv[1][0] == '-')
		return alloclab_usage_error("slurm", "usage: alloclab slurm status DIR");
	if (alloclab_sweep_read_record(argv[1], &rec, err, sizeof err) != 0) {
		alloclab_say("alloclab: %s", err);
		return 2;
	}
	const char *self = rec.self, *dir = rec.dir, *jobs = rec.shards_job, *merge_job = rec.merge_job;
	unsigned shards = rec.shards;
	char shown[PATH_MAX];
	alloclab_printable(argv[1], shown, sizeof shown);
	printf("sweep %s: %u shards%s%s%s\n", shown, shards, jobs ? ", job " : " (not submitted)",
	       jobs ? jobs : "", jobs && !merge_job ? ", its merge not submitted (see merge.sh)" : "");
	if (merge_job)
		printf("merge job %s\n", merge_job);
	unsigned done = 0;
	for (unsigned k = 1; k <= shards; k++) {
		char shard[PATH_MAX + 32];
		snprintf(shard, sizeof shard, "%s/shard-%u.json", argv[1], k);
		struct stat st;
		if (stat(shard, &st) != 0) {
			printf("  shard %u: not started\n", k);
			continue;
		}
		struct alloclab_results *r = alloclab_results_load(shard, NULL, err, sizeof err);
		if (r == NULL) {
			alloclab_tell("  shard %u: unreadable: %s", k, err);
			continue;
		}
		unsigned measured = 0, planned = 0, failed = 0;
		for (unsigned c = 0; c < r->ncells; c++) {
			measured += r->cells[c].nprocs;
			planned += r->cells[c].status == ALLOCLAB_CELL_NOT_APPLICABLE ? 0 : r->cells[c].planned;
			failed += r->cells[c].status == ALLOCLAB_CELL_ERROR;
		}
		const char *host = r->facts.host;
		int whole = r->complete && !r->interrupted;
		if (whole)
			done++;
		alloclab_tell("  shard %u: %s, %u of %u processes%s%s%s", k,
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
		for (size_t i = 0; i < rec.nrun; i++) {
			fputc(' ', stdout);
			alloclab_shell_word(stdout, rec.run_args[i]);
		}
		printf(" --shard K/%u -o ", shards);
		alloclab_shell_word(stdout, dir);
		fputs("/shard-K.json\nthen merge: ", stdout);
		print_merge(self, dir);
		fputc('\n', stdout);
	}
	alloclab_sweep_record_clear(&rec);
	return 0;
}
