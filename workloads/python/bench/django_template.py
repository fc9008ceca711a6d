"""django_template: rendering a Django template (loops, filters, nested
context) to a string, Django configured standalone. Needs python3-django."""

import django
from django.conf import settings

if not settings.configured:
    settings.configure(TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates"}])
    django.setup()

from django.template import Context, Engine

ROWS = max(2, int(150 * SCALE))
TEMPLATE = Engine().from_string(
    "<table>{% for row in rows %}<tr class=\"{% cycle 'odd' 'even' %}\">"
    "{% for cell in row %}<td>{{ cell|floatformat:2 }}</td>{% endfor %}"
    "<td>{{ forloop.counter }} {{ title|upper|truncatechars:12 }}</td></tr>{% endfor %}</table>"
)
CONTEXT = {"rows": [[i * 0.5 + j for j in range(10)] for i in range(ROWS)], "title": "a table of numbers"}


def bench(loops):
    for _ in range(loops):
        html = TEMPLATE.render(Context(CONTEXT))
        assert html.startswith("<table>")
