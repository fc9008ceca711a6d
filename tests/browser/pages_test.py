#!/usr/bin/python3.11
"""The report's pages in a real browser (docs/guides/report.md): Debian's
Chromium, headless, over the DevTools protocol (cdp.py).

  tests/browser/pages_test.py ALLOCLAB SYNTHETIC_HISTORY WORK_DIR

Makes, in WORK_DIR (emptied first): a paired run, a run whose every text
from outside is hostile, a small repository's history (a broken commit, a
change point) and a history of 300 commits made without measuring; their
sites; and opens each kind of page (a run's page, a history's index, a
commit's page, a history's run page, the long history's index and its list
of every commit) at 1280 and 390 pixels wide. A page fails on any console
error or warning, exception, failed load, request outside its folder,
dialog a script opened, or width past the window's. The numbers a page
shows are read back from it and checked against the results file (each
cell's median, each paired ratio from its processes' ratios) and against
`alloclab history show --format json`; sorting and filtering are tried;
hostile labels must show as their characters and make no element; a
history's tables (the long one's row a name of 100 characters) must fit
1280 px without scrolling in their frames.

Exit status 0 passed, 1 failed, 77 skipped (no chromium or no
python3-websocket: the reason is printed; meson counts it as skipped).
"""
import glob
import json
import math
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

HOSTILE = ["<script>alert(1)</script>", "\"><img src=x onerror=alert(2)>"]
failures = []


def fail(what):
    failures.append(what)
    print("FAIL: " + what, flush=True)


def run(args, cwd, ok=(0,)):
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=900)
    if p.returncode not in ok:
        sys.exit("command failed (%d): %s\n%s%s" % (p.returncode, " ".join(args), p.stdout, p.stderr))
    return p.stdout


# ---- what is reported ----

def make_runs(exe, work):
    run([exe, "run", "--paired", "-p", "system", "-p", "jemalloc", "-p", "mimalloc", "-w", "churn:ops=20000", "-t",
         "1,2", "-n", "3", "-v", "2", "-q", "-o", "paired.json"], work)
    run([exe, "run", "-p", "system", "-p", "mimalloc", "-w", "churn:ops=5000", "-t", "1,2", "-n", "2", "-v", "1", "-q",
         "-o", "plain.json"], work)
    d = json.load(open(os.path.join(work, "plain.json")))
    old = [p["label"] for p in d["plugins"]]
    for i, p in enumerate(d["plugins"]):
        p["label"], p["name"], p["description"] = HOSTILE[i], HOSTILE[1 - i], HOSTILE[i]
    for c in d["cells"]:
        c["plugin"] = HOSTILE[old.index(c["plugin"])]
        c["unit_op"] = HOSTILE[0]
    d["metadata"]["host"], d["metadata"]["cpu_model"] = HOSTILE
    d["metadata"]["command"] = ["alloclab", "run"] + HOSTILE
    d["cells"][0]["runs"][0]["plugin_output"] = HOSTILE[1]
    d["cells"][1]["status"], d["cells"][1]["error"] = "error", HOSTILE[0]
    json.dump(d, open(os.path.join(work, "hostile.json"), "w"))


def make_histories(exe, synthetic, source, work):
    repo = os.path.join(work, "repo")
    os.makedirs(repo)
    fixture = os.path.join(source, "tests", "fixtures", "history", "plugin.c")
    config = os.path.join(repo, "config.h")

    def commit(text, message):
        open(config, "w").write(text)
        run(["git", "add", "."], repo)
        run(["git", "-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-qm", message], repo)

    run(["git", "init", "-q"], repo)
    shutil.copy(fixture, repo)
    commit("#define EXTRA_WORK 0\n#define SLACK_PERCENT 0\n", "first")
    commit("#define EXTRA_WORK 0\n#define SLACK_PERCENT 0\n/* a comment */\n", "a comment")
    commit("#define EXTRA_WORK 16\n#define SLACK_PERCENT 0\n", "more work <b>bold</b>")
    commit("#error broken\n", "broken")
    commit("#define EXTRA_WORK 16\n#define SLACK_PERCENT 0\n", "fixed")
    build = "cc -O2 -shared -fPIC -I%s plugin.c -o plugin.so" % os.path.join(source, "framework", "include")
    run([exe, "history", "run", "--repo", repo, "HEAD~4..HEAD", "--db", "h.db", "-o", "hist", "--build", build,
         "--plugin", "plugin.so", "--metrics", "instructions", "-w", "churn:ops=2000"], work, ok=(1,))
    template = sorted(glob.glob(os.path.join(work, "hist", "steps", "*", "instructions.json")))[0]
    # The long history's row is a workload name of 100 characters and no
    # space: its tables must still fit a 1280 px window.
    d = json.load(open(template))
    for c in d["cells"]:
        c["workload"] = "churn_" + "x" * 94
    long_template = os.path.join(work, "long-template.json")
    json.dump(d, open(long_template, "w"))
    run([synthetic, long_template, "long.db", "300", "100", "200", "201"], work)


# ---- what a page shows ----

TABLE = """(function (sel) {
  var t = document.querySelector(sel);
  if (!t) return null;
  return Array.from(t.tBodies[0].rows).filter(function (r) { return !r.hidden; }).map(function (r) {
    return Array.from(r.cells).map(function (c) {
      var a = c.querySelector('a');
      return {t: c.textContent.trim(), v: c.getAttribute('data-v'), href: a ? a.getAttribute('href') : null};
    });
  });
})(%s)"""


def table(page, selector):
    return page.evaluate(TABLE % json.dumps(selector))


def close(a, b, rel=1e-9):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def check_clean(page, name, width):
    for p in page.problems:
        fail("%s at %d px: %s" % (name, width, p))
    # (clientWidth: a phone's window grows innerWidth to what overflows it)
    wide = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    if wide[0] > wide[1]:
        fail("%s at %d px: the page is %d px wide, past the window's %d" % (name, width, wide[0], wide[1]))


def check_run_numbers(page, work):
    """Each cell's median and each paired ratio, against the results file."""
    d = json.load(open(os.path.join(work, "paired.json")))
    cells = d["cells"]
    rows = table(page, "table.cells")
    checked = 0
    for r in rows or []:
        href = r[-1]["href"] or ""
        i = int(href.rsplit("-", 1)[1].split(".")[0])
        values = [v["ns_per_op"] for p in cells[i]["runs"] for v in p["values"]]
        shown = float(r[2]["v"])
        if not close(shown, statistics.median(values)):
            fail("cell %d: the page shows a median of %r, its values' is %r" % (i, shown, statistics.median(values)))
        if r[0]["t"] != cells[i]["plugin"] or int(r[1]["t"]) != cells[i]["threads"]:
            fail("cell %d: its row names %s at %s threads" % (i, r[0]["t"], r[1]["t"]))
        checked += 1
    if checked != 6:
        fail("the churn table shows %d cells, the run has 6" % checked)
    rows = table(page, "table.comparison")
    for r in rows or []:
        plugin, threads = r[3]["t"], int(r[2]["t"])
        cell = [c for c in cells if c["plugin"] == plugin and c["threads"] == threads][0]
        ratios = [p["pair_ratio"] for p in cell["runs"]]
        expected = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        if not close(float(r[4]["v"]), expected, 1e-6) or abs(float(r[4]["t"]) - expected) > 0.0005:
            fail("%s at %d threads: ratio %s shown, the processes' geometric mean is %.6f" %
                 (plugin, threads, r[4]["t"], expected))
    if len(rows or []) != 4:
        fail("the comparison shows %d rows, the run has 4 paired cells besides the reference" % len(rows or []))
    cmp = json.load(open(os.path.join(work, "site-run", "data", "run", "comparison.json")))
    if not cmp:
        fail("no comparison JSON")


def check_sort_and_filter(page):
    page.evaluate("document.querySelector('table.comparison thead th:nth-child(5)').click()")
    up = [float(r[4]["v"]) for r in table(page, "table.comparison")]
    page.evaluate("document.querySelector('table.comparison thead th:nth-child(5)').click()")
    down = [float(r[4]["v"]) for r in table(page, "table.comparison")]
    if up != sorted(up) or down != sorted(up, reverse=True):
        fail("sorting by ratio gave %s, then %s" % (up, down))
    page.evaluate("""(function () {
      var bar = document.querySelector('table.comparison').closest('.table-wrap').previousElementSibling;
      var s = Array.from(bar.querySelectorAll('label')).filter(function (l) {
        return l.textContent.indexOf('plugin') === 0; })[0].querySelector('select');
      s.value = 'jemalloc';
      s.dispatchEvent(new Event('change'));
    })()""")
    rows = table(page, "table.comparison")
    count = page.evaluate("document.querySelector('table.comparison').closest('.table-wrap')"
                          ".previousElementSibling.querySelector('.count').textContent")
    if not rows or any(r[3]["t"] != "jemalloc" for r in rows) or count != "%d of 4 rows" % len(rows):
        fail("filtering by plugin left %s (%s)" % ([r[3]["t"] for r in rows or []], count))


def check_hostile(page):
    text = page.evaluate("document.body.innerText")
    for h in HOSTILE:
        if h not in text:
            fail("the hostile label %r is not shown as text" % h)
    made = page.evaluate("[document.scripts.length, document.querySelectorAll('img[onerror], [onerror]').length,"
                         " Array.from(document.images).filter(function (i) { return i.getAttribute('src') === 'x'; })"
                         ".length]")
    if made != [1, 0, 0]:
        fail("hostile labels made elements: scripts, onerror attributes, images of src x: %s" % made)
    if page.dialogs:
        fail("a script opened a dialog: %s" % page.dialogs)


def check_history(page, exe, work):
    shown = json.loads(run([exe, "history", "show", "--db", "h.db", "-f", "json"], work))
    rows = table(page, "table.latest")
    for s in shown["series"]:
        last = [p for p in s["points"] if p["level"] >= 0][-1]
        row = [r for r in rows or [] if r[0]["t"] == s["metric"] and r[1]["t"] == s["row"]]
        if not row:
            fail("no latest verdict of %s %s" % (s["metric"], s["row"]))
            continue
        r = row[0]
        if r[2]["t"] != last["commit"][:12] or not close(float(r[3]["v"]), last["level"], 1e-9) or \
                not close(float(r[5]["v"]), last["step"]["ratio"], 1e-9):
            fail("latest of %s: the page shows %s, history show %s" % (s["metric"], [c["t"] for c in r], last))
    changes = table(page, "table.changes")
    expected = [(p["index"], p["step"]["ratio"]) for s in shown["series"] for p in s["points"]
                if p.get("step", {}).get("change")]
    got = [(int(r[0]["t"]), float(r[4]["v"])) for r in changes or []]
    if len(got) != len(expected) or any(a[0] != b[0] or not close(a[1], b[1]) for a, b in zip(got, expected)):
        fail("change points shown %s, history show has %s" % (got, expected))


def check_tables_fit(page, name):
    """At 1280 px a history's tables fit the window: none scrolls in its frame."""
    wide = page.evaluate("Array.from(document.querySelectorAll('.table-wrap')).filter(function (w) {"
                         " return w.scrollWidth > w.clientWidth + 1; }).map(function (w) {"
                         " return w.querySelector('table').className; })")
    if wide:
        fail("%s at 1280 px: tables wider than the page: %s" % (name, wide))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    exe, synthetic, work = (os.path.abspath(a) for a in sys.argv[1:4])
    if cdp.chromium() is None:
        print("SKIP: chromium is not installed (Debian's chromium: ./quickstart.sh test installs it)")
        sys.exit(77)
    if cdp.websocket_module() is None:
        print("SKIP: python3-websocket is not installed (./quickstart.sh test installs it)")
        sys.exit(77)
    source = os.environ.get("ALLOCLAB_SOURCE_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    make_runs(exe, work)
    make_histories(exe, synthetic, source, work)
    for src, site in (("paired.json", "site-run"), ("hostile.json", "site-hostile"), ("h.db", "site-history"),
                      ("long.db", "site-long")):
        run([exe, "report", src, "-o", site], work)
    history_runs = sorted(glob.glob(os.path.join(work, "site-history", "run-*.html")))
    pages = [("site-run", "index.html"), ("site-hostile", "index.html"), ("site-history", "index.html"),
             ("site-history", "commit-2.html"), ("site-history", "commit-3.html"),
             ("site-history", os.path.basename(history_runs[-1])), ("site-long", "index.html"),
             ("site-long", "commits.html")]
    with cdp.Browser() as b:
        for site, name in pages:
            for width in (1280, 390):
                page = b.open("file://" + os.path.join(work, site, name), width=width)
                page.load_pictures()
                page.settle(0.5)
                check_clean(page, site + "/" + name, width)
                if width == 1280 and (site, name) == ("site-run", "index.html"):
                    check_run_numbers(page, work)
                    check_sort_and_filter(page)
                if (site, name) == ("site-hostile", "index.html"):
                    check_hostile(page)
                if width == 1280 and (site, name) == ("site-history", "index.html"):
                    check_history(page, exe, work)
                if width == 1280 and site in ("site-history", "site-long") and name != "commits.html":
                    check_tables_fit(page, site + "/" + name)
                print("%s/%s at %d px: %d problems" % (site, name, width, len(page.problems)), flush=True)
                page.close()
    if failures:
        print("%d failures" % len(failures))
        sys.exit(1)
    print("every page loaded clean at both widths; the numbers shown are the files'")


if __name__ == "__main__":
    main()
