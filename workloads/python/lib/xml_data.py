"""The XML document the xml_etree benchmarks parse: a catalog of items with
attributes, text, nested tags and some non-ASCII text."""


def document(scale=1.0):
    items = max(5, int(400 * scale))
    parts = ['<?xml version="1.0" encoding="utf-8"?>\n<catalog version="2">']
    for i in range(items):
        tags = "".join("<tag>tag%d</tag>" % t for t in range(i % 4))
        parts.append('<item id="%d" kind="k%d"><name>Item number %d – café</name>'
                     '<price currency="EUR">%.2f</price><tags>%s</tags>'
                     '<description>A description of item %d, with &amp; entities &lt;here&gt;.</description></item>'
                     % (i, i % 7, i, i * 1.25, tags, i))
    parts.append("</catalog>")
    return "\n".join(parts).encode("utf-8")
