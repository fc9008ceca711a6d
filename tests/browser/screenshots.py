#!/usr/bin/python3.11
"""Screenshots of a report's pages at 1280 and 390 pixels wide, to look at
before calling a page done (docs/guides/report.md).

  tests/browser/screenshots.py [--pieces] SITE_DIR OUT_DIR [PAGE.html ...]

Every page given (default: index.html and, in a history's site, the last
commit's page and the last run's page) is opened in headless Chromium at
both widths and saved whole as OUT_DIR/PAGE-WIDTH.png (--pieces: also in
pieces of a screen and a half, PAGE-WIDTH-N.png, easier to look at); what
went wrong while it loaded (console errors, failed loads) is printed.
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402


def default_pages(site):
    pages = ["index.html"]
    for pattern in ("commit-*.html", "run-*.html"):
        found = sorted(glob.glob(os.path.join(site, pattern)))
        if found:
            pages.append(os.path.basename(found[-1]))
    return pages


def main():
    args = sys.argv[1:]
    pieces = "--pieces" in args
    args = [a for a in args if a != "--pieces"]
    if len(args) < 2:
        sys.exit(__doc__)
    site, out = os.path.abspath(args[0]), args[1]
    pages = args[2:] or default_pages(site)
    os.makedirs(out, exist_ok=True)
    bad = 0
    with cdp.Browser() as b:
        for name in pages:
            for width in (1280, 390):
                page = b.open("file://" + os.path.join(site, name), width=width, height=900)
                page.load_pictures()
                page.settle(1.0)
                shot = os.path.join(out, "%s-%d.png" % (os.path.splitext(name)[0], width))
                whole = page.screenshot(shot)
                for k in range(0, whole if pieces else 0, 1400):
                    page.screenshot(shot[:-4] + "-%d.png" % (k // 1400), top=k, height=1400)
                print("%s: %s" % (shot, "; ".join(page.problems) or "loaded clean"))
                bad += len(page.problems)
                page.close()
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
