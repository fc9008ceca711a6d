/*
 * `alloclab report`: a run's site (its comparison, every cell, its
 * pictures as SVG, the raw values, the mark that lists its files), text
 * from a results file shown and never run (every page, every picture), the
 * output folder's policy (a folder that is not empty and no earlier
 * report, a link, a link planted in an earlier report: refused and left
 * as they were; an earlier report replaced whole), a repository's history
 * (a page per commit, the broken one saying why, the change point, links
 * to the runs' pages), a long history thinned and saying so, a store of
 * runs alone, a store's hostile text (escapes, bidirectional controls)
 * reaching no terminal and no page raw, a long command shown in part.
 * What a browser makes of the pages is tests/browser/'s.
 */
#define _GNU_SOURCE 1
#include "helpers.h"
#include "report_site/history_charts.h"
#include "report_site/html.h"

#include <criterion/criterion.h>
#include <ftw.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int count_of(const char *text, const char *what)
{
	int n = 0;
	for (const char *p = text; p && (p = strstr(p, what)) != NULL; p += strlen(what))
		n++;
	return n;
}

/* A small paired run of two plugins (or unpaired: paired 0). */
static void quick_run(const char *dir, const char *name, int paired)
{
	const char *args[32] = {"run", "-p", "system", "-p", "mimalloc", "-w", "churn:ops=5000", "-t", "1,2", "-n", "3",
				"-v", "2", "-q", "-o", name};
	int n = 16;
	if (paired)
		args[n++] = "--paired";
	args[n] = NULL;
	struct cmd_result r = run_alloclab(dir, args);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
}

static struct cmd_result report(const char *dir, const char *in, const char *out)
{
	return run_alloclab(dir, (const char *const[]){"report", in, "-o", out, NULL});
}

static void report_ok(const char *dir, const char *in, const char *out)
{
	struct cmd_result r = report(dir, in, out);
	cr_assert_eq(r.status, 0, "report %s: %s%s", in, r.out, r.err);
	cmd_result_free(&r);
}

Test(report, a_runs_page_holds_its_comparison_every_cell_and_its_pictures, .timeout = 300)
{
	char *dir = scratch_dir();
	quick_run(dir, "run.json", 1);
	report_ok(dir, "run.json", "site");
	char *site = path_in(dir, "site"), *page = file_in(site, "index.html"), *mark = file_in(site, "alloclab-report.txt");
	cr_expect(strstr(page, "Content-Security-Policy") && strstr(page, ALLOCLAB_HTML_CSP), "the page sets its policy");
	/* Where it ran says what else ran (measured, not the load average)
	 * and what the environment set in the allocators: the suite's
	 * commands start with none. */
	cr_expect(strstr(page, "<dt>other processes took</dt><dd>") && strstr(page, " CPUs on average ("),
		  "the other processes' share of the CPUs");
	cr_expect(strstr(page, "<dt>allocator settings</dt><dd>none in the environment</dd>"), "the allocator settings");
	/* The paired comparison: mimalloc against system at 1 and 2 threads. */
	char *cmp = strstr(page, "class=\"sortable filterable comparison\"");
	cr_assert_not_null(cmp);
	char *end = strstr(cmp, "</table>");
	*end = '\0';
	cr_expect_eq(count_of(cmp, "<tr>") - 1, 2, "two rows of the comparison");
	*end = '<';
	/* Every cell a row and its raw values, every figure drawn and listed. */
	for (int i = 0; i < 4; i++) {
		char name[64];
		snprintf(name, sizeof name, "data/run/cell-%d.json", i);
		free(file_in(site, name));
		cr_expect(strstr(mark, name), "the mark lists %s", name);
	}
	cr_expect(strstr(page, "data/run/cell-3.json"), "the rows link their values");
	char *svg = file_in(site, "figures/run/churn-plugins.svg");
	cr_expect(strstr(svg, "<svg"), "a vector picture");
	cr_expect(strstr(page, "figures/run/churn-plugins.svg"), "the page shows it");
	cr_expect(strstr(mark, "figures/run/churn-plugins.svg") && strstr(mark, "index.html"));
	/* The comparison as data, as compare writes it. */
	json_error_t e;
	char *cj = path_in(site, "data/run/comparison.json");
	json_t *doc = json_load_file(cj, 0, &e);
	cr_expect_not_null(doc, "%s", e.text);
	json_decref(doc);
}

/* A run whose every text from outside is hostile: labels, names, the
 * host, the command, a message, what a plugin printed. */
static void hostile_run(const char *dir)
{
	static const char *const texts[] = {"<script>alert(1)</script>", "\"><img src=x onerror=alert(2)>"};
	char path[4200];
	quick_run(dir, "run.json", 0);
	snprintf(path, sizeof path, "%s/run.json", dir);
	json_t *doc = json_load_file(path, 0, NULL), *p, *c;
	size_t i;
	cr_assert_not_null(doc);
	json_t *plugins = json_object_get(doc, "plugins"), *cells = json_object_get(doc, "cells");
	char old[2][64];
	json_array_foreach(plugins, i, p) {
		snprintf(old[i], sizeof old[i], "%s", json_string_value(json_object_get(p, "label")));
		json_object_set_new(p, "label", json_string(texts[i]));
		json_object_set_new(p, "name", json_string(texts[1 - i]));
		json_object_set_new(p, "description", json_string(texts[i]));
		json_object_set_new(p, "version", json_string(texts[1 - i]));
	}
	json_array_foreach(cells, i, c) {
		json_object_set_new(c, "plugin", json_string(texts[strcmp(json_string_value(json_object_get(c, "plugin")), old[0]) != 0]));
		json_object_set_new(c, "unit_op", json_string(texts[0]));
	}
	json_t *meta = json_object_get(doc, "metadata");
	json_object_set_new(meta, "host", json_string(texts[0]));
	json_object_set_new(meta, "cpu_model", json_string(texts[1]));
	json_object_set_new(meta, "command", json_pack("[s,s,s,s]", "alloclab", "run", texts[0], texts[1]));
	json_object_set_new(json_array_get(json_object_get(json_array_get(cells, 0), "runs"), 0), "plugin_output",
			    json_string(texts[1]));
	json_t *failed = json_array_get(cells, 1);
	json_object_set_new(failed, "status", json_string("error"));
	json_object_set_new(failed, "error", json_string(texts[0]));
	cr_assert_eq(json_dump_file(doc, path, JSON_COMPACT), 0);
	json_decref(doc);
}

static int scanned_files, scanned_bad;

/* Every page: one script element, the site's own; no element a label made.
 * Every picture: no script, no element from a label. */
static int scan(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t n = strlen(path);
	int html = n > 5 && strcmp(path + n - 5, ".html") == 0, svg = n > 4 && strcmp(path + n - 4, ".svg") == 0;
	if (type != FTW_F || (!html && !svg))
		return 0;
	char *text = read_file(path);
	scanned_files++;
	int scripts = count_of(text, "<script"), own = count_of(text, "<script src=\"assets/site.js\" defer></script>");
	if ((html && (scripts != 1 || own != 1)) || (svg && scripts != 0) || strstr(text, "<img src=x") ||
	    strstr(text, "<script>alert")) {
		cr_log_error("%s: a label became markup", path);
		scanned_bad++;
	}
	free(text);
	return 0;
}

Test(report, text_from_a_results_file_is_shown_and_never_run, .timeout = 300)
{
	char *dir = scratch_dir();
	hostile_run(dir);
	report_ok(dir, "run.json", "site");
	char *site = path_in(dir, "site"), *page = file_in(site, "index.html");
	nftw(site, scan, 16, FTW_PHYS);
	cr_expect_gt(scanned_files, 3, "pages and pictures scanned");
	cr_expect_eq(scanned_bad, 0);
	/* Shown as text. */
	cr_expect(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;"), "the first label as text");
	cr_expect(strstr(page, "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"), "the second label as text");
}

Test(report, html_text_is_escaped_once_and_links_stay_inside_the_site)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	alloclab_html_text(f, "a<b>&\"'\x01\x7f\xff\xe2\x82 \xc3\xa9\n");
	alloclab_html_link(f, "javascript:alert(1)", "j");
	alloclab_html_link(f, "../../etc/passwd", "p");
	alloclab_html_link(f, "https://example.org/", "h");
	alloclab_html_link(f, "commit-3.html#x", "c");
	fclose(f);
	/* Each byte that starts no whole UTF-8 sequence is one U+FFFD. */
	cr_expect_str_eq(out, "a&lt;b&gt;&amp;&quot;&#39;\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xc3\xa9\njph<a "
			      "href=\"commit-3.html#x\">c</a>");
	free(out);
}

/* A bidirectional control is shown as its escape, a C1 control dropped:
 * neither reaches the page to turn its text around or act. */
Test(report, html_text_shows_bidirectional_controls_as_escapes)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	alloclab_html_text(f, "a\xe2\x80\xae" "b\xe2\x81\xa6" "c\xe2\x80\x8f\xd8\x9c\xc2\x9b\xc3\xa9");
	fclose(f);
	cr_expect_str_eq(out, "a\\u202eb\\u2066c\\u200f\\u061c\xc3\xa9");
	free(out);
}

/* A report refused: status 2, one line naming the problem, and what was
 * at the folder as it was; nothing partial left beside it. */
static void expect_refused(const char *dir, const char *out, const char *text)
{
	struct cmd_result r = report(dir, "run.json", out);
	cr_expect_eq(r.status, 2, "%s: %s%s", out, r.out, r.err);
	cr_expect(strstr(r.err, text) != NULL, "expected '%s', got: %s", text, r.err);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cmd_result_free(&r);
	char cmd[4400];
	snprintf(cmd, sizeof cmd, "ls -d %s/*.partial-* 2>/dev/null | grep -q .", dir);
	cr_expect_neq(system(cmd), 0, "a partial folder was left");
}

Test(report, the_output_folder_is_a_new_one_an_empty_one_or_an_earlier_reports, .timeout = 300)
{
	char *dir = scratch_dir();
	quick_run(dir, "run.json", 0);
	sh("cd %s && mkdir mine empty && echo precious > mine/notes.txt && ln -s mine link && echo x > file", dir);
	expect_refused(dir, "mine", "notes.txt");
	expect_refused(dir, "link", "symbolic link");
	expect_refused(dir, "file", "not a folder");
	char *notes = path_in(dir, "mine/notes.txt"), *kept = read_file(notes);
	cr_expect_str_eq(kept, "precious\n");
	report_ok(dir, "run.json", "empty");
	report_ok(dir, "run.json", "site");
	/* An earlier report is replaced whole: a run of fewer cells leaves no
	 * cell of the first behind. */
	sh("cd %s && %s run -p system -w churn:ops=2000 -t 1 -n 2 -v 1 -q -o small.json", dir, getenv("ALLOCLAB_EXE"));
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"report", "small.json", "-o", "site", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	char *gone = path_in(dir, "site/data/run/cell-3.json");
	struct stat st;
	cr_expect_neq(stat(gone, &st), 0, "the earlier report's cell 3 is gone");
	/* What an earlier report holds besides its own files is refused: a
	 * link planted in it, a file added. */
	sh("cd %s && cp -r site site2 && ln -s /etc site/figures/run/planted.svg && echo mine > site2/extra.txt", dir);
	expect_refused(dir, "site", "symbolic link");
	expect_refused(dir, "site2", "extra.txt");
	char *planted = path_in(dir, "site/figures/run/planted.svg");
	cr_expect_eq(lstat(planted, &st), 0, "the planted link is left as it was");
}

/* A repository's history measured in instructions into h.db. */
static void history(const char *dir)
{
	char repo[4300], build[4400];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_history_repo(repo);
	history_build_command(build, sizeof build);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "run", "--repo", repo, "HEAD~5..HEAD",
								      "--db", "h.db", "-o", "hist", "--build", build,
								      "--plugin", "plugin.so", "--metrics", "instructions",
								      "-w", "churn:ops=2000", NULL});
	cr_assert_eq(r.status, 1, "a commit does not build: %s%s", r.out, r.err);
	cmd_result_free(&r);
}

/* Time decided in slices (ab's default design) shows on the pages as
 * history show gives it: the slices' ratio and interval with the verdict,
 * and how much in whole values under the ratio, in the latest verdicts
 * and on the commit's page alike. */
Test(report, a_time_steps_how_much_is_shown_beside_its_verdict, .timeout = 600)
{
	char *dir = scratch_dir(), repo[4300], build[4400];
	snprintf(repo, sizeof repo, "%s/repo", dir);
	make_history_repo(repo);
	history_build_command(build, sizeof build);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "run", "--repo", repo, "HEAD~5..HEAD~3",
								      "--db", "h.db", "-o", "hist", "--build", build,
								      "--plugin", "plugin.so", "--metrics", "time", "-w",
								      "churn:ops=2000", "-n", "4", "-v", "2", "--design",
								      "slices+values:500", "--reference", "none", NULL});
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "h.db", "-f", "json", NULL});
	json_t *doc = json_loads(r.out, 0, NULL), *point = NULL, *p;
	size_t i;
	json_array_foreach(json_object_get(json_array_get(json_object_get(doc, "series"), 0), "points"), i, p)
		if (json_object_get(p, "step"))
			point = p;
	cr_assert(point && json_object_get(point, "how_much"), "history show's step has how much: %s", r.out);
	char expect[64];
	snprintf(expect, sizeof expect, "how much: %.4f [",
		 json_real_value(json_object_get(json_object_get(point, "how_much"), "ratio")));
	cmd_result_free(&r);
	report_ok(dir, "h.db", "site");
	char *site = path_in(dir, "site"), *index = file_in(site, "index.html"), *page = file_in(site, "commit-2.html");
	cr_expect(strstr(index, expect) != NULL, "the latest verdicts show %s", expect);
	cr_expect(strstr(page, expect) != NULL, "the commit's page shows %s", expect);
	json_decref(doc);
}

Test(report, a_history_has_a_page_per_commit_and_its_runs, .timeout = 600)
{
	char *dir = scratch_dir();
	history(dir);
	report_ok(dir, "h.db", "site");
	char *site = path_in(dir, "site"), *index = file_in(site, "index.html");
	cr_expect(strstr(index, "6 commits, 5 measured, 1 broken"), "the index says what the history holds");
	cr_expect(strstr(index, "<figure class=\"chart\" id=\"series-0\">"), "one chart per series");
	/* The change's size as history show says it (the fixture's extra
	 * counters cost what this compiler makes of them). */
	struct cmd_result text = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "h.db", NULL});
	char size[64] = "";
	const char *change = strstr(text.out, "CHANGE +");
	cr_assert(change && sscanf(change, "CHANGE %63s instr/op", size) == 1, "history show names the change: %s",
		  text.out);
	strcat(size, " instr/op");
	cr_expect(strstr(index, "Change points") && strstr(index, size), "the change point and its size (%s)", size);
	cmd_result_free(&text);
	char *broken = file_in(site, "commit-3.html");
	cr_expect(strstr(broken, "broken") && strstr(broken, "#error broken"), "the broken commit says why");
	char *changed = file_in(site, "commit-2.html");
	cr_expect(strstr(changed, "change point"), "the commit that changed the count says so");
	cr_expect(strstr(changed, "href=\"run-"), "and links its run's page");
	/* The history's data is what history show prints. */
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "h.db", "-f", "json", NULL});
	cr_assert_eq(r.status, 0);
	/* (show prints ten digits of a number, the site every one) */
	json_t *shown = json_loads(r.out, 0, NULL), *kept = json_load_file(path_in(site, "data/history.json"), 0, NULL);
	char *ten = kept ? json_dumps(kept, JSON_REAL_PRECISION(10)) : NULL;
	json_t *kept10 = ten ? json_loads(ten, 0, NULL) : NULL;
	cr_expect(shown && kept10 && json_equal(shown, kept10), "data/history.json is history show's JSON");
	cmd_result_free(&r);
}

/* A step's run to copy: two builds of the history fixture, alike, by ab in
 * instructions (ab/instructions.json). */
static void ab_template(const char *dir)
{
	const char *root = getenv("ALLOCLAB_SOURCE_ROOT");
	sh("cd %s && cp %s/tests/fixtures/history/plugin.c . && printf '#define EXTRA_WORK 0\\n#define SLACK_PERCENT 0\\n' "
	   "> config.h && cc -O2 -shared -fPIC -I%s/framework/include plugin.c -o base.so && cp base.so head.so",
	   dir, root, root);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"ab", "base.so", "head.so", "--metrics", "instructions",
								      "-w", "churn:ops=2000", "-o", "ab", NULL});
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cmd_result_free(&r);
}

/* What a terminal must never get raw: ESC (a screen clear, a window
 * title), BEL, a carriage return, an 8-bit CSI, U+202E (which turns the
 * rest of a line around). */
static const char *raw_control(const char *text)
{
	static const char *const raw[] = {"\x1b", "\x07", "\r", "\xc2\x9b", "\xe2\x80\xae"};
	for (size_t k = 0; k < sizeof raw / sizeof *raw; k++)
		if (strstr(text, raw[k]))
			return raw[k];
	return NULL;
}

static int scanned_raw;

static int scan_raw(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	if (type != FTW_F)
		return 0;
	char *text = read_file(path);
	if (text && raw_control(text)) {
		cr_log_error("%s holds a raw control character", path);
		scanned_raw++;
	}
	free(text);
	return 0;
}

/* A store whose commit subjects, broken commit's reason and host hold a
 * screen clear, a window title, a carriage return, an 8-bit CSI and
 * U+202E: history show, as text and as JSON, passes none of them to the
 * terminal, and no file of the report holds one (a page shows U+202E as
 * its escape, so that it cannot turn the page's own text around). */
Test(report, a_stores_text_reaches_no_terminal_and_no_page_raw, .timeout = 600)
{
	char *dir = scratch_dir();
	ab_template(dir);
	sh("cd %s && %s ab/instructions.json h.db 4 2", dir, getenv("ALLOCLAB_SYNTHETIC_HISTORY"));
	sh("cd %s && sqlite3 h.db \"UPDATE repo_commit SET subject = 'fix' || char(27) || '[2J' || char(27) || ']0;pwned' || "
	   "char(7) || char(13) || 'forged ' || char(8238) || 'desrever' || char(155) || '31m'; UPDATE repo_commit SET state "
	   "= 'broken', why = 'cc' || char(27) || '[2J' || char(13) || char(8238) || 'gnorw' WHERE ordinal = 3; UPDATE "
	   "machine SET host = 'ho' || char(27) || ']0;t' || char(7) || char(8238) || 'tso';\"",
	   dir);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "h.db", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_null(raw_control(r.out), "history show passed a control character: %s", r.out);
	cr_expect(strstr(r.out, "fix?[2J?]0;pwned??forged \\u202edesrever?31m\n"), "the subject as text: %s", r.out);
	cr_expect(strstr(r.out, "broken: 3 000000000003: cc?[2J?\\u202egnorw\n"), "why, as text: %s", r.out);
	cr_expect(strstr(r.out, "measured on ho?]0;t?\\u202etso, "), "the host as text: %s", r.out);
	cmd_result_free(&r);
	r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "h.db", "-f", "json", NULL});
	cr_expect_null(raw_control(r.out), "history show -f json passed a control character: %s", r.out);
	json_t *doc = json_loads(r.out, 0, NULL);
	const char *subject = json_string_value(json_object_get(json_array_get(json_object_get(doc, "commits"), 0), "subject"));
	cr_expect(subject && strstr(subject, "\r") && strstr(subject, "\xe2\x80\xae"), "the JSON keeps the text whole");
	json_decref(doc);
	cmd_result_free(&r);
	/* A store of runs alone is listed from its rows: the same. */
	r = run_alloclab(dir, (const char *const[]){"history", "add", "ab/instructions.json", "--db", "runs.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	sh("cd %s && sqlite3 runs.db \"UPDATE machine SET host = 'ho' || char(27) || ']0;t' || char(7) || char(8238) || "
	   "'tso'; UPDATE cell SET label = 'lab' || char(13) || char(8238) || 'el'; UPDATE run SET date = 'd' || char(27) "
	   "|| '[2J';\"",
	   dir);
	r = run_alloclab(dir, (const char *const[]){"history", "show", "--db", "runs.db", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_null(raw_control(r.out), "the listing passed a control character: %s", r.out);
	cr_expect(strstr(r.out, ", d?[2J on ho?]0;t?\\u202etso, ") && strstr(r.out, "  lab?\\u202eel "), "%s", r.out);
	cmd_result_free(&r);
	report_ok(dir, "h.db", "site");
	char *site = path_in(dir, "site"), *index = file_in(site, "index.html");
	scanned_raw = 0;
	nftw(site, scan_raw, 16, FTW_PHYS);
	cr_expect_eq(scanned_raw, 0);
	cr_expect(strstr(index, "forged \\u202edesrever"), "the subject, its control shown as its escape");
}

Test(report, a_long_history_is_thinned_and_says_so, .timeout = 600)
{
	char *dir = scratch_dir();
	ab_template(dir);
	sh("cd %s && %s ab/instructions.json h.db 300 100 200", dir, getenv("ALLOCLAB_SYNTHETIC_HISTORY"));
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"report", "h.db", "-o", "site", "--run-pages", "3", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	char *site = path_in(dir, "site"), *index = file_in(site, "index.html"), *all = file_in(site, "commits.html");
	cr_expect(strstr(index, "thinned: every 2nd of 300 commits drawn, and each change point"), "the chart says so");
	cr_expect(strstr(index, "The newest 30 of 300"), "the index lists the newest commits and says so");
	cr_expect_eq(count_of(all, "<tr>") - 1, 300, "every commit on commits.html");
	char *old = file_in(site, "commit-50.html"), *changed = file_in(site, "commit-200.html");
	cr_expect(strstr(old, "its page was not made"), "a commit without a run page says so");
	cr_expect(strstr(changed, "href=\"run-"), "a change point's runs have pages");
}

static long long html_bytes, largest_page;

static int add_html(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	size_t n = strlen(path);
	if (type == FTW_F && n > 5 && strcmp(path + n - 5, ".html") == 0) {
		html_bytes += st->st_size;
		largest_page = st->st_size > largest_page ? st->st_size : largest_page;
	}
	return 0;
}

/* A store of 60 commits whose runs' command holds 20,000 words, each with
 * a quote (a shell word and HTML make each several times longer): a page
 * shows the first 512 bytes, and the whole command in a <details> only up
 * to 16 KiB with how many bytes are left out, so the pages stay small
 * (they held the command twice each, 1.1 MB a run page, as a card and in
 * the metadata; such a store made a site of 229 MiB). */
Test(report, a_long_command_is_shown_in_part, .timeout = 600)
{
	char *dir = scratch_dir();
	ab_template(dir);
	json_t *doc = json_load_file(path_in(dir, "ab/instructions.json"), 0, NULL), *command = json_array();
	cr_assert_not_null(doc);
	json_array_append_new(command, json_string("alloclab"));
	for (int i = 0; i < 20000; i++) {
		char word[32];
		snprintf(word, sizeof word, "w'%d", i);
		json_array_append_new(command, json_string(word));
	}
	json_object_set_new(json_object_get(doc, "metadata"), "command", command);
	cr_assert_eq(json_dump_file(doc, path_in(dir, "long.json"), JSON_COMPACT), 0);
	json_decref(doc);
	sh("cd %s && %s long.json h.db 60 30", dir, getenv("ALLOCLAB_SYNTHETIC_HISTORY"));
	report_ok(dir, "h.db", "site");
	html_bytes = largest_page = 0;
	nftw(path_in(dir, "site"), add_html, 16, FTW_PHYS);
	cr_expect_lt(largest_page, 256 * 1024, "a page of %lld bytes", largest_page);
	cr_expect_lt(html_bytes, 8 * 1024 * 1024, "pages of %lld bytes in all", html_bytes);
	char *page = file_in(path_in(dir, "site"), "run-59.html");
	cr_expect(strstr(page, "The whole command (") && strstr(page, " more bytes</code></details>"),
		  "the command in part, saying how much is left out");
	free(page);
}

Test(report, a_store_of_runs_alone_lists_them, .timeout = 300)
{
	char *dir = scratch_dir();
	quick_run(dir, "a.json", 0);
	quick_run(dir, "b.json", 1);
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"history", "add", "a.json", "b.json", "--db", "h.db", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	report_ok(dir, "h.db", "site");
	char *site = path_in(dir, "site"), *index = file_in(site, "index.html");
	cr_expect(strstr(index, "href=\"run-1.html\"") && strstr(index, "href=\"run-2.html\""), "both runs, linked");
	free(file_in(site, "run-2.html"));
}

/* A view of n commits, one series of `metric` whose commit k has level
 * levels[k] and, past the first, a step over the commit before with the
 * interval [ratio - 0.03, ratio + 0.03]; changes lists the change points
 * (-1 ends). Its texts are the caller's (freed with free_view). */
static void make_view(struct alloclab_history_view *v, enum alloclab_ab_metric metric, size_t n, const double *levels,
		      const int *changes)
{
	memset(v, 0, sizeof *v);
	v->repo = strdup("/r");
	v->commits = calloc(n, sizeof *v->commits);
	v->ncommits = n;
	v->series = calloc(1, sizeof *v->series);
	v->nseries = 1;
	struct alloclab_history_series *s = &v->series[0];
	s->metric = metric;
	s->row = strdup("churn");
	s->points = calloc(n, sizeof *s->points);
	s->npoints = n;
	for (size_t k = 0; k < n; k++) {
		char hash[48], subject[128];
		snprintf(hash, sizeof hash, "%07zx%033d", k + 0xabc0000, 0);
		snprintf(subject, sizeof subject, "commit %zu: a subject <b>longer</b> than a name shows \xe2\x80\xae!", k);
		v->commits[k] = (struct alloclab_commit){.commit = strdup(hash), .subject = strdup(subject),
							 .ordinal = (unsigned)k, .state = ALLOCLAB_COMMIT_MEASURED};
		struct alloclab_history_point *p = &s->points[k];
		p->commit = k;
		p->level = levels[k];
		p->p = -1;
		if (k == 0)
			continue;
		p->has_step = 1;
		p->base = k - 1;
		p->ratio = levels[k] / levels[k - 1];
		p->has_interval = 1;
		p->lo = p->ratio - 0.03;
		p->hi = p->ratio + 0.03;
		for (const int *c = changes; *c >= 0; c++)
			p->change |= (size_t)*c == k;
	}
}

static void free_view(struct alloclab_history_view *v)
{
	for (size_t k = 0; k < v->ncommits; k++) {
		free(v->commits[k].commit);
		free(v->commits[k].subject);
	}
	free(v->commits);
	free(v->series[0].row);
	free(v->series[0].points);
	free(v->series);
	free(v->repo);
}

static char *chart_of(const struct alloclab_history_view *v)
{
	struct alloclab_history_index x;
	char *out = NULL;
	size_t len = 0;
	cr_assert_eq(alloclab_history_index_build(&x, v), 0);
	FILE *f = open_memstream(&out, &len);
	alloclab_history_chart_write(f, &x, 0);
	fclose(f);
	alloclab_history_index_free(&x);
	return out;
}

/* The memory chart draws each step's 95% interval (from the level of the
 * commit before) and marks its change point with its size, as the time
 * chart does (it drew neither: gnuplot's picture had no bars and marks
 * only the instructions' and time's change points alike). */
Test(report, a_memory_chart_draws_each_steps_interval_and_its_change_point)
{
	struct alloclab_history_view v;
	const double levels[] = {1000, 1010, 1200, 1190};
	make_view(&v, ALLOCLAB_AB_MEMORY, 4, levels, (const int[]){2, -1});
	char *svg = chart_of(&v);
	cr_expect(strstr(svg, "<svg class=\"chart\"") && strstr(svg, "</svg>"), "an inline chart: %.300s", svg);
	cr_expect_eq(count_of(svg, "<path class=\"bar\""), 3, "a bar for each of the three steps");
	cr_expect(strstr(svg, "its step 1.1881 [1.1581 .. 1.2181] over the commit before"), "the change's step, said");
	cr_expect_eq(count_of(svg, "<line class=\"mark\""), 2, "the change point's line, and the legend's");
	cr_expect(strstr(svg, "change point at abc000200000: 18.8% larger"), "the change point named with its size");
	cr_expect_eq(count_of(svg, "class=\"dot change\""), 1);
	free(svg);
	free_view(&v);
}

/* The x axis names each commit by its short hash and subject, the subject
 * cut to fit with the whole in its tooltip, escaped, its bidirectional
 * control as an escape; at 60 commits every second one is named so that
 * the slanted names do not touch (the picture named none: its axis was
 * the commits' places, 0 to 59). */
Test(report, a_charts_axis_names_its_commits_readably)
{
	struct alloclab_history_view v;
	double levels[60];
	for (int k = 0; k < 60; k++)
		levels[k] = k < 30 ? 50 : 60;
	make_view(&v, ALLOCLAB_AB_TIME, 60, levels, (const int[]){30, -1});
	char *svg = chart_of(&v);
	int names = count_of(svg, "<text class=\"commit\"");
	cr_expect(names >= 20 && names <= 31, "%d of 60 commits named", names);
	cr_expect(strstr(svg, "every 2 named"), "the axis says which are named");
	cr_expect(strstr(svg, "<tspan class=\"hash\">abc003b</tspan> commit 59: a subject…</text>"),
		  "the last commit named, its subject cut and escaped");
	cr_expect(strstr(svg, "<title>59: abc003b000000000000000000000000000000000\ncommit 59: a subject &lt;b&gt;longer&lt;/b&gt; "
			      "than a name shows \\u202e!</title>"),
		  "its whole subject the tooltip, its bidirectional control an escape");
	cr_expect_null(strstr(svg, "\xe2\x80\xae"), "no raw bidirectional control");
	cr_expect_null(strstr(svg, "<b>"), "no markup from a subject");
	free(svg);
	free_view(&v);
}

/* A history of 2,000 commits makes its pages in seconds (issue 55: each
 * commit's row and page looked through every point of every series, and
 * the chart's change points were sorted by selection). The store is made
 * in /dev/shm where there is one (on a loaded disk its 8,000 writes took
 * minutes); 120 s is the deadline of a machine at load 10. */
/* What the pages of a long history hold; how long they take to make is
 * benchmarks/many-commits.sh's (a figure, not a test). */
Test(report, a_history_of_2000_commits_makes_its_pages, .timeout = 900)
{
	char *dir = scratch_dir();
	ab_template(dir);
	sh("cd %s && %s ab/instructions.json h.db 2000 500 1200 1201 1900", dir, getenv("ALLOCLAB_SYNTHETIC_HISTORY"));
	struct cmd_result r = run_alloclab(dir, (const char *const[]){"report", "h.db", "-o", "site", NULL});
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd_result_free(&r);
	char *site = path_in(dir, "site"), *index = file_in(site, "index.html"), *all = file_in(site, "commits.html");
	cr_expect_eq(count_of(all, "<tr>") - 1, 2000, "every commit on commits.html");
	cr_expect_eq(count_of(all, "<span class=\"verdict change\">change point</span>"), 4, "the four change points");
	cr_expect(strstr(index, "thinned: every 8th of 2000 commits drawn, and each change point"), "the chart says so");
	cr_expect_eq(count_of(index, "<line class=\"mark\""), 4 + 1, "the chart marks each change point");
	cr_expect_eq(count_of(index, "<span class=\"verdict change\">+"), 4, "the change points' table");
	char *changed = file_in(site, "commit-1201.html"), *quiet = file_in(site, "commit-1500.html");
	cr_expect(strstr(changed, "change point: ") && strstr(changed, "href=\"run-"), "a change point's page and runs");
	cr_expect(strstr(quiet, "the same") && !strstr(quiet, "change point: "), "a commit that changed nothing");
}
