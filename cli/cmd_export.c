/*
 * `alloclab export --format pyperf|csv RESULTS.json -o FILE`: a results file
 * in a format other tools read (analysis/export.h), written under the one
 * output policy (framework/files/output_path.h).
 */
#include "cli.h"
#include "base/shell_word.h"
#include "export.h"
#include "plugin/loader.h"
#include "files/output_path.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: alloclab export --format pyperf|csv RESULTS.json -o FILE [--plugin LABEL]\n"
	"\n"
	"Writes a results file for other tools:\n"
	"  pyperf  pyperf's JSON format (1.0): a benchmark per cell, a run per worker process,\n"
	"          times per operation in seconds; pyperf compare_to, stats, hist and check read it\n"
	"  csv     one row per measured value with its cell's labels (pandas, R)\n"
	"\n"
	"options:\n"
	"  -f, --format pyperf|csv\n"
	"  -o, --output FILE      where (an export there is replaced, any other file is not;\n"
	"                         - for standard output)\n"
	"  -p, --plugin LABEL     only this plugin's cells; pyperf names them without the label,\n"
	"                         so that two exports compare with pyperf compare_to\n"
	"  -h, --help\n";

int alloclab_cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
		{"plugin", required_argument, NULL, 'p'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *format = NULL, *output = NULL, *plugin = NULL;
	struct alloclab_output_file f = {.fd = -1};
	struct alloclab_results *r = NULL;
	char err[ALLOCLAB_ERR_LEN + 600];
	unsigned skipped = 0;
	int opt, rc = 2;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":f:o:p:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f': format = optarg; break;
		case 'o': output = optarg; break;
		case 'p': plugin = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		case ':': return alloclab_usage_error("export", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("export", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (format == NULL || (strcmp(format, "pyperf") != 0 && strcmp(format, "csv") != 0))
		return alloclab_usage_error("export", "--format takes pyperf or csv%s%s%s", format ? ", not '" : "",
					    format ? format : "", format ? "'" : "");
	if (output == NULL || output[0] == '\0')
		return alloclab_usage_error("export", "where to? give -o FILE");
	if (argc - optind != 1)
		return alloclab_usage_error("export", "give one results file");
	/* "-": standard output, for a pipe; the export is made whole in
	 * memory first, so that a refused one writes nothing there. */
	const int to_stdout = strcmp(output, "-") == 0;
	char *text = NULL;
	size_t text_len = 0;
	if (!to_stdout && alloclab_output_usable(output, ALLOCLAB_OUTPUT_EXPORT, err, sizeof err) != 0)
		return alloclab_usage_error("export", "%s", err);
	if ((r = alloclab_cli_load(argv[optind])) == NULL)
		return 2;
	if (!to_stdout && alloclab_output_begin(output, ALLOCLAB_OUTPUT_EXPORT, &f, err, sizeof err) != 0) {
		alloclab_say("alloclab: %s", err);
		goto out;
	}
	FILE *w = to_stdout ? open_memstream(&text, &text_len) : fdopen(dup(f.fd), "w");
	if (w == NULL) {
		alloclab_say("alloclab: cannot write %s", output);
		goto out;
	}
	int ok;
	if (strcmp(format, "pyperf") == 0) {
		json_t *doc = alloclab_export_pyperf(r, plugin, &skipped, err, sizeof err);
		ok = doc && json_dumpf(doc, w, JSON_SORT_KEYS | JSON_COMPACT) == 0 && fputc('\n', w) != EOF;
		json_decref(doc);
	} else {
		ok = alloclab_export_csv(r, plugin, w, &skipped, err, sizeof err) == 0;
	}
	if (fclose(w) != 0 && ok) {
		snprintf(err, sizeof err, "cannot write %s", output);
		ok = 0;
	}
	if (ok && to_stdout && (fwrite(text, 1, text_len, stdout) != text_len || fflush(stdout) != 0)) {
		snprintf(err, sizeof err, "cannot write to standard output");
		ok = 0;
	}
	if (!ok || (!to_stdout && alloclab_output_commit(&f, output, ALLOCLAB_OUTPUT_EXPORT, err, sizeof err) != 0)) {
		alloclab_say("alloclab: %s", err);
		goto out;
	}
	if (skipped)
		alloclab_say("alloclab export: %u cell%s left out (failed, not applicable or not measured)", skipped,
			     skipped == 1 ? "" : "s");
	rc = 0;
out:
	free(text);
	alloclab_output_discard(&f);
	alloclab_results_free(r);
	return rc;
}
