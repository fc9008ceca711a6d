"""docutils: reStructuredText to HTML with docutils: the parser's node
tree, transforms and the HTML writer. Needs python3-docutils."""

from docutils.core import publish_string

SECTIONS = max(1, int(12 * SCALE))
SOURCE = "Title\n=====\n\n" + "".join(
    "Section %d\n----------\n\nSome *emphasis*, **strong** text and ``literal`` words with a link_.\n\n"
    "- item one\n- item two with `interpreted text`\n\n.. _link: https://example.org/%d\n\n"
    "=====  =====\nA      B\n=====  =====\n%d      x\n=====  =====\n\n" % (i, i, i)
    for i in range(SECTIONS)
)


def bench(loops):
    for _ in range(loops):
        html = publish_string(SOURCE, writer_name="html", settings_overrides={"report_level": 5, "halt_level": 5})
        assert b"<h1" in html
