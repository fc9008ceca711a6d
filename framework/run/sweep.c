/* A sweep's files. See sweep.h. */
#define _GNU_SOURCE 1
#include "run/sweep.h"

#include "base/shell_word.h"
#include "files/input_file.h"
#include "files/output_path.h"
#include "results/results.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SWEEP_FORMAT "alloclab-sweep"

/* A script's text (freed here) into path, under the output policy,
 * executable. 0, or -1 with err set. */
static int save_script(const char *path, char *text, int *made, char *err, size_t err_len)
{
	struct alloclab_output_file f;
	size_t len = strlen(text);

	if (alloclab_output_begin(path, ALLOCLAB_OUTPUT_SCRIPT, &f, err, err_len) != 0) {
		free(text);
		return -1;
	}
	if (write(f.fd, text, len) != (ssize_t)len || fchmod(f.fd, 0755) != 0) {
		snprintf(err, err_len, "cannot write %.900s: %s", path, strerror(errno));
		alloclab_output_discard(&f);
		free(text);
		return -1;
	}
	free(text);
	if (alloclab_output_commit(&f, path, ALLOCLAB_OUTPUT_SCRIPT, err, err_len) != 0)
		return -1;
	*made = 1;
	return 0;
}

/* The job's TMPDIR: the user's, not the one sbatch ran with. */
static void tmpdir_line(FILE *f, const struct alloclab_sweep *s)
{
	if (s->tmpdir) {
		fputs("export TMPDIR=", f);
		alloclab_shell_word(f, s->tmpdir);
		fputc('\n', f);
	} else {
		fputs("unset TMPDIR\n", f);
	}
}

/* The #SBATCH lines both jobs share. */
static void sbatch_common(FILE *f, const struct alloclab_sweep *s)
{
	if (s->partition)
		fprintf(f, "#SBATCH --partition=%s\n", s->partition);
	if (s->time_limit)
		fprintf(f, "#SBATCH --time=%s\n", s->time_limit);
	for (unsigned i = 0; i < s->nextra; i++)
		fprintf(f, "#SBATCH %s\n", s->extra[i]);
}

static char *shards_script(const struct alloclab_sweep *s)
{
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
	sbatch_common(f, s);
	fputs("# Exit status 1 is a cell that failed in a shard that finished: the merge shows it.\n", f);
	/* The run's arguments name files as seen from where slurm was run. */
	tmpdir_line(f, s);
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
	return text;
}

static char *merge_script(const struct alloclab_sweep *s)
{
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
	tmpdir_line(f, s);
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
	return text;
}

int alloclab_sweep_write_scripts(const struct alloclab_sweep *s, int *made_shards, int *made_merge, char *err,
				 size_t err_len)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/shards.sh", s->dir);
	if (save_script(path, shards_script(s), made_shards, err, err_len) != 0)
		return -1;
	snprintf(path, sizeof path, "%s/merge.sh", s->dir);
	return save_script(path, merge_script(s), made_merge, err, err_len);
}

int alloclab_sweep_write_record(const struct alloclab_sweep *s, const char *shards_job, const char *merge_job,
				char *err, size_t err_len)
{
	char path[PATH_MAX + 64];
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
	json_t *sweep = json_pack("{s:s,s:i,s:i,s:s,s:s,s:s,s:o,s:s?,s:s?,s:b}", "format", SWEEP_FORMAT,
				  "format_version", 1, "shards", (int)s->shards, "alloclab", s->self, "folder", s->dir,
				  "chdir", s->cwd, "run_arguments", args, "shards_job", shards_job, "merge_job", merge_job,
				  "submitted", shards_job != NULL);
	snprintf(path, sizeof path, "%s/sweep.json", s->dir);
	int rc = alloclab_output_begin(path, ALLOCLAB_OUTPUT_SWEEP, &f, err, err_len);
	if (rc == 0 && json_dumpfd(sweep, f.fd, JSON_INDENT(1)) != 0) {
		snprintf(err, err_len, "cannot write %.900s: %s", path, strerror(errno));
		alloclab_output_discard(&f);
		rc = -1;
	}
	if (rc == 0)
		rc = alloclab_output_commit(&f, path, ALLOCLAB_OUTPUT_SWEEP, err, err_len);
	json_decref(sweep);
	return rc == 0 ? 0 : -1;
}

/* A job id as sbatch gives one (digits), else NULL: a record's other text
 * is never shown as a job. */
static char *job_id(const json_t *v)
{
	const char *s = json_string_value(v);
	return s && s[0] && strspn(s, "0123456789") == strlen(s) ? strdup(s) : NULL;
}

int alloclab_sweep_read_record(const char *dir, struct alloclab_sweep_record *out, char *err, size_t err_len)
{
	char path[PATH_MAX + 64];
	json_error_t je;

	memset(out, 0, sizeof *out);
	snprintf(path, sizeof path, "%s/sweep.json", dir);
	FILE *f = alloclab_fopen_regular(path, err, err_len);
	if (f == NULL)
		return -1;
	json_t *sweep = json_loadf(f, 0, &je);
	fclose(f);
	json_t *args = json_object_get(sweep, "run_arguments");
	json_int_t shards = json_integer_value(json_object_get(sweep, "shards"));
	const char *self = json_string_value(json_object_get(sweep, "alloclab"));
	const char *folder = json_string_value(json_object_get(sweep, "folder"));
	const char *format = json_string_value(json_object_get(sweep, "format"));
	if (sweep == NULL || format == NULL || strcmp(format, SWEEP_FORMAT) != 0 || !json_is_array(args) || shards < 1 ||
	    shards > ALLOCLAB_MAX_SHARDS || self == NULL || folder == NULL || !alloclab_shell_word_one_line(self) ||
	    !alloclab_shell_word_one_line(folder)) {
		snprintf(err, err_len, "%.900s: %s", path, sweep == NULL ? je.text : "not a sweep written by alloclab slurm");
		json_decref(sweep);
		return -1;
	}
	out->shards = (unsigned)shards;
	out->self = strdup(self);
	out->dir = strdup(folder);
	out->run_args = calloc(json_array_size(args) + 1, sizeof *out->run_args);
	size_t i;
	json_t *a;
	json_array_foreach(args, i, a)
		if (json_is_string(a))
			out->run_args[out->nrun++] = strdup(json_string_value(a));
	json_t *shards_job = json_object_get(sweep, "shards_job"), *merge_job = json_object_get(sweep, "merge_job");
	out->shards_job = job_id(shards_job);
	out->merge_job = job_id(merge_job);
	if ((shards_job && !json_is_null(shards_job) && !out->shards_job) ||
	    (merge_job && !json_is_null(merge_job) && !out->merge_job)) {
		free(out->shards_job); /* not sbatch's: neither is shown */
		free(out->merge_job);
		out->shards_job = out->merge_job = NULL;
	}
	json_decref(sweep);
	return 0;
}

void alloclab_sweep_record_clear(struct alloclab_sweep_record *r)
{
	for (size_t i = 0; i < r->nrun; i++)
		free(r->run_args[i]);
	free(r->run_args);
	free(r->self);
	free(r->dir);
	free(r->shards_job);
	free(r->merge_job);
	memset(r, 0, sizeof *r);
}
