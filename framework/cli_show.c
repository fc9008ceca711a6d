/*
 * `alloclab show RESULTS.json`: the table and every workload's own report
 * (the unicode workload's seed lines) from a results file, as `alloclab run`
 * printed them, without measuring anything.
 */
#include "cli.h"
#include "loader.h"
#include "report.h"
#include "results.h"

#include <stdio.h>
#include <string.h>

int alloclab_cmd_show(int argc, char **argv)
{
	char err[ALLOCLAB_ERR_LEN];
	json_t *doc;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		puts("usage: alloclab show RESULTS.json\n\nPrints a results file's table and workload reports.");
		return 0;
	}
	if (argc != 2)
		return alloclab_usage_error("show", "give one results file");
	doc = alloclab_results_load(argv[1], err, sizeof err);
	if (doc == NULL) {
		fprintf(stderr, "alloclab: %s\n", err);
		return 2;
	}
	alloclab_report_print(doc, stdout, 1);
	json_decref(doc);
	return 0;
}
