/*
 * The plugin SDK works out of tree, exactly as the README says:
 *   cc -shared -fPIC $(pkg-config --cflags alloclab-plugin) my.c -o my.so
 *   alloclab run --plugin ./my.so
 * using the example plugin and the build's alloclab-plugin.pc.
 */
#include "helpers.h"
#include "results/results.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Test(outoftree, example_plugin_builds_with_pkg_config_and_runs, .timeout = 120)
{
	char *dir = scratch_dir(), cmd[8192];
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && PKG_CONFIG_PATH='%s' cc -O2 -Wall -Werror -shared -fPIC "
		 "$(PKG_CONFIG_PATH='%s' pkg-config --cflags alloclab-plugin) '%s/plugins/example/counting.c' -o counting.so",
		 dir, getenv("ALLOCLAB_PKGCONFIG_DIR"), getenv("ALLOCLAB_PKGCONFIG_DIR"), getenv("ALLOCLAB_SOURCE_ROOT"));
	cr_assert_eq(system(cmd), 0, "out-of-tree build failed: %s", cmd);

	struct cmd_result r = run_alloclab(dir, (const char *const[]){"run", "--plugin", "./counting.so:fill=0xa5",
		"-w", "churn:ops=1000,slots=50", "-t", "1,2", "-n", "1", "-v", "2", "-o", "r.json", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	struct alloclab_results *doc = load_results(dir, "r.json");
	const struct alloclab_cell *cell = &doc->cells[0];
	cr_expect_str_eq(cell->plugin, "counting:fill=0xa5");
	cr_expect_eq(cell->status, ALLOCLAB_CELL_OK);
	/* The plugin's stats reach the results: (1 warm-up + 2 values) x (50
	 * fills + 1000 replacements). "stats" is taken with the last value's
	 * 50 slots still live, "stats_after_finish" once they are freed. */
	json_t *live = cell->procs[0].stats, *after = cell->procs[0].stats_after_finish;
	cr_expect_eq(json_integer_value(json_object_get(live, "mallocs")), 3 * 1050);
	cr_expect_eq(json_integer_value(json_object_get(live, "frees")), 3 * 1050 - 50);
	cr_expect_eq(json_integer_value(json_object_get(after, "frees")), 3 * 1050);

	r = run_alloclab(dir, (const char *const[]){"run", "--plugin", "./counting.so:fill=300", "-o", "r2.json", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "bad option: bad value for 'fill': '300'") != NULL, "%s", r.err);
	alloclab_results_free(doc);
}
