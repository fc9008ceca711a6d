"""genshi: generating XHTML from a Genshi markup template (a stream of
events filtered and serialised). Needs python3-genshi."""

from genshi.template import MarkupTemplate

ROWS = max(2, int(60 * SCALE))
TEMPLATE = MarkupTemplate("""<table xmlns:py="http://genshi.edgewall.org/">
<tr py:for="i, row in enumerate(rows)" class="${'odd' if i % 2 else 'even'}">
<td py:for="v in row">${'%.2f' % v}</td><td>${title}</td></tr></table>""")
DATA = [[i * 0.5 + j for j in range(10)] for i in range(ROWS)]


def bench(loops):
    for _ in range(loops):
        html = TEMPLATE.generate(rows=DATA, title="a table").render("xhtml")
        assert "<table" in html
