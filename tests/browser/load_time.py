#!/usr/bin/python3.11
"""How long the report's pages take to load, and how big they are: a
benchmark that prints figures (docs/guides/report.md has the last ones).

  tests/browser/load_time.py BUILD_DIR WORK_DIR [--cells-only|--history-only]

In WORK_DIR (emptied first) it measures a real paired run of 500 cells (5
plugins side by side on churn at 50 sizes and 2 thread counts, 2
processes a row), makes a history of 1,000 commits without measuring
(tests/programs/synthetic_history.c, from a step of a small repository's
history run), reports both, and opens the run's page and the history's
index and list of every commit in headless Chromium five times at each
width: the median time from navigation to the load event and to the
script's tables being ready, the page's size, the site's size and files.
"""
import glob
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

SIZES = "+".join(str(16 + 8 * k) for k in range(50))


def run(args, cwd):
    t = time.time()
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(args), p.stderr))
    return time.time() - t


def folder_size(path):
    files = [f for f in glob.glob(os.path.join(path, "**"), recursive=True) if os.path.isfile(f)]
    return sum(os.path.getsize(f) for f in files), len(files)


def load_times(browser, url, width, times=5):
    loads, ready = [], []
    for _ in range(times):
        page = browser.open(url, width=width)
        nav = page.evaluate("(function () { var n = performance.getEntriesByType('navigation')[0];"
                            " return [n.loadEventEnd, n.domContentLoadedEventEnd]; })()")
        loads.append(nav[0])
        ready.append(nav[1])
        if page.problems:
            print("  problems: %s" % "; ".join(page.problems[:3]))
        page.close()
    return statistics.median(loads), statistics.median(ready)


def report_figures(browser, site, pages):
    size, nfiles = folder_size(site)
    print("  site: %.1f MiB in %d files" % (size / 2**20, nfiles))
    for name in pages:
        path = os.path.join(site, name)
        print("  %s: %.0f KiB" % (name, os.path.getsize(path) / 1024))
        for width in (1280, 390):
            load, ready = load_times(browser, "file://" + path, width)
            print("    at %4d px: load event %.0f ms, tables ready (DOMContentLoaded, deferred script run) %.0f ms"
                  % (width, load, ready))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    build, work = (os.path.abspath(a) for a in args)
    exe = os.path.join(build, "cli", "alloclab")
    source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    with cdp.Browser() as browser:
        if "--history-only" not in sys.argv:
            t = run([exe, "run", "--paired", "-p", "system", "-p", "jemalloc", "-p", "mimalloc", "-p", "tcmalloc", "-p",
                     "tbbmalloc", "-w", "churn:ops=2000,max_size=" + SIZES, "-t", "1,2", "-n", "2", "-v", "1", "-q",
                     "-o", "cells.json"], work)
            print("a paired run of 500 cells: measured in %.0f s" % t)
            t = run([exe, "report", "cells.json", "-o", "site-cells"], work)
            print("  alloclab report: %.1f s" % t)
            report_figures(browser, os.path.join(work, "site-cells"), ["index.html"])
        if "--cells-only" not in sys.argv:
            repo = os.path.join(work, "repo")
            os.makedirs(repo)
            shutil.copy(os.path.join(source, "tests", "fixtures", "history", "plugin.c"), repo)
            open(os.path.join(repo, "config.h"), "w").write("#define EXTRA_WORK 0\n#define SLACK_PERCENT 0\n")
            for cmd in (["git", "init", "-q"], ["git", "add", "."],
                        ["git", "-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-qm", "a"],
                        ["git", "-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-q",
                         "--allow-empty", "-m", "b"]):
                subprocess.run(cmd, cwd=repo, check=True)
            build_cmd = "cc -O2 -shared -fPIC -I%s plugin.c -o plugin.so" % os.path.join(source, "framework", "include")
            run([exe, "history", "run", "--repo", repo, "HEAD~1..HEAD", "--db", "step.db", "-o", "hist", "--build",
                 build_cmd, "--plugin", "plugin.so", "--metrics", "instructions", "-w", "churn:ops=2000"], work)
            template = glob.glob(os.path.join(work, "hist", "steps", "*", "instructions.json"))[0]
            changes = [str(k) for k in (120, 300, 301, 555, 800, 950)]
            t = run([os.path.join(build, "tests", "synthetic_history"), template, "long.db", "1000"] + changes, work)
            print("a history of 1000 commits (6 change points): made in %.0f s" % t)
            t = run([exe, "report", "long.db", "-o", "site-history"], work)
            print("  alloclab report: %.1f s" % t)
            report_figures(browser, os.path.join(work, "site-history"), ["index.html", "commits.html"])


if __name__ == "__main__":
    main()
