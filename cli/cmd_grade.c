/*
 * `alloclab grade --level N SUBMISSION...`: a teacher's view of a course
 * exercise. Every submission (a student's plugin, or the folder it was
 * built in) is put through the level's check cases, each in a process of
 * its own as `check` runs them, and, where it passes, measured against a
 * reference plugin side by side (`run --paired`, in a child with a
 * deadline). One row per submission: a submission that does not build,
 * load, crashes or hangs is its own row, never the grading.
 */
#define _GNU_SOURCE 1
#include "cli.h"
#include "base/lengths.h"
#include "base/shell_word.h"
#include "check/check.h"
#include "figures/cell_values.h"
#include "statistics/summary.h"
#include "files/output_path.h"
#include "files/scratch.h"
#include "files/self_exe.h"
#include "plugin/loader.h"
#include "plugin/plugin_arg.h"
#include "check/probe.h"
#include "process/child.h"
#include "process/program.h"
#include "results/results.h"

#include <dirent.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"usage: alloclab grade --level N [options] SUBMISSION...\n"
	"\n"
	"Grades course submissions: each SUBMISSION is a student's plugin (a .so) or the\n"
	"folder it was built in (its build/*.so, else *.so). Each is put through the\n"
	"level's check cases (each case in its own process) and, where it passes, measured\n"
	"against the reference on churn, side by side (run --paired). One row each:\n"
	"a submission that does not build, load, crashes or hangs is its own row.\n"
	"\n"
	"options:\n"
	"      --level N            the course level (1 bump ... 5 arenas: docs/course/)\n"
	"      --reference PLUGIN   what the time is measured against (default system)\n"
	"      --no-measure         the check only\n"
	"      --timeout SECONDS    per check case and per measurement (default 60)\n"
	"  -h, --help\n"
	"\n"
	"exit status: 0 the table was made (whatever the submissions did), 2 bad input\n";

struct row {
	char name[256], plugin[PATH_MAX];
	int found, passed, npass, nfail;
	char first_fail[1200];
	double ratio; /* its time over the reference's; < 0 not measured */
	char measure_note[200];
};

/* The plugin of a submission: the file itself, or DIR/build/ *.so, else
 * DIR/ *.so (the first in name order). 0, or -1 with why. */
static int find_plugin(const char *submission, char *out, size_t len, char *why, size_t why_len)
{
	struct stat st;
	snprintf(why, why_len, "no plugin built (no .so in it or in its build/)");
	if (stat(submission, &st) != 0) {
		snprintf(why, why_len, "no such file or folder");
		return -1;
	}
	if (S_ISREG(st.st_mode)) {
		snprintf(out, len, "%s", submission);
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "not a regular file or a folder");
		return -1;
	}
	const char *where[] = {"build", "."};
	for (int w = 0; w < 2; w++) {
		char dir[PATH_MAX];
		struct dirent **names;
		if ((size_t)snprintf(dir, sizeof dir, "%s/%s", submission, where[w]) >= sizeof dir)
			return -1;
		int n = scandir(dir, &names, NULL, alphasort), found = 0;
		for (int i = 0; i < n; i++) {
			size_t l = strlen(names[i]->d_name);
			if (!found && l > 3 && strcmp(names[i]->d_name + l - 3, ".so") == 0 &&
			    strlen(dir) + 1 + l < len) {
				snprintf(out, len, "%.*s/%s", (int)(len - l - 2), dir, names[i]->d_name);
				found = 1;
			}
			free(names[i]);
		}
		if (n >= 0)
			free(names);
		if (found)
			return 0;
	}
	return -1;
}

/* Its time over the reference's on churn, side by side: the median of the
 * paired processes' ratios. 0, or -1 with why. */
static int measure(const char *plugin, const char *reference, double timeout_s, double *ratio, char *why, size_t why_len)
{
	char dir[ALLOCLAB_PATH_LEN], out[ALLOCLAB_PATH_PLUS_LEN], err[ALLOCLAB_ERR_LEN], said[300], *text = NULL;
	if (alloclab_scratch_make("grade", dir, sizeof dir) != 0) {
		snprintf(why, why_len, "no scratch folder");
		return -1;
	}
	snprintf(out, sizeof out, "%s/r.json", dir);
	char timeout[32];
	snprintf(timeout, sizeof timeout, "%g", timeout_s);
	char *argv[] = {(char *)alloclab_self_path(), "run", "--paired", "--no-check", "-p", (char *)reference, "-p",
			(char *)plugin, "-w", "churn:ops=50000", "-t", "1", "-n", "3", "-v", "2", "--timeout", timeout, "-q",
			"-o", out, NULL};
	int rc = alloclab_capture(argv, NULL, timeout_s * 12 + 30, 1 << 16, &text, err, sizeof err, said, sizeof said);
	free(text);
	struct alloclab_results *r = rc >= 0 ? alloclab_results_load(out, NULL, err, sizeof err) : NULL;
	int ok = -1;
	if (r && r->ncells == 2 && r->cells[0].status == ALLOCLAB_CELL_OK && r->cells[1].status == ALLOCLAB_CELL_OK) {
		size_t na, nb;
		double *a = alloclab_cell_values(&r->cells[0], &na), *b = alloclab_cell_values(&r->cells[1], &nb);
		struct alloclab_summary sa, sb;
		alloclab_summarize(a, na, &sa);
		alloclab_summarize(b, nb, &sb);
		free(a);
		free(b);
		if (sa.median > 0 && sb.median > 0) {
			*ratio = sb.median / sa.median;
			ok = 0;
		}
	}
	if (ok != 0) {
		const char *m = r && r->ncells == 2 && r->cells[1].message ? r->cells[1].message : rc < 0 ? err : said;
		snprintf(why, why_len, "not measured: %.150s", m && m[0] ? m : "the run failed");
	}
	alloclab_results_free(r);
	alloclab_scratch_remove(dir);
	return ok;
}

static void grade_one(const char *submission, unsigned level, const char *reference, int measuring, double timeout_s,
		      struct row *row)
{
	char err[ALLOCLAB_ERR_LEN];
	char *const *only = (char *const *)alloclab_check_level(level);
	int nonly = 0, failed = 0;
	while (only[nonly])
		nonly++;
	const char *base = strrchr(submission, '/');
	snprintf(row->name, sizeof row->name, "%s", base && base[1] ? base + 1 : submission);
	row->ratio = -1;
	if (find_plugin(submission, row->plugin, sizeof row->plugin, row->first_fail, sizeof row->first_fail) != 0)
		return;
	row->first_fail[0] = '\0';
	row->found = 1;
	struct alloclab_plugin_arg arg = {.spec = row->plugin, .options = (char *)""};
	struct alloclab_probe probe;
	if (alloclab_probe_isolated(&arg, timeout_s, &probe, err, sizeof err) != 0) {
		snprintf(row->first_fail, sizeof row->first_fail, "does not load: %.1100s", err);
		return;
	}
	alloclab_probe_clear(&probe);
	json_t *cases = alloclab_check_plugin(row->plugin, "", only, nonly, alloclab_check_level_required(level), timeout_s,
					      NULL, NULL, &failed);
	const json_t *c;
	size_t i;
	json_array_foreach(cases, i, c)
	{
		const char *st = json_string_value(json_object_get(c, "status"));
		if (strcmp(st, "pass") == 0 || strcmp(st, "skip") == 0)
			row->npass++;
		else {
			row->nfail++;
			if (!row->first_fail[0])
				snprintf(row->first_fail, sizeof row->first_fail, "%s: %.1100s",
					 json_string_value(json_object_get(c, "case")),
					 json_string_value(json_object_get(c, "why")));
		}
	}
	json_decref(cases);
	row->passed = row->nfail == 0;
	if (row->passed && measuring &&
	    measure(row->plugin, reference, timeout_s, &row->ratio, row->measure_note, sizeof row->measure_note) != 0)
		row->ratio = -1;
}

int alloclab_cmd_grade(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"level", required_argument, NULL, 'L'},     {"reference", required_argument, NULL, 'R'},
		{"no-measure", no_argument, NULL, 'N'},      {"timeout", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0},
	};
	unsigned level = 0;
	const char *reference = "system";
	int measuring = 1, opt;
	double timeout = 60;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'L':
			if (alloclab_parse_count("grade", "--level", optarg, 1, ALLOCLAB_CHECK_LEVELS, &level) != 0)
				return 2;
			break;
		case 'R': reference = optarg; break;
		case 'N': measuring = 0; break;
		case 'T':
			if (alloclab_parse_timeout("grade", optarg, 86400, &timeout) != 0)
				return 2;
			break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("grade", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("grade", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (level == 0)
		return alloclab_usage_error("grade", "which level? give --level N (1 to %d)", ALLOCLAB_CHECK_LEVELS);
	if (optind >= argc)
		return alloclab_usage_error("grade", "give the submissions (plugins, or the folders they were built in)");
	/* One row a submission: the same one given twice is a mistake. */
	for (int i = optind; i < argc; i++)
		for (int k = optind; k < i; k++)
			if (strcmp(argv[i], argv[k]) == 0 || alloclab_output_is_input(argv[i], argv[k]))
				return alloclab_usage_error("grade", "%s is given twice (as %s)", argv[i], argv[k]);
	alloclab_catch_interrupts();
	int n = argc - optind;
	struct row *rows = calloc((size_t)n, sizeof *rows);
	for (int i = 0; i < n && !alloclab_interrupted(); i++) {
		if (isatty(2))
			fprintf(stderr, "\rgrading %d of %d ", i + 1, n);
		grade_one(argv[optind + i], level, reference, measuring, timeout, &rows[i]);
	}
	if (isatty(2))
		fputs("\r\033[K", stderr);
	printf("level %u%s%s\n%-24s %-6s %-7s %-10s %s\n", level, measuring ? ", time on churn against " : "",
	       measuring ? reference : "", "submission", "level", "cases", "time", "first failing case");
	for (int i = 0; i < n; i++) {
		char name[256], why[1200], cases[16], time[32];
		alloclab_printable(rows[i].name, name, sizeof name);
		alloclab_printable(rows[i].first_fail[0] ? rows[i].first_fail : rows[i].measure_note, why, sizeof why);
		snprintf(cases, sizeof cases, rows[i].found && rows[i].npass + rows[i].nfail ? "%d/%d" : "-", rows[i].npass,
			 rows[i].npass + rows[i].nfail);
		if (rows[i].ratio > 0)
			snprintf(time, sizeof time, "%.2fx", rows[i].ratio);
		else
			snprintf(time, sizeof time, "-");
		printf("%-24.24s %-6s %-7s %-10s %s\n", name, rows[i].passed ? "pass" : "FAIL", cases, time, why);
	}
	if (measuring)
		printf("(time: the submission's median ns/op over %s's, churn, 3 processes side by side)\n", reference);
	free(rows);
	return alloclab_interrupted() ? 130 : 0;
}
