/*
 * `alloclab show RESULTS.json [--format text|json]`: the table and every
 * workload's own report (the unicode workload's Unicode/Bytes lines) from
 * a results file, as `alloclab run` printed them, without measuring
 * anything; or the whole file, checked, as JSON. A run still in progress
 * or killed is shown with its journal folded in.
 */
#include "cli.h"
#include "formats.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

int alloclab_cmd_show(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const struct alloclab_output_format *format = alloclab_output_format_find("text", 1);
	struct alloclab_results *r;
	char names[128];
	int opt;

	alloclab_output_format_names(1, names, sizeof names);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":f:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			format = alloclab_output_format_find(optarg, 1);
			if (format == NULL)
				return alloclab_usage_error("show", "--format takes %s, not '%s'", names, optarg);
			break;
		case 'h':
			printf("usage: alloclab show RESULTS.json [--format %s]\n\n"
			       "Prints a results file's table and workload reports (text), or the whole file as JSON.\n",
			       names);
			return 0;
		case ':': return alloclab_usage_error("show", "option '%s' needs a value", argv[optind - 1]);
		default: return alloclab_usage_error("show", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return alloclab_usage_error("show", "give one results file");
	r = alloclab_cli_load(argv[optind]);
	if (r == NULL)
		return 2;
	format->show(r, stdout);
	alloclab_results_free(r);
	return 0;
}
