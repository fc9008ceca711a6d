"""html5lib: parsing an HTML document with html5lib's pure-Python
tokenizer and tree builder. Needs python3-html5lib."""

import html5lib as _html5lib

ITEMS = max(5, int(200 * SCALE))
DOC = ("<!DOCTYPE html><html><head><title>t</title></head><body>" +
       "".join('<div class="c%d"><p>Paragraph %d with <b>bold</b>, <a href="/x/%d">a link</a> &amp; an '
               "unclosed <i>tag<li>item %d" % (i % 5, i, i, i) for i in range(ITEMS)) + "</body></html>")


def bench(loops):
    for _ in range(loops):
        tree = _html5lib.parse(DOC)
        assert tree is not None
