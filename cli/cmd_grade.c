/*
 * `alloclab grade --level N SUBMISSION...`: a teacher's view of a course
 * exercise (framework/grade/grade.h does the grading; the table and the
 * gradebook's files are analysis/grade_report.c's). And `alloclab
 * __grade-inside ...`, what the grader runs inside each submission's
 * sandbox (framework/grade/inside.h).
 */
#define _GNU_SOURCE 1
#include "cli.h"
#include "base/shell_word.h"
#include "grade_report.h"
#include "check/check.h"
#include "grade/grade.h"
#include "grade/inside.h"
#include "grade/submission.h"
#include "process/child.h"
#include "process/sandbox.h"
#include "registry.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
	"usage: alloclab grade --level N [options] SUBMISSION...\n"
	"\n"
	"Grades course submissions, one row each. A SUBMISSION is the file or folder it\n"
	"names (never a bundled plugin): a folder with a meson.build (built with meson\n"
	"against the plugin SDK, as the course does), a folder of .c files or one .c file\n"
	"(built as one plugin), or a plugin already built (a .so, or a folder with only\n"
	"its build/*.so). Each is built, put through the level's check cases and, where it\n"
	"passes them, timed against the reference on churn (each in processes of its own,\n"
	"back to back: a noisy indicator with its 95% interval, not a ranking), all of it\n"
	"in a sandbox of its own (bubblewrap: no network, the system read-only, no other\n"
	"submission in sight, limits on processes, memory, file size and CPU; as root, as\n"
	"an unprivileged user of the grading's own). Every row is journalled as soon as it\n"
	"is known.\n"
	"\n"
	"options:\n"
	"      --level N               the course level (1 bump ... 5 arenas: docs/course/)\n"
	"      --reference PLUGIN      what the time is measured against: a bundled plugin's\n"
	"                              name or a plugin's path (default system)\n"
	"      --no-measure            the check only\n"
	"      --processes N           rounds a measurement, each a process of the\n"
	"                              submission's and one of the reference's (default 5)\n"
	"      --timeout SECONDS       a submission's check cases, all together (default 120):\n"
	"                              a submission that hangs costs this once\n"
	"      --build-timeout SECONDS a submission's build (default 300)\n"
	"      --measure-timeout SECONDS  a submission's measurement (default 120)\n"
	"  -o, --output DIR            the grading's folder (default alloclab-grade): its\n"
	"                              journal, table.txt, grades.csv, grades.json,\n"
	"                              feedback/ (a file per student) and logs/ (builds)\n"
	"      --resume                go on with the grading in DIR: rows already in its\n"
	"                              journal are kept, the rest graded\n"
	"      --unsandboxed           run submissions with your own rights, where no\n"
	"                              sandbox can be made (only for submissions you trust)\n"
	"  -h, --help\n"
	"\n"
	"exit status: 0 the table was made (whatever the submissions did), 2 bad input or\n"
	"no sandbox to be had, 130 interrupted (the rows done are kept: --resume)\n";

/* grade's options; 0, 1 (help printed), or 2. */
static int parse(int argc, char **argv, struct alloclab_grade_settings *s, const char **dir, int *resume)
{
	static const struct option longopts[] = {
		{"level", required_argument, NULL, 'L'},	   {"reference", required_argument, NULL, 'R'},
		{"no-measure", no_argument, NULL, 'N'},		   {"timeout", required_argument, NULL, 'T'},
		{"check-timeout", required_argument, NULL, 'T'},   {"build-timeout", required_argument, NULL, 'B'},
		{"measure-timeout", required_argument, NULL, 'M'}, {"processes", required_argument, NULL, 'P'},
		{"output", required_argument, NULL, 'o'},	   {"resume", no_argument, NULL, 'r'},
		{"unsandboxed", no_argument, NULL, 'U'},	   {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int opt;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		double *timeout = opt == 'T' ? &s->check_timeout_s : opt == 'B' ? &s->build_timeout_s : &s->measure_timeout_s;
		switch (opt) {
		case 'L':
			if (alloclab_parse_count("grade", "--level", optarg, 1, ALLOCLAB_CHECK_LEVELS, &s->level) != 0)
				return 2;
			break;
		case 'P':
			if (alloclab_parse_count("grade", "--processes", optarg, 2, 64, &s->processes) != 0)
				return 2;
			break;
		case 'R': s->reference = optarg; break;
		case 'N': s->measuring = 0; break;
		case 'T':
		case 'B':
		case 'M':
			if (alloclab_parse_timeout("grade", optarg, 86400, timeout) != 0)
				return 2;
			break;
		case 'o': *dir = optarg; break;
		case 'r': *resume = 1; break;
		case 'U': s->sandboxed = 0; break;
		case 'h': fputs(usage, stdout); return 1;
		case ':': return alloclab_usage_error("grade", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("grade", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (s->level == 0)
		return alloclab_usage_error("grade", "which level? give --level N (1 to %d)", ALLOCLAB_CHECK_LEVELS);
	return 0;
}

#define DEFAULT_SETTINGS                                                                                           \
	{.reference = "system", .measuring = 1, .processes = 5, .build_timeout_s = 300, .check_timeout_s = 120,     \
	 .measure_timeout_s = 120, .sandboxed = 1}

int alloclab_cmd_grade_inside(int argc, char **argv)
{
	struct alloclab_grade_settings s = DEFAULT_SETTINGS;
	struct alloclab_grade_inside in = {.settings = &s};
	struct alloclab_workload_spec workload;
	char err[ALLOCLAB_ERR_LEN];
	json_t *held;
	if (argc != 2)
		return alloclab_usage_error("__grade-inside", "give the grader's request (one JSON object)");
	if (alloclab_grade_request_read(argv[1], &s, &in, &held, err, sizeof err) != 0)
		return alloclab_usage_error("__grade-inside", "%s", err);
	if (alloclab_workload_parse(ALLOCLAB_GRADE_WORKLOAD, &workload, err, sizeof err) != 0) {
		json_decref(held);
		return alloclab_usage_error("__grade-inside", "%s", err);
	}
	in.workload = &workload;
	alloclab_command_words(&in.argc, &in.argv);
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s/tmp", in.work);
	mkdir(tmp, 0700);
	setenv("TMPDIR", tmp, 1);
	int rc = alloclab_grade_inside(&in);
	json_decref(held);
	return rc;
}

/* Whether a submission lies in the grading's folder (with -o . and a
 * submission named logs or feedback, the grading's files went into that
 * student's folder, and a feedback file could point at a log the student
 * planted): the submission's index, or -1. */
static long submission_in_output(const char *dir, char *const *args, size_t n)
{
	char out[PATH_MAX], sub[PATH_MAX];
	if (realpath(dir, out) == NULL)
		return -1; /* not there yet: it holds nothing */
	size_t k = strlen(out);
	for (size_t i = 0; i < n; i++)
		if (realpath(args[i], sub) != NULL && strncmp(sub, out, k) == 0 &&
		    (sub[k] == '/' || sub[k] == '\0' || (k == 1 && out[0] == '/')))
			return (long)i;
	return -1;
}

/* Whether the grading's folder lies in a submission (its journal and
 * every row would be in a student's folder): the submission's index, or
 * -1. */
static long output_in_submission(const char *dir, char *const *args, size_t n)
{
	char out[PATH_MAX], parent[PATH_MAX], sub[PATH_MAX];
	if (realpath(dir, out) == NULL) {
		snprintf(parent, sizeof parent, "%s", dir);
		char *slash = strrchr(parent, '/');
		if (slash)
			*slash = '\0';
		if (realpath(slash ? (parent[0] ? parent : "/") : ".", out) == NULL)
			return -1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k;
		if (realpath(args[i], sub) != NULL && (k = strlen(sub)) > 0 && strncmp(out, sub, k) == 0 &&
		    (out[k] == '\0' || out[k] == '/'))
			return (long)i;
	}
	return -1;
}

int alloclab_cmd_grade(int argc, char **argv)
{
	struct alloclab_grade_settings s = DEFAULT_SETTINGS;
	const char *dir = "alloclab-grade";
	int resume = 0, rc = parse(argc, argv, &s, &dir, &resume);
	if (rc != 0)
		return rc == 1 ? 0 : rc;
	if (optind >= argc)
		return alloclab_usage_error("grade", "give the submissions (folders, .c files or plugins)");
	struct stat st;
	if (strchr(s.reference, '/') && (stat(s.reference, &st) != 0 || !S_ISREG(st.st_mode)))
		return alloclab_usage_error("grade", "the reference %s is no plugin file", s.reference);
	size_t first, second;
	char *const *args = argv + optind;
	size_t n = (size_t)(argc - optind);
	if (alloclab_submissions_repeated(args, n, &first, &second))
		return alloclab_usage_error("grade", "%s is given twice (as %s)", args[second], args[first]);
	long inside = output_in_submission(dir, args, n);
	if (inside >= 0)
		return alloclab_usage_error("grade", "the grading's folder %s is inside the submission %s: give another -o",
					    dir, args[inside]);
	if ((inside = submission_in_output(dir, args, n)) >= 0)
		return alloclab_usage_error("grade", "the grading's folder %s holds the submission %s: give an -o of its "
						     "own, apart from the submissions",
					    dir, args[inside]);
	char why[ALLOCLAB_ERR_LEN + 200];
	/* Before the first submission runs, not after the whole class. */
	if (alloclab_grade_outputs_usable(dir, why, sizeof why) != 0)
		return alloclab_usage_error("grade", "%s", why);
	if (s.sandboxed && alloclab_sandbox_usable(why, sizeof why) != 0)
		return alloclab_usage_error("grade",
					    "cannot sandbox the submissions: %s; install bubblewrap (Debian: apt-get install "
					    "bubblewrap), or give --unsandboxed to grade with your own rights",
					    why);
	if (!s.sandboxed)
		fprintf(stderr, "alloclab grade: warning: UNSANDBOXED: every submission's build, plugin and measurement "
				"runs with your own rights (--unsandboxed)\n");
	alloclab_catch_interrupts();
	struct alloclab_grade_job job = {&s, args, n, dir, resume};
	struct alloclab_grade_row *rows = NULL;
	char note[ALLOCLAB_ERR_LEN] = "", err[ALLOCLAB_ERR_LEN + 200];
	if (alloclab_grade_run(&job, &rows, note, sizeof note, err, sizeof err) != 0) {
		free(rows);
		alloclab_say("alloclab grade: %s", err);
		return 2;
	}
	alloclab_grade_table(stdout, &s, rows, n, note);
	rc = alloclab_grade_write(dir, &s, rows, n, note, err, sizeof err);
	if (rc != 0)
		alloclab_say("alloclab grade: %s", err);
	else
		alloclab_tell("(the grading's files: %s/ table.txt, grades.csv, grades.json, feedback/, logs/)", dir);
	free(rows);
	return alloclab_interrupted() ? 130 : rc != 0 ? 2 : 0;
}
