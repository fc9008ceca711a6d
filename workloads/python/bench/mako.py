"""mako: rendering a Mako template with inheritance-free defs, loops and
filters. Needs python3-mako."""

from mako.template import Template

ROWS = max(2, int(150 * SCALE))
TEMPLATE = Template("""<%def name="cell(v)"><td>${'%.2f' % v}</td></%def>
<table>
% for i, row in enumerate(rows):
<tr class="${'odd' if i % 2 else 'even'}">
% for v in row:
${cell(v)}
% endfor
<td>${title | h}</td></tr>
% endfor
</table>
""")
ROWS_DATA = [[i * 0.5 + j for j in range(10)] for i in range(ROWS)]


def bench(loops):
    for _ in range(loops):
        html = TEMPLATE.render(rows=ROWS_DATA, title="a <table> of numbers")
        assert "&lt;table&gt;" in html
